"""Topic words a unit states in other words (``relevance.Weights.near_words``)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ragcore.answer.extractive import extractive_answer
from ragcore.answer.relevance import Scorer, Weights, asked_words, make_part
from ragcore.answer.units import answer_units
from tests.answer.helpers import line_corpus

TEXT = "Charities receive 30% off every annual plan.\n\nSupport answers within a day.\n"
QUESTION = "Do nonprofits get cheaper yearly pricing?"
# word pairs a word-embedding model would score near; every other pair 0.1
NEAR = {("nonprofits", "charities"): 0.71, ("yearly", "annual"): 0.82}


def _similarity(asked: list[str]):
    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        asked.append(question)
        return [NEAR.get((question, t), 0.1) for t in texts]

    return similarity


def _scored(floor: float) -> tuple[float, float, list[str]]:
    documents, hits = line_corpus({"pricing.md": TEXT})
    units = answer_units(hits, documents)
    asked: list[str] = []
    scorer = Scorer(units, Weights(near_words=floor), _similarity(asked))
    part = make_part(QUESTION)
    charities = next(u for u in units if "Charities" in u.text)
    return scorer.near_coverage(charities, part), scorer.score(charities, part), asked


def test_asked_words_are_the_topic_words_as_written_without_names() -> None:
    assert asked_words(make_part(QUESTION)) == {
        "nonprofit": "nonprofits",
        "cheaper": "cheaper",
        "year": "yearly",
        "price": "pricing",
    }
    assert "japan" not in asked_words(make_part("What does the Enterprise plan cost in Japan?")).values()


def test_words_stated_in_near_words_count_at_their_similarity() -> None:
    near, with_near, asked = _scored(0.7)
    off, without, _ = _scored(0.0)
    assert off == 0.0
    assert 0.0 < near < 1.0
    assert with_near == pytest.approx(without + near)
    assert "nonprofits" in asked and "yearly" in asked


def test_a_floor_above_the_similarity_counts_nothing() -> None:
    near_75, _, _ = _scored(0.75)  # only yearly/annual (0.82) reaches it
    near_70, _, _ = _scored(0.7)
    near_90, _, _ = _scored(0.9)
    assert near_90 == 0.0
    assert 0.0 < near_75 < near_70


def _covered(quote_only: bool) -> bool:
    """Whether QUESTION is answered over TEXT at a bar the near words decide."""
    documents, hits = line_corpus({"pricing.md": TEXT})
    weights = Weights(near_words=0.7, boosts_quote_only=quote_only)
    answer = extractive_answer(
        QUESTION, hits, documents=documents, weights=weights, similarity=_similarity([]), min_score=0.9
    )
    return answer.covered


def test_near_words_order_quotes_but_do_not_move_the_decision_to_answer() -> None:
    assert _covered(quote_only=False)  # the near words lift the best sentence over the bar
    assert not _covered(quote_only=True)  # read without them, it stays below
