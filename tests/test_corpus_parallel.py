"""Ingesting a folder parses up to ``PARSE_AHEAD`` files at once (#18, the
demo's PDFs on an empty home) and stores them, and reports them, in order."""

from __future__ import annotations

import threading
import time

from ragcore import corpus, errors
from ragcore.documents import load_bytes
from ragcore.store import Library


def test_files_parse_at_once_and_are_stored_and_reported_in_order(tmp_path, monkeypatch):
    names = [f"note-{i}.md" for i in range(7)]
    paths = []
    for i, name in enumerate(names):
        path = tmp_path / name
        path.write_text(f"# Note {i}\n\nThe figure for note {i} is {i * 11}.\n", encoding="utf-8")
        paths.append((name, path))
    running, most = 0, 0
    lock = threading.Lock()

    def slow_load(path, name, max_bytes=None):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.05)
        with lock:
            running -= 1
        if name == "note-3.md":
            raise errors.DocumentError(name, "unreadable on purpose")
        return load_bytes(path.read_bytes(), name)

    monkeypatch.setattr(corpus, "load_path", slow_load)
    library = Library(tmp_path / "home")
    reports = corpus.ingest_files(library, "c", paths)
    assert [r.name for r in reports] == names
    assert [r.status for r in reports].count("error") == 1 and reports[3].status == "error"
    assert [d.name for d in library.list_documents("c")] == [n for n in names if n != "note-3.md"]
    assert most == corpus.PARSE_AHEAD  # never more at once, and not one at a time


def test_shipped_files_load_here_and_store_what_the_guarded_load_stores(tmp_path, monkeypatch):
    from ragcore.services.common import DEMO_DIR

    stored = {}
    for shipped in (False, True):
        library = Library(tmp_path / f"home-{shipped}")
        reports = corpus.sync_folder(library, "demo", DEMO_DIR, shipped=shipped)
        docs = {i.name: library.get_document("demo", i.name) for i in library.list_documents("demo")}
        stored[shipped] = (reports, docs, library.passages("demo"))
    assert stored[True] == stored[False]
    assert (
        sum(d.kind == "pdf" for d in stored[True][1].values()) >= 3
    )  # the PDFs the guard would start workers for

    def guarded(*args, **kwargs):
        raise AssertionError("a shipped file went to the guarded loader")

    monkeypatch.setattr(corpus, "load_path", guarded)
    reports = corpus.sync_folder(Library(tmp_path / "again"), "demo", DEMO_DIR, shipped=True)
    assert all(r.status == "added" for r in reports)
