import importlib
import json
from pathlib import Path

import pytest

from ragcore.errors import GoldSetError
from ragcore.evaluation.goldset import (
    JudgedSpan,
    ResolvedQuestion,
    all_qrels,
    find_quote,
    load_beir,
    load_goldset,
    overlaps,
    qrels_for,
    resolve_spans,
)

from .helpers import cut, make_doc

PRICING = make_doc(
    "notes/pricing.md",
    [
        "# Pricing",  # 1
        "",  # 2
        "The Team plan costs 12 per seat.",  # 3
        "Annual billing saves  two months.",  # 4
        "",  # 5
        "## Discounts",  # 6
        "Schools pay half.",  # 7
        "Schools pay half.",  # 8
        "Charities ask sales.",  # 9
    ],
)
FAQ = make_doc("faq.md", ["# FAQ", "", "Refunds within 30 days.", "Support by email."])
DOCS = {d.name: d for d in (PRICING, FAQ)}


def write_gold(tmp_path: Path, questions: list, **top) -> Path:
    (tmp_path / "corpus").mkdir(exist_ok=True)
    data = {"name": "t", "corpus": "corpus", "questions": questions, **top}
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def question(judgements, qid="q1", **extra):
    return {"id": qid, "text": "what does it cost?", "judgements": judgements, **extra}


# ------------------------------------------------------------------ loading


def test_loads_defaults_and_resolves_corpus_against_the_file(tmp_path):
    gold = load_goldset(write_gold(tmp_path, [question([{"doc": "faq.md", "grade": 1}])]))
    assert gold.unit == "passage"
    assert gold.relevant_min_grade == 1
    assert gold.corpus == (tmp_path / "corpus").resolve()
    assert gold.questions[0].type == "untyped"
    assert gold.questions[0].judgements[0].quote is None


@pytest.mark.parametrize(
    ("questions", "top", "message"),
    [
        ([question([])], {"unit": "chapter"}, "'unit' must be"),
        ([question([])], {"relevant_min_grade": 0}, "relevant_min_grade"),
        ([], {}, "non-empty list"),
        ([question([]), question([])], {}, "used twice"),
        ([question([{"doc": "faq.md", "grade": 1, "line": [1, 2]}])], {}, "unknown key"),
        ([question([{"doc": "faq.md", "grade": 1.5}])], {}, "whole number"),
        ([question([{"doc": "faq.md", "grade": True}])], {}, "whole number"),
        ([question([{"doc": "faq.md", "grade": 1, "quote": "x", "lines": [1, 1]}])], {}, "not both"),
        ([question([{"doc": "faq.md", "grade": 1, "lines": [3, 2]}])], {}, "first <= last"),
        ([question([{"doc": "faq.md", "grade": 5}])], {"grades": {"0": "no", "1": "yes"}}, "not one of"),
    ],
)
def test_rejects_malformed_gold_sets_with_a_specific_message(tmp_path, questions, top, message):
    with pytest.raises(GoldSetError, match=message):
        load_goldset(write_gold(tmp_path, questions, **top))


def test_judgement_errors_name_question_and_document(tmp_path):
    path = write_gold(tmp_path, [question([{"doc": "faq.md", "grade": 1, "lines": [0, 2]}], qid="q7")])
    with pytest.raises(GoldSetError, match=r"question q7, document faq\.md"):
        load_goldset(path)


def test_missing_corpus_folder_and_bad_json(tmp_path):
    path = tmp_path / "gold.json"
    path.write_text(json.dumps({"corpus": "nowhere", "questions": [question([])]}))
    with pytest.raises(GoldSetError, match="does not exist"):
        load_goldset(path)
    path.write_text("{not json")
    with pytest.raises(GoldSetError, match="not valid JSON"):
        load_goldset(path)


# ------------------------------------------------------------------ spans


def resolved(tmp_path, judgements, qid="q1"):
    return resolve_spans(load_goldset(write_gold(tmp_path, [question(judgements, qid)])), DOCS)[0]


