"""Corpora: folders mirrored into the library (names relative to the folder,
re-read only when bytes change), BEIR folders, and bad files reported."""

from __future__ import annotations

import json

import pytest

from ragcore import corpus as corpus_module
from ragcore import errors
from ragcore.corpus import (
    IngestReport,
    document_files,
    ingest_files,
    load_beir_documents,
    load_corpus,
    sync_folder,
)
from ragcore.store import Library

POLICY = "# Refund policy\n\n## Monthly\n\nMonthly plans are refunded for the current month.\n"
NOTES = "BILLING NOTES\n\nInvoices go out on the first working day.\n"


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    # Nothing here may touch a real RAGCORE_HOME.
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "default-home"))


@pytest.fixture
def lib(tmp_path):
    library = Library(tmp_path / "lib")
    yield library
    library.close()


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "policy.md").write_text(POLICY)
    (root / "sub" / "notes.txt").write_text(NOTES)
    (root / "sub" / "image.png").write_bytes(b"\x89PNG\r\n")
    (root / ".hidden" / "secret.md").write_text("# Secret\n\nNot indexed.\n")
    (root / ".draft.md").write_text("# Draft\n\nNot indexed.\n")
    return root


def test_document_files_are_named_relative_to_the_folder(folder):
    assert [name for name, _ in document_files(folder)] == ["policy.md", "sub/notes.txt"]


def test_load_corpus_indexes_a_folder(folder, lib):
    corpus = load_corpus(folder, library=lib)
    assert corpus.kind == "folder"
    assert sorted(corpus.documents) == ["policy.md", "sub/notes.txt"]
    assert {p.doc for p in corpus.passages} == {"policy.md", "sub/notes.txt"}
    for p in corpus.passages:
        assert p.text == corpus.documents[p.doc].text[p.start : p.end]
    assert corpus.errors == []
    assert corpus.documents["sub/notes.txt"].title == "BILLING NOTES"


def test_a_bad_file_is_reported_and_the_rest_load(folder, lib):
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really")
    (folder / "empty.txt").write_bytes(b"")
    corpus = load_corpus(folder, library=lib)
    assert sorted(corpus.documents) == ["policy.md", "sub/notes.txt"]
    reasons = {r.name: r.error for r in corpus.errors}
    assert set(reasons) == {"broken.pdf", "empty.txt"}
    assert "damaged" in reasons["broken.pdf"] and "empty" in reasons["empty.txt"]


