"""Evaluation inputs: gold sets (docs/goldset-format.md) and BEIR folders.

A gold set judges evidence in the source documents, never passage ids, so
one gold set scores any chunking: ``resolve_spans`` turns every judgement
into a character span of its document, and ``qrels_for`` grades the passages
of the chunking in use by span overlap.

A BEIR folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``;
Thakur et al., "BEIR: A Heterogeneous Benchmark for Zero-shot Evaluation of
Information Retrieval Models", NeurIPS 2021) is the equivalent input judged
per document.
"""

from __future__ import annotations

import csv
import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import GoldSetError
from ..quotes import find_quote, quote_pattern  # noqa: F401  (re-exported: callers import them from here)
from ..records import Document, Passage
from .answer_key import AnswerKey, parse_answer_key
from .run import Unit

UNITS = ("passage", "document")
DEFAULT_TYPE = "untyped"
_JUDGEMENT_KEYS = frozenset({"doc", "grade", "quote", "lines", "note", "part"})
_MAX_LISTED_PROBLEMS = 25


@dataclass(frozen=True)
class Question:
    """What the runner needs of a question: its id, text and type label."""

    id: str
    text: str
    type: str = DEFAULT_TYPE


@dataclass(frozen=True)
class Judgement:
    """One piece of evidence: a quote, a line span, or (neither) the whole document."""

    doc: str
    grade: int
    quote: str | None = None
    lines: tuple[int, int] | None = None
    part: int | None = None  # which part of a multi-part question it answers


@dataclass(frozen=True)
class GoldQuestion(Question):
    judgements: tuple[Judgement, ...] = ()
    answer: AnswerKey | None = None


@dataclass(frozen=True)
class GoldSet:
    name: str
    description: str
    corpus: Path  # folder holding the documents, resolved against the gold-set file
    unit: Unit
    relevant_min_grade: int
    grades: dict[str, str]
    questions: tuple[GoldQuestion, ...]
    path: Path | None = None


@dataclass(frozen=True)
class JudgedSpan:
    """A judgement located in its document: characters [start, end) of ``doc``."""

    doc: str
    start: int
    end: int
    grade: int
    whole: bool = False  # the judgement named the whole document


@dataclass(frozen=True)
class ResolvedQuestion(Question):
    spans: tuple[JudgedSpan, ...] = ()


@dataclass(frozen=True)
class BeirSet:
    """A BEIR folder: every query (judged or not) and graded qrels per document."""

    path: Path
    questions: tuple[Question, ...]
    qrels: dict[str, dict[str, int]]  # query id -> corpus _id -> grade
    doc_ids: frozenset[str]
    unit: Unit = "document"
    relevant_min_grade: int = 1


# ------------------------------------------------------------------ loading


def load_goldset(path: Path | str) -> GoldSet:
    """Read and validate a gold-set file; raise GoldSetError naming the problem.

    Only the structure is checked here; ``resolve_spans`` locates the evidence
    in the documents.
    """
    path = Path(path)
    data = _read_object(path)
    where = f"gold set {path.name}"
    corpus_dir = _corpus_dir(data, path, where)
    unit = data.get("unit", "passage")
    if unit not in UNITS:
        raise GoldSetError(f"{where}: 'unit' must be 'passage' or 'document', not {unit!r}")
    min_grade = data.get("relevant_min_grade", 1)
    if not _is_int(min_grade) or min_grade < 1:
        raise GoldSetError(
            f"{where}: 'relevant_min_grade' must be a whole number of at least 1, not {min_grade!r}"
        )
    grades = data.get("grades", {})
    if not isinstance(grades, dict) or not all(
        _is_int_text(k) and isinstance(v, str) for k, v in grades.items()
    ):
        raise GoldSetError(f"{where}: 'grades' must map whole-number grades (as text) to their meaning")
    return GoldSet(
        name=str(data.get("name", path.stem)),
        description=str(data.get("description", "")),
        corpus=corpus_dir,
        unit=unit,
        relevant_min_grade=int(min_grade),
        grades={str(k): v for k, v in grades.items()},
        questions=_questions(data.get("questions"), where, grades),
        path=path,
    )


