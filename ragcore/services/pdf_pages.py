"""PDF page highlighting: the cited page of a PDF as a one-page PDF with the
cited lines marked."""

from __future__ import annotations

import re
from typing import Any

from ..records import Document


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def highlight_pdf_page(data: bytes, page_number: int, lines: list[str]) -> bytes | None:
    """Page ``page_number`` (1-based) of a PDF as a one-page PDF, with a
    highlight annotation over each text run that belongs to ``lines``.

    Text runs and their positions come from pypdf's text visitor; a run is
    marked when its text (white space ignored) occurs in one of the lines.
    The page itself is copied unchanged.
    """
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.annotations import Highlight
    from pypdf.generic import ArrayObject, FloatObject

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        if not 1 <= page_number <= len(reader.pages):
            return None
        page = reader.pages[page_number - 1]
        right_edge = float(page.mediabox.right) - 18  # keep marks inside the page margin
        targets = [_squash(line) for line in lines if _squash(line)]
        boxes: list[tuple[float, float, float, float]] = []

        def visit(text: str, cm: list[float], tm: list[float], font_dict: Any, font_size: float) -> None:
            piece = _squash(text)
            if len(piece) < 2 or not any(piece in t for t in targets):
                return
            size = abs(font_size * (tm[3] or 1) * (cm[3] or 1)) or 10.0
            x = tm[4] * cm[0] + cm[4]
            y = tm[5] * cm[3] + cm[5]
            width = 0.48 * size * len(text.rstrip())  # average glyph width of Latin text
            boxes.append((x - 1, y - 0.25 * size, min(x + width + 1, right_edge), y + 0.95 * size))

        page.extract_text(visitor_text=visit)
        writer = PdfWriter()
        writer.add_page(page)
        for x0, y0, x1, y1 in boxes:
            quad = ArrayObject([FloatObject(v) for v in (x0, y1, x1, y1, x0, y0, x1, y0)])
            writer.add_annotation(
                0, Highlight(rect=(x0, y0, x1, y1), quad_points=quad, highlight_color="ffe066")
            )
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()
    except Exception:
        return None


def marked_page(doc: Document, data: bytes, first_line: int, last_line: int) -> bytes | None:
    """The first page that lines ``first_line..last_line`` of ``doc`` are on,
    cut from the original ``data`` with those lines highlighted."""
    pages = doc.pages_for(first_line, last_line)
    if not pages:
        return None
    page = pages[0]
    wanted = [
        doc.line(n)
        for n in range(first_line, last_line + 1)
        if doc.line_pages[n - 1] == page and doc.line(n).strip()
    ]
    return highlight_pdf_page(data, page, wanted)
