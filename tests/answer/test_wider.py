"""Looking further before declining, and ordering a part's sentences by the
kind of answer asked for (``ragcore.answer.extractive``). Invented documents."""

from __future__ import annotations

from ragcore.answer.extractive import by_kind, extractive_answer
from ragcore.answer.relevance import make_part
from ragcore.answer.units import answer_units
from tests.answer.helpers import line_corpus

DOCS = {
    "freight-terms.md": (
        "# Freight terms\n\n"
        "Pallets are collected from the depot every weekday morning.\n\n"
        "Drivers wear high-visibility vests on site.\n\n"
        "A late delivery earns a rebate of 5% of the freight charge.\n"
    ),
}
QUESTION = "What rebate applies to a late delivery?"


def _corpus():
    return line_corpus(DOCS)


def test_a_declined_answer_reads_the_wider_hits_before_declining() -> None:
    documents, hits = _corpus()
    top = hits[:2]  # the two lines that do not answer
    assert not extractive_answer(QUESTION, top, documents=documents).covered
    answer = extractive_answer(QUESTION, top, documents=documents, wider=lambda: hits)
    assert answer.covered and "5% of the freight charge" in answer.text


def test_the_wider_hits_must_reach_their_own_threshold() -> None:
    documents, hits = _corpus()
    strict = extractive_answer(QUESTION, hits[:2], documents=documents, wider=hits, wider_min_score=9.0)
    assert not strict.covered


def test_a_name_no_document_mentions_declines_however_wide() -> None:
    documents, hits = _corpus()
    answer = extractive_answer(
        "What rebate applies to a late delivery in Portugal?", hits[:2], documents=documents, wider=hits
    )
    assert not answer.covered and "Portugal" in answer.text


def test_an_answered_question_never_searches_wider() -> None:
    documents, hits = _corpus()

    def wider():
        raise AssertionError("searched wider though the top hits answer")

    assert extractive_answer(QUESTION, hits, documents=documents, wider=wider).covered


def test_units_stating_the_kind_asked_for_come_first_with_what_leans_on_them() -> None:
    documents, hits = line_corpus(
        {
            "notes.md": (
                "# Notes\n\nThe rebate is not a guarantee of delivery times.\n\n"
                "The rebate is 5% of the freight charge.\n"
                "It is applied to the next invoice.\n"
            )
        }
    )
    units = answer_units(hits, documents)
    part = make_part("What percentage rebate applies?")
    ordered = [u.text for u in by_kind(units, part)]
    assert ordered[0].startswith("The rebate is 5%")
    assert ordered[1].startswith("It is applied")  # leans on the one before: kept with it
    assert ordered[2].startswith("The rebate is not a guarantee")
    assert [u.text for u in by_kind(units, make_part("Tell me about the rebate"))] == [u.text for u in units]
