"""The extractive answer: whole sentences and table rows that answer each part
of the question, disagreements by the shared rules, a plain abstention."""

from __future__ import annotations

import re

import pytest

from ragcore.answer.extractive import (
    HEADER,
    NOT_COVERED,
    NOTHING_RETRIEVED,
    extractive_answer,
    is_covered,
)
from ragcore.answer.units import answer_units, table_rows
from ragcore.evaluation.answers import normalise, supported
from ragcore.records import Answer, Document, Hit, Passage, StageTrace, sha256_hex
from tests.answer.helpers import line_corpus

# --------------------------------------------------------------- helpers (no chunker, no retriever)


def _document(name: str, text: str, line_pages: tuple[int, ...] = ()) -> Document:
    kind = "pdf" if line_pages else "md"
    return Document(name, name, kind, text, sha256_hex(text), line_pages=line_pages)


def _passage(doc: Document, first: int, last: int, index: int = 0, label: str = "") -> Passage:
    start, end = doc.line_span(first, last)
    pages = doc.pages_for(first, last)
    return Passage(doc.name, index, first, last, start, end, label or doc.name, doc.text[start:end], pages)


def _paragraphs(doc: Document) -> list[Passage]:
    out: list[Passage] = []
    first = None
    lines = doc.lines
    for number in range(1, len(lines) + 2):
        blank = number > len(lines) or not lines[number - 1].strip()
        if not blank and first is None:
            first = number
        if blank and first is not None:
            out.append(_passage(doc, first, number - 1, len(out)))
            first = None
    return out


def _hits(passages: list[Passage]) -> list[Hit]:
    return [
        Hit(
            p, rank, 1.0 / rank, {"bm25": StageTrace(rank, 1.0), "dense": None, "fused": None, "rerank": None}
        )
        for rank, p in enumerate(passages, start=1)
    ]


def _corpus(docs: dict[str, str]) -> tuple[dict[str, Document], list[Hit]]:
    documents = {name: _document(name, text) for name, text in docs.items()}
    return documents, _hits([p for d in documents.values() for p in _paragraphs(d)])


def _check_citations(answer: Answer, documents: dict[str, Document]) -> None:
    """Numbers run 1.. in order of first use, and every cited sentence is held
    by the lines it cites (the answer metric's own support check)."""
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", answer.text)]
    assert list(dict.fromkeys(numbers)) == [c.n for c in answer.citations]
    cites = {c.n: c for c in answer.citations}
    for s in answer.sentences:
        if s.citations and s.kind != "related":
            assert supported(s, cites, documents), s.text


GUIDE = (
    "# Setup guide\n"
    "\n"
    "Install the agent on each server.\n"
    "The agent reports every minute to the console.\n"
    "Reports are kept for ninety days before deletion.\n"
    "\n"
    "# Billing\n"
    "\n"
    "Invoices are sent on the first day of the month.\n"
)

SUPPORT = (
    "# Support targets\n"
    "\n"
    "| Severity | Standard plan | Premium plan |\n"
    "| --- | --- | --- |\n"
    "| Severity 1 | 4 hours | 30 minutes |\n"
    "| Severity 2 | 1 business day | 2 hours |\n"
    "\n"
    "Targets count from the moment a ticket is logged.\n"
)


# --------------------------------------------------------------- units


def test_a_sentence_cut_by_its_passage_is_quoted_whole() -> None:
    doc = _document(
        "notes.md",
        "Backups run nightly and\nare kept for thirty days in a second region.\n\nOther text here.\n",
    )
    cut = _passage(doc, 2, 2)  # starts mid-sentence
    units = answer_units(_hits([cut]), {doc.name: doc})
    assert [u.text for u in units] == ["Backups run nightly and are kept for thirty days in a second region."]
    assert (units[0].first_line, units[0].last_line) == (1, 2)
    # without the document, a fragment is left out rather than quoted
    assert answer_units(_hits([cut])) == []


def test_a_table_row_is_read_with_its_header_and_cites_both_lines() -> None:
    doc = _document("support.md", SUPPORT)
    (row1, _row2) = table_rows(doc.text)
    assert row1.header == ("Severity", "Standard plan", "Premium plan") and row1.cells[2] == "30 minutes"
    rows_only = _passage(doc, 5, 6)  # the rows' passage does not hold the header
    units = [u for u in answer_units(_hits([rows_only]), {doc.name: doc}) if u.kind == "table-row"]
    assert units[0].text == "Severity: Severity 1; Standard plan: 4 hours; Premium plan: 30 minutes"
    assert (units[0].first_line, units[0].last_line) == (3, 5)


def test_overlapping_passages_give_each_sentence_once() -> None:
    doc = _document("guide.md", GUIDE)
    hits = _hits([_passage(doc, 3, 5, 0), _passage(doc, 4, 5, 1)])
    texts = [u.text for u in answer_units(hits, {doc.name: doc})]
    assert len(texts) == len(set(texts)) == 3


# --------------------------------------------------------------- answers


def test_the_sentence_that_answers_is_quoted_and_cited_at_its_line() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer("How long are reports kept?", hits, documents=documents)
    assert answer.mode == "extractive" and answer.header == HEADER and answer.covered
    first = answer.sentences[0]
    assert first.text == "Reports are kept for ninety days before deletion." and first.kind == "quote"
    (c,) = [c for c in answer.citations if c.n == first.citations[0]]
    assert (c.doc, c.first_line, c.last_line) == ("guide.md", 5, 5)
    _check_citations(answer, documents)


