"""The sentence similarity read against a part's topic words alone
(``relevance.topic_phrase``, ``Weights.topic_phrase``)."""

from __future__ import annotations

from collections.abc import Sequence

from ragcore.answer.relevance import Scorer, Weights, make_part, topic_phrase
from ragcore.answer.units import answer_units
from tests.answer.helpers import line_corpus

TEXT = "A late fee of 1.5% per month applies to unpaid balances.\n\nSupport answers within a day.\n"


def test_the_phrase_keeps_the_topic_words_in_order_without_how_the_question_asks() -> None:
    assert (
        topic_phrase(make_part("What penalty applies if we're slow to settle up?")) == "penalty slow settle"
    )
    assert topic_phrase(make_part("Do nonprofits get cheaper pricing?")) == "nonprofits cheaper pricing"


def test_a_part_whose_words_come_from_the_whole_question_has_no_phrase() -> None:
    part = make_part("and how much is it?", "What does the Team plan cost, and how much is it?")
    assert part.words  # taken from the whole question
    assert topic_phrase(part) == ""


class _Recorder:
    """A similarity that records the questions it is asked and scores by them."""

    def __init__(self, by_question: dict[str, float]) -> None:
        self.asked: list[str] = []
        self.by_question = by_question

    def __call__(self, question: str, texts: Sequence[str]) -> list[float]:
        self.asked.append(question)
        return [self.by_question[question]] * len(texts)


def _closeness(on: bool, sims: dict[str, float]) -> tuple[float | None, list[str]]:
    documents, hits = line_corpus({"billing.md": TEXT})
    units = answer_units(hits, documents)
    similarity = _Recorder(sims)
    scorer = Scorer(units, Weights(topic_phrase=on), similarity)
    part = make_part("What penalty applies if we're slow to settle up?")
    return scorer.closeness(units[0], part), similarity.asked


def test_the_higher_of_the_two_similarities_is_kept_when_on() -> None:
    question = "What penalty applies if we're slow to settle up?"
    close, asked = _closeness(True, {question: 0.2, "penalty slow settle": 0.5})
    assert close == 0.5 and asked == [question, "penalty slow settle"]
    close, _ = _closeness(True, {question: 0.6, "penalty slow settle": 0.5})
    assert close == 0.6


def test_off_reads_the_question_only() -> None:
    question = "What penalty applies if we're slow to settle up?"
    close, asked = _closeness(False, {question: 0.2, "penalty slow settle": 0.5})
    assert close == 0.2 and asked == [question]
