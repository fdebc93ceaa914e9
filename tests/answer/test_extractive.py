"""The extractive answer: lens sentences first, citations that resolve to lines."""

from __future__ import annotations

import re

import pytest

from ragcore.answer.extractive import (
    DENSE_MIN_SCORE,
    HEADER,
    NOT_COVERED,
    NOTHING_RETRIEVED,
    extractive_answer,
    is_covered,
)
from ragcore.lenses import choose_lens, run_lens
from ragcore.records import Answer, Document, Hit, Passage, StageTrace, sha256_hex
from ragcore.text import content_words

# --------------------------------------------------------------- helpers (no chunker, no retriever)


def _document(name: str, text: str, line_pages: tuple[int, ...] = ()) -> Document:
    kind = "pdf" if line_pages else "md"
    return Document(name, name, kind, text, sha256_hex(text), line_pages=line_pages)


def _paragraphs(doc: Document) -> list[Passage]:
    """One passage per paragraph with exact lines/offsets; label = last heading."""
    out: list[Passage] = []
    heading, first = doc.name, None
    lines = doc.lines
    for number in range(1, len(lines) + 2):
        blank = number > len(lines) or not lines[number - 1].strip()
        if not blank and first is None:
            first = number
        if blank and first is not None:
            start, end = doc.line_span(first, number - 1)
            text = doc.text[start:end]
            pages = doc.pages_for(first, number - 1)
            out.append(Passage(doc.name, len(out), first, number - 1, start, end, heading, text, pages))
            if text.startswith("#") and first == number - 1:
                heading = text.lstrip("#").strip()
            first = None
    return out


def _hits(passages: list[Passage], dense: list[float] | None = None) -> list[Hit]:
    hits = []
    for rank, p in enumerate(passages, start=1):
        trace = {"bm25": StageTrace(rank, 1.0), "dense": None, "fused": None, "rerank": None}
        if dense is not None:
            trace["dense"] = StageTrace(rank, dense[rank - 1])
        hits.append(Hit(p, rank, 1.0 / rank, trace))
    return hits


def _corpus(docs: dict[str, str]) -> tuple[dict[str, Document], list[Hit]]:
    documents = {name: _document(name, text) for name, text in docs.items()}
    passages = [p for d in documents.values() for p in _paragraphs(d)]
    return documents, _hits(passages)


def _check_citations_resolve(answer: Answer, documents: dict[str, Document]) -> None:
    """Every [n] in the text has a citation; numbers run 1.. in order of first
    use; each citation's lines hold the words of the sentences citing it."""
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", answer.text)]
    assert [c.n for c in answer.citations] == list(range(1, len(answer.citations) + 1))
    assert list(dict.fromkeys(numbers)) == [c.n for c in answer.citations]
    by_n = {c.n: c for c in answer.citations}
    for sentence in answer.sentences:
        if not sentence.citations:
            continue
        cited_text = " ".join(
            "\n".join(documents[by_n[n].doc].lines[by_n[n].first_line - 1 : by_n[n].last_line])
            for n in sentence.citations
        )
        # quoted sentences (and the figures of constructed ones) come from the cited lines
        figures = re.findall(r"\$[\d,.]+", sentence.text)
        for figure in figures:
            assert figure.rstrip(".,") in cited_text.replace(",", "") or figure.rstrip(".,") in cited_text
        if not sentence.text.startswith(("The sources disagree", "These contradict")):
            assert content_words(sentence.text) <= content_words(cited_text), sentence.text


# --------------------------------------------------------------- plain answers


GUIDE = (
    "# Setup guide\n"
    "\n"
    "Install the agent on each server.\n"
    "The agent reports every minute.\n"
    "Reports are kept for ninety days before deletion.\n"
    "\n"
    "# Billing\n"
    "\n"
    "Invoices are sent on the first day of the month.\n"
)


def test_best_matching_sentence_is_cited_at_its_exact_line() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer("How long are reports kept?", hits, run_lens("none", hits))
    assert answer.mode == "extractive"
    assert answer.header == HEADER == "Extractive answer (no model)"
    assert answer.reason == "no model configured"
    first = answer.sentences[0]
    assert first.text == "Reports are kept for ninety days before deletion."
    (n,) = first.citations
    citation = answer.citations[n - 1]
    # the passage is lines 3-5; the sentence is line 5
    assert (citation.doc, citation.first_line, citation.last_line, citation.label) == (
        "guide.md",
        5,
        5,
        "Setup guide",
    )
    assert answer.text.splitlines()[0] == "Reports are kept for ninety days before deletion. [1]"
    _check_citations_resolve(answer, documents)


