"""Parsing under limits: uploads of every kind are parsed (and chunked) in a
worker process with a wall-clock timeout and an address-space cap; text files
also have a cap on line length.

A hostile or merely huge file (a PDF of thousands of pages, a content stream
that inflates to gigabytes, a Markdown file that is one 50 MB line) must
never hang the app or take the machine's memory. pypdf is pure Python and
cannot be interrupted from another thread, so a PDF is parsed in a child
interpreter that the parent kills when the time is up; the child limits its
own address space with ``setrlimit(RLIMIT_AS)`` before reading the file, so
an allocation past the cap fails inside the child (a ``MemoryError``) instead
of swapping the host. Either way the caller gets
:class:`ragcore.errors.ParseLimitExceeded` with the limit that was hit.

The child is a fresh interpreter (``subprocess``, not ``fork``): forking a
multi-threaded Streamlit server is unsafe, and the child needs no state of
the parent. It gets a minimal environment, so provider keys never reach it.
Its side lives in ``guard_worker``; what crosses the pipes, in ``guard_wire``.

Text files get the same worker as PDFs: decoding is linear, but chunking a
hostile Markdown file was once quadratic (200,000 empty headings: 45 s), and
the next such bug must meet the time limit, not hang the app. Local files
read in bulk by ``ingest`` (:func:`load_path_guarded`) decode text in-process,
where a worker per file would cost its start-up each time. A line longer than
``MAX_LINE_BYTES`` is refused: every later stage (chunking, the line viewer,
the prompt) works line by line, and a single line of megabytes is a
generated or hostile file, not a document a person reads.
"""

from __future__ import annotations

import json
import logging
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import errors
from .documents import kind_of, load_bytes
from .guard_wire import READY, document_from_json, document_to_json, passage_from_row
from .parallel_pdf import parse_pdf_in_parts, parts_for
from .records import Document, Passage

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0  # wall-clock seconds to parse (and chunk) one file
DEFAULT_MEMORY_BYTES = 2 * 1024**3  # address-space cap of the worker
HIGHLIGHT_TIMEOUT_S = 10.0  # marking a cited page: someone is waiting for the dialog
STARTUP_TIMEOUT_S = 60.0  # the worker's own start-up (imports), not counted in the parse time
MAX_LINE_BYTES = 1_000_000  # a text file's longest line

_ROOT = str(Path(__file__).resolve().parents[1])
# Variables the worker may see: enough to run Python, nothing secret.
_ENV_KEEP = re.compile(r"^(PATH|LANG|LC_\w+|TZ|TMPDIR|TEMP|TMP|SYSTEMROOT|PYTHONHASHSEED|VIRTUAL_ENV)$")


@dataclass(frozen=True)
class Parsed:
    """A file parsed (and, when asked, chunked) under the guard's limits."""

    document: Document
    passages: list[Passage] | None  # None when only parsing was asked


def _mb(n: float) -> str:
    return f"{n / 1_048_576:.0f} MB"


def load_bytes_guarded(
    data: bytes,
    name: str,
    *,
    max_bytes: int | None = None,
    timeout_s: float | None = None,
    memory_bytes: int | None = None,
    max_line_bytes: int | None = None,
    text_in_process: bool = False,
) -> Document:
    """:func:`ragcore.documents.load_bytes` under limits.

    Every kind is parsed in a worker process (``timeout_s`` wall-clock
    seconds, ``memory_bytes`` of address space); text files are first refused
    when a line is longer than ``max_line_bytes``. ``text_in_process`` keeps
    text files in this process (local files the operator chose, read in bulk:
    a worker per file would cost its start-up each time). ``None`` means the
    module default. Raises ``ParseLimitExceeded`` when a limit is hit, or the
    loader's own ``DocumentError``.
    """
    return _guarded(
        data, name, None, max_bytes, timeout_s, memory_bytes, max_line_bytes, text_in_process
    ).document