def _read_object(path: Path) -> dict:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GoldSetError(f"gold set {path}: cannot be read ({exc.strerror or exc})") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise GoldSetError(
            f"gold set {path}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from exc
    if not isinstance(data, dict):
        raise GoldSetError(f"gold set {path.name}: the file must hold one JSON object")
    return data


def _corpus_dir(data: dict, path: Path, where: str) -> Path:
    corpus = data.get("corpus")
    if not isinstance(corpus, str) or not corpus.strip():
        raise GoldSetError(
            f"{where}: 'corpus' must name the documents' folder, relative to the gold-set file"
        )
    corpus_dir = (path.parent / corpus).resolve()
    if not corpus_dir.is_dir():
        raise GoldSetError(f"{where}: corpus folder {corpus!r} (resolved to {corpus_dir}) does not exist")
    return corpus_dir


def _questions(questions_raw: object, where: str, grades: dict) -> tuple[GoldQuestion, ...]:
    if not isinstance(questions_raw, list) or not questions_raw:
        raise GoldSetError(f"{where}: 'questions' must be a non-empty list")
    seen: set[str] = set()
    questions = []
    for number, q in enumerate(questions_raw, 1):
        question = _parse_question(q, number, where, grades)
        if question.id in seen:
            raise GoldSetError(f"{where}: question id {question.id!r} is used twice")
        seen.add(question.id)
        questions.append(question)
    return tuple(questions)


def _parse_question(q: object, number: int, where: str, grades: dict) -> GoldQuestion:
    if not isinstance(q, dict):
        raise GoldSetError(f"{where}: question {number} must be a JSON object")
    qid = q.get("id")
    if not isinstance(qid, str) or not qid.strip():
        raise GoldSetError(f"{where}: question {number} needs a non-empty text 'id'")
    label = f"{where}, question {qid}"
    text = q.get("text")
    if not isinstance(text, str) or not text.strip():
        raise GoldSetError(f"{label}: 'text' must be the question as a non-empty string")
    qtype = q.get("type", DEFAULT_TYPE)
    if not isinstance(qtype, str) or not qtype.strip():
        raise GoldSetError(f"{label}: 'type' must be a non-empty label when given")
    judgements_raw = q.get("judgements")
    if not isinstance(judgements_raw, list):
        raise GoldSetError(f"{label}: 'judgements' must be a list (it may be empty)")
    judgements = tuple(_parse_judgement(j, i, label, grades) for i, j in enumerate(judgements_raw, 1))
    answer = parse_answer_key(q["answer"], label) if "answer" in q else None
    return GoldQuestion(id=qid, text=text, type=qtype.strip(), judgements=judgements, answer=answer)


def _parse_judgement(j: object, number: int, label: str, grades: dict) -> Judgement:
    if not isinstance(j, dict):
        raise GoldSetError(f"{label}: judgement {number} must be a JSON object")
    doc = j.get("doc")
    if not isinstance(doc, str) or not doc.strip():
        raise GoldSetError(
            f"{label}: judgement {number} needs 'doc', the document's path in the corpus folder"
        )
    where = f"{label}, document {doc}"
    unknown = sorted(set(j) - _JUDGEMENT_KEYS)
    if unknown:
        # A misspelt "lines" would silently judge the whole document.
        raise GoldSetError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; use 'quote', 'lines' or neither"
        )
    grade = j.get("grade")
    if not _is_int(grade) or grade < 0:
        raise GoldSetError(f"{where}: 'grade' must be a whole number of at least 0, not {grade!r}")
    if grades and str(grade) not in grades:
        raise GoldSetError(
            f"{where}: grade {grade} is not one of the gold set's grades ({', '.join(grades)})"
        )
    quote = j.get("quote")
    lines = j.get("lines")
    if quote is not None and lines is not None:
        raise GoldSetError(f"{where}: give 'quote' or 'lines', not both")
    if quote is not None and (not isinstance(quote, str) or not quote.strip()):
        raise GoldSetError(f"{where}: 'quote' must be non-empty text")
    span = None
    if lines is not None:
        if not (isinstance(lines, list) and len(lines) == 2 and all(_is_int(n) for n in lines)):
            raise GoldSetError(f"{where}: 'lines' must be [first, last], two whole numbers")
        if not 1 <= lines[0] <= lines[1]:
            raise GoldSetError(f"{where}: 'lines' {lines} must satisfy 1 <= first <= last")
        span = (int(lines[0]), int(lines[1]))
    part = j.get("part")
    if part is not None and (not _is_int(part) or part < 1):
        raise GoldSetError(f"{where}: 'part' must be a whole number of at least 1, not {part!r}")
    return Judgement(doc=_clean_doc(doc), grade=int(grade), quote=quote, lines=span, part=part)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_int_text(value: object) -> bool:
    return isinstance(value, str) and re.fullmatch(r"-?\d+", value) is not None