def test_sentences_end_in_citations_numbered_in_order_of_first_use() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer("When are invoices sent and how often does the agent report?", hits)
    assert len(answer.sentences) >= 2
    for line in answer.text.splitlines():
        assert re.search(r"\[\d+\]$", line), line
    _check_citations_resolve(answer, documents)


def test_same_lines_reuse_one_number() -> None:
    documents, hits = _corpus({"a.md": "Alpha keeps all logs locally. Alpha rotates the logs daily.\n"})
    answer = extractive_answer("How does alpha handle logs?", hits)
    assert [s.citations for s in answer.sentences] == [(1,), (1,)]
    assert len(answer.citations) == 1
    _check_citations_resolve(answer, documents)


def test_reason_is_passed_through() -> None:
    _, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer("How long are reports kept?", hits, reason="the model call timed out")
    assert answer.reason == "the model call timed out"
    assert answer.to_json()["mode"] == "extractive"
    assert {"mode", "header", "text", "reason", "citations"} <= set(answer.to_json())
    assert {"n", "doc", "first_line", "last_line", "label"} <= set(answer.to_json()["citations"][0])


def test_front_matter_and_headings_are_not_quoted() -> None:
    text = "---\ntitle: Reports\ndescription: reports kept a while\n---\n\n# Reports\n\nReports are kept for a year.\n"
    documents, hits = _corpus({"r.md": text})
    answer = extractive_answer("How long are reports kept?", hits)
    assert [s.text for s in answer.sentences] == ["Reports are kept for a year."]
    assert answer.citations[0].first_line == 8
    _check_citations_resolve(answer, documents)


def test_pdf_citation_carries_the_pages_of_its_lines() -> None:
    text = "Cover page text here.\nIntro about storage.\nStorage is kept for thirty days.\nClosing words."
    doc = _document("r.pdf", text, line_pages=(1, 1, 2, 2))
    passage = Passage("r.pdf", 0, 1, 4, 0, len(text), "", text, (1, 2), "sentence")
    answer = extractive_answer("How long is storage kept?", _hits([passage]), documents={"r.pdf": doc})
    citation = next(c for c in answer.citations if c.first_line == 3)
    assert citation.pages == (2,)


# --------------------------------------------------------------- not covered


def test_nothing_retrieved() -> None:
    answer = extractive_answer("How long are reports kept?", [])
    assert answer.text == NOTHING_RETRIEVED
    assert answer.citations == [] and answer.header == HEADER


def test_no_shared_word_and_weak_dense_evidence_says_so() -> None:
    _, hits = _corpus({"guide.md": GUIDE})
    weak = _hits([h.passage for h in hits], dense=[DENSE_MIN_SCORE - 0.1] * len(hits))
    for candidate in (hits, weak):
        answer = extractive_answer("What is the boiling point of mercury?", candidate)
        assert answer.text == NOT_COVERED
        assert answer.citations == []
        assert not is_covered("What is the boiling point of mercury?", candidate)


def test_question_words_alone_do_not_count_as_overlap() -> None:
    _, hits = _corpus({"a.md": "What we do is what you see.\n"})
    assert extractive_answer("What do you do?", hits).text == NOT_COVERED


def test_strong_dense_evidence_without_shared_words_answers() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    passages = [h.passage for h in hits]
    strong = _hits(passages, dense=[0.2, DENSE_MIN_SCORE + 0.2] + [0.1] * (len(passages) - 2))
    answer = extractive_answer("What happens to old telemetry?", strong)
    assert answer.citations, answer.text
    # the opening sentence of the passage that is close in meaning
    assert answer.sentences[0].text == "Install the agent on each server."
    _check_citations_resolve(answer, documents)


def test_bad_sentence_budget_is_named() -> None:
    with pytest.raises(ValueError, match="max_sentences"):
        extractive_answer("q", [], max_sentences=0)


# --------------------------------------------------------------- lens answers

PRICING = "# Pricing\n\nStorage is $0.02/GB.\n\nThe Pro plan costs $49 per user per month.\n"
SALES = "# Call notes\n\nWe agreed a pilot.\n\nTold them the Pro plan is $39 per user per month.\n"