def parse_and_chunk_guarded(
    data: bytes,
    name: str,
    chunking: str = "auto",
    *,
    max_bytes: int | None = None,
    timeout_s: float | None = None,
    memory_bytes: int | None = None,
    max_line_bytes: int | None = None,
    while_chunking: Callable[[Document], object] | None = None,
) -> Parsed:
    """Parse an upload of any kind and cut it into passages, both in the
    worker under the limits of :func:`load_bytes_guarded`: a file that parses
    fast but chunks slowly (or into too much memory) is stopped the same way.
    ``while_chunking(document)`` runs here while a large PDF's chunking worker
    works (e.g. tokenising its lines ahead); what it raises is logged, not raised."""
    resolve_strategy_name(chunking)
    return _guarded(
        data, name, chunking, max_bytes, timeout_s, memory_bytes, max_line_bytes, False, while_chunking
    )


def _guarded(
    data: bytes,
    name: str,
    chunking: str | None,
    max_bytes: int | None,
    timeout_s: float | None,
    memory_bytes: int | None,
    max_line_bytes: int | None,
    text_in_process: bool,
    while_chunking: Callable[[Document], object] | None = None,
) -> Parsed:
    kind = kind_of(name)
    if max_bytes is not None and len(data) > max_bytes:
        # Refused before any work, and before the bytes are copied to a worker.
        load_bytes(data, name, max_bytes=max_bytes)
    timeout_s = DEFAULT_TIMEOUT_S if timeout_s is None else timeout_s
    memory_bytes = DEFAULT_MEMORY_BYTES if memory_bytes is None else memory_bytes
    if kind != "pdf":
        check_line_lengths(data, name, MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes)
        if text_in_process and chunking is None:
            return Parsed(load_bytes(data, name, max_bytes=max_bytes), None)
    elif (parts := parts_for(len(data))) > 1:
        # A large PDF: its pages on every core, each worker under the full limits;
        # the chunking worker starts meanwhile, so its start-up is not waited for after.
        chunker = (
            None if chunking is None else _spawn_worker(name, ["chunk", chunking], timeout_s, memory_bytes)
        )
        try:
            doc = parse_pdf_in_parts(data, name, parts, timeout_s=timeout_s, memory_bytes=memory_bytes)
        except BaseException:
            if chunker is not None:
                chunker.kill()
                chunker.wait()
            raise
        if chunking is None:
            return Parsed(doc, None)
        return _chunk_meanwhile(doc, chunking, timeout_s, memory_bytes, chunker, while_chunking)
    return parse_in_worker(data, name, timeout_s=timeout_s, memory_bytes=memory_bytes, chunking=chunking)


def _chunk_meanwhile(
    doc: Document,
    chunking: str,
    timeout_s: float,
    memory_bytes: int,
    proc: subprocess.Popen | None,
    meanwhile: Callable[[Document], object] | None,
) -> Parsed:
    """:func:`chunk_in_worker`, with ``meanwhile(doc)`` run here while the worker cuts."""
    if meanwhile is None:
        return chunk_in_worker(doc, chunking, timeout_s=timeout_s, memory_bytes=memory_bytes, proc=proc)
    got: list[Parsed | BaseException] = []

    def run() -> None:
        try:
            got.append(
                chunk_in_worker(doc, chunking, timeout_s=timeout_s, memory_bytes=memory_bytes, proc=proc)
            )
        except BaseException as exc:  # re-raised in the caller's thread below
            got.append(exc)

    worker = threading.Thread(target=run, name="ragcore-chunk", daemon=True)
    worker.start()
    try:
        meanwhile(doc)
    except Exception:  # work done ahead only saves time later; the upload goes on without it
        log.exception("work alongside chunking %s failed", doc.name)
    worker.join()
    if isinstance(got[0], BaseException):
        raise got[0]
    return got[0]