def test_quote_matches_across_different_white_space_and_markup(tmp_path):
    q = resolved(tmp_path, [{"doc": "notes/pricing.md", "quote": "saves two\n months.", "grade": 2}])
    (span,) = q.spans
    assert PRICING.text[span.start : span.end] == "saves  two months."
    assert PRICING.line_at(span.start) == 4


def test_quote_is_case_sensitive(tmp_path):
    with pytest.raises(GoldSetError, match="not in the document"):
        resolved(tmp_path, [{"doc": "notes/pricing.md", "quote": "the team plan", "grade": 1}])


def test_missing_quote_names_question_and_document(tmp_path):
    with pytest.raises(
        GoldSetError, match=r"question q9, document faq\.md: quote 'Refunds within 60 days' is not"
    ):
        resolved(tmp_path, [{"doc": "faq.md", "quote": "Refunds within 60 days", "grade": 1}], qid="q9")


def test_repeated_quote_reports_its_lines(tmp_path):
    with pytest.raises(
        GoldSetError, match=r"question q1, document notes/pricing\.md: .*occurs 2 times \(at line 7, line 8\)"
    ):
        resolved(tmp_path, [{"doc": "notes/pricing.md", "quote": "Schools pay half.", "grade": 1}])


def test_overlapping_occurrences_count_as_repeats():
    assert find_quote("aa", "xaaay") == [(1, 3), (2, 4)]


def test_unknown_document_suggests_the_close_name_and_all_problems_are_listed(tmp_path):
    with pytest.raises(GoldSetError) as info:
        resolved(
            tmp_path,
            [
                {"doc": "notes/pricng.md", "grade": 1},
                {"doc": "faq.md", "lines": [3, 9], "grade": 1},
            ],
        )
    message = str(info.value)
    assert "2 judgement(s)" in message
    assert "did you mean 'notes/pricing.md'" in message
    assert "lines 3-9 run past the document's 4 lines" in message


def test_line_and_whole_document_judgements(tmp_path):
    q = resolved(
        tmp_path, [{"doc": "faq.md", "lines": [3, 4], "grade": 2}, {"doc": "notes/pricing.md", "grade": 1}]
    )
    lines, whole = q.spans
    assert FAQ.text[lines.start : lines.end] == "Refunds within 30 days.\nSupport by email."
    assert whole.whole and (whole.start, whole.end) == (0, len(PRICING.text))


# ------------------------------------------------------------------ mapping onto chunkings


def spans_question(*spans):
    return ResolvedQuestion(id="q", text="t", type="x", spans=tuple(spans))


def test_span_overlap_under_two_chunkings(tmp_path):
    q = resolved(
        tmp_path,
        [
            {"doc": "notes/pricing.md", "quote": "costs 12 per seat. Annual", "grade": 2},
            {"doc": "notes/pricing.md", "lines": [9, 9], "grade": 1},
            {"doc": "faq.md", "lines": [4, 4], "grade": 0},
        ],
    )
    coarse = cut(PRICING, [(1, 5), (6, 9)]) + cut(FAQ, [(1, 4)])
    fine = cut(PRICING, [(1, 2), (3, 3), (4, 5), (6, 8), (9, 9)]) + cut(FAQ, [(1, 2), (3, 3), (4, 4)])
    assert qrels_for(q, coarse) == {"notes/pricing.md#0": 2, "notes/pricing.md#1": 1, "faq.md#0": 0}
    # The quote spans lines 3-4, so two fine passages carry its grade.
    assert qrels_for(q, fine) == {
        "notes/pricing.md#1": 2,
        "notes/pricing.md#2": 2,
        "notes/pricing.md#4": 1,
        "faq.md#2": 0,
    }
    assert all_qrels([q], fine) == {"q1": qrels_for(q, fine)}


def test_highest_overlapping_grade_wins_and_other_documents_do_not_count():
    passages = cut(PRICING, [(1, 5), (6, 9)])
    start, end = PRICING.line_span(3, 3)
    q = spans_question(
        JudgedSpan("notes/pricing.md", start, end, 1),
        JudgedSpan("notes/pricing.md", start, end + 5, 3),
        JudgedSpan("faq.md", 0, 10, 4),
    )
    assert qrels_for(q, passages) == {"notes/pricing.md#0": 3}


