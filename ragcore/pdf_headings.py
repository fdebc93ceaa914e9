"""Heading-like lines of a PDF's text, for passage labels.

A PDF's extracted text carries no markup, so a PDF passage used to be
labelled only "Page N". A line reads as a heading when it stands alone
between paragraphs: short (at most ``MAX_WORDS`` words), starting with a
capital or a number, ending without sentence punctuation, after a line that
ends a sentence (or at the top of a page), and before a line that starts one.
Running headers and footers (a line of the page's first or last line that
recurs, digits aside, on other pages, or that says "Page 3 of 9") are not
headings. The rule is about layout, not words, so it carries over to PDFs
this project has never seen; it errs on the side of no heading, and the
label then falls back to the page.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter

from .records import Document

MAX_WORDS = 10
_ENDS_SENTENCE = re.compile(r"[.!?:;]['\")\]]*$")
_STARTS_BLOCK = re.compile(r"^(?:[A-Z0-9\"'(]|[-•*–] )")
_PAGE_MARK = re.compile(r"\bpage \d+(?: of \d+)?\b", re.IGNORECASE)
# A line ending on one of these is a sentence broken by the layout ("Subject to"), not a heading.
_OPEN_ENDINGS = frozenset(
    "a an the and or but nor of to in on at by for with from into as than that which who whose "
    "during under over between about after before is are was were be been has have had will "
    "would shall should may might can could not".split()
)


def _running_lines(doc: Document) -> set[str]:
    """First and last lines of pages that recur on other pages (digits aside)."""
    edges: Counter[str] = Counter()
    for first, last in _page_edges(doc):
        for number in {first, last}:
            edges[re.sub(r"\d+", "#", doc.line(number).strip())] += 1
    return {text for text, count in edges.items() if count > 1}


def _page_edges(doc: Document) -> list[tuple[int, int]]:
    edges: list[tuple[int, int]] = []
    for number, page in enumerate(doc.line_pages, start=1):
        if not edges or doc.line_pages[edges[-1][1] - 1] != page:
            edges.append((number, number))
        else:
            edges[-1] = (edges[-1][0], number)
    return edges


def _heading_like(line: str, prev: str | None, nxt: str) -> bool:
    text = line.strip()
    words = text.split()
    return (
        0 < len(words) <= MAX_WORDS
        and sum(c.isalpha() for c in text) >= 3
        and sum(c.isdigit() for c in text) <= 0.3 * len(text.replace(" ", ""))  # not a table row
        and bool(_STARTS_BLOCK.match(text))
        and not text.startswith(("-", "•", "*", "–"))
        and not _ENDS_SENTENCE.search(text)
        and not text.endswith(",")
        and words[-1].lower() not in _OPEN_ENDINGS
        and not _PAGE_MARK.search(text)
        and (prev is None or bool(_ENDS_SENTENCE.search(prev.strip())))
        and bool(_STARTS_BLOCK.match(nxt.strip()))
    )


def pdf_headings(doc: Document) -> list[tuple[int, str]]:
    """(line number, text) of each heading-like line of a PDF document."""
    if doc.kind != "pdf" or not doc.line_pages:
        return []
    running = _running_lines(doc)
    found: list[tuple[int, str]] = []
    prev: str | None = None
    for number in range(1, doc.line_count + 1):
        line = doc.line(number)
        if not line.strip():
            continue
        if re.sub(r"\d+", "#", line.strip()) in running:
            continue  # a running header or footer: neither a heading nor the line before one
        nxt = doc.line(number + 1) if number < doc.line_count else ""
        if _heading_like(
            line, prev, nxt
        ):  # prev skips footers: a page's top line follows the last page's text
            found.append((number, line.strip()))
        prev = line
    return found


def pdf_label(doc: Document, headings: list[tuple[int, str]], first: int, last: int) -> str:
    """ "Financial results (page 1)": the last heading at or before ``first``
    with the passage's pages; "Page N" when no heading precedes it."""
    pages = doc.pages_for(first, last)
    if not pages:
        return doc.title
    where = f"page {pages[0]}" if len(pages) == 1 else f"pages {pages[0]}-{pages[-1]}"
    at = bisect.bisect_right([number for number, _ in headings], first) - 1
    return f"{headings[at][1]} ({where})" if at >= 0 else where[0].upper() + where[1:]