def chunk_in_worker(
    doc: Document, chunking: str, *, timeout_s: float, memory_bytes: int, proc: subprocess.Popen | None = None
) -> Parsed:
    """Cut a parsed document into passages in a worker (``proc``, when one was
    started for it), under the limits."""
    payload = json.dumps(document_to_json(doc)).encode("utf-8")
    out, err, code = _run_worker(
        payload, doc.name, ["chunk", chunking], timeout_s, memory_bytes, "chunking", proc
    )
    return _result(out, err, code, doc.name, memory_bytes)


def resolve_strategy_name(chunking: str) -> None:
    """Refuse an unknown chunking name before a worker is started."""
    from .chunking import STRATEGIES

    if chunking != "auto" and chunking not in STRATEGIES:
        raise ValueError(f"unknown chunking {chunking!r}; choose one of auto, {', '.join(STRATEGIES)}")


def load_path_guarded(
    path: Path | str,
    name: str | None = None,
    *,
    max_bytes: int | None = None,
    timeout_s: float | None = None,
    memory_bytes: int | None = None,
    max_line_bytes: int | None = None,
) -> Document:
    """:func:`ragcore.documents.load_path` under the limits of :func:`load_bytes_guarded`."""
    path = Path(path)
    name = name or path.name
    kind_of(name)
    try:
        size = path.stat().st_size
        if max_bytes is not None and size > max_bytes:
            from .documents import load_path

            return load_path(path, name, max_bytes=max_bytes)  # raises FileTooLarge without reading
        data = path.read_bytes()
    except OSError as exc:
        raise errors.DocumentError(name, f"cannot read the file ({exc.strerror or exc})") from exc
    return load_bytes_guarded(
        data,
        name,
        max_bytes=max_bytes,
        timeout_s=timeout_s,
        memory_bytes=memory_bytes,
        max_line_bytes=max_line_bytes,
        text_in_process=True,
    )


def check_line_lengths(data: bytes, name: str, limit: int) -> None:
    """Refuse text whose longest line (CR, LF or CRLF breaks) exceeds ``limit`` bytes."""
    if len(data) <= limit:
        return
    start = 0
    number = 0
    for m in re.finditer(rb"\r\n|\r|\n", data):
        number += 1
        if m.start() - start > limit:
            break
        start = m.end()
    else:
        number += 1
        if len(data) - start <= limit:
            return
    raise errors.ParseLimitExceeded(
        name,
        f"line {number} is longer than {limit:,} bytes; a line that long is generated data, not a "
        "document to cite. Break it into lines (or paragraphs) and upload it again",
    )


# ------------------------------------------------------------------ worker


def _worker_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if _ENV_KEEP.match(k)}


def parse_in_worker(
    data: bytes, name: str, *, timeout_s: float, memory_bytes: int, chunking: str | None = None
) -> Parsed:
    """Parse ``data`` with ``load_bytes`` (and cut it with ``chunking`` when
    given) in a fresh interpreter; see the module notes."""
    out, err, code = _run_worker(data, name, ["parse", chunking or ""], timeout_s, memory_bytes, "parsing")
    return _result(out, err, code, name, memory_bytes)


def highlight_guarded(
    data: bytes,
    name: str,
    page: int,
    lines: list[str],
    *,
    timeout_s: float | None = None,
    memory_bytes: int | None = None,
) -> bytes | None:
    """:func:`ragcore.pdf_marks.highlight_pdf_page` in the worker, under the
    parsing limits (a page with a huge content stream must not stall the app).
    None when the page cannot be marked; ``ParseLimitExceeded`` at a limit."""
    timeout_s = HIGHLIGHT_TIMEOUT_S if timeout_s is None else timeout_s
    memory_bytes = DEFAULT_MEMORY_BYTES if memory_bytes is None else memory_bytes
    payload = json.dumps(lines).encode("utf-8") + b"\n" + data
    out, _err, code = _run_worker(
        payload, name, ["highlight", str(page)], timeout_s, memory_bytes, "marking the page"
    )
    if out.startswith(b"P"):
        return out[1:]
    if out.startswith(b"N"):
        return None
    if out.startswith(b"{"):
        raise errors.ParseLimitExceeded(name, _memory_message(memory_bytes))
    how = f"signal {-code}" if code < 0 else f"exit code {code}"
    raise errors.ParseLimitExceeded(
        name, f"marking the page stopped ({how}), most likely at a memory or CPU limit"
    )


