"""The SQLite library: add, list, dedupe, replace, remove, re-chunk, restart,
all-or-nothing adds and the embedding cache. The library stores the passages
it is handed; ``corpus.add_document`` chunks for it."""

from __future__ import annotations

import sqlite3
import threading

import numpy as np
import pytest

from ragcore import errors
from ragcore.chunking import chunk_document
from ragcore.corpus import add_document, chunk, rechunk
from ragcore.documents import load_bytes
from ragcore.store import Library

POLICY = "# Refund policy\n\n## Monthly\n\nMonthly plans are refunded for the current month.\n\n## Annual\n\nAnnual plans are refunded pro rata within thirty days.\n"
PRICING = "# Pricing\n\n## Team\n\nTeam costs $20 per seat.\n\n## Enterprise\n\nEnterprise is quoted per contract.\n"


def _doc(text: str, name: str):
    return load_bytes(text.encode(), name)


def _counts(lib: Library) -> dict[str, int]:
    conn = lib.connect()
    return {
        t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
        for t in ("collections", "documents", "passages")
    }


@pytest.fixture
def lib(tmp_path):
    library = Library(tmp_path / "home" / "nested")  # the folder is created
    yield library
    library.close()


def test_add_lists_the_document_with_its_facts(lib):
    doc = _doc(POLICY, "policy.md")
    result = add_document(lib, "c", doc)
    assert (result.name, result.status) == ("policy.md", "added")
    (info,) = lib.list_documents("c")
    assert info.name == "policy.md" and info.title == "Refund policy" and info.kind == "md"
    assert info.content_hash == doc.content_hash and info.size_bytes == len(POLICY.encode())
    assert info.chunking == "heading" and info.passages == result.passages == len(chunk_document(doc))
    assert info.added_at > 0
    assert lib.collections() == ["c"]


def test_passages_and_documents_round_trip_exactly(lib):
    doc = _doc(POLICY, "policy.md")
    add_document(lib, "c", doc, "sentence")
    assert lib.get_document("c", "policy.md") == doc
    assert lib.passages("c") == chunk_document(doc, "sentence")


def test_database_is_sqlite_in_wal_mode_with_foreign_keys(lib):
    conn = lib.connect()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert lib.path.name == "library.sqlite3" and lib.path.is_file()
    assert lib.integrity_check() == "ok"


def test_same_bytes_under_another_name_are_a_duplicate_and_not_stored(lib):
    add_document(lib, "c", _doc(POLICY, "policy.md"))
    before = _counts(lib)
    result = add_document(lib, "c", _doc(POLICY, "copy-of-policy.md"))
    assert (result.status, result.duplicate_of, result.passages) == ("duplicate", "policy.md", 0)
    assert _counts(lib) == before
    # Other collections are separate libraries of documents.
    assert add_document(lib, "other", _doc(POLICY, "policy.md")).status == "added"


def test_same_name_with_new_bytes_replaces_or_refuses(lib):
    add_document(lib, "c", _doc(POLICY, "doc.md"))
    result = add_document(lib, "c", _doc(PRICING, "doc.md"))
    assert result.status == "replaced"
    (info,) = lib.list_documents("c")
    assert info.title == "Pricing"
    assert all("Pricing" in p.label or p.label in ("Team", "Enterprise") for p in lib.passages("c"))
    with pytest.raises(errors.LibraryError, match="already stored"):
        add_document(lib, "c", _doc(POLICY, "doc.md"), replace=False)
    assert lib.list_documents("c")[0].title == "Pricing"


def test_remove_deletes_the_document_and_its_passages(lib):
    add_document(lib, "c", _doc(POLICY, "policy.md"))
    add_document(lib, "c", _doc(PRICING, "pricing.md"))
    assert lib.remove_document("c", "policy.md") is True
    assert [d.name for d in lib.list_documents("c")] == ["pricing.md"]
    assert {p.doc for p in lib.passages("c")} == {"pricing.md"}
    assert _counts(lib)["passages"] == len(chunk_document(_doc(PRICING, "pricing.md")))
    assert lib.remove_document("c", "policy.md") is False
    # Removed bytes may come back.
    assert add_document(lib, "c", _doc(POLICY, "policy.md")).status == "added"