def test_document_unit_takes_the_highest_grade_per_document():
    q = spans_question(
        JudgedSpan("notes/pricing.md", 0, 5, 1),
        JudgedSpan("notes/pricing.md", 50, 60, 2),
        JudgedSpan("faq.md", 0, 5, 0),
    )
    assert qrels_for(q, [], unit="document") == {"notes/pricing.md": 2, "faq.md": 0}


def test_a_span_touching_a_passage_boundary_does_not_overlap_it():
    (a, b) = cut(PRICING, [(1, 3), (4, 9)])
    span = JudgedSpan("notes/pricing.md", b.start, b.start + 4, 1)
    assert not overlaps(span, a.start, a.end)
    assert overlaps(span, b.start, b.end)


def test_an_empty_judged_line_counts_for_the_passage_that_starts_there():
    (a, b) = cut(PRICING, [(1, 4), (5, 9)])
    start, end = PRICING.line_span(5, 5)  # line 5 is blank
    span = JudgedSpan("notes/pricing.md", start, end, 1)
    assert start == end
    assert [overlaps(span, p.start, p.end) for p in (a, b)] == [False, True]


def test_scores_the_lead_chunkers_heading_and_sentence(tmp_path):
    chunking = importlib.import_module("ragcore.chunking")
    q = resolved(tmp_path, [{"doc": "notes/pricing.md", "quote": "Charities ask sales.", "grade": 2}])
    for strategy in ("heading", "sentence", "whole"):
        passages = chunking.chunk_document(PRICING, strategy)
        graded = qrels_for(q, passages)
        assert graded, strategy
        for pid in graded:
            p = next(p for p in passages if p.id == pid)
            assert "Charities ask sales." in p.text


# ------------------------------------------------------------------ BEIR


def write_beir(tmp_path: Path, qrels_rows: list[str]) -> Path:
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text(
        "\n".join(json.dumps({"_id": i, "title": "", "text": "x"}) for i in ("1", "2", "3")) + "\n"
    )
    (folder / "queries.jsonl").write_text(
        "\n".join(json.dumps({"_id": i, "text": f"query {i}"}) for i in ("1", "2", "3")) + "\n"
    )
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "\n".join(qrels_rows) + "\n")
    return folder


def test_load_beir_reads_every_query_and_graded_qrels(tmp_path):
    beir = load_beir(write_beir(tmp_path, ["1\t1\t2", "1\t3\t0", "2\t2\t1"]))
    assert [q.id for q in beir.questions] == ["1", "2", "3"]
    assert beir.qrels == {"1": {"1": 2, "3": 0}, "2": {"2": 1}}
    assert beir.unit == "document"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("9\t1\t1", r"question 9, document 1: the question is not in queries\.jsonl"),
        ("1\t9\t1", r"question 1, document 9: the document is not in corpus\.jsonl"),
        ("1\t1\thigh", "not a whole number"),
    ],
)
def test_load_beir_errors_name_question_and_document(tmp_path, row, message):
    with pytest.raises(GoldSetError, match=message):
        load_beir(write_beir(tmp_path, [row]))


def test_load_beir_rejects_conflicting_repeats(tmp_path):
    with pytest.raises(GoldSetError, match="judged twice"):
        load_beir(write_beir(tmp_path, ["1\t1\t1", "1\t1\t2"]))


@pytest.mark.parametrize(
    ("name", "queries", "judged", "rows"),
    [("cranfield", 225, 225, 1837), ("cisi", 112, 76, 3114), ("vaswani", 93, 93, 2083)],
)
def test_shared_benchmarks_load_with_their_documented_counts(shared_dir, name, queries, judged, rows):
    beir = load_beir(shared_dir / "benchmarks" / name)
    assert len(beir.questions) == queries
    assert len(beir.qrels) == judged
    assert sum(len(v) for v in beir.qrels.values()) == rows
