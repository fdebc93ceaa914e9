"""ragcore.guard: PDFs parse in a worker under a time and a memory limit; text
files are refused past a line-length limit; the typed error says which limit."""

from __future__ import annotations

import pytest

from ragcore import errors, guard
from ragcore.corpus import ingest_files
from ragcore.documents import load_bytes
from ragcore.services import Workspace
from ragcore.store import Library
from tests.conftest import build_pdf


@pytest.fixture(scope="module")
def many_pages() -> bytes:
    """A PDF of 800 pages of 20 lines: seconds of pypdf work, far past 0.5 s."""
    return build_pdf(
        [[f"Line {j} of page {i}, with a few more words" for j in range(20)] for i in range(800)]
    )


@pytest.fixture(scope="module")
def small_pdf() -> bytes:
    return build_pdf(
        [["Quarterly report", "Revenue grew by a fifth."], ["The Team plan stays at 49 dollars."]]
    )


def test_a_pdf_parsed_in_the_worker_equals_the_in_process_parse(small_pdf) -> None:
    assert guard.load_bytes_guarded(small_pdf, "r.pdf") == load_bytes(small_pdf, "r.pdf")


def test_the_time_limit_stops_a_pdf_of_many_pages(many_pages) -> None:
    with pytest.raises(errors.ParseLimitExceeded, match=r"longer than 0\.5 s") as caught:
        guard.load_bytes_guarded(many_pages, "bomb.pdf", timeout_s=0.5)
    assert caught.value.name == "bomb.pdf"


def test_the_memory_limit_stops_the_worker(many_pages) -> None:
    with pytest.raises(errors.ParseLimitExceeded, match="memory"):
        guard.load_bytes_guarded(many_pages, "bomb.pdf", memory_bytes=16 * 1024**2)


def test_the_loaders_typed_errors_cross_the_process_boundary(make_pdf) -> None:
    with pytest.raises(errors.CorruptPdf, match="damaged"):
        guard.load_bytes_guarded(b"%PDF-1.4\nnot really a pdf", "broken.pdf")
    locked = make_pdf([["secret"]], user_password="pw")
    with pytest.raises(errors.EncryptedPdf, match="password"):
        guard.load_bytes_guarded(locked, "locked.pdf")


def test_a_file_over_the_size_limit_is_refused_before_parsing(tmp_path, many_pages) -> None:
    with pytest.raises(errors.FileTooLarge, match="RAGCORE_MAX_UPLOAD_MB"):
        guard.load_bytes_guarded(many_pages, "big.pdf", max_bytes=1000)
    path = tmp_path / "big.pdf"
    path.write_bytes(many_pages)
    with pytest.raises(errors.FileTooLarge):
        guard.load_path_guarded(path, max_bytes=1000)


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_a_line_past_the_limit_is_refused_and_one_at_it_is_kept(newline) -> None:
    at_limit = newline.join([b"# Title", b"x" * 100, b"end"])
    assert guard.load_bytes_guarded(at_limit, "ok.md", max_line_bytes=100).line_count == 3
    over = newline.join([b"# Title", b"short", b"x" * 101, b"end"])
    with pytest.raises(errors.ParseLimitExceeded, match=r"line 3 is longer than 100 bytes"):
        guard.load_bytes_guarded(over, "long.md", max_line_bytes=100)
    last = newline.join([b"# Title", b"x" * 101])
    with pytest.raises(errors.ParseLimitExceeded, match="line 2"):
        guard.load_bytes_guarded(last, "long.txt", max_line_bytes=100)


def test_an_upload_of_one_50_mb_line_is_rejected_and_the_library_unchanged(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RAGCORE_MAX_UPLOAD_MB", "50")
    ws = Workspace(tmp_path / "home", demo_dir=tmp_path / "no-demo")
    outcome = ws.docs.upload("uploads", "one-line.md", b"# " + b"a" * 50_000_000)
    assert outcome.status == "rejected" and "longer than 1,000,000 bytes" in outcome.message
    assert ws.docs.documents("uploads") == []


def test_upload_and_ingest_use_the_guard(tmp_path, monkeypatch, many_pages) -> None:
    monkeypatch.setattr(guard, "DEFAULT_TIMEOUT_S", 0.5)
    ws = Workspace(tmp_path / "home", demo_dir=tmp_path / "no-demo")
    outcome = ws.docs.upload("uploads", "bomb.pdf", many_pages)
    assert outcome.status == "rejected" and "0.5 s" in outcome.message
    assert ws.docs.documents("uploads") == []

    path = tmp_path / "bomb.pdf"
    path.write_bytes(many_pages)
    lib = Library(tmp_path / "lib")
    [report] = ingest_files(lib, "c", [("bomb.pdf", path)])
    assert report.status == "error" and "0.5 s" in report.error
    assert lib.list_documents("c") == []


def test_the_worker_gets_no_keys(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET123")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-SECRET456")
    env = guard._worker_env()
    assert "PATH" in env
    assert not any("SECRET" in value for value in env.values())


# ------------------------------------------------ every upload kind (issue 17, item 2)


def _many_headings(n: int) -> bytes:
    return "".join(f"# Heading {i}\n" for i in range(n)).encode()


@pytest.mark.parametrize("name", ["slow.md", "slow.txt"])
def test_text_files_meet_the_same_time_limit_as_pdfs(name) -> None:
    # 1,000,000 headings (17 MB) take about 0.3 s to parse and several seconds to chunk on an
    # idle machine: well past 0.05 s, however fast the machine (200,000 no longer was, once
    # chunking became linear).
    data = _many_headings(1_000_000)
    with pytest.raises(errors.ParseLimitExceeded, match=r"longer than 0\.05 s"):
        guard.load_bytes_guarded(data, name, timeout_s=0.05)
    with pytest.raises(errors.ParseLimitExceeded, match=r"longer than 0\.05 s"):
        guard.parse_and_chunk_guarded(data, name, timeout_s=0.05)


def test_text_files_meet_the_same_memory_limit_as_pdfs() -> None:
    with pytest.raises(errors.ParseLimitExceeded, match="memory"):
        guard.parse_and_chunk_guarded(_many_headings(50_000), "big.md", memory_bytes=16 * 1024**2)


@pytest.mark.parametrize("chunking", ["auto", "heading", "sentence", "whole"])
def test_passages_cut_in_the_worker_equal_the_in_process_cut(chunking, small_pdf) -> None:
    from ragcore.chunking import chunk_document

    text = b"# Guide\n\nIntro line.\n\n## Fees\n\nThe fee is 10 dollars. It is due monthly.\n"
    for data, name in ((text, "guide.md"), (text, "guide.txt"), (small_pdf, "r.pdf")):
        parsed = guard.parse_and_chunk_guarded(data, name, chunking)
        assert parsed.document == load_bytes(data, name)
        assert parsed.passages == chunk_document(parsed.document, chunking)


def test_an_unknown_chunking_is_refused_before_a_worker_starts() -> None:
    with pytest.raises(ValueError, match="unknown chunking"):
        guard.parse_and_chunk_guarded(b"# x\n", "x.md", "paragraphs")


def test_a_slow_markdown_upload_is_rejected_and_the_library_unchanged(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(guard, "DEFAULT_TIMEOUT_S", 0.2)
    ws = Workspace(tmp_path / "home", demo_dir=tmp_path / "no-demo")
    outcome = ws.docs.upload("uploads", "headings.md", _many_headings(200_000))
    assert outcome.status == "rejected" and "longer than 0.2 s" in outcome.message
    assert ws.docs.documents("uploads") == []