def test_unchanged_files_are_not_reparsed_and_failures_are_remembered(folder, lib, monkeypatch):
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really")
    first = {r.name: r.status for r in sync_folder(lib, "c", folder)}
    assert first == {"broken.pdf": "error", "policy.md": "added", "sub/notes.txt": "added"}

    calls = []
    real = corpus_module.load_path
    monkeypatch.setattr(corpus_module, "load_path", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    second = {r.name: (r.status, r.error) for r in sync_folder(lib, "c", folder)}
    assert calls == []  # nothing re-read
    assert second["policy.md"][0] == "unchanged" and second["sub/notes.txt"][0] == "unchanged"
    assert second["broken.pdf"][0] == "error" and "damaged" in second["broken.pdf"][1]


def test_changed_and_deleted_files_are_followed(folder, lib):
    sync_folder(lib, "c", folder)
    (folder / "policy.md").write_text(POLICY + "\n## Annual\n\nAnnual plans are refunded pro rata.\n")
    (folder / "sub" / "notes.txt").unlink()
    reports = {r.name: r.status for r in sync_folder(lib, "c", folder)}
    assert reports == {"policy.md": "replaced"}
    assert [d.name for d in lib.list_documents("c")] == ["policy.md"]
    assert any("Annual" in p.label for p in lib.passages("c"))


def test_a_fixed_file_is_retried(folder, lib):
    (folder / "late.txt").write_bytes(b"")
    assert {r.name: r.status for r in sync_folder(lib, "c", folder)}["late.txt"] == "error"
    (folder / "late.txt").write_text("Now it has text.\n")
    assert {r.name: r.status for r in sync_folder(lib, "c", folder)}["late.txt"] == "added"


def test_each_chunking_is_its_own_collection(folder, lib):
    heading = load_corpus(folder, "heading", library=lib)
    whole = load_corpus(folder, "whole", library=lib)
    assert heading.name != whole.name
    assert {p.chunking for p in whole.passages} == {"whole"}
    assert len(whole.passages) == 2 and heading.fingerprint != whole.fingerprint


def test_corpus_uses_the_default_library_under_ragcore_home(folder, tmp_path):
    corpus = load_corpus(folder)
    assert sorted(corpus.documents) == ["policy.md", "sub/notes.txt"]
    assert (tmp_path / "default-home" / "library.sqlite3").is_file()
    assert not any(p.name.endswith(".sqlite3") for p in folder.rglob("*"))  # nothing written in the folder


def test_not_a_folder_is_a_clear_error(tmp_path, lib):
    with pytest.raises(errors.RagcoreError, match="no such folder"):
        load_corpus(tmp_path / "missing", library=lib)


def _beir(folder, records):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return folder


def test_beir_folder_documents_are_records_with_the_title_on_line_one(tmp_path, lib):
    folder = _beir(
        tmp_path / "beir",
        [
            {"_id": "d1", "title": "Wing flutter", "text": "Flutter appears at high speed."},
            {"_id": 2, "title": "", "text": "A record without a title."},
        ],
    )
    corpus = load_corpus(folder, library=lib)
    assert corpus.kind == "beir"
    assert sorted(corpus.documents) == ["2", "d1"]
    d1 = corpus.documents["d1"]
    assert d1.lines == ["Wing flutter", "Flutter appears at high speed."] and d1.title == "Wing flutter"
    assert corpus.documents["2"].title == "2"
    assert [p.chunking for p in corpus.passages] == ["whole", "whole"]
    assert next(p for p in corpus.passages if p.doc == "d1").last_line == 2


def test_beir_corpus_is_rebuilt_when_the_file_changes(tmp_path, lib):
    folder = _beir(tmp_path / "beir", [{"_id": "a", "title": "A", "text": "one"}])
    assert sorted(load_corpus(folder, library=lib).documents) == ["a"]
    _beir(folder, [{"_id": "a", "title": "A", "text": "one"}, {"_id": "b", "title": "B", "text": "two"}])
    assert sorted(load_corpus(folder, library=lib).documents) == ["a", "b"]


@pytest.mark.parametrize("bad", ['{"title": "no id"}', "not json", "[1, 2]"])
def test_malformed_beir_line_names_the_line(tmp_path, bad):
    folder = tmp_path / "beir"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text('{"_id": "ok", "text": "fine"}\n' + bad + "\n")
    with pytest.raises(errors.RagcoreError, match="line 2 is not a BEIR record"):
        load_beir_documents(folder)


def test_ingest_files_reports_each_file(tmp_path, lib):
    good = tmp_path / "good.md"
    good.write_text(POLICY)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\x00\x01\x02binary")
    reports = ingest_files(lib, "c", [("good.md", good), ("bad.txt", bad), ("again.md", good)])
    assert [r.status for r in reports] == ["added", "error", "duplicate"]
    assert reports[0].line() == "good.md: 1 passage (added)"
    assert reports[1].line().startswith("bad.txt: error: ") and "binary" in reports[1].line()
    assert reports[2].line() == "again.md: duplicate of good.md, not added"
    assert [d.name for d in lib.list_documents("c")] == ["good.md"]


def test_ingest_report_line_formats():
    assert IngestReport("a.md", "unchanged", 3).line() == "a.md: 3 passages (unchanged)"
    assert IngestReport("b.md", "added", 1).line() == "b.md: 1 passage (added)"
    assert IngestReport("c.md", "error", error="the file is empty").line() == "c.md: error: the file is empty"


def test_folder_is_parsed_again_when_the_parser_changes(tmp_path, monkeypatch):
    from ragcore import corpus as corpus_module
    from ragcore.corpus import sync_folder
    from ragcore.store import Library

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nSome text here.\n", encoding="utf-8")
    library = Library(tmp_path / "home")
    assert [r.status for r in sync_folder(library, "c", folder)] == ["added"]
    assert [r.status for r in sync_folder(library, "c", folder)] == ["unchanged"]
    monkeypatch.setattr(corpus_module, "parser_version", lambda: "another-parser")
    assert [r.status for r in sync_folder(library, "c", folder)] == ["added"]
    assert [r.status for r in sync_folder(library, "c", folder)] == ["unchanged"]
