"""Units under an FAQ heading (``relevance.Weights.question_headings``)."""

from __future__ import annotations

from collections.abc import Sequence

from ragcore.answer.relevance import Scorer, Weights, make_part, question_heading
from ragcore.answer.units import answer_units
from ragcore.records import Document, Hit, Passage, StageTrace, sha256_hex

FAQ = "# Billing\n\n## What happens if I pay late?\n\nA fee of 1.5% a month is added.\n"
QUESTION = "What happens when an invoice is paid late?"


def test_only_a_heading_that_asks_is_a_question_heading() -> None:
    assert question_heading("Billing > What happens if I pay late?") == "What happens if I pay late?"
    assert question_heading("Billing > Late fees") is None
    assert question_heading("?") is None


def _closeness(on: bool) -> float | None:
    doc = Document("faq.md", "faq.md", "md", FAQ, sha256_hex(FAQ))
    start, end = doc.line_span(5, 5)
    passage = Passage(
        doc.name, 0, 5, 5, start, end, "Billing > What happens if I pay late?", FAQ[start:end], ()
    )
    trace = {"bm25": StageTrace(1, 1.0), "dense": None, "fused": None, "rerank": None}
    units = answer_units([Hit(passage, 1, 1.0, trace)], {doc.name: doc})

    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        return [0.8 if t.endswith("?") else 0.3 for t in texts]

    scorer = Scorer(units, Weights(question_headings=on), similarity)
    fee = next(u for u in units if "fee" in u.text)
    return scorer.closeness(fee, make_part(QUESTION))


def test_a_unit_under_a_question_heading_is_as_close_as_the_heading_when_on() -> None:
    assert _closeness(True) == 0.8
    assert _closeness(False) == 0.3
