"""The risks of a named subject (``ragcore.answer.risks``): a question asking
for the risks of a named deal reads its documents' commitment and limitation
sentences, even when none of them shares a word with the question or was
retrieved. Invented documents; nothing here is demo text."""

from __future__ import annotations

from ragcore.answer.extractive import extractive_answer
from ragcore.answer.risks import asks_risks, limitation_kinds, subject_documents
from tests.answer.helpers import line_corpus

PROPOSAL = "proposal-harbourline-freight.md"
DOCS = {
    PROPOSAL: (
        "# Proposal for Harbourline Freight\n\n"
        "Harbourline Freight operates four depots and a central dispatch office.\n\n"
        "We propose the Premier plan with a dedicated onboarding lead.\n\n"
        "## Departures from the tender\n\n"
        "We accept the tender's conditions with two departures.\n"
        "First, our total liability is capped at the fees of the prior six months.\n"
        "Second, we cannot accept the proposed penalty of 2% per late delivery.\n"
    ),
    "board-notes.md": (
        "# Board notes\n\nThe board discussed three risks for the year, chiefly staff turnover and price discipline.\n"
    ),
}


def _answer(question: str, retrieved: int = 3):
    documents, hits = line_corpus(DOCS)
    passages = [h.passage for h in hits]
    # only the proposal's opening lines and the board's notes are retrieved
    shown = [h for h in hits if h.passage.doc != PROPOSAL or h.passage.first_line < 6][:retrieved]
    return extractive_answer(question, shown, documents=documents, passages=passages)


def test_a_question_asking_for_risks_is_told_from_one_that_only_says_risky() -> None:
    assert asks_risks("What are the risks of the Harbourline Freight deal?")
    assert asks_risks("Which risks did the board raise?")
    assert not asks_risks("When will the risky lines be rewritten?")
    assert not asks_risks("What does the proposal include?")


def test_limitations_are_counted_by_kind() -> None:
    assert limitation_kinds("Our total liability is capped at the fees of the prior six months.") == 2
    assert limitation_kinds("We cannot accept the proposed penalty.") == 2
    assert limitation_kinds("Harbourline Freight operates four depots.") == 0


def test_the_subject_is_the_documents_the_question_names() -> None:
    documents, _ = line_corpus(DOCS)
    # named by the words of its file name, even through the question's other words
    assert subject_documents("What are the risks of the Harbourline Freight deal?", documents) == [PROPOSAL]
    assert subject_documents("What are the risks of the Saltmarsh deal?", documents) == []
    assert subject_documents("What are the risks this year?", documents) == []


def test_the_answer_quotes_the_named_documents_limitations_not_retrieved() -> None:
    answer = _answer("What are the risks of the Harbourline Freight deal?")
    assert "capped at the fees of the prior six months" in answer.text
    assert "penalty of 2% per late delivery" in answer.text
    # neither the subject's introduction nor another document's risks
    assert "four depots" not in answer.text
    assert "staff turnover" not in answer.text
    assert answer.covered
    cited = {c.doc for c in answer.citations}
    assert cited == {PROPOSAL}


def test_without_the_collection_or_a_named_subject_nothing_changes() -> None:
    documents, hits = line_corpus(DOCS)
    question = "What are the risks of the Harbourline Freight deal?"
    plain = extractive_answer(question, hits[:3], documents=documents)
    assert "capped" not in plain.text
    unnamed = _answer("What are the risks this year?")
    assert "capped" not in unnamed.text
    off = extractive_answer(
        question, hits[:3], documents=documents, passages=[h.passage for h in hits], read_risks=False
    )
    assert "capped" not in off.text
