"""The parse worker's side of ``guard``: a fresh interpreter that sets its
own memory and CPU limits, says it is ready, then parses (and chunks), chunks,
or marks a PDF page from what arrives on stdin, and answers on stdout. A
limit hit inside it is a ``MemoryError`` here, reported as a JSON reply, or
the process ends and the parent reports which limit stopped it."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from .documents import load_bytes
from .guard_wire import READY, document_from_json, document_to_json, failure_reply, passage_to_row
from .records import Document, Passage


def worker_main() -> None:
    """The child: set limits, say ready, read the input, do the task, answer."""
    name, memory_bytes, cpu_s, task, arg = (
        sys.argv[1],
        int(sys.argv[2]),
        int(sys.argv[3]),
        sys.argv[4],
        sys.argv[5],
    )
    import pypdf  # noqa: F401 - imported before the limits and the ready signal: start-up is not parse time

    from .chunking import chunk_document
    from .pdf_marks import highlight_pdf_page

    out_of_memory = b'{"limit": "memory"}'  # made before the cap, so it can always be sent
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    except (ImportError, ValueError, OSError):
        pass  # no rlimits on this platform: the wall clock still holds
    out = sys.stdout.buffer
    out.write(READY)
    out.flush()
    if task == "highlight":
        try:
            head, _, data = sys.stdin.buffer.read().partition(b"\n")
            marked = highlight_pdf_page(data, int(arg), json.loads(head))
            payload = b"N" if marked is None else b"P" + marked
        except MemoryError:
            payload = out_of_memory
        out.write(payload)
        out.flush()
        return
    if task == "pdfpages":
        from .parallel_pdf import pages_task

        payload = pages_task(name, arg)
    elif task == "chunk":
        payload = _chunk_task(arg, chunk_document)
    else:
        payload = _parse_task(name, arg or None, chunk_document)
    out.write(payload or out_of_memory)
    out.flush()


def _chunk_task(chunking: str, chunk_document: Callable[[Document, str], list[Passage]]) -> bytes:
    """Chunk the document (JSON) on stdin; the JSON reply (b"" when out of memory)."""
    try:
        doc = document_from_json(json.loads(sys.stdin.buffer.read()))
        reply: dict[str, object] = {
            "document": document_to_json(doc),
            "passages": [passage_to_row(p) for p in chunk_document(doc, chunking)],
        }
        return json.dumps(reply).encode("utf-8")
    except MemoryError:
        return b""


def _parse_task(
    name: str, chunking: str | None, chunk_document: Callable[[Document, str], list[Passage]]
) -> bytes:
    """Read, parse and chunk the file on stdin; the JSON reply (b"" when out of memory)."""
    data = b""
    try:
        data = sys.stdin.buffer.read()
        doc = load_bytes(data, name)
        reply: dict[str, object] = {"document": document_to_json(doc)}
        if chunking is not None:
            reply["passages"] = [passage_to_row(p) for p in chunk_document(doc, chunking)]
    except Exception as exc:  # the document's fault, the memory limit or a loader bug
        reply = failure_reply(exc)
    del data
    try:
        return json.dumps(reply).encode("utf-8")
    except MemoryError:
        return b""
