"""What the app and its parse worker (``guard``, ``guard_worker``) send each
other over the worker's pipes: documents as JSON objects, passages as rows
of their offsets (their text is the document's, between the offsets)."""

from __future__ import annotations

from . import errors
from .records import Document, Passage

READY = b"ready\n"  # the worker's first line: imports done, limits set


def failure_reply(exc: Exception) -> dict[str, object]:
    """The reply of a worker task that failed: the document's fault, the
    memory limit, or a loader bug (reported, not died of silently)."""
    if isinstance(exc, errors.DocumentError):
        return {"error": type(exc).__name__, "reason": exc.reason}
    if isinstance(exc, MemoryError):
        return {"limit": "memory"}
    return {"crash": f"{type(exc).__name__}: {exc}"[:300]}


def document_to_json(doc: Document) -> dict[str, object]:
    """A document as JSON for the pipe between the app and its parse worker."""
    return {
        "name": doc.name,
        "title": doc.title,
        "kind": doc.kind,
        "text": doc.text,
        "content_hash": doc.content_hash,
        "size_bytes": doc.size_bytes,
        "line_pages": list(doc.line_pages),
        "control_lines": list(doc.control_lines) if doc.control_lines else None,
    }


def document_from_json(d: dict) -> Document:
    """The document ``document_to_json`` sent."""
    return Document(
        name=d["name"],
        title=d["title"],
        kind=d["kind"],
        text=d["text"],
        content_hash=d["content_hash"],
        size_bytes=d["size_bytes"],
        line_pages=tuple(d["line_pages"]),
        control_lines=tuple(d["control_lines"]) if d["control_lines"] else None,
    )


def passage_to_row(p: Passage) -> list[object]:
    """A passage as a JSON row (its document is sent once, beside the rows)."""
    # The text is not sent: it is the document's text between the offsets.
    return [p.index, p.first_line, p.last_line, p.start, p.end, p.label, list(p.pages), p.chunking]


def passage_from_row(doc: Document, row: list) -> Passage:
    """The passage of ``doc`` that ``passage_to_row`` sent."""
    index, first, last, start, end, label, pages, chunking = row
    return Passage(
        doc=doc.name,
        index=index,
        first_line=first,
        last_line=last,
        start=start,
        end=end,
        label=label,
        text=doc.text[start:end],
        pages=tuple(pages),
        chunking=chunking,
    )
