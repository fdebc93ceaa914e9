"""Pool a gold set's judgements from the rankers' top passages, judged blind.

Depth-k pooling, as in TREC (Voorhees and Harman, "TREC: Experiment and
Evaluation in Information Retrieval", MIT Press 2005, ch. 2; after Spärck
Jones and van Rijsbergen, 1975): for every question, the union of each
ranker's top k passages is judged, so that every pooled ranker is scored on
judged passages rather than on unjudged ones counted as misses.

The judging sheet is blind: one JSON line per (question, passage) with the
question, the passage's document, lines, section and text, and ``"grade":
null`` to fill in; never the ranker that returned it, its rank or its score.
Records are shuffled with a fixed seed, so the order says nothing either.
Passages the evaluation already grades for a question are left out, so a
later pool (new rankers, new chunking) only asks for new ones. "Graded" is
decided by the evaluation's own mapping (``evaluation_qrels``: a judgement
grades every passage of its document whose span it overlaps, as
``ragcore eval`` maps it), never by an exact line span: a judgement merged
without the lines its passage shares with a neighbour still grades that
passage, and a passage no judgement overlaps is asked for wherever the sheet
is written.
The pool's settings go to a sidecar ``<sheet>.meta.json``.

    python scripts/pool_goldset.py pool  [--gold eval/demo.gold.json] [--rankers bm25,dense,hybrid]
                                         [--depth 10] [--seed 8] [--out eval/pool/sheet-DATE.jsonl]

A ranker is a retrieval mode (``bm25``, ``dense``, ``hybrid``, ...), optionally
with a fusion method other than the default (``hybrid:rrf``,
``hybrid:agreement``) and with multi-part questions split (``hybrid+parts``):
pooling the rankers a future default could resemble means a change of
default asks for few new judgements. Unanswerable questions (``"answer":
{"answerable": false}``) are not pooled: no passage can answer them.
    python scripts/pool_goldset.py merge SHEET [--gold eval/demo.gold.json]
    python scripts/pool_goldset.py words [--gold eval/demo.gold.json]
    python scripts/pool_goldset.py check [--gold eval/demo.gold.json]

``merge`` adds each graded record as a ``{"doc", "lines", "grade"}``
judgement and rewrites the "Pool:" sentence of the gold set's description
from the merged sheets. Passages of one document can share lines (PDF
passages carry their last sentences into the next one; a long line may be
split), and a judgement grades every passage it shares text with, so a
grade above 0 is recorded without the lines the passage shares with a
neighbour graded lower (or not judged) for that question; otherwise one
answering passage would lend its grade to the passage beside it. A passage
whose every line is shared keeps its full span (``check`` counts these).
``words`` recomputes each question's ``no_shared_words``: true when the
question's stemmed content words share nothing with any of its grade 2
quotes. ``check`` compares each merged sheet grade with the grade the
evaluation gives that passage, which differs where passages overlap.
Run from the repository root (the library under RAGCORE_HOME caches vectors).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.errors import RagcoreError  # noqa: E402
from ragcore.evaluation.goldset import (  # noqa: E402
    GoldSet,
    all_qrels,
    load_goldset,
    resolve_spans,
)
from ragcore.evaluation.run import Unit  # noqa: E402
from ragcore.records import Passage  # noqa: E402
from ragcore.text import content_words  # noqa: E402

if TYPE_CHECKING:
    from ragcore.corpus import Corpus

DEFAULT_GOLD = Path("eval/demo.gold.json")
DEFAULT_RANKERS = ("bm25", "dense", "hybrid")
DEFAULT_DEPTH = 10
DEFAULT_SEED = 8
CHUNKING = "auto"
POOL_MARK = "Pool:"

Search = Callable[[str, str, int], Sequence[Passage]]
Span = tuple[str, str, int, int]  # question id, document, first line, last line


@dataclass
class MergeReport:
    added: int = 0
    skipped: int = 0  # judged before
    trimmed: int = 0  # recorded without lines shared with a lower-graded neighbour
    untrimmed: int = 0  # every line shared: recorded whole
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ gold-set file


def read_raw(path: Path) -> dict[str, Any]:
    """The gold set as plain JSON, checked by the project's loader first."""
    load_goldset(path)
    return json.loads(path.read_text(encoding="utf-8"))