def _spawn_worker(name: str, args: list[str], timeout_s: float, memory_bytes: int) -> subprocess.Popen:
    """A worker process, started; it waits for its input once its imports are done."""
    code = f"import sys; sys.path.insert(0, {_ROOT!r}); from ragcore.guard_worker import worker_main; worker_main()"
    cpu_s = int(timeout_s) + 2  # a backstop should the parent vanish; the wall clock is the limit
    return subprocess.Popen(
        [sys.executable, "-c", code, name, str(int(memory_bytes)), str(cpu_s), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_worker_env(),
        cwd=_ROOT,
    )


def _run_worker(
    payload: bytes,
    name: str,
    args: list[str],
    timeout_s: float,
    memory_bytes: int,
    what: str,
    proc: subprocess.Popen | None = None,
) -> tuple[bytes, bytes, int]:
    """Run a task in a worker (``proc``: one ``_spawn_worker`` started with these arguments)."""
    proc = proc or _spawn_worker(name, args, timeout_s, memory_bytes)
    try:
        _await_ready(proc, name)
        try:
            out, err = proc.communicate(payload, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise errors.ParseLimitExceeded(
                name,
                f"{what} took longer than {timeout_s:g} s and was stopped; the file is too large or too "
                "complex (split it, or save it again in a simpler form)",
            ) from None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return out, err, proc.returncode


def _await_ready(proc: subprocess.Popen, name: str) -> None:
    """Wait for the worker's imports to finish, so start-up is not parse time."""
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    got = b""
    while len(got) < len(READY):
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(0.0, left))
        if not ready:
            raise errors.ParseLimitExceeded(
                name, f"the parsing worker did not start within {STARTUP_TIMEOUT_S:g} s"
            )
        chunk = os.read(fd, len(READY) - len(got))
        if not chunk:
            err = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()
            raise errors.DocumentError(
                name, f"the parsing worker failed to start ({err[-1] if err else 'no message'})"
            )
        got += chunk


def _result(out: bytes, err: bytes, code: int, name: str, memory_bytes: int) -> Parsed:
    try:
        msg = json.loads(out.decode("utf-8")) if out else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        msg = None
    if isinstance(msg, dict) and "document" in msg:
        doc = document_from_json(msg["document"])
        rows = msg.get("passages")
        return Parsed(doc, None if rows is None else [passage_from_row(doc, row) for row in rows])
    if isinstance(msg, dict) and "error" in msg:
        cls = getattr(errors, str(msg["error"]), None)
        if not (isinstance(cls, type) and issubclass(cls, errors.DocumentError)):
            cls = errors.DocumentError
        raise cls(name, str(msg["reason"]))
    if isinstance(msg, dict) and "crash" in msg:
        raise errors.DocumentError(name, f"the file could not be read (loader failure: {msg['crash']})")
    if isinstance(msg, dict) and msg.get("limit") == "memory":
        raise errors.ParseLimitExceeded(name, _memory_message(memory_bytes))
    # No message: the worker died (a signal, or a crash in C under the memory cap).
    how = f"signal {-code}" if code < 0 else f"exit code {code}"
    raise errors.ParseLimitExceeded(
        name,
        f"the parser stopped ({how}) before finishing, most likely at its {_mb(memory_bytes)} memory "
        "or CPU limit; the file is too large or too complex to read",
    )


def _memory_message(memory_bytes: int) -> str:
    return (
        f"parsing needed more than the {_mb(memory_bytes)} memory limit and was stopped; the file is too "
        "large or too complex (split it, or save it again in a simpler form)"
    )
