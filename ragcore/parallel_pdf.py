"""A large PDF parsed on every core: one guarded worker per core, each
extracting every n-th page (:func:`ragcore.pdf_text.pdf_page_texts`) under the
guard's time and memory limits, then assembled in page order here.

pypdf is pure Python, so one process parses one page at a time; a 300-page
filing spends nearly all its parse time in ``extract_text``. Interleaved
pages (0, n, 2n, ... for the first worker) balance the work without knowing
the page count first. Each worker opens the whole file (reading the page
tree is cheap next to extracting text). Small files stay on one worker:
start-up (about 0.2 s) would cost more than it saves.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from . import errors
from .documents import PdfPages, pdf_document, pdf_page_texts
from .guard_wire import failure_reply
from .records import Document

PARALLEL_MIN_BYTES = 512 * 1024  # PDFs smaller than this parse on one worker
MAX_PARTS = 8


def parts_for(size: int) -> int:
    """How many workers parse a PDF of ``size`` bytes: one per core for a large file."""
    if size < PARALLEL_MIN_BYTES:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, MAX_PARTS))


def parse_pdf_in_parts(
    data: bytes, name: str, parts: int, *, timeout_s: float, memory_bytes: int
) -> Document:
    """Parse ``data`` with ``parts`` workers at once; each has the full limits."""
    from .guard import _run_worker

    results: list[tuple[bytes, bytes, int] | BaseException | None] = [None] * parts

    def run(k: int) -> None:
        try:
            results[k] = _run_worker(
                data, name, ["pdfpages", f"{k}/{parts}"], timeout_s, memory_bytes, "parsing"
            )
        except BaseException as exc:  # re-raised in the caller's thread below
            results[k] = exc

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(parts)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pages = []
    for result in results:
        if isinstance(result, BaseException):
            raise result
        assert result is not None
        pages.append(_pages_from(*result, name=name, memory_bytes=memory_bytes))
    return pdf_document(data, name, pages)


def _pages_from(out: bytes, err: bytes, code: int, *, name: str, memory_bytes: int) -> PdfPages:
    from .guard import _result

    try:
        msg = json.loads(out.decode("utf-8")) if out else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        msg = None
    if isinstance(msg, dict) and "pages" in msg:
        texts = {int(i): text for i, text in msg["pages"].items()}
        return PdfPages(texts, msg["count"], msg["title"], msg["damage"])
    _result(out, err, code, name, memory_bytes)  # raises the worker's error or limit
    raise errors.DocumentError(name, "the parsing worker gave no pages")


def pages_task(name: str, arg: str) -> bytes:
    """The worker's side: extract its share of the pages of the PDF on stdin."""
    part, parts = (int(v) for v in arg.split("/"))
    try:
        data = sys.stdin.buffer.read()
        got = pdf_page_texts(data, name, part, parts)
        del data
        reply: dict[str, object] = {
            "pages": {str(i): t for i, t in got.texts.items()},
            "count": got.page_count,
            "title": got.meta_title,
            "damage": got.damage,
        }
    except Exception as exc:  # the document's fault, the memory limit or a loader bug
        reply = failure_reply(exc)
    try:
        return json.dumps(reply).encode("utf-8")
    except MemoryError:
        return b""