def test_rechunk_replaces_passages_with_the_new_strategy(lib):
    doc = _doc(POLICY * 3, "long.md")
    add_document(lib, "c", doc)
    made = rechunk(lib, "c", "long.md", "whole")
    assert made == 1
    assert lib.list_documents("c")[0].chunking == "whole"
    assert lib.passages("c") == chunk_document(doc, "whole")
    with pytest.raises(errors.LibraryError, match="no such document"):
        rechunk(lib, "c", "missing.md", "whole")


def test_library_survives_a_restart(tmp_path):
    home = tmp_path / "lib"
    first = Library(home)
    add_document(first, "uploads", _doc(POLICY, "policy.md"))
    add_document(first, "uploads", _doc(PRICING, "pricing.md"), "sentence")
    first.put_vectors({"h1": np.ones(4, dtype=np.float32)}, "m")
    docs, passages, listed = (
        first.documents("uploads"),
        first.passages("uploads"),
        first.list_documents("uploads"),
    )
    first.close()

    second = Library(home)
    assert second.collections() == ["uploads"]
    assert second.documents("uploads") == docs
    assert second.passages("uploads") == passages
    assert second.list_documents("uploads") == listed
    assert second.get_vectors(["h1"], "m")["h1"].tolist() == [1.0] * 4
    assert add_document(second, "uploads", _doc(POLICY, "again.md")).status == "duplicate"
    second.close()


def test_two_library_objects_on_one_folder_see_each_others_writes(tmp_path):
    a, b = Library(tmp_path), Library(tmp_path)
    add_document(a, "c", _doc(POLICY, "policy.md"))
    assert [d.name for d in b.list_documents("c")] == ["policy.md"]
    a.close()
    b.close()


