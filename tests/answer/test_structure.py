"""A heading is never quoted as an answer sentence (ragcore.answer.structure)."""

from __future__ import annotations

from ragcore.answer.structure import component_lines, heading_lines, run_in_titles, running_lines
from ragcore.answer.units import answer_units
from ragcore.records import Document, Hit, Passage, StageTrace, sha256_hex


def _whole(doc: Document) -> list[Hit]:
    """One hit holding the whole document."""
    p = Passage(doc.name, 0, 1, doc.line_count, 0, len(doc.text), doc.name, doc.text, ())
    trace = {"bm25": StageTrace(1, 1.0), "dense": None, "fused": None, "rerank": None}
    return [Hit(p, 1, 1.0, trace)]


def _doc(name: str, kind: str, text: str, pages: tuple[int, ...] = ()) -> Document:
    return Document(name, name, kind, text, sha256_hex(text), line_pages=pages)


RUN_IN = (
    "1. Fees\n"
    "1.1 Invoices. The provider invoices the customer every month in advance.\n"
    "1.2 Late payment. Overdue amounts carry interest of one percent a month.\n"
    "1.3 Taxes. Fees exclude sales taxes, which the customer pays.\n"
)


def test_a_run_in_clause_title_is_quoted_with_its_clause_never_alone() -> None:
    doc = _doc("contract.txt", "txt", RUN_IN)
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    assert "1.2 Late payment." not in texts
    assert "1.2 Late payment. Overdue amounts carry interest of one percent a month." in texts
    assert len(run_in_titles(doc)) == 3


def test_short_clause_sentences_are_titles_only_where_most_clauses_open_with_one() -> None:
    text = (
        "4.1 The customer pays every invoice within thirty days of the invoice date.\n"
        "4.2 Fees are never refundable.\n"
        "4.3 The provider may suspend the service when an invoice is sixty days overdue.\n"
    )
    doc = _doc("terms.txt", "txt", text)
    assert run_in_titles(doc) == frozenset()
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    assert "4.2 Fees are never refundable." in texts


def test_a_pdf_heading_line_is_cut_off_the_sentence_below_it() -> None:
    text = (
        "Quarterly update\n"
        "Revenue grew in every region this quarter.\n"
        "Financial results\n"
        "Fourth-quarter revenue was $4.4M, up from $3.9M.\n"
    )
    doc = _doc("update.pdf", "pdf", text, (1, 1, 1, 1))
    assert heading_lines(doc) == frozenset({1, 3})
    units = answer_units(_whole(doc), {doc.name: doc})
    assert [u.text for u in units] == [
        "Revenue grew in every region this quarter.",
        "Fourth-quarter revenue was $4.4M, up from $3.9M.",
    ]
    assert [(u.first_line, u.last_line) for u in units] == [(2, 2), (4, 4)]


def test_a_text_heading_alone_is_no_sentence() -> None:
    text = (
        "\nPURPOSE OF THE MEETING AND ITS SCOPE\n\nThe committee met to agree the price book for the year.\n"
    )
    doc = _doc("minutes.txt", "txt", text)
    assert 2 in heading_lines(doc)
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    assert texts == ["The committee met to agree the price book for the year."]


BOLD = (
    "# Standard Terms\n\n"
    "1. **Governing Law and Jurisdiction**. This agreement is governed by the laws of the State of Utah.\n\n"
    "2. **Equitable Relief**. A breach may cause irreparable harm to the disclosing party.\n\n"
    "**Time to value.** Our customers go live in about four weeks.\n\n"
    "**Note** the fee is waived for charities registered in the country.\n"
)


def test_a_bold_run_in_title_in_markdown_is_quoted_with_its_sentence_never_alone() -> None:
    doc = _doc("terms.md", "md", BOLD)
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    assert "Governing Law and Jurisdiction." not in texts
    assert (
        "Governing Law and Jurisdiction. This agreement is governed by the laws of the State of Utah."
        in texts
    )
    assert "Equitable Relief. A breach may cause irreparable harm to the disclosing party." in texts
    # a full stop inside the bold already runs into its sentence: nothing else is joined to it
    assert "Time to value. Our customers go live in about four weeks." in texts
    titles = run_in_titles(doc)
    assert len(titles) == 2 and all(BOLD[t : t + 2] == "**" for t in titles)
    # the same layout in a text file is not Markdown
    assert run_in_titles(_doc("terms.txt", "txt", BOLD)) == frozenset()


