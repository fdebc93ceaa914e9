"""Collection-wide reading: the lens reads every passage on the question's subject."""

from __future__ import annotations

from ragcore.lenses import run_lens
from ragcore.lenses.choice import choose_lens
from ragcore.lenses.collection import collection_hits, subject_words
from ragcore.text import tokenize

DOCS = {
    "sla.md": "# SLA\n\nWe guarantee 99.95% uptime for the Hosted plan.\n",
    "terms.md": "# Terms\n\nOur Services are provided as is. We make no guarantees that the Services meet your needs.\n",
    "pricing.md": "# Pricing\n\nThe Hosted plan is $40/month.\n\nThe Self-managed plan is $25/month.\n",
    "notes.md": "# Notes\n\nI quoted the Hosted plan at $35/month.\n",
    "blog.md": "# Blog\n\nOur team went hiking in the hills last weekend.\n",
}


def test_subject_words_drop_triggers_and_question_words() -> None:
    assert subject_words("How much does the Hosted plan cost per month?") == tokenize("Hosted plan")
    assert subject_words("Do they guarantee uptime?") == tokenize("uptime")


def test_a_money_lens_reads_every_passage_on_the_subject(make_hits, passages_of) -> None:
    every = [p for name, text in DOCS.items() for p in passages_of(name, text)]
    hits = [h for h in make_hits(DOCS) if h.passage.doc == "pricing.md"][:1]  # retrieval found one passage
    question = "What does the Hosted plan cost?"
    read = collection_hits("money", question, hits, every)
    assert read[0].passage == hits[0].passage  # retrieved hits first
    assert {h.passage.doc for h in read} == {"pricing.md", "notes.md"}
    lens = run_lens(choose_lens(question), hits, collection=every, question=question)
    assert lens.documents_read == 2
    (conflict,) = lens.conflicts  # the quote in the notes is found though retrieval missed it
    assert set(conflict.amounts) == {40, 35} and conflict.relation == "conflict"
    assert lens.to_json()["documents_read"] == 2


def test_a_risk_lens_finds_the_disclaimer_retrieval_missed(make_hits, passages_of) -> None:
    every = [p for name, text in DOCS.items() for p in passages_of(name, text)]
    hits = [h for h in make_hits(DOCS) if h.passage.doc == "sla.md"]
    question = "Do they guarantee uptime?"
    lens = run_lens(choose_lens(question), hits, collection=every, question=question)
    docs = {f.doc for f in lens.findings}
    assert "terms.md" in docs and "blog.md" not in docs
    assert lens.contradictions  # the SLA's guarantee against the terms' blanket disclaimer


def test_without_the_collection_only_the_hits_are_read(make_hits) -> None:
    hits = [h for h in make_hits(DOCS) if h.passage.doc == "sla.md"]
    lens = run_lens("risk", hits)
    assert {f.doc for f in lens.findings} == {"sla.md"} and lens.documents_read == 1
