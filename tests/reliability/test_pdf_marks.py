"""Opening a PDF citation (issue 17, item 3): the page is marked in the
guard's worker under its time and memory limits, cached per (document, page,
lines), and offered without active content (actions, JavaScript)."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, TextStringObject

from ragcore import errors, guard
from ragcore.pdf_marks import MarkedPages, highlight_pdf_page
from tests.conftest import build_pdf

LINES = ["Quarterly report", "Revenue grew by a fifth."]


def _heavy_page_pdf(operations: int) -> bytes:
    """One page whose content stream holds ``operations`` text operations
    (a 16 KB file can carry megabytes of them, compressed)."""
    ops = b"BT /F1 9 Tf " + b"1 0 0 1 72 700 Tm (x) Tj " * operations + b"ET"
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(build_pdf([LINES]))))
    page = writer.pages[0]
    from pypdf.generic import DecodedStreamObject

    stream = DecodedStreamObject()
    stream.set_data(ops)
    page[NameObject("/Contents")] = writer._add_object(stream)
    page.compress_content_streams()
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _active_pdf() -> bytes:
    """A PDF with a JavaScript open action, a page action and a link
    annotation that runs JavaScript."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(build_pdf([LINES]))))
    js = DictionaryObject(
        {NameObject("/S"): NameObject("/JavaScript"), NameObject("/JS"): TextStringObject("app.alert(1)")}
    )
    writer._root_object[NameObject("/OpenAction")] = js
    page = writer.pages[0]
    page[NameObject("/AA")] = DictionaryObject({NameObject("/O"): js})
    link = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Annot"),
            NameObject("/Subtype"): NameObject("/Link"),
            NameObject("/Rect"): ArrayObject([]),
            NameObject("/A"): js,
        }
    )
    page[NameObject("/Annots")] = ArrayObject([writer._add_object(link)])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_marking_a_page_with_a_huge_content_stream_meets_the_time_limit() -> None:
    data = _heavy_page_pdf(100_000)
    assert len(data) < 200_000
    with pytest.raises(errors.ParseLimitExceeded, match=r"longer than 0\.5 s"):
        guard.highlight_guarded(data, "heavy.pdf", 1, LINES, timeout_s=0.5)


def test_the_marked_page_from_the_worker_has_its_highlights() -> None:
    marked = guard.highlight_guarded(build_pdf([LINES]), "r.pdf", 1, LINES)
    assert marked is not None
    annots = PdfReader(io.BytesIO(marked)).pages[0]["/Annots"]
    assert [a.get_object()["/Subtype"] for a in annots] == ["/Highlight", "/Highlight"]
    assert guard.highlight_guarded(build_pdf([LINES]), "r.pdf", 9, LINES) is None  # no such page


def _all_text(pdf: bytes) -> bytes:
    # Raw bytes plus every inflated stream, so nothing hides in compression.
    parts = [pdf]
    reader = PdfReader(io.BytesIO(pdf))
    for num in range(1, int(reader.trailer["/Size"])):
        try:
            obj = reader.get_object(num)
        except Exception:
            continue
        if hasattr(obj, "get_data"):
            parts.append(obj.get_data())
    return b"".join(parts)


def test_active_content_is_stripped_from_the_downloadable_page() -> None:
    source = _active_pdf()
    assert b"/JavaScript" in source and b"/OpenAction" in source
    marked = highlight_pdf_page(source, 1, LINES)
    assert marked is not None
    text = _all_text(marked)
    for token in (b"/JavaScript", b"/JS", b"/AA", b"/OpenAction", b"app.alert"):
        assert token not in text, token
    assert PdfReader(io.BytesIO(marked)).pages[0].extract_text().startswith("Quarterly report")


def test_marked_pages_are_cached_per_document_page_and_lines() -> None:
    cache = MarkedPages()
    made: list[int] = []

    def make(page: int):
        return lambda: made.append(page) or f"page {page}".encode()

    key = ("c", "r.pdf", "hash", 1, tuple(LINES))
    assert cache.get(key, make(1)) == b"page 1"
    assert cache.get(key, make(1)) == b"page 1"
    assert cache.get(("c", "r.pdf", "hash", 2, tuple(LINES)), make(2)) == b"page 2"
    assert cache.get(("other", "r.pdf", "hash", 1, tuple(LINES)), make(1)) == b"page 1"
    assert made == [1, 2, 1]


def test_a_page_that_hit_a_limit_is_not_marked_again_on_every_rerun() -> None:
    cache = MarkedPages()
    calls = []

    def boom():
        calls.append(1)
        raise errors.ParseLimitExceeded("heavy.pdf", "marking the page took longer than 1 s")

    for _ in range(3):
        with pytest.raises(errors.ParseLimitExceeded):
            cache.get(("c", "heavy.pdf", "h", 1, ()), boom)
    assert calls == [1]


def test_opening_a_citation_marks_in_the_worker_once_per_page_and_lines(tmp_path, monkeypatch) -> None:
    from ragcore.services import Workspace, pdf_pages

    calls: list[int] = []
    real = pdf_pages.highlight_guarded

    def counted(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(pdf_pages, "highlight_guarded", counted)
    ws = Workspace(tmp_path / "home", demo_dir=tmp_path / "no-demo")
    assert ws.docs.upload("uploads", "r.pdf", build_pdf([LINES, ["Outlook is steady."]])).status == "added"
    first = ws.docs.marked_pdf_page("uploads", "r.pdf", 1, 2)
    assert first is not None and b"/Highlight" in first
    assert ws.docs.marked_pdf_page("uploads", "r.pdf", 1, 2) == first  # a dialog rerun
    assert ws.docs.marked_pdf_page("uploads", "r.pdf", 3, 3) is not None  # another page
    assert len(calls) == 2


def test_a_page_too_heavy_to_mark_gives_no_page_and_is_not_retried(monkeypatch) -> None:
    from ragcore.documents import load_bytes
    from ragcore.services import pdf_pages

    monkeypatch.setattr(guard, "HIGHLIGHT_TIMEOUT_S", 0.5)
    doc = load_bytes(build_pdf([LINES]), "heavy.pdf")
    heavy = _heavy_page_pdf(100_000)
    cache = MarkedPages()
    assert pdf_pages.marked_page(doc, heavy, 1, 2, collection="c", cache=cache) is None
    monkeypatch.setattr(pdf_pages, "highlight_guarded", lambda *a, **k: pytest.fail("marked again"))
    assert pdf_pages.marked_page(doc, heavy, 1, 2, collection="c", cache=cache) is None


def test_mark_band_places_the_highlight_on_the_page() -> None:
    from ragcore.pdf_marks import mark_band

    lines = [f"Line number {i} of the page" for i in range(1, 31)]
    data = build_pdf([lines])
    first = mark_band(highlight_pdf_page(data, 1, [lines[1]]))
    late = mark_band(highlight_pdf_page(data, 1, [lines[24]]))
    assert first is not None and late is not None
    # Lines are written top-down: an early line sits near the top, a late one further down.
    assert 0.0 <= first[0] < first[1] < late[0] < late[1] <= 1.0
    assert mark_band(highlight_pdf_page(data, 1, ["no such words"])) is None
    assert mark_band(b"not a pdf") is None
