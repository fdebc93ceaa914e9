"""A part's topic words (``relevance.make_part``): what the question is about,
not how it asks."""

from __future__ import annotations

from ragcore.answer.relevance import Scorer, Weights, make_part
from ragcore.answer.units import answer_units
from ragcore.text import stem
from tests.answer.helpers import line_corpus


def test_words_asking_whether_sources_agree_are_not_topic_words() -> None:
    assert make_part("Is our pricing consistent?").words == {stem("pricing")}
    part = make_part("Do the refund policy and the MSA agree on notice?")
    assert stem("agree") not in part.words and stem("notice") in part.words
    assert stem("differ") not in make_part("How do the Team and Business plans differ?").words


def test_an_agreement_word_alone_stays_the_topic() -> None:
    # nothing else to go on: keep it rather than leave the part without words
    assert make_part("Is it consistent?").words == {stem("consistent")}


def test_a_sentence_sharing_only_the_agreement_word_covers_nothing() -> None:
    text = (
        "Regulated buyers consistently ask for a business associate agreement.\n\n"
        "The pricing of the Business plan is $999 a month.\n"
    )
    documents, hits = line_corpus({"notes.md": text})
    units = answer_units(hits, documents)
    scorer = Scorer(units, Weights(), lambda question, texts: [0.0] * len(texts))
    part = make_part("Is our pricing consistent?")
    buyers, price = units
    assert scorer.coverage(buyers, part) == 0.0
    assert scorer.coverage(price, part) > 0.0
