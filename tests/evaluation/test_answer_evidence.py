"""Evidence precision (``evaluation.answer_evidence``): a cited answer
sentence is on evidence when its cited lines overlap a judgement graded 1 or
more, off evidence when every judgement they overlap is graded 0, and
unjudged otherwise."""

import hashlib

from ragcore.evaluation.answer_evidence import count_evidence, sentence_grade
from ragcore.evaluation.answer_key import AnswerKey
from ragcore.evaluation.answers import aggregate, score_answer
from ragcore.evaluation.goldset import JudgedSpan
from ragcore.records import Answer, AnswerSentence, Citation, Document

TEXT = "\n".join(
    [
        "# Pricing",  # 1
        "The Team plan costs $49 a month.",  # 2
        "Prices are reviewed every year.",  # 3
        "Customers consistently ask for ISO 27001.",  # 4
        "Support answers within a day.",  # 5
    ]
)
DOC = Document("pricing.md", "pricing.md", "md", TEXT, hashlib.sha256(TEXT.encode()).hexdigest())
DOCS = {"pricing.md": DOC}


def _span(first: int, last: int, grade: int) -> JudgedSpan:
    start, end = DOC.line_span(first, last)
    return JudgedSpan("pricing.md", start, end, grade)


SPANS = (_span(2, 3, 2), _span(4, 4, 0))
CITES = {n: Citation(n, "pricing.md", line, line, "Pricing") for n, line in ((1, 2), (2, 3), (3, 4), (4, 5))}


def _sentence(n: int, kind: str = "quote") -> AnswerSentence:
    return AnswerSentence(f"line {n} [{n}]", (n,), kind)


def test_a_sentence_takes_the_highest_grade_its_lines_overlap():
    assert sentence_grade(_sentence(1), CITES, SPANS, DOCS) == 2
    assert sentence_grade(_sentence(3), CITES, SPANS, DOCS) == 0
    assert sentence_grade(_sentence(4), CITES, SPANS, DOCS) is None  # line 5: no judgement
    both = AnswerSentence("two sides [1][3]", (1, 3), "conflict")
    assert sentence_grade(both, CITES, SPANS, DOCS) == 2


def test_counts_and_precision_leave_unjudged_sentences_out():
    count = count_evidence([_sentence(n) for n in (1, 2, 3, 4)], CITES, SPANS, DOCS)
    assert (count.on, count.off, count.unjudged) == (2, 1, 1)
    assert count.precision == 2 / 3
    assert count.off_sentences == ("line 3 [3]",)
    assert count_evidence([_sentence(4)], CITES, SPANS, DOCS).precision is None


def test_a_whole_document_judgement_covers_every_line():
    whole = (JudgedSpan("pricing.md", 0, len(TEXT), 1, whole=True),)
    assert count_evidence([_sentence(3)], CITES, whole, DOCS).on == 1


def _answer(sentences: list[AnswerSentence]) -> Answer:
    text = " ".join(s.text for s in sentences)
    return Answer("extractive", "h", text, "r", list(CITES.values()), sentences)


def test_score_answer_reports_evidence_and_aggregate_sums_it():
    key = AnswerKey(facts=(("$49",),))
    sentences = [_sentence(1), _sentence(3), AnswerSentence("Closest passages [4]", (4,), "related")]
    scored = score_answer("q1", "fact", "What does Team cost?", key, _answer(sentences), DOCS, SPANS)
    assert (
        scored.evidence.on == 1 and scored.evidence.off == 1 and scored.evidence.unjudged == 0
    )  # related not scored
    row = scored.to_json()
    assert row["evidence_precision"] == 0.5 and row["off_evidence_sentences"] == ["line 3 [3]"]
    block = aggregate([scored], resamples=100)
    assert block["evidence_precision"]["mean"] == 0.5 and block["evidence_precision"]["n"] == 1
    assert block["off_evidence_sentences"] == 1 and block["unjudged_sentences"] == 0


def test_without_judgements_evidence_is_not_scored():
    key = AnswerKey(facts=(("$49",),))
    scored = score_answer("q1", "fact", "What does Team cost?", key, _answer([_sentence(1)]), DOCS)
    assert scored.evidence is None and scored.to_json()["evidence_precision"] is None
    assert aggregate([scored], resamples=100)["evidence_precision"]["n"] == 0


def test_a_run_stored_before_the_metric_still_tabulates():
    from ragcore.evaluation.answer_tables import summary_rows

    block = aggregate([], resamples=100)
    for key in ("evidence_precision", "off_evidence_sentences", "unjudged_sentences"):
        del block[key]
    rows = {r["metric"]: r for r in summary_rows(block)}
    assert rows["evidence precision"]["mean"] is None and "sentences off evidence" not in rows


def test_summary_rows_as_shown():
    from ragcore.evaluation.answer_tables import shown_rows

    key = AnswerKey(facts=(("$49",),))
    scored = score_answer(
        "q1", "fact", "What does Team cost?", key, _answer([_sentence(1), _sentence(3)]), DOCS, SPANS
    )
    rows = {r["metric"]: r for r in shown_rows(aggregate([scored], resamples=100))}
    assert rows["fact recall"] == {  # the answer's text does not state "$49"
        "metric": "fact recall",
        "mean": "0.000",
        "ci_low": "0.000",
        "ci_high": "0.000",
        "n": "1",
    }
    assert rows["evidence precision"]["mean"] == "0.500"
    assert rows["false contradictions"] == {
        "metric": "false contradictions",
        "mean": "0",
        "ci_low": "",
        "ci_high": "",
        "n": "",
    }
    assert rows["sentences off evidence"]["mean"] == "1" and rows["words"]["mean"].count(".") == 1
