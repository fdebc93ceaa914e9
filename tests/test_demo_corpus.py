"""The demo corpus (corpus/demo): its structure, and the situations built into it.

Structure tests read the files directly. Tests that need the loader, the
chunker, retrieval or the lenses import them plainly: an import error is a
failure, never a skip.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from functools import cache, lru_cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "corpus" / "demo"

FRONT_MATTER = (
    "pricing-notes.md",
    "product-page.md",
    "refund-and-cancellation-policy.md",
    "release-notes.md",
    "acceptable-use-policy.md",
    "roadmap-2026.md",
)
CONTROL_TABLE = ("sla.md", "brand-messaging-guide.md", "rfp-response-northgate-health.md")
CONTROL_TEXT = ("billing-procedures.txt",)
NO_CONTROL = (
    "sales-call-notes.md",
    "support-faq.md",
    "onboarding-guide.md",
    "customer-success-playbook.md",
    "competitive-battlecard.md",
    "partner-program.md",
    "discount-approval-matrix.md",
    "master-services-agreement.pdf",
    "security-overview.pdf",
    "board-update-2025-q4.pdf",
    "data-processing-addendum.pdf",
    "api-error-reference.md",
    "security-advisories.md",
)

# Key sentences of the built-in situations, verbatim (white space collapsed).
PRICE_PLAIN = ("pricing-notes.md", "The Business plan is $999/month on monthly billing.")
PRICE_QUOTED = (
    "sales-call-notes.md",
    "I quoted the Business plan at a price of $1,199/month on monthly billing",
)
SAME_PRICE_FORMS = (
    ("product-page.md", "| Business | $999 | $9,990 |"),
    ("rfp-response-northgate-health.md", "Business is $999 per month with monthly billing"),
)
GUARANTEE = ("product-page.md", "**Guaranteed 99.99% uptime.**")
SLA_COMMITMENT = (
    "sla.md",
    "Lumenfold commits to 99.99% Monthly Uptime for the Business and Enterprise plans.",
)
MSA_DISCLAIMERS = (
    'the Service is provided "as is" and "as available", with no warranty of any kind',
    "Lumenfold does not guarantee uninterrupted service or any particular level of uptime",
)

# (question, document, key wording): the passage holding the key wording
# shares no content word with the question, apart from question words.
VOCABULARY_MISMATCH = (
    (
        "How much does it cost to store extra data?",
        "pricing-notes.md",
        "overage charge of $0.10 per GB per month",
    ),
    ("What does implementation cost?", "pricing-notes.md", "the Enterprise onboarding fee is $4,000"),
    ("How expensive are consultants?", "pricing-notes.md", "bill at an hourly rate of $225"),
    (
        "What penalty applies to overdue payments?",
        "billing-procedures.txt",
        "accrue a late fee of 1.5% per month",
    ),
    ("How much to add more users?", "pricing-notes.md", "an extra Business seat is $12 a month"),
    (
        "Is there a penalty for quitting a yearly deal midway?",
        "refund-and-cancellation-policy.md",
        "triggers an early termination fee equal to 50%",
    ),
    ("What is the price of 24/7 help?", "pricing-notes.md", "Premium Support is sold at a rate of 15%"),
    ("How much is a test environment?", "pricing-notes.md", "Each sandbox carries a monthly charge of $150"),
    (
        "What does it cost to pay from abroad by bank?",
        "billing-procedures.txt",
        "handling charge of $35 per transfer",
    ),
    ("What does teaching our staff cost?", "onboarding-guide.md", "A live session is $400 per session"),
    (
        "Can we reopen a closed account, and what do we pay?",
        "refund-and-cancellation-policy.md",
        "$250 reinstatement fee",
    ),
    (
        "What reward do affiliates receive for sending us new buyers?",
        "partner-program.md",
        "earn a commission rate of 20%",
    ),
    ("Do nonprofits get cheaper prices?", "discount-approval-matrix.md", "receive 30% off list"),
    ("What compensation do customers get for downtime?", "sla.md", "| 10% of the monthly fee |"),
)
QUESTION_WORDS = "how much what does do is are there can we our us you your i it when which who why"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _files() -> list[Path]:
    return sorted(p for p in DEMO.iterdir() if p.is_file())


@cache
def _text(name: str) -> str:
    path = DEMO / name
    if path.suffix == ".pdf":
        from pypdf import PdfReader

        return "\n".join(page.extract_text() for page in PdfReader(path).pages)
    return path.read_text(encoding="utf-8")


def _contains(name: str, wording: str) -> bool:
    return _flat(wording) in _flat(_text(name))


# ---------------------------------------------------------------- structure


def test_about_25_files_in_three_formats_and_nothing_else():
    files = _files()
    suffixes = [p.suffix for p in files]
    assert 23 <= len(files) <= 27, [p.name for p in files]
    assert set(suffixes) == {".md", ".txt", ".pdf"}, (
        "only documents belong in corpus/demo (vectors live beside it)"
    )
    assert suffixes.count(".md") >= 12
    assert suffixes.count(".txt") >= 3
    assert suffixes.count(".pdf") >= 3


def test_readme_says_fictional_and_lists_every_file():
    readme = (REPO / "corpus" / "README.md").read_text(encoding="utf-8")
    assert "fictional" in readme.lower()
    missing = [p.name for p in _files() if f"`{p.name}`" not in readme]
    assert not missing, f"corpus/README.md does not list {missing}"


def test_pdfs_have_several_pages_of_clean_text_with_footers():
    from pypdf import PdfReader

    pdfs = [p for p in _files() if p.suffix == ".pdf"]
    assert len(pdfs) >= 3
    for path in pdfs:
        pages = PdfReader(path).pages
        assert 2 <= len(pages) <= 4, f"{path.name} has {len(pages)} pages"
        for number, page in enumerate(pages, start=1):
            text = page.extract_text()
            assert f"Page {number} of {len(pages)}" in text, f"{path.name} p. {number}: footer missing"
            words = re.findall(r"[A-Za-z]+", text)
            assert len(words) >= 30, f"{path.name} p. {number}: only {len(words)} words extracted"
            # Extraction is clean: no replacement characters, no runs of glued words.
            assert "\ufffd" not in text
            assert max(len(w) for w in words) <= 25, f"{path.name} p. {number}: glued words"


def test_pdfs_are_exactly_what_the_script_generates():
    importlib.import_module("fpdf")
    spec = importlib.util.spec_from_file_location("make_demo_pdfs", REPO / "scripts" / "make_demo_pdfs.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    for pdf in module.SPECS:
        rendered = module.render(pdf)
        assert rendered == module.render(pdf), "PDF generation is not deterministic"
        assert rendered == (DEMO / pdf.filename).read_bytes(), (
            f"{pdf.filename} differs from scripts/make_demo_pdfs.py: re-run the script and commit"
        )


def test_control_blocks_are_present_in_the_raw_files():
    for name in FRONT_MATTER:
        lines = _text(name).split("\n")
        assert lines[0] == "---" and "---" in lines[1:20], f"{name}: no YAML front matter"
    for name in CONTROL_TABLE:
        head = _text(name).split("\n")[:12]
        assert "**Document control**" in head, f"{name}: no document control table"
        assert any(line.startswith("| Version |") for line in _text(name).split("\n")[:30])
    for name in CONTROL_TEXT:
        head = _text(name).split("\n")[:12]
        assert "DOCUMENT CONTROL" in head and any(line.startswith("Revision history") for line in head)


def test_price_conflict_is_in_the_pricing_notes_and_the_sales_call_notes():
    assert _contains(*PRICE_PLAIN)
    assert _contains(*PRICE_QUOTED)
    assert "$1,199" not in _text("pricing-notes.md"), "the pricing notes must state one Business price"
    for name, wording in SAME_PRICE_FORMS:
        assert _contains(name, wording), f"{name}: {wording!r}"
    # The annual price is a second, consistent figure for the same plan.
    assert _contains("pricing-notes.md", "Billed annually, the Business plan is $9,990/year.")


def test_guarantee_is_contradicted_by_the_contract():
    assert _contains(*GUARANTEE)
    assert _contains("product-page.md", "**We never lose your data.**")
    assert _contains(*SLA_COMMITMENT)
    for wording in MSA_DISCLAIMERS:
        assert _contains("master-services-agreement.pdf", wording), wording


def test_markdown_has_a_table_four_heading_levels_and_a_long_section():
    md = {p.name: _text(p.name) for p in _files() if p.suffix == ".md"}
    tables = [n for n, t in md.items() if re.search(r"^\|.*\|\n\|\s*-{3,}", t, re.MULTILINE)]
    assert "product-page.md" in tables and len(tables) >= 3
    deep = [n for n, t in md.items() if re.search(r"^#### \S", t, re.MULTILINE)]
    assert len(deep) >= 2, deep
    longest = 0
    for text in md.values():
        for section in re.split(r"^#{1,6} .*$", text, flags=re.MULTILINE):
            longest = max(longest, len(section.strip()))
    assert longest > 2500, f"longest section under one heading is {longest} characters"


# ------------------------------------------------------ loading and chunking


@lru_cache(maxsize=1)
def _loaded():
    documents = importlib.import_module("ragcore.documents")
    chunking = importlib.import_module("ragcore.chunking")
    docs = {p.name: documents.load_path(p, p.name) for p in _files()}
    passages = [passage for doc in docs.values() for passage in chunking.chunk_document(doc)]
    return docs, passages


def test_default_chunking_gives_250_to_400_passages():
    _, passages = _loaded()
    assert 250 <= len(passages) <= 400, len(passages)


def _expected_control(name: str) -> tuple[int, int]:
    """Lines (first, last) the control block of ``name`` covers in the raw file."""
    lines = _text(name).split("\n")
    if name in FRONT_MATTER:
        return 1, lines.index("---", 1) + 1
    start_marker = "DOCUMENT CONTROL" if name in CONTROL_TEXT else "**Document control**"
    first = lines.index(start_marker) + 1
    section = re.compile(r"^(## |\d+\. [A-Z])")
    body = next(i for i in range(first, len(lines)) if section.match(lines[i]))
    last = max(i for i in range(first, body) if lines[i].strip()) + 1
    return first, last


CONTROL_CASES = [
    *FRONT_MATTER,
    *CONTROL_TABLE,
    "billing-procedures.txt",
]


@pytest.mark.parametrize("name", CONTROL_CASES)
def test_control_block_is_recognised_and_not_indexed(name):
    docs, passages = _loaded()
    doc = docs[name]
    assert doc.control_lines is not None, f"{name}: control block not recognised"
    assert doc.control_lines == _expected_control(name)
    first, last = doc.control_lines
    for passage in passages:
        if passage.doc == name:
            assert passage.first_line > last or passage.last_line < first, (
                f"{passage.id} indexes control lines"
            )


def test_files_without_control_blocks_have_none():
    docs, _ = _loaded()
    wrong = {name: docs[name].control_lines for name in NO_CONTROL if docs[name].control_lines is not None}
    assert not wrong, wrong


def test_pdf_passages_carry_pages():
    from pypdf import PdfReader

    docs, passages = _loaded()
    for name, doc in docs.items():
        if doc.kind != "pdf":
            continue
        n_pages = len(PdfReader(DEMO / name).pages)
        assert max(doc.line_pages) == n_pages
        covered = {page for p in passages if p.doc == name for page in p.pages}
        assert covered == set(range(1, n_pages + 1)), f"{name}: pages {covered} of {n_pages}"
        assert any(len(p.pages) > 1 for p in passages if p.doc == name), f"{name}: no passage crosses a page"


def test_headings_are_nested_and_long_sections_split():
    _, passages = _loaded()
    depth = {p.doc: max(len(q.label.split(" > ")) for q in passages if q.doc == p.doc) for p in passages}
    assert depth["release-notes.md"] >= 3 and depth["onboarding-guide.md"] >= 3
    long_section = [p for p in passages if p.label.endswith("Moving files over from shared drives")]
    assert len(long_section) >= 3
    labels = {p.label for p in passages}
    assert "7. LATE SETTLEMENT" in labels  # numbered plain-text heading
    assert "Product page claims" in labels  # underlined plain-text heading


@pytest.mark.parametrize(
    ("question", "name", "wording"), VOCABULARY_MISMATCH, ids=[v[0] for v in VOCABULARY_MISMATCH]
)
def test_vocabulary_mismatch_passage_shares_no_content_word(question, name, wording):
    text = importlib.import_module("ragcore.text")
    _, passages = _loaded()
    holding = [p for p in passages if p.doc == name and _flat(wording) in _flat(p.text)]
    assert holding, f"{name}: no passage holds {wording!r}"
    asked = text.content_words(question) - text.content_words(QUESTION_WORDS)
    for passage in holding:
        shared = asked & (text.content_words(passage.text) | text.content_words(passage.label))
        assert not shared, f"{passage.id} shares {sorted(shared)} with {question!r}"


# ------------------------------------------------------ retrieval and lenses


@lru_cache(maxsize=1)
def _retriever():
    corpus_mod = importlib.import_module("ragcore.corpus")
    retriever_mod = importlib.import_module("ragcore.retrieval.retriever")
    docs, passages = _loaded()
    return retriever_mod.Retriever(corpus_mod.Corpus("demo", docs, passages))


def _lens(question: str, mode: str = "bm25", k: int = 10):
    lenses = importlib.import_module("ragcore.lenses")
    hits = _retriever().search(question, mode=mode, k=k).hits
    return lenses.run_lens(lenses.choose_lens(question), hits)


def test_money_lens_finds_the_business_price_conflict():
    lens = _lens("Is our pricing consistent?", k=25)  # the conflicting passages rank 3-19 (bm25, 2026-12-01)
    assert lens.kind == "money"
    found = [c for c in lens.conflicts if {999, 1199} <= set(c.amounts)]
    assert found, [c.to_json() for c in lens.conflicts]
    docs = {d for c in found for d in c.docs}
    assert {"pricing-notes.md", "sales-call-notes.md"} <= docs


def test_money_lens_counts_one_price_written_two_ways_once():
    lenses = importlib.import_module("ragcore.lenses")
    records = importlib.import_module("ragcore.records")
    _, passages = _loaded()
    hits = [records.Hit(p, rank, 1.0, {}) for rank, p in enumerate(passages, start=1)]
    figures = [f for f in lenses.money_lens(hits).figures if f.amount == 999]
    assert len(figures) == 1
    forms = {m.raw for m in figures[0].mentions}
    assert {"$999", "$999/month"} <= forms, forms


def test_risk_lens_finds_the_guarantee_the_contract_contradicts():
    lens = _lens("Do we guarantee 99.99% uptime?")
    assert lens.kind == "risk"
    pairs = [(lens.findings[i], lens.findings[j]) for i, j in lens.contradictions]
    assert any(
        {a.doc, b.doc} == {"product-page.md", "master-services-agreement.pdf"} and a.negated != b.negated
        for a, b in pairs
    ), [(a.doc, a.phrase, b.doc, b.phrase) for a, b in pairs]


@pytest.mark.slow  # embeds every passage with the real model
def test_dense_finds_vocabulary_mismatch_answers_bm25_misses():
    retriever = _retriever()
    retriever.ensure_dense()  # the model ships in a pinned package: unavailable is a failure
    rescued = []
    for question, name, wording in VOCABULARY_MISMATCH:

        def found(mode: str, question=question, name=name, wording=wording) -> bool:
            hits = retriever.search(question, mode=mode, k=10).hits
            return any(h.passage.doc == name and _flat(wording) in _flat(h.passage.text) for h in hits)

        assert not found("bm25"), f"BM25 finds the answer to {question!r}: not a vocabulary mismatch"
        if found("dense") or found("hybrid"):
            rescued.append(question)
    assert rescued, "neither dense nor hybrid retrieval finds any vocabulary-mismatch answer"
