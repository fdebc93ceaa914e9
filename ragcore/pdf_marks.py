"""The cited page of a PDF as a one-page PDF with the cited lines marked,
and without active content.

Run in the guard's worker (``ragcore.guard.highlight_guarded``): pypdf reads
the original again, and a page with a huge content stream costs seconds and
hundreds of MB, so the same time and memory limits as parsing apply. The page
offered for download carries no active content: no page or annotation
actions (``/AA``, ``/A``), no JavaScript, no open action, no form widgets or
media; only the page's drawing and our highlight annotations.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

# Annotation subtypes that run or embed something rather than mark the page.
_ACTIVE_SUBTYPES = {"/Widget", "/Screen", "/Movie", "/Sound", "/RichMedia", "/FileAttachment", "/3D"}
_ACTIVE_KEYS = ("/AA", "/A", "/JS", "/OpenAction")


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def highlight_pdf_page(data: bytes, page_number: int, lines: list[str]) -> bytes | None:
    """Page ``page_number`` (1-based) of a PDF as a one-page PDF, with a
    highlight annotation over each text run that belongs to ``lines``.

    Text runs and their positions come from pypdf's text visitor; a run is
    marked when its text (white space ignored) occurs in one of the lines.
    The page's drawing is copied unchanged; its active content is not.
    """
    from pypdf import PdfReader, PdfWriter

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        if not 1 <= page_number <= len(reader.pages):
            return None
        page = reader.pages[page_number - 1]
        boxes = _boxes(page, lines)
        # Stripped before the copy: what the writer never copies it never writes.
        strip_page(page)
        writer = PdfWriter()
        writer.add_page(page)
        strip_active_content(writer)
        _mark(writer, boxes)
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()
    except MemoryError:
        raise  # a limit of the worker, reported by the guard
    except Exception:
        return None


def _boxes(page: Any, lines: list[str]) -> list[tuple[float, float, float, float]]:
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
    return boxes


def mark_band(data: bytes) -> tuple[float, float] | None:
    """Where the highlights of a page made by ``highlight_pdf_page`` sit:
    ``(top, bottom)`` as fractions of the page's height from its top edge,
    so a viewer can be scrolled to them; None when the page has none.

    Reads only our own one-page output (small, active content stripped), so
    it runs in the app's process."""
    from pypdf import PdfReader

    try:
        page = PdfReader(io.BytesIO(data), strict=False).pages[0]
        box = page.mediabox
        top, height = float(box.top), float(box.height)
        ys = [
            float(y)
            for annot in page.get("/Annots") or []
            if annot.get_object().get("/Subtype") == "/Highlight"
            for y in (annot.get_object()["/Rect"][1], annot.get_object()["/Rect"][3])
        ]
    except Exception:
        return None
    if not ys or height <= 0:
        return None
    clip = lambda v: min(1.0, max(0.0, v))  # noqa: E731 - a rect may poke past the page edge
    return clip((top - max(ys)) / height), clip((top - min(ys)) / height)


def _mark(writer: Any, boxes: list[tuple[float, float, float, float]]) -> None:
    from pypdf.annotations import Highlight
    from pypdf.generic import ArrayObject, FloatObject

    for x0, y0, x1, y1 in boxes:
        quad = ArrayObject([FloatObject(v) for v in (x0, y1, x1, y1, x0, y0, x1, y0)])
        writer.add_annotation(0, Highlight(rect=(x0, y0, x1, y1), quad_points=quad, highlight_color="ffe066"))


def strip_active_content(writer: Any) -> None:
    """Remove actions, JavaScript, forms and media from a writer's document."""
    from pypdf.generic import NameObject

    root = writer._root_object
    for key in ("/OpenAction", "/AA", "/AcroForm", "/Names", "/JavaScript"):
        if key in root:
            del root[NameObject(key)]
    for page in writer.pages:
        strip_page(page)


def strip_page(page: Any) -> None:
    """Remove a page's actions and its annotations that act (links with
    actions, widgets, media); other annotations stay."""
    from pypdf.generic import ArrayObject, NameObject

    for key in _ACTIVE_KEYS:
        if key in page:
            del page[NameObject(key)]
    annots = page.get("/Annots")
    if annots is None:
        return
    kept = ArrayObject()
    for ref in annots.get_object():
        annot = ref.get_object()
        if annot.get("/Subtype") in _ACTIVE_SUBTYPES or any(k in annot for k in _ACTIVE_KEYS):
            continue  # a link or widget that acts: dropped, not defused
        kept.append(ref)
    page[NameObject("/Annots")] = kept


MarkKey = tuple[str, str, str, int, tuple[str, ...]]  # (collection, document, content hash, page, lines)


class MarkedPages:
    """Marked pages already made, per (collection, document, content hash,
    page, lines): a dialog rerun or a second opening costs nothing. Scoped
    by collection, so one visitor's openings say nothing to another. A page
    that hit a limit is remembered too (as its error), so it is not retried
    on every rerun."""

    def __init__(self, size: int = 64) -> None:
        import threading
        from collections import OrderedDict

        self._size = size
        self._items: OrderedDict[MarkKey, bytes | Exception | None] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: MarkKey, make: Callable[[], bytes | None]) -> bytes | None:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return _value(self._items[key])
        try:
            value: bytes | Exception | None = make()
        except Exception as exc:  # a limit: remembered, raised again each time
            value = exc
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return _value(value)


def _value(value: bytes | Exception | None) -> bytes | None:
    if isinstance(value, Exception):
        raise value
    return value