def test_a_table_question_quotes_the_row_that_answers_it() -> None:
    documents, hits = _corpus({"support.md": SUPPORT, "guide.md": GUIDE})
    answer = extractive_answer(
        "What is the Premium plan target for a Severity 2 ticket?", hits, documents=documents
    )
    rows = [s for s in answer.sentences if s.kind == "table-row"]
    assert any("Severity 2" in r.text and "Premium plan: 2 hours" in r.text for r in rows)
    _check_citations(answer, documents)


def test_each_part_of_a_multi_part_question_gets_its_own_evidence() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer(
        "How often does the agent report, and when are invoices sent?", hits, documents=documents
    )
    said = normalise(answer.text)
    assert "every minute" in said and "first day of the month" in said
    _check_citations(answer, documents)


def test_a_part_nothing_answers_is_said_plainly() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer(
        "How often does the agent report, and which regulator audits the zxqv ledger?",
        hits,
        documents=documents,
    )
    assert answer.covered  # one part is answered
    missing = [s for s in answer.sentences if s.kind == "not-covered"]
    assert missing and missing[0].text.startswith("The documents do not say which regulator audits")


def test_nothing_that_answers_means_an_abstention_with_related_passages() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer("Which zxqv quorbles does the plimber need?", hits, documents=documents)
    assert not answer.covered
    assert answer.sentences[0].text == NOT_COVERED and answer.sentences[0].kind == "not-covered"
    assert {s.kind for s in answer.sentences[1:]} <= {"related"}
    assert not is_covered("Which zxqv quorbles does the plimber need?", hits, documents)


def test_nothing_retrieved() -> None:
    answer = extractive_answer("anything?", [])
    assert answer.text == NOTHING_RETRIEVED and not answer.covered and answer.citations == []


def test_bad_sentence_budget_is_named() -> None:
    with pytest.raises(ValueError, match="max_sentences"):
        extractive_answer("q?", [], max_sentences=0)


# --------------------------------------------------------------- disagreements


def test_a_plain_and_a_denied_claim_are_a_contradiction_with_both_cited() -> None:
    documents, hits = _corpus(
        {
            "page.md": "# Security\n\nEvery document is encrypted at all times in the archive.\n",
            "overview.md": "# Encryption\n\nDocuments are not encrypted at every moment in the archive.\n",
        }
    )
    answer = extractive_answer(
        "Are documents in the archive encrypted at all times?", hits, documents=documents
    )
    (claim,) = [s for s in answer.sentences if s.kind == "contradiction"]
    assert len(set(claim.citations)) == 2
    _check_citations(answer, documents)


def test_two_denials_are_not_a_contradiction() -> None:
    documents, hits = _corpus(
        {
            "a.md": "# Uptime\n\nWe do not guarantee uninterrupted uptime for the archive.\n",
            "b.md": "# Uptime\n\nThe archive uptime is not guaranteed by the contract.\n",
        }
    )
    answer = extractive_answer("Is archive uptime guaranteed?", hits, documents=documents)
    assert not [s for s in answer.sentences if s.kind in ("contradiction", "conflict")]


def test_different_figures_for_one_subject_are_a_conflict() -> None:
    documents, hits = _corpus(
        {
            "faq.md": "# Help\n\nUrgent tickets on the Pro plan get a first reply within 4 hours.\n",
            "runbook.md": "# Targets\n\nUrgent tickets on the Pro plan get a first reply within 1 hour.\n",
        }
    )
    answer = extractive_answer(
        "How fast do urgent Pro plan tickets get a first reply?", hits, documents=documents
    )
    (claim,) = [s for s in answer.sentences if s.kind == "conflict"]
    assert len(set(claim.citations)) == 2 and "4 hours" in claim.text and "1 hour" in claim.text


def test_pdf_citations_carry_the_pages_of_their_lines() -> None:
    text = "Overview of the service.\nReports are kept for ninety days before deletion.\n"
    doc = _document("policy.pdf", text, line_pages=(1, 2, 2))
    answer = extractive_answer(
        "How long are reports kept?", _hits(_paragraphs(doc)), documents={doc.name: doc}
    )
    cited = [c for c in answer.citations if c.first_line == 2]
    assert cited and cited[0].pages == (2,)


def test_a_declined_answer_relates_the_named_subjects_documents_first() -> None:
    docs = {
        "filing.md": "The repayment term for each advance ranges from 24 months to 48 months of paying.\n",
        "plausible.md": "Plausible offers thirty days free with no credit card required.\n",
    }
    documents, hits = line_corpus(docs)
    answer = extractive_answer(
        "How long can I try Plausible before paying?", hits, documents=documents, min_score=10.0
    )
    assert not answer.covered
    related = [s.text for s in answer.sentences if s.kind == "related" and s.citations]
    assert related[0].startswith("Plausible offers thirty days free")
    # without documents to look in, the order is the score's
    plain = extractive_answer("How long can I try Plausible before paying?", hits, min_score=10.0)
    assert next(s.text for s in plain.sentences if s.kind == "related" and s.citations).startswith(
        "The repayment"
    )