def dumps_goldset(data: dict[str, Any]) -> str:
    """The gold set as JSON with one judgement per line, so diffs stay readable."""
    out = ["{"]
    for key, value in data.items():
        if key != "questions":
            out.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    out.append('  "questions": [')
    questions = data["questions"]
    for qi, q in enumerate(questions):
        out.append("    {")
        for key, value in q.items():
            if key != "judgements":
                out.append(f"      {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
        judgements = [f"        {json.dumps(j, ensure_ascii=False)}" for j in q.get("judgements", [])]
        out.append('      "judgements": [' + ("" if judgements else "]"))
        if judgements:
            out.append(",\n".join(judgements))
            out.append("      ]")
        out.append("    }" + ("," if qi < len(questions) - 1 else ""))
    out.append("  ]")
    out.append("}")
    text = "\n".join(out) + "\n"
    if json.loads(text) != data:  # the layout must never change the content
        raise AssertionError("gold-set layout changed its content")
    return text


def write_raw(path: Path, data: dict[str, Any]) -> None:
    path.write_text(dumps_goldset(data), encoding="utf-8")
    load_goldset(path)


def judged_spans(question: dict[str, Any]) -> dict[tuple[str, int, int], int]:
    """(doc, first, last) -> grade of a question's line-span judgements."""
    return {
        (j["doc"], j["lines"][0], j["lines"][1]): j["grade"]
        for j in question.get("judgements", [])
        if "lines" in j
    }


# ------------------------------------------------------------------ shared words


def shares_no_words(question: str, quotes: Iterable[str]) -> bool:
    """True when the question's stemmed content words meet none of the quotes'."""
    words = content_words(question)
    return all(not (words & content_words(q)) for q in quotes)


def stamp_no_shared_words(data: dict[str, Any]) -> int:
    """Set every question's ``no_shared_words`` from its grade 2 quotes; returns how many are true."""
    count = 0
    for q in data["questions"]:
        quotes = [j["quote"] for j in q["judgements"] if "quote" in j and j["grade"] == 2]
        value = bool(quotes) and shares_no_words(q["text"], quotes)
        q["no_shared_words"] = value
        count += value
    return count


# ------------------------------------------------------------------ pool


def pool_records(
    data: dict[str, Any],
    search: Search,
    rankers: Sequence[str],
    depth: int,
    seed: int,
    graded: Mapping[str, Mapping[str, int]],
    unit: Unit = "passage",
) -> list[dict[str, Any]]:
    """The blind sheet's records: for each question, the union of every
    ranker's top ``depth`` passages that the evaluation does not grade for it,
    shuffled together with ``seed``. ``graded`` is the evaluation's mapping
    (``evaluation_qrels``: question id -> passage id, or document name when
    ``unit`` is "document", -> grade) under the chunking ``search`` ranks."""
    records = []
    for q in data["questions"]:
        if q.get("answer", {}).get("answerable") is False:
            continue  # nothing can answer it, so there is nothing to judge
        done = graded.get(q["id"], {})
        pooled: dict[tuple[str, int, int, int], Passage] = {}
        for mode in rankers:
            for p in search(q["text"], mode, depth)[:depth]:
                if (p.id if unit == "passage" else p.doc) not in done:
                    pooled.setdefault((p.doc, p.first_line, p.last_line, p.start), p)
        for p in (pooled[key] for key in sorted(pooled)):
            records.append(
                {
                    "question_id": q["id"],
                    "question": q["text"],
                    "doc": p.doc,
                    "lines": [p.first_line, p.last_line],
                    "section": p.label,
                    "passage": p.text,
                    "grade": None,
                }
            )
    random.Random(seed).shuffle(records)
    for n, record in enumerate(records, 1):
        record["item"] = n
    return [{"item": r.pop("item"), **r} for r in records]


def evaluation_qrels(gold: GoldSet, corpus: Corpus) -> dict[str, dict[str, int]]:
    """The grades ``ragcore eval`` scores with: question id -> passage id (or
    document name, for a document-unit gold set) -> grade, every judgement
    (quote, lines, whole document) mapped onto ``corpus``'s passages by span
    overlap (``resolve_spans`` then ``all_qrels``, as the evaluation does)."""
    return all_qrels(resolve_spans(gold, corpus.documents), corpus.passages, gold.unit)


@dataclass(frozen=True)
class RankerSpec:
    """A pooled ranker: ``MODE[:FUSION][+parts]``."""

    mode: str
    fusion: str | None = None  # None: the default fusion
    parts: bool = False  # multi-part questions ranked part by part, merged


def parse_ranker(text: str) -> RankerSpec:
    """``hybrid``, ``hybrid:rrf``, ``bm25+parts``, ``hybrid:agreement+parts``."""
    from ragcore.retrieval.protocols import FUSION_METHODS, MODES

    spec = text.strip()
    parts = spec.endswith("+parts")
    spec = spec.removesuffix("+parts")
    mode, _, method = spec.partition(":")
    if mode not in MODES:
        raise RagcoreError(f"ranker {text!r}: unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if method and method not in FUSION_METHODS:
        raise RagcoreError(
            f"ranker {text!r}: unknown fusion {method!r}; choose one of {', '.join(FUSION_METHODS)}"
        )
    if method and mode in ("bm25", "dense"):
        raise RagcoreError(f"ranker {text!r}: {mode} fuses nothing")
    return RankerSpec(mode, method or None, parts)


def pool_corpus(gold: GoldSet) -> Corpus:
    """The gold set's corpus under the pooling chunking, as the evaluation indexes it."""
    from ragcore.corpus import default_library, load_corpus

    return load_corpus(gold.corpus, CHUNKING, default_library())


def retriever_search(corpus: Corpus) -> tuple[Search, dict[str, Any]]:
    """Search function over ``corpus`` (the gold set's, ``pool_corpus``), taking
    a ranker spec (``parse_ranker``) as its mode, and index details."""
    from ragcore.corpus import default_library
    from ragcore.retrieval import FusionConfig, Retriever

    library = default_library()
    base = Retriever(corpus, vector_cache=library)
    base.ensure_dense()
    retrievers: dict[tuple[str | None, bool], Retriever] = {(None, base.split_parts): base}

    def retriever(spec: RankerSpec) -> Retriever:
        key = (spec.fusion, spec.parts or base.split_parts)
        if key not in retrievers:
            fusion = FusionConfig(method=spec.fusion) if spec.fusion else None
            made = Retriever(corpus, vector_cache=library, fusion_config=fusion, split_parts=key[1])
            made.ensure_dense()
            retrievers[key] = made
        return retrievers[key]

    def search(question: str, ranker: str, k: int) -> list[Passage]:
        spec = parse_ranker(ranker)
        hits = retriever(spec).search(question, mode=spec.mode, k=k).hits
        return [h.passage for h in hits]

    details = {
        "documents": len(corpus.documents),
        "passages": len(corpus.passages),
        "embedding_model": getattr(base.embedder, "model_id", None),
        "fusion": {"method": base.fusion.method, "k": base.fusion.k},
        "split_parts": base.split_parts,
    }
    return search, details


def write_sheet(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")


def read_sheet(path: Path) -> list[dict[str, Any]]:
    records = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise RagcoreError(f"{path}, line {number}: not valid JSON ({exc.msg})") from exc
    return records


def pool_folder(gold_path: Path, chosen: Path | None = None) -> Path:
    """Where a gold set's sheets live (beside it, in ``pool/``, unless
    ``--pool-dir`` chooses another folder): every command reads the merged
    sheets from here, wherever a new sheet is written. Sheets of a gold set
    over ../shared hold ../shared text, so they go to a folder outside the
    repository (``--pool-dir .scratch/pool``) and only their line-span
    judgements are committed."""
    return chosen if chosen is not None else gold_path.parent / "pool"


def meta_path(sheet: Path) -> Path:
    return sheet.with_name(sheet.stem + ".meta.json")


# ------------------------------------------------------------------ merge


def trim_span(
    first: int, last: int, grade: int, others: Iterable[tuple[int, int, int]]
) -> tuple[int, int] | None:
    """Lines ``first``..``last`` of a passage graded ``grade`` without the lines
    it shares with other passages (``others``: first, last, grade) graded lower;
    None when no line would be left. Shared lines sit at a passage's ends."""
    keep = set(range(first, last + 1))
    for o_first, o_last, o_grade in others:
        if o_grade < grade:
            keep -= set(range(max(first, o_first), min(last, o_last) + 1))
    return (min(keep), max(keep)) if keep else None


def merge_records(
    data: dict[str, Any],
    records: list[dict[str, Any]],
    doc_passages: Mapping[str, Sequence[tuple[int, int]]],
    judged: Mapping[Span, int] | None = None,
    blank: Callable[[str], Set[int]] | None = None,
) -> MergeReport:
    """Add the graded records as line-span judgements.

    ``doc_passages`` holds each document's passage line spans under the
    pooling chunking; ``judged`` the grades of earlier merged sheets
    (question, doc, first, last) -> grade; ``blank`` gives a document's empty
    lines (a trimmed span holding only those is recorded whole instead: the
    shared line held the passage's text). A record whose passage was judged
    before, or whose recorded span the question already has, is skipped.
    """
    allowed = {int(g) for g in data.get("grades", {})} or None
    by_id = {q["id"]: q for q in data["questions"]}
    problems = []
    for r in records:
        grade = r.get("grade")
        where = f"item {r.get('item')} ({r.get('question_id')}, {r.get('doc')} {r.get('lines')})"
        if r.get("question_id") not in by_id:
            problems.append(f"{where}: no such question in the gold set")
        elif not isinstance(grade, int) or isinstance(grade, bool) or grade < 0:
            problems.append(f"{where}: grade {grade!r} is not a whole number of at least 0")
        elif allowed is not None and grade not in allowed:
            problems.append(f"{where}: grade {grade} is not one of {sorted(allowed)}")
        elif r.get("doc") not in doc_passages:
            problems.append(f"{where}: the document is not in the corpus")
    if problems:
        shown = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise RagcoreError(f"{len(problems)} record(s) cannot be merged:\n  {shown}{more}")
    grades: dict[Span, int] = dict(judged or {})
    report = MergeReport()
    new = []
    for r in records:
        key = (r["question_id"], r["doc"], *r["lines"])
        if key in grades:
            report.skipped += 1
            if grades[key] != r["grade"]:
                report.notes.append(f"{key}: judged {grades[key]} before, the sheet says {r['grade']}; kept")
            continue
        grades[key] = r["grade"]
        new.append(r)
    for r in new:
        q = by_id[r["question_id"]]
        first, last = r["lines"]
        span = (first, last)
        if r["grade"] > 0:
            others = [
                (f, la, grades.get((q["id"], r["doc"], f, la), 0))
                for f, la in doc_passages[r["doc"]]
                if (f, la) != (first, last) and f <= last and la >= first
            ]
            trimmed = trim_span(first, last, r["grade"], others)
            if trimmed not in (None, span) and blank is not None:
                if set(range(trimmed[0], trimmed[1] + 1)) <= blank(r["doc"]):
                    trimmed = None  # only empty lines left: the text sat on a shared line
            if trimmed is None:
                report.untrimmed += 1
            else:
                report.trimmed += trimmed != span
                span = trimmed
        if (r["doc"], *span) in judged_spans(q):
            report.skipped += 1
            continue
        judgement = {"doc": r["doc"], "lines": list(span), "grade": r["grade"]}
        if r.get("part") is not None and r["grade"] == 2:
            judgement["part"] = r["part"]  # the part of a multi-part question it answers
        q["judgements"].append(judgement)
        report.added += 1
    return report


def pool_sentence(metas: list[dict[str, Any]], data: dict[str, Any]) -> str:
    """The description's "Pool:" sentence, from the merged sheets' settings and counts."""
    if not metas:
        return f"{POOL_MARK} not pooled yet."
    grades: Counter[int] = Counter()
    parts = []
    trimmed = 0
    for m in metas:
        merged = m["merged"]
        grades.update({int(g): n for g, n in merged["grades"].items()})
        trimmed += merged["trimmed"]
        parts.append(
            f"{m['sheet']} ({sum(merged['grades'].values())} pairs, {m['date']}: the union of the top {m['depth']} "
            f"of {', '.join(m['rankers'])} for every question, {m['chunking']} chunking)"
        )
    total = sum(grades.values())
    by_grade = ", ".join(f"{grades.get(g, 0)} graded {g}" for g in sorted({*grades, 0, 1, 2}, reverse=True))
    return (
        f"{POOL_MARK} {total} (question, passage) pairs judged ({by_grade}) from {'; '.join(parts)}, "
        "recorded as line-span judgements. Judging was blind: the sheet shows the question and the passage "
        "text only, in an order shuffled with a fixed seed, never the ranker, its rank or its score. "
        f"{trimmed} judgements above 0 leave out lines their passage shares with a lower-graded neighbour, "
        "so that a grade stays with the passage it was given to (scripts/pool_goldset.py)."
    )


def set_pool_sentence(data: dict[str, Any], sentence: str) -> None:
    description = data.get("description", "")
    head = description.split(POOL_MARK)[0].rstrip()
    data["description"] = f"{head} {sentence}".strip()


def merged_metas(folder: Path, gold_path: Path) -> list[dict[str, Any]]:
    """Settings of the sheets in ``folder`` merged into ``gold_path``."""
    metas = []
    for path in sorted(folder.glob("*.meta.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        if meta.get("merged") and Path(meta["gold"]).resolve() == gold_path.resolve():
            metas.append(meta)
    # In the order they were written: by date, then "sheet-DATE" before "sheet-DATE-2".
    return sorted(metas, key=lambda m: (m["date"], len(m["sheet"]), m["sheet"]))


def merged_grades(folder: Path, gold_path: Path) -> dict[Span, int]:
    """(question, doc, first, last) -> grade, over every sheet merged into ``gold_path``."""
    out = {}
    for meta in merged_metas(folder, gold_path):
        for r in read_sheet(folder / meta["sheet"]):
            out[(r["question_id"], r["doc"], *r["lines"])] = r["grade"]
    return out


def pool_passages(gold_path: Path) -> dict[str, list[tuple[int, int]]]:
    """Each document's passage line spans under the pooling chunking."""
    out: dict[str, list[tuple[int, int]]] = {}
    for p in pool_corpus(load_goldset(gold_path)).passages:
        out.setdefault(p.doc, []).append((p.first_line, p.last_line))
    return out


def blank_lines(gold_path: Path) -> Callable[[str], set[int]]:
    """A document's empty line numbers, its corpus read on the first call."""
    found: dict[str, set[int]] = {}

    def lines(doc: str) -> set[int]:
        if not found:
            for name, d in pool_corpus(load_goldset(gold_path)).documents.items():
                found[name] = {n for n, line in enumerate(d.text.split("\n"), 1) if not line.strip()}
        return found.get(doc, set())

    return lines


# ------------------------------------------------------------------ check


def effective_grades(gold_path: Path, lines_only: bool = False) -> dict[Span, int]:
    """(question, doc, first, last) -> the grade the evaluation gives each passage
    of the pooling chunking (auto), from all of the gold set's judgements, or
    from its line-span judgements only."""
    gold = load_goldset(gold_path)
    if lines_only:
        questions = tuple(
            dataclasses.replace(q, judgements=tuple(j for j in q.judgements if j.lines is not None))
            for q in gold.questions
        )
        gold = dataclasses.replace(gold, questions=questions)
    corpus = pool_corpus(gold)
    by_id = {p.id: p for p in corpus.passages}
    out = {}
    for qid, grades in evaluation_qrels(gold, corpus).items():
        for pid, grade in grades.items():
            p = by_id[pid]
            out[(qid, p.doc, p.first_line, p.last_line)] = grade
    return out


# ------------------------------------------------------------------ commands


def cmd_pool(args: argparse.Namespace) -> int:
    data = read_raw(args.gold)
    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    for ranker in rankers:
        parse_ranker(ranker)  # a misspelt ranker fails before the index is built
    gold = load_goldset(args.gold)
    corpus = pool_corpus(gold)
    search, details = retriever_search(corpus)
    graded = evaluation_qrels(gold, corpus)
    records = pool_records(data, search, rankers, args.depth, args.seed, graded, gold.unit)
    today = dt.date.today().isoformat()
    out = args.out
    if out is None:  # a second pool on the same day gets a numbered sheet
        out = pool_folder(args.gold, args.pool_dir) / f"sheet-{today}.jsonl"
        number = 2
        while out.exists():
            out = out.with_name(f"sheet-{today}-{number}.jsonl")
            number += 1
    if out.exists():
        print(f"pool: {out} exists; choose another --out", file=sys.stderr)
        return 1
    if not records:
        print("pool: every passage in the rankers' top results is judged already; no sheet written")
        return 0
    write_sheet(out, records)
    meta = {
        "sheet": out.name,
        "gold": str(args.gold),
        "date": today,
        "rankers": rankers,
        "depth": args.depth,
        "seed": args.seed,
        "chunking": CHUNKING,
        "index": details,
        "questions": len(data["questions"]),
        "records": len(records),
        "merged": None,
    }
    meta_path(out).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"pool: {len(records)} passages to judge for {len(data['questions'])} questions -> {out}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    data = read_raw(args.gold)
    records = read_sheet(args.sheet)
    meta_file = meta_path(args.sheet)
    if not meta_file.is_file():
        print(f"merge: {meta_file} is missing (written by the pool command)", file=sys.stderr)
        return 1
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    if meta.get("merged"):
        print(f"merge: {args.sheet} was merged on {meta['merged']['on']} already", file=sys.stderr)
        return 1
    folder = pool_folder(args.gold, args.pool_dir)
    if args.sheet.parent.resolve() != folder.resolve():
        print(
            f"merge: move {args.sheet} into {folder} first: the merge reads the grades and counts of "
            "the sheets merged before from there",
            file=sys.stderr,
        )
        return 1
    judged = merged_grades(folder, args.gold)
    report = merge_records(data, records, pool_passages(args.gold), judged, blank_lines(args.gold))
    meta["merged"] = {
        "added": report.added,
        "skipped": report.skipped,
        "trimmed": report.trimmed,
        "untrimmed": report.untrimmed,
        "grades": {str(g): n for g, n in sorted(Counter(r["grade"] for r in records).items())},
        "on": dt.date.today().isoformat(),
    }
    meta_file.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    set_pool_sentence(data, pool_sentence(merged_metas(folder, args.gold), data))
    write_raw(args.gold, data)
    print(
        f"merge: {report.added} judgements added ({report.trimmed} without lines shared with a lower-graded "
        f"neighbour, {report.untrimmed} whole although shared), {report.skipped} judged before"
    )
    for note in report.notes:
        print(f"  {note}")
    return 0


def cmd_words(args: argparse.Namespace) -> int:
    data = read_raw(args.gold)
    count = stamp_no_shared_words(data)
    write_raw(args.gold, data)
    print(f"words: {count} of {len(data['questions'])} questions share no content word with their evidence")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    effective = effective_grades(args.gold)
    from_lines = effective_grades(args.gold, lines_only=True)
    judged = merged_grades(pool_folder(args.gold, args.pool_dir), args.gold)
    changed: Counter[tuple[int, int]] = Counter()
    for key, grade in judged.items():
        now = effective.get(key)
        if now is not None and now != grade:
            changed[(grade, now)] += 1
            if args.verbose:
                print(f"  judged {key}: {grade}, scored {now}")
    lent = sorted(key for key, grade in from_lines.items() if grade > 0 and key not in judged)
    for key in lent if args.verbose else ():
        print(f"  not judged {key}: scored {from_lines[key]} through a neighbour's line-span judgement")
    print(
        f"check: {len(judged)} judged passages; the evaluation scores {sum(changed.values())} of them differently"
    )
    for (grade, now), n in sorted(changed.items()):
        print(f"  judged {grade}, scored {now}: {n}")
    print(
        f"check: {len(lent)} passages not judged for a question get a grade above 0 from a neighbour's lines"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pool", help="write a blind judging sheet")
    p.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    p.add_argument("--pool-dir", type=Path, help="folder of the gold set's sheets (default: pool/ beside it)")
    p.add_argument("--rankers", default=",".join(DEFAULT_RANKERS))
    p.add_argument("--depth", type=int, default=DEFAULT_DEPTH)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--out", type=Path)
    m = sub.add_parser("merge", help="add a judged sheet's grades to the gold set")
    m.add_argument("sheet", type=Path)
    m.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    m.add_argument("--pool-dir", type=Path, help="folder of the gold set's sheets (default: pool/ beside it)")
    w = sub.add_parser("words", help="recompute no_shared_words")
    w.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    c = sub.add_parser("check", help="judged grades against the grades the evaluation uses")
    c.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    c.add_argument("--pool-dir", type=Path, help="folder of the gold set's sheets (default: pool/ beside it)")
    c.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    commands = {"pool": cmd_pool, "merge": cmd_merge, "words": cmd_words, "check": cmd_check}
    try:
        return commands[args.command](args)
    except RagcoreError as exc:
        print(f"{args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