def test_money_conflict_comes_first_with_both_sources() -> None:
    question = "Is our pricing consistent?"
    documents, hits = _corpus({"pricing.md": PRICING, "sales-call.md": SALES})
    lens = run_lens(choose_lens(question), hits)
    answer = extractive_answer(question, hits, lens)
    first = answer.sentences[0]
    assert first.text.startswith("The sources disagree on pro plan per user/month")
    assert "$49" in first.text and "$39" in first.text
    assert "pricing.md" in first.text and "sales-call.md" in first.text
    cited = [answer.citations[n - 1] for n in first.citations]
    assert [(c.doc, c.first_line, c.last_line) for c in cited] == [
        ("pricing.md", 5, 5),
        ("sales-call.md", 5, 5),
    ]
    assert [c.label for c in cited] == ["Pricing", "Call notes"]
    # the other figure follows, quoted from its line
    assert answer.sentences[1].text == "Storage is $0.02/GB."
    assert answer.citations[answer.sentences[1].citations[0] - 1].first_line == 3
    _check_citations_resolve(answer, documents)


def test_money_lens_without_figures_says_so_and_still_answers() -> None:
    documents, hits = _corpus({"guide.md": GUIDE})
    answer = extractive_answer("What does the invoice cost?", hits, run_lens("money", hits))
    assert answer.sentences[0].text == "No prices or amounts appear in the retrieved passages."
    assert answer.sentences[0].citations == ()
    assert any("Invoices are sent" in s.text for s in answer.sentences[1:])
    _check_citations_resolve(answer, documents)


def test_risk_contradiction_comes_first() -> None:
    docs = {
        "sla.md": "# SLA\n\nWe guarantee 99.9% uptime for all paying teams.\n",
        "terms.md": "# Terms\n\nWe never sell data.\n\nWe make no guarantees that the service will be available.\n",
    }
    question = "What do we guarantee?"
    documents, hits = _corpus(docs)
    lens = run_lens(choose_lens(question), hits)
    assert lens.kind == "risk"
    answer = extractive_answer(question, hits, lens)
    first = answer.sentences[0]
    assert first.text.startswith("These contradict each other: sla.md says")
    assert "99.9%" in first.text and "no guarantees" in first.text
    cited = [answer.citations[n - 1] for n in first.citations]
    assert [(c.doc, c.first_line) for c in cited] == [("sla.md", 3), ("terms.md", 5)]
    assert any(s.text == "We never sell data." for s in answer.sentences[1:])
    _check_citations_resolve(answer, documents)


def test_lens_and_plain_answers_cite_the_same_lines_for_the_same_sentence() -> None:
    documents, hits = _corpus({"pricing.md": PRICING, "sales-call.md": SALES})
    assert set(documents) == {"pricing.md", "sales-call.md"}
    plain = extractive_answer("What does the Pro plan cost?", hits, run_lens("none", hits))
    money = extractive_answer("What does the Pro plan cost?", hits, run_lens("money", hits))
    lines = {(c.doc, c.first_line, c.last_line) for c in plain.citations}
    assert ("pricing.md", 5, 5) in lines
    assert ("pricing.md", 5, 5) in {(c.doc, c.first_line, c.last_line) for c in money.citations}
    _check_citations_resolve(plain, documents)


# --------------------------------------------------------------- real documents


def test_real_documents_answer_cites_the_sla_line(shared_dir) -> None:
    folder = shared_dir / "documents" / "basecamp-policies"
    docs = {name: (folder / name).read_text(encoding="utf-8") for name in ("sla.md", "terms.md")}
    question = "What uptime do we guarantee?"
    documents, hits = _corpus(docs)
    lens = run_lens(choose_lens(question), hits)
    answer = extractive_answer(question, hits, lens)
    first = answer.sentences[0]
    assert first.text.startswith("These contradict each other: sla.md says")
    sla = answer.citations[first.citations[0] - 1]
    assert sla.doc == "sla.md"
    line = documents["sla.md"].line(sla.first_line)
    assert "guarantee" in line and "99.99%" in line
    terms = answer.citations[first.citations[1] - 1]
    assert terms.doc == "terms.md" and "guarantees" in documents["terms.md"].line(terms.first_line)
    _check_citations_resolve(answer, documents)


def test_prices_answer_a_money_question_without_a_shared_word() -> None:
    # no passage says "pricing" or "consistent", and no dense scores: the prices still answer
    docs = {"plans.md": PRICING.replace("# Pricing", "# Plans"), "sales-call.md": SALES}
    documents, hits = _corpus(docs)
    question = "Is our pricing consistent?"
    assert not is_covered(question, hits)
    answer = extractive_answer(question, hits, run_lens("money", hits))
    assert answer.sentences[0].text.startswith("The sources disagree")
    plain = extractive_answer(question, hits, run_lens("none", hits))
    assert plain.text == NOT_COVERED
    _check_citations_resolve(answer, documents)
