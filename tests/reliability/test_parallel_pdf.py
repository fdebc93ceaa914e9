"""PDF pages parsed on every core (issue 18): the workers' shares assemble to
exactly the one-process parse, and each worker keeps the time and memory
limits."""

from __future__ import annotations

import pytest

from ragcore import errors, guard
from ragcore.documents import load_bytes
from ragcore.parallel_pdf import PARALLEL_MIN_BYTES, parse_pdf_in_parts, parts_for
from tests.conftest import build_pdf

LIMITS = {"timeout_s": 60.0, "memory_bytes": 2 * 1024**3}


@pytest.fixture(scope="module")
def seven_pages() -> bytes:
    return build_pdf(
        [[f"Page {i} line {j} of the filing." for j in range(5)] for i in range(7)], title="A filing"
    )


@pytest.mark.parametrize("parts", [2, 3])
def test_pages_parsed_in_parts_equal_the_one_process_parse(seven_pages, parts) -> None:
    assert parse_pdf_in_parts(seven_pages, "f.pdf", parts, **LIMITS) == load_bytes(seven_pages, "f.pdf")


def test_more_parts_than_pages_still_assemble(seven_pages) -> None:
    assert parse_pdf_in_parts(seven_pages, "f.pdf", 9, **LIMITS) == load_bytes(seven_pages, "f.pdf")


@pytest.fixture(scope="module")
def many() -> bytes:
    return build_pdf(
        [[f"Line {j} of page {i}, with a few more words" for j in range(20)] for i in range(800)]
    )


def test_each_worker_keeps_the_time_limit(many) -> None:
    with pytest.raises(errors.ParseLimitExceeded, match=r"longer than 0\.05 s"):
        parse_pdf_in_parts(many, "bomb.pdf", 2, timeout_s=0.05, memory_bytes=2 * 1024**3)


def test_each_worker_keeps_the_memory_limit(many) -> None:
    with pytest.raises(errors.ParseLimitExceeded, match="memory"):
        parse_pdf_in_parts(many, "bomb.pdf", 2, timeout_s=60.0, memory_bytes=16 * 1024**2)


def test_typed_errors_cross_from_the_workers(make_pdf) -> None:
    locked = make_pdf([["secret"]], user_password="pw")
    with pytest.raises(errors.EncryptedPdf, match="password"):
        parse_pdf_in_parts(locked, "locked.pdf", 2, **LIMITS)


def test_large_pdfs_use_every_core_and_small_ones_one_worker() -> None:
    assert parts_for(PARALLEL_MIN_BYTES - 1) == 1
    assert parts_for(PARALLEL_MIN_BYTES) >= 1


def test_a_large_pdf_goes_through_the_parts_and_chunks_in_a_worker(seven_pages, monkeypatch) -> None:
    from ragcore.chunking import chunk_document

    monkeypatch.setattr(guard, "parts_for", lambda size: 2)
    parsed = guard.parse_and_chunk_guarded(seven_pages, "f.pdf")
    assert parsed.document == load_bytes(seven_pages, "f.pdf")
    assert parsed.passages == chunk_document(parsed.document)


def test_the_chunking_worker_starts_while_the_pages_parse(seven_pages, monkeypatch) -> None:
    """Its start-up overlaps the parse; the passages are the same."""
    from ragcore.chunking import chunk_document

    events: list[str] = []
    spawn, parse = guard._spawn_worker, guard.parse_pdf_in_parts

    def spawned(name, args, *rest):
        events.append(f"spawn {args[0]}")
        return spawn(name, args, *rest)

    def parsing(*args, **kwargs):
        events.append("parse")
        return parse(*args, **kwargs)

    monkeypatch.setattr(guard, "parts_for", lambda size: 2)
    monkeypatch.setattr(guard, "_spawn_worker", spawned)
    monkeypatch.setattr(guard, "parse_pdf_in_parts", parsing)
    parsed = guard.parse_and_chunk_guarded(seven_pages, "f.pdf")
    assert events[:2] == ["spawn chunk", "parse"]
    assert parsed.passages == chunk_document(load_bytes(seven_pages, "f.pdf"))


def _chunked(data: bytes, monkeypatch: pytest.MonkeyPatch, meanwhile=None) -> guard.Parsed:
    monkeypatch.setattr(guard, "parts_for", lambda size: 2)  # the large-PDF path, on a small file
    return guard.parse_and_chunk_guarded(data, "f.pdf", "auto", while_chunking=meanwhile)


def test_work_alongside_chunking_sees_the_document_and_changes_nothing(seven_pages, monkeypatch) -> None:
    seen = []
    parsed = _chunked(seven_pages, monkeypatch, seen.append)
    assert seen == [parsed.document] and parsed.passages
    assert parsed == _chunked(seven_pages, monkeypatch)


def test_a_failure_alongside_chunking_does_not_fail_the_upload(seven_pages, monkeypatch, caplog) -> None:
    def broken(doc) -> None:
        raise RuntimeError("no room")

    assert _chunked(seven_pages, monkeypatch, broken) == _chunked(seven_pages, monkeypatch)
    assert "alongside chunking f.pdf failed" in caplog.text


def test_a_chunking_error_still_reaches_the_caller(seven_pages, monkeypatch) -> None:
    def failing(doc, chunking, *, proc=None, **limits) -> guard.Parsed:
        proc.kill()  # the worker started for it is not left behind
        proc.wait()
        raise errors.ParseLimitExceeded(doc.name, "chunking took too long")

    monkeypatch.setattr(guard, "chunk_in_worker", failing)
    with pytest.raises(errors.ParseLimitExceeded, match="too long"):
        _chunked(seven_pages, monkeypatch, lambda doc: None)
