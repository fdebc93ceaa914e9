"""The demo gold set (eval/demo.gold.json) against the demo corpus, its pool and its stored run."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from ragcore.corpus import document_files
from ragcore.documents import load_path
from ragcore.evaluation.answers import normalise
from ragcore.evaluation.goldset import find_quote, load_goldset, resolve_spans
from ragcore.text import content_words

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "eval" / "demo.gold.json"
POOL = ROOT / "eval" / "pool"
RUN = ROOT / "eval" / "results" / "demo.json"
RETRIEVAL_TYPES = {"fact", "money", "conflict", "paraphrase", "synthesis", "risk"}
ANSWER_TYPES = {"identifier", "multi-part", "table", "unanswerable"}
TYPES = RETRIEVAL_TYPES | ANSWER_TYPES
ASK_EXAMPLES = (
    "Is our pricing consistent?",
    "What uptime does the SLA guarantee, and what credits apply?",
    "What are the risks of the Northgate Health deal?",
    "Can a customer get a refund after cancelling an annual plan?",
)
POOLED_RANKERS = ("bm25", "dense", "hybrid")
SHEET_KEYS = {"item", "question_id", "question", "doc", "lines", "section", "passage", "grade"}


@pytest.fixture(scope="module")
def gold():
    return load_goldset(GOLD)


@pytest.fixture(scope="module")
def raw():
    return json.loads(GOLD.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def documents(gold):
    return {name: load_path(path, name) for name, path in document_files(gold.corpus)}


@pytest.fixture(scope="module")
def pool_script():
    spec = importlib.util.spec_from_file_location("pool_goldset", ROOT / "scripts" / "pool_goldset.py")
    module = importlib.util.module_from_spec(spec)
    # Dataclasses look their module up in sys.modules while the module runs.
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_gold_set_names_the_demo_corpus(gold, documents):
    assert gold.corpus == (ROOT / "corpus" / "demo").resolve()
    assert len(documents) == 27
    assert gold.unit == "passage"


def test_every_quote_occurs_exactly_once(gold, documents):
    quotes = [(q.id, j) for q in gold.questions for j in q.judgements if j.quote is not None]
    assert len(quotes) >= len(gold.questions)
    for qid, j in quotes:
        found = find_quote(j.quote, documents[j.doc].text)
        assert len(found) == 1, f"{qid}: {j.doc}: {j.quote!r} found {len(found)} times"


def test_every_judged_span_lies_inside_its_document(gold, documents):
    spans = [(q.id, j) for q in gold.questions for j in q.judgements if j.lines is not None]
    assert spans, "the pooled judgements are missing"
    for qid, j in spans:
        first, last = j.lines
        assert 1 <= first <= last <= documents[j.doc].line_count, f"{qid}: {j.doc} lines {j.lines}"
    # The loader's own check agrees: nothing is left unlocated.
    resolved = resolve_spans(gold, documents)
    assert sum(len(q.spans) for q in resolved) == sum(len(q.judgements) for q in gold.questions)


def test_type_counts(gold):
    counts = Counter(q.type for q in gold.questions)
    assert sum(counts.values()) >= 60
    assert set(counts) == TYPES
    assert min(counts.values()) >= 8, counts


def test_every_question_quotes_its_answer(gold):
    for q in gold.questions:
        if q.type == "unanswerable":
            assert not q.judgements, f"{q.id}: an unanswerable question has no evidence"
            continue
        assert any(j.quote is not None and j.grade == 2 for j in q.judgements), q.id


def test_a_third_share_no_content_word_with_their_evidence(gold, raw):
    stored = {q["id"]: q["no_shared_words"] for q in raw["questions"]}
    recomputed = {}
    # The paraphrase claim is about the retrieval questions; an unanswerable one has no evidence.
    for q in (q for q in gold.questions if q.type in RETRIEVAL_TYPES):
        words = content_words(q.text)
        quotes = [j.quote for j in q.judgements if j.quote is not None and j.grade == 2]
        recomputed[q.id] = all(not (words & content_words(quote)) for quote in quotes)
    assert recomputed == {qid: stored[qid] for qid in recomputed}, (
        "no_shared_words is stale: run scripts/pool_goldset.py words"
    )
    assert 3 * sum(recomputed.values()) >= len(recomputed)
    paraphrase = [q.id for q in gold.questions if q.type == "paraphrase"]
    assert sum(recomputed[qid] for qid in paraphrase) > len(paraphrase) / 2


def test_pooled_judgements_come_from_blind_sheets(gold, raw):
    metas = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(POOL.glob("*.meta.json"))]
    merged = [m for m in metas if m.get("merged")]
    assert merged, "no judging sheet has been merged"
    graded: dict[tuple[str, str], list[tuple[int, int, int]]] = {}
    for meta in merged:
        records = [
            json.loads(line) for line in (POOL / meta["sheet"]).read_text(encoding="utf-8").splitlines()
        ]
        assert len(records) == meta["records"]
        for r in records:
            assert set(r) == SHEET_KEYS, f"sheet record {r.get('item')} carries {set(r) - SHEET_KEYS}"
            assert r["grade"] in (0, 1, 2)
            graded.setdefault((r["question_id"], r["doc"]), []).append((*r["lines"], r["grade"]))
    pooled = 0
    for q in gold.questions:
        for j in q.judgements:
            if j.lines is None:
                continue
            pooled += 1
            # Recorded with the grade it was given, inside the passage it was given to.
            assert any(
                f <= j.lines[0] and j.lines[1] <= la and g == j.grade
                for f, la, g in graded.get((q.id, j.doc), [])
            ), f"{q.id}: {j.doc} lines {j.lines} grade {j.grade} is not in a merged sheet"
    assert pooled == sum(m["merged"]["added"] for m in merged)
    # Every graded record counts as judged, also one whose span the question had already.
    judged = sum(len(spans) for spans in graded.values())
    assert judged >= pooled
    assert f"Pool: {judged} (question, passage) pairs judged" in raw["description"]


def test_gold_file_keeps_its_layout(raw, pool_script):
    assert pool_script.dumps_goldset(raw) == GOLD.read_text(encoding="utf-8")


def test_trim_span_leaves_out_lines_shared_with_lower_grades(pool_script):
    trim = pool_script.trim_span
    assert trim(10, 20, 2, [(5, 11, 0), (19, 25, 2)]) == (12, 20)
    assert trim(10, 20, 1, [(5, 11, 1), (19, 25, 0)]) == (10, 18)
    assert trim(10, 20, 2, []) == (10, 20)
    assert trim(81, 81, 1, [(77, 81, 0)]) is None


def test_stored_run_scores_this_gold_set(gold):
    assert RUN.is_file(), (
        "eval/results/demo.json is missing: run python -m ragcore eval --gold eval/demo.gold.json"
    )
    run = json.loads(RUN.read_text(encoding="utf-8"))
    settings = run["settings"]
    assert Path(settings["gold"]).name == GOLD.name
    assert settings["name"] == gold.name == "demo"
    assert set(POOLED_RANKERS) <= set(run["rankers"])
    assert run["questions"]["total"] == len(gold.questions)
    relevant = {q.id for q in gold.questions if any(j.grade >= gold.relevant_min_grade for j in q.judgements)}
    assert set(run["per_question"]) == relevant  # questions with nothing relevant are dropped
    assert run["questions"]["by_type"] == dict(Counter(q.type for q in gold.questions if q.id in relevant))
    unanswerable = {q.id for q in gold.questions if q.type == "unanswerable"}
    for qid, result in run["per_question"].items():
        if qid in unanswerable:
            continue  # nothing can be relevant, so nothing is pooled
        for ranker in POOLED_RANKERS:
            unjudged = [item for item in result["top10"][ranker] if item["grade"] is None]
            assert not unjudged, f"{qid}: {ranker} ranks unjudged passages in its top 10; extend the pool"


# ------------------------------------------------------------------ answer facts


def test_every_question_has_an_answer_key(gold):
    for q in gold.questions:
        assert q.answer is not None, f"{q.id} has no answer key"
        assert q.answer.answerable == (q.type != "unanswerable"), q.id
        if q.answer.answerable:
            assert q.answer.facts, q.id


def test_answer_type_counts(gold):
    counts = Counter(q.type for q in gold.questions)
    assert counts["unanswerable"] >= 12 and counts["multi-part"] >= 12, counts
    assert counts["table"] >= 10 and counts["identifier"] >= 10, counts
    assert sum(1 for q in gold.questions if q.answer and q.answer.conflict) >= 8


def test_facts_are_verbatim_parts_of_grade_2_quotes_and_not_question_words(gold):
    for q in gold.questions:
        quotes = [normalise(j.quote) for j in q.judgements if j.grade == 2 and j.quote is not None]
        for fact in q.answer.facts:
            for alternative in fact:
                assert any(normalise(alternative) in quote for quote in quotes), f"{q.id}: {alternative!r}"
                shared = content_words(alternative) & content_words(q.text)
                assert not shared, f"{q.id}: fact {alternative!r} repeats {shared} of the question"


def test_multi_part_quotes_say_which_part_they_answer(gold):
    for q in (q for q in gold.questions if q.type == "multi-part"):
        parts = {j.part for j in q.judgements if j.quote is not None}
        assert None not in parts, q.id
        assert parts == set(range(1, max(parts) + 1)) and (len(parts) >= 2 or len(q.answer.facts) >= 2), q.id


def test_the_ask_page_examples_are_in_the_gold_set(gold):
    texts = {q.text: q for q in gold.questions}
    for example in ASK_EXAMPLES:
        assert example in texts, example
        assert texts[example].answer.facts, example


def test_unanswerable_questions_name_nothing_the_documents_hold(gold, documents):
    """A cheap absence check: no document holds the question's rarest content
    words together (the questions were also checked by reading)."""
    text = "\n".join(d.text for d in documents.values())
    corpus_words = content_words(text)
    for q in (q for q in gold.questions if q.type == "unanswerable"):
        missing = content_words(q.text) - corpus_words
        assert missing, f"{q.id}: every content word of the question occurs in the corpus; check it by hand"


# ------------------------------------------------------------------ pooling


def test_parse_ranker_reads_mode_fusion_and_parts(pool_script):
    parse = pool_script.parse_ranker
    assert parse("hybrid") == pool_script.RankerSpec("hybrid", None, False)
    assert parse("hybrid:rrf+parts") == pool_script.RankerSpec("hybrid", "rrf", True)
    assert parse(" bm25+parts ") == pool_script.RankerSpec("bm25", None, True)
    for wrong in ("hybrid:borda", "bm26", "dense:rrf"):
        with pytest.raises(pool_script.RagcoreError, match="ranker"):
            parse(wrong)


def test_pool_asks_only_unjudged_passages_of_answerable_questions(pool_script):
    from ragcore.records import Passage

    def passage(doc, first, last):
        return Passage(
            doc=doc, index=first, first_line=first, last_line=last, start=0, end=1, label="s", text="t"
        )

    data = {
        "questions": [
            {"id": "a", "text": "A?", "judgements": [{"doc": "x.md", "lines": [1, 3], "grade": 0}]},
            {"id": "u", "text": "U?", "judgements": [], "answer": {"answerable": False}},
        ]
    }
    ranked = {"bm25": [passage("x.md", 1, 3), passage("x.md", 4, 6)], "dense": [passage("y.md", 1, 2)]}

    def search(question, ranker, k):
        return ranked[ranker]

    graded = {"a": {ranked["bm25"][0].id: 0, ranked["dense"][0].id: 1}}
    records = pool_script.pool_records(data, search, ["bm25", "dense"], 10, 8, graded)
    assert [(r["question_id"], r["doc"], r["lines"]) for r in records] == [("a", "x.md", [4, 6])]
    assert set(records[0]) == SHEET_KEYS and records[0]["grade"] is None
    by_doc = pool_script.pool_records(data, search, ["bm25", "dense"], 10, 8, {"a": {"x.md": 0}}, "document")
    assert [(r["doc"], r["lines"]) for r in by_doc] == [("y.md", [1, 2])]


def test_pool_leaves_out_exactly_what_the_evaluation_grades(pool_script, tmp_path):
    """A passage counts as judged when ``eval`` gives it a grade, not when a
    judgement names its exact lines: a span merged without the line its passage
    shares with a lower-graded neighbour, and a quote, still grade it. The old
    check (exact line spans) asked for a.md 1-5 and b.md 1-2 again."""
    from ragcore.evaluation.orchestration import run_goldset
    from ragcore.evaluation.rankers import retriever_rankers

    from .helpers import cut, make_doc
    from .test_command import FakeCorpus
    from .test_runner import FakeRetriever

    a = make_doc(
        "a.md", ["alpha fee one", "alpha fee two", "alpha three", "alpha four", "shared five"] + ["beta"] * 3
    )
    b = make_doc("b.md", ["gamma fee quote", "gamma two", "delta fee three", "delta four"])
    passages = cut(a, [(1, 5), (5, 8)]) + cut(b, [(1, 2), (3, 4)])  # a.md's passages share line 5, as PDFs do
    corpus = FakeCorpus({"a.md": a, "b.md": b}, passages)
    judgements = [
        {"doc": "a.md", "lines": [1, 4], "grade": 2},  # merged from passage 1-5 without its shared line
        {"doc": "a.md", "lines": [5, 8], "grade": 0},
        {"doc": "b.md", "quote": "gamma fee quote", "grade": 1},
    ]
    (tmp_path / "docs").mkdir()
    data = {
        "name": "t",
        "corpus": "docs",
        "questions": [{"id": "q", "text": "fee", "judgements": judgements}],
    }
    (tmp_path / "g.json").write_text(json.dumps(data))
    gold = load_goldset(tmp_path / "g.json")
    retriever = FakeRetriever(passages)

    def search(question, ranker, k):
        return [h.passage for h in retriever.search(question, mode=ranker, k=k).hits]

    graded = pool_script.evaluation_qrels(gold, corpus)
    records = pool_script.pool_records(data, search, ["bm25"], 10, 8, graded)
    assert [(r["doc"], r["lines"]) for r in records] == [("b.md", [3, 4])]

    run = run_goldset(
        gold,
        ["bm25"],
        source="g.json",
        resamples=20,
        build=lambda chunking: (corpus, retriever_rankers(retriever, ["bm25"]), {}),
    )
    top = run.per_question["q"].top10["bm25"]
    assert len(top) == len(passages)
    unjudged = [(e.doc, [e.first_line, e.last_line]) for e in top if e.grade is None]
    assert unjudged == [(r["doc"], r["lines"]) for r in records]


def test_merge_takes_sheets_only_from_the_gold_sets_pool_folder(pool_script, tmp_path, capsys):
    """The merge reads earlier sheets' grades (for trimming) and counts (for the
    description) from the pool folder, so a sheet elsewhere is refused, not merged blind to them."""
    (tmp_path / "docs").mkdir()
    gold = tmp_path / "g.json"
    data = {"name": "t", "corpus": "docs", "questions": [{"id": "q", "text": "Q?", "judgements": []}]}
    gold.write_text(json.dumps(data))
    sheet = tmp_path / "elsewhere" / "sheet.jsonl"
    sheet.parent.mkdir()
    sheet.write_text("")
    pool_script.meta_path(sheet).write_text(json.dumps({"merged": None}))
    assert pool_script.pool_folder(gold) == tmp_path / "pool"
    assert pool_script.main(["merge", str(sheet), "--gold", str(gold)]) == 1
    assert "move" in capsys.readouterr().err
    assert json.loads(gold.read_text()) == data


def test_merge_from_a_chosen_pool_folder_keeps_a_grade_2_part(pool_script, tmp_path, monkeypatch):
    """A gold set over ../shared keeps its sheets (which hold ../shared text)
    outside the repository with --pool-dir; only line spans and grades reach
    the gold set, and a grade 2 given for one part of a multi-part question
    keeps that part (the per-part target reads it)."""
    (tmp_path / "docs").mkdir()
    gold = tmp_path / "g.json"
    data = {"name": "t", "corpus": "docs", "questions": [{"id": "q", "text": "A? And b?", "judgements": []}]}
    gold.write_text(json.dumps(data))
    folder = tmp_path / "outside"
    folder.mkdir()
    sheet = folder / "sheet.jsonl"
    records = [
        {
            "item": 1,
            "question_id": "q",
            "doc": "a.md",
            "lines": [1, 2],
            "passage": "x",
            "grade": 2,
            "part": 2,
        },
        {
            "item": 2,
            "question_id": "q",
            "doc": "a.md",
            "lines": [4, 5],
            "passage": "x",
            "grade": 1,
            "part": 1,
        },
    ]
    sheet.write_text("".join(json.dumps(r) + "\n" for r in records))
    meta = {"sheet": sheet.name, "gold": str(gold), "date": "2026-12-02", "rankers": ["bm25"], "depth": 10}
    pool_script.meta_path(sheet).write_text(json.dumps({**meta, "chunking": "auto", "merged": None}))
    monkeypatch.setattr(pool_script, "pool_passages", lambda path: {"a.md": [(1, 2), (4, 5)]})
    assert pool_script.main(["merge", str(sheet), "--gold", str(gold), "--pool-dir", str(folder)]) == 0
    merged = json.loads(gold.read_text())["questions"][0]["judgements"]
    assert merged == [
        {"doc": "a.md", "lines": [1, 2], "grade": 2, "part": 2},
        {"doc": "a.md", "lines": [4, 5], "grade": 1},
    ]
    assert '"x"' not in gold.read_text()


def test_merge_keeps_a_span_whole_when_trimming_leaves_only_empty_lines(pool_script):
    """A long line shared by two passages can hold the graded passage's text:
    trimming it away must not leave a judgement of empty lines."""
    data = {"questions": [{"id": "q", "judgements": []}]}
    records = [
        {"item": 1, "question_id": "q", "doc": "a.md", "lines": [1, 3], "grade": 0},
        {"item": 2, "question_id": "q", "doc": "a.md", "lines": [3, 5], "grade": 1},
    ]
    spans = {"a.md": [(1, 3), (3, 5)]}
    report = pool_script.merge_records(data, [dict(r) for r in records], spans, blank=lambda doc: {4, 6})
    assert data["questions"][0]["judgements"][1]["lines"] == [4, 5] and report.trimmed == 1
    data = {"questions": [{"id": "q", "judgements": []}]}
    report = pool_script.merge_records(data, [dict(r) for r in records], spans, blank=lambda doc: {4, 5})
    assert data["questions"][0]["judgements"][1]["lines"] == [3, 5] and report.untrimmed == 1