def _failing_insert(monkeypatch):
    """Make passage inserts write half the rows, then fail like a crash."""
    real = Library._insert_passages

    def half_then_crash(conn, doc_id, passages):
        passages = list(passages)
        real(conn, doc_id, passages[: len(passages) // 2])
        raise sqlite3.OperationalError("disk I/O error (simulated)")

    monkeypatch.setattr(Library, "_insert_passages", staticmethod(half_then_crash))


def test_a_crash_mid_add_leaves_no_partial_document(lib, monkeypatch):
    add_document(lib, "kept", _doc(PRICING, "pricing.md"))
    before = _counts(lib)
    _failing_insert(monkeypatch)
    with pytest.raises(sqlite3.OperationalError, match="simulated"):
        add_document(lib, "new-collection", _doc(POLICY * 4, "policy.md"))
    assert _counts(lib) == before
    assert lib.collections() == ["kept"]  # not even an empty collection
    assert lib.list_documents("new-collection") == []
    monkeypatch.undo()
    # The library still works, and the same file can now be added.
    assert add_document(lib, "new-collection", _doc(POLICY * 4, "policy.md")).status == "added"


def test_a_crash_while_replacing_keeps_the_old_version(lib, monkeypatch):
    old = _doc(POLICY, "doc.md")
    add_document(lib, "c", old)
    _failing_insert(monkeypatch)
    with pytest.raises(sqlite3.OperationalError):
        add_document(lib, "c", _doc(PRICING * 3, "doc.md"))
    monkeypatch.undo()
    assert lib.get_document("c", "doc.md") == old
    assert lib.passages("c") == chunk_document(old)


def test_a_crash_mid_rechunk_keeps_the_old_passages(lib, monkeypatch):
    doc = _doc(POLICY * 3, "doc.md")
    add_document(lib, "c", doc)
    _failing_insert(monkeypatch)
    with pytest.raises(sqlite3.OperationalError):
        rechunk(lib, "c", "doc.md", "sentence")
    monkeypatch.undo()
    assert lib.list_documents("c")[0].chunking == "heading"
    assert lib.passages("c") == chunk_document(doc)


def test_a_bulk_add_is_one_transaction(lib, monkeypatch):
    docs = [_doc(POLICY, "a.md"), _doc(PRICING, "b.md")]
    _failing_insert(monkeypatch)
    with pytest.raises(sqlite3.OperationalError):
        lib.add_documents_bulk("bulk", [(d, *chunk(d)) for d in docs])
    monkeypatch.undo()
    assert _counts(lib) == {"collections": 0, "documents": 0, "passages": 0}
    fm = _doc("---\ntitle: T\nowner: o\n---\n\n# T\n\nBody text here.\n", "fm.md")
    lib.add_documents_bulk("bulk", [(d, *chunk(d)) for d in [*docs, fm]])
    assert lib.get_document("bulk", "fm.md").control_lines == (1, 4)


def test_embeddings_are_cached_by_passage_content_hash(lib):
    add_document(lib, "c", _doc(POLICY, "policy.md"))
    # A second document sharing one section shares that passage's hash.
    add_document(
        lib,
        "c",
        _doc(
            "# Other\n\nIntro.\n\n## Annual\n\nAnnual plans are refunded pro rata within thirty days.\n",
            "o.md",
        ),
    )
    passages = lib.passages("c")
    hashes = [p.content_hash for p in passages]
    assert len(set(hashes)) < len(hashes)
    unique = sorted(set(hashes))
    assert lib.get_vectors(unique, "model-a") == {}
    lib.put_vectors({h: np.full(3, k, dtype=np.float32) for k, h in enumerate(unique)}, "model-a")
    assert lib.count_vectors("model-a") == len(unique)
    lib.put_vectors({unique[0]: np.zeros(3, dtype=np.float32)}, "model-a")  # already there: kept
    got = lib.get_vectors(unique, "model-a")
    assert got[unique[0]].tolist() == [0.0, 0.0, 0.0] and got[unique[1]].tolist() == [1.0, 1.0, 1.0]
    assert lib.count_vectors("model-a") == len(unique)
    assert lib.get_vectors(unique, "model-b") == {}  # keyed by model too
    # Removing a document does not throw its vectors away (same text, same vector).
    lib.remove_document("c", "o.md")
    assert lib.count_vectors() == len(unique)


def test_each_thread_gets_its_own_connection(lib):
    results = []

    def worker():
        results.append(add_document(lib, "c", _doc(PRICING, "pricing.md")).status)
        results.append(lib.connect() is not main_conn)

    main_conn = lib.connect()
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert results == ["added", True]
    assert [d.name for d in lib.list_documents("c")] == ["pricing.md"]


def test_unknown_document_and_bad_collection_name_are_library_errors(lib):
    with pytest.raises(errors.LibraryError, match="no such document"):
        lib.get_document("c", "nothing.md")
    with pytest.raises(errors.LibraryError, match="invalid collection name"):
        add_document(lib, "", _doc(POLICY, "policy.md"))
    assert _counts(lib)["documents"] == 0


def test_library_folder_under_a_regular_file_cannot_be_made(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError):
        Library(blocker / "lib")


def test_the_store_stores_the_passages_it_is_given_and_never_chunks(lib):
    doc = _doc(POLICY, "policy.md")
    given = chunk_document(doc, "whole")
    result = lib.add_document("c", doc, given, "whole")
    assert result.passages == 1 and lib.passages("c") == given
    assert lib.list_documents("c")[0].chunking == "whole"
    assert lib.replace_passages("c", "policy.md", "sentence", chunk_document(doc, "sentence")) >= 1
    assert lib.passages("c") == chunk_document(doc, "sentence")