MDX = (
    "import CtaBox from '@site/src/components/CtaBox';\n\n"
    "Plausible gives you full control over your subscription plan.\n\n"
    "<CtaBox\n"
    '  headline="Thirty days free, no card required. Choose a plan when you are ready"\n'
    '  link="https://example.com/register"\n'
    '  linkText="Start free trial"\n'
    '  secondaryText="View plans and pricing today"\n'
    "/>\n\n"
    "## Which plan should I choose?\n"
)


def test_a_component_tag_is_never_quoted_with_its_syntax_but_its_prose_attributes_are() -> None:
    doc = _doc("plans.md", "md", MDX)
    assert component_lines(doc) == frozenset({5, 6, 7, 8, 9, 10})
    units = answer_units(_whole(doc), {doc.name: doc})
    texts = [u.text for u in units]
    assert not any('="' in t or "/>" in t or "://" in t for t in texts)
    assert "Choose a plan when you are ready" in texts
    assert "View plans and pricing today" not in texts  # a button's words
    headline = next(u for u in units if u.text == "Thirty days free, no card required.")
    assert headline.first_line == headline.last_line == 6
    assert "Plausible gives you full control over your subscription plan." in texts
    # the same text in a text file is not a page component
    assert component_lines(_doc("plans.txt", "txt", MDX)) == frozenset()


def test_a_title_cased_clause_title_runs_into_its_clause_wherever_it_stands() -> None:
    text = (
        "2.5. The processor keeps records of every processing activity it performs.\n"
        "2.6. The controller may ask for those records once in any twelve months.\n"
        "2.7. Certification of Deletion.  The parties agree that deletion is certified only on request.\n"
    )
    doc = _doc("dpa.txt", "txt", text)
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    assert (
        "2.7. Certification of Deletion. The parties agree that deletion is certified only on request."
        in texts
    )
    assert not any(t.startswith("2.7. Certification of Deletion.") and t.endswith("Deletion.") for t in texts)
    # most clauses open with a sentence, so only the title-cased one is a title
    assert len(run_in_titles(doc)) == 1


FOOTED = (
    "1. Notices\n"
    "Notices must be in writing and sent to the addresses in the order form.\n"
    "Services Agreement v4.1 - Page 1 of 2\n"
    "2. Entire agreement\n"
    "This agreement is the entire agreement between the parties.\n"
    "Services Agreement v4.1 - Page 2 of 2\n"
)


def test_a_pdf_running_footer_is_structure_never_quoted_nor_glued_to_a_sentence() -> None:
    doc = _doc("msa.pdf", "pdf", FOOTED, pages=(1, 1, 1, 2, 2, 2))
    assert running_lines(doc) == {3, 6}
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    assert "This agreement is the entire agreement between the parties." in texts
    assert not any("Page" in t for t in texts)
    # a line repeated on one page only is text, and so is any line of a text file
    assert running_lines(_doc("one-page.pdf", "pdf", FOOTED, pages=(1, 1, 1, 1, 1, 1))) == frozenset()
    assert running_lines(_doc("msa.txt", "txt", FOOTED)) == frozenset()


def test_a_sentence_running_on_past_a_page_footer_is_quoted_whole() -> None:
    text = (
        "Notices must be in writing and sent to\n"
        "Page 1\n"
        "the addresses in the order form.\n"
        "This agreement is the entire agreement.\n"
        "Page 2\n"
    )
    doc = _doc("paged.pdf", "pdf", text, pages=(1, 1, 2, 2, 2))
    assert running_lines(doc) == {2, 5}
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    # the quote keeps the cited lines' words in order: never cut short at the footer
    assert "Notices must be in writing and sent to Page 1 the addresses in the order form." in texts
    assert "This agreement is the entire agreement." in texts


def test_a_page_number_before_a_run_in_title_does_not_part_the_title_from_its_clause() -> None:
    text = (
        "2.5. Copies. The parties agree that copies will be provided only upon request by Customer.\n"
        " 10 \n"
        "2.6. Audits and Certifications.  The parties agree that the audits are carried out under the DPA.\n"
        " 11 \n"
    )
    doc = _doc("dpa.pdf", "pdf", text, pages=(1, 1, 2, 2))
    texts = [u.text for u in answer_units(_whole(doc), {doc.name: doc})]
    assert (
        "2.6. Audits and Certifications. The parties agree that the audits are carried out under the DPA."
        in texts
    )
    assert not any(t.startswith("10") or t == "2.6. Audits and Certifications." for t in texts)