def _clean_doc(doc: str) -> str:
    doc = doc.strip().replace("\\", "/")
    while doc.startswith("./"):
        doc = doc[2:]
    return doc


# ------------------------------------------------------------------ spans


def resolve_spans(gold: GoldSet, documents: Mapping[str, Document]) -> tuple[ResolvedQuestion, ...]:
    """Locate every judgement of ``gold`` in ``documents`` (name -> Document).

    Quotes must occur exactly once; line spans must lie inside the document;
    a judgement with neither covers the whole text. All problems are gathered
    and raised together as one GoldSetError, one line per problem, each naming
    the question and the document.
    """
    problems: list[str] = []
    resolved = []
    where = f"gold set {gold.path.name if gold.path else gold.name}"
    for q in gold.questions:
        spans = []
        for j in q.judgements:
            label = f"question {q.id}, document {j.doc}"
            doc = documents.get(j.doc)
            if doc is None:
                close = difflib.get_close_matches(j.doc, list(documents), n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                problems.append(f"{label}: no such document in the corpus folder{hint}")
                continue
            try:
                spans.append(_span_of(j, doc, label))
            except GoldSetError as exc:
                problems.append(str(exc))
        resolved.append(ResolvedQuestion(id=q.id, text=q.text, type=q.type, spans=tuple(spans)))
    if problems:
        shown = problems[:_MAX_LISTED_PROBLEMS]
        more = len(problems) - len(shown)
        tail = f"\n  ... and {more} more" if more else ""
        raise GoldSetError(
            f"{where}: {len(problems)} judgement(s) cannot be located:\n  " + "\n  ".join(shown) + tail
        )
    return tuple(resolved)


def _span_of(j: Judgement, doc: Document, label: str) -> JudgedSpan:
    if j.quote is not None:
        found = find_quote(j.quote, doc.text)
        short = j.quote if len(j.quote) <= 60 else j.quote[:57] + "..."
        if not found:
            raise GoldSetError(f"{label}: quote {short!r} is not in the document")
        if len(found) > 1:
            places = ", ".join(_lines_text(doc, s, e) for s, e in found)
            raise GoldSetError(
                f"{label}: quote {short!r} occurs {len(found)} times (at {places}); quote more words so it is unique"
            )
        start, end = found[0]
        return JudgedSpan(j.doc, start, end, j.grade)
    if j.lines is not None:
        first, last = j.lines
        if last > doc.line_count:
            raise GoldSetError(
                f"{label}: lines {first}-{last} run past the document's {doc.line_count} lines"
            )
        start, end = doc.line_span(first, last)
        return JudgedSpan(j.doc, start, end, j.grade)
    return JudgedSpan(j.doc, 0, len(doc.text), j.grade, whole=True)


def _lines_text(doc: Document, start: int, end: int) -> str:
    first = doc.line_at(start)
    last = doc.line_at(max(start, end - 1))
    return f"line {first}" if first == last else f"lines {first}-{last}"


def overlaps(span: JudgedSpan, start: int, end: int) -> bool:
    """Whether a judged span and the passage span [start, end) share text.

    Half-open spans overlap when each starts before the other ends. An empty
    span (an empty judged line) counts as overlapping the passage whose range
    holds its position, so judging a blank line is not silently lost.
    """
    if span.whole:
        return True
    if span.start == span.end:
        return start <= span.start < end or span.start == start
    return span.start < end and start < span.end


def qrels_for(
    question: ResolvedQuestion, passages: Iterable[Passage], unit: str = "passage"
) -> dict[str, int]:
    """Graded judgements of ``question`` under the chunking that made ``passages``.

    ``unit == "passage"``: passage id -> the highest grade among the question's
    judgements in the same document whose span overlaps the passage; passages
    no judgement overlaps are left out (unjudged, so not relevant). Grade 0 is
    kept: judged and found not relevant.
    ``unit == "document"``: document name -> the highest grade of its judgements.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be 'passage' or 'document', not {unit!r}")
    by_doc: dict[str, list[JudgedSpan]] = {}
    for span in question.spans:
        by_doc.setdefault(span.doc, []).append(span)
    if unit == "document":
        return {doc: max(s.grade for s in spans) for doc, spans in by_doc.items()}
    qrels: dict[str, int] = {}
    for p in passages:
        spans = by_doc.get(p.doc)
        if not spans:
            continue
        grades = [s.grade for s in spans if overlaps(s, p.start, p.end)]
        if grades:
            qrels[p.id] = max(grades)
    return qrels


def passages_by_doc(passages: Iterable[Passage]) -> dict[str, list[Passage]]:
    """Group passages by document (helps callers that grade many questions)."""
    out: dict[str, list[Passage]] = {}
    for p in passages:
        out.setdefault(p.doc, []).append(p)
    return out


def all_qrels(
    questions: Sequence[ResolvedQuestion],
    passages: Sequence[Passage],
    unit: str = "passage",
) -> dict[str, dict[str, int]]:
    """``qrels_for`` for every question, looking only at the judged documents' passages."""
    grouped = passages_by_doc(passages)
    out = {}
    for q in questions:
        judged = [p for doc in {s.doc for s in q.spans} for p in grouped.get(doc, ())]
        out[q.id] = qrels_for(q, judged, unit)
    return out


# ------------------------------------------------------------------ BEIR


def load_beir(folder: Path | str, split: str = "test") -> BeirSet:
    """Read a BEIR folder: every query, and qrels/<split>.tsv as whole-document
    judgements (corpus ``_id`` -> score as grade). Errors name the file, row,
    question and document."""
    folder = Path(folder)
    corpus_file = folder / "corpus.jsonl"
    queries_file = folder / "queries.jsonl"
    qrels_file = folder / "qrels" / f"{split}.tsv"
    for f in (corpus_file, queries_file, qrels_file):
        if not f.is_file():
            raise GoldSetError(f"BEIR folder {folder}: {f.relative_to(folder)} is missing")

    doc_ids = frozenset(_jsonl_ids(corpus_file))
    questions = []
    seen: set[str] = set()
    for number, record in enumerate(_jsonl(queries_file), 1):
        qid = str(record.get("_id", "")).strip()
        text = record.get("text")
        if not qid or not isinstance(text, str):
            raise GoldSetError(f"{queries_file}: record {number} needs '_id' and 'text'")
        if qid in seen:
            raise GoldSetError(f"{queries_file}: query id {qid!r} is used twice")
        seen.add(qid)
        qtype = (
            record.get("type") if isinstance(record.get("type"), str) and record.get("type") else DEFAULT_TYPE
        )
        questions.append(Question(id=qid, text=text, type=qtype))

    qrels: dict[str, dict[str, int]] = {}
    with qrels_file.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    # The usual header row ("query-id corpus-id score") has no numeric score.
    first = 1 if rows and len(rows[0]) >= 3 and not _is_int_text(rows[0][2].strip()) else 0
    for row_number, row in enumerate(rows[first:], first + 1):
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) < 3:
            raise GoldSetError(f"{qrels_file}, row {row_number}: expected query-id, corpus-id and score")
        qid, doc, score = row[0].strip(), row[1].strip(), row[2].strip()
        label = f"{qrels_file.name}, row {row_number}, question {qid}, document {doc}"
        if qid not in seen:
            raise GoldSetError(f"{label}: the question is not in queries.jsonl")
        if doc not in doc_ids:
            raise GoldSetError(f"{label}: the document is not in corpus.jsonl")
        if not _is_int_text(score):
            raise GoldSetError(f"{label}: score {score!r} is not a whole number")
        grade = int(score)
        previous = qrels.setdefault(qid, {}).get(doc)
        if previous is not None and previous != grade:
            raise GoldSetError(f"{label}: judged twice, with grades {previous} and {grade}")
        qrels[qid][doc] = grade
    return BeirSet(path=folder, questions=tuple(questions), qrels=qrels, doc_ids=doc_ids)


def _jsonl(path: Path) -> Iterable[dict]:
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise GoldSetError(f"{path}, line {number}: not valid JSON ({exc.msg})") from exc
            if not isinstance(record, dict):
                raise GoldSetError(f"{path}, line {number}: expected a JSON object")
            yield record


def _jsonl_ids(path: Path) -> Iterable[str]:
    for number, record in enumerate(_jsonl(path), 1):
        doc_id = str(record.get("_id", "")).strip()
        if not doc_id:
            raise GoldSetError(f"{path}: record {number} has no '_id'")
        yield doc_id
