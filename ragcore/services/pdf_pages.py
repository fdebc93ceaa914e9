"""PDF page highlighting: the cited page of a PDF as a one-page PDF with the
cited lines marked, made in the guard's worker (time and memory limits),
without active content, and cached per (collection, document, page, lines)."""

from __future__ import annotations

from .. import errors
from ..guard import highlight_guarded
from ..pdf_marks import MarkedPages, highlight_pdf_page
from ..records import Document

__all__ = ["MarkedPages", "highlight_pdf_page", "marked_page"]


def marked_page(
    doc: Document,
    data: bytes,
    first_line: int,
    last_line: int,
    *,
    collection: str = "",
    cache: MarkedPages | None = None,
) -> bytes | None:
    """The first page that lines ``first_line..last_line`` of ``doc`` are on,
    cut from the original ``data`` with those lines highlighted; None when it
    cannot be marked (no such page, or the page hit the guard's limits)."""
    pages = doc.pages_for(first_line, last_line)
    if not pages:
        return None
    page = pages[0]
    wanted = [
        doc.line(n)
        for n in range(first_line, last_line + 1)
        if doc.line_pages[n - 1] == page and doc.line(n).strip()
    ]
    key = (collection, doc.name, doc.content_hash, page, tuple(wanted))
    try:
        return (cache or MarkedPages(1)).get(key, lambda: highlight_guarded(data, doc.name, page, wanted))
    except errors.ParseLimitExceeded:
        return None  # too heavy to mark within the limits: the dialog shows the lines instead
