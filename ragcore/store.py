"""The library: a SQLite database of collections, documents, passages and
cached embeddings.

One transaction per document, so a crash mid-add leaves the whole document
or none of it; WAL so readers never block the writer. Passage text is not
stored twice: it is the document's text between the passage's offsets.
Embeddings are keyed by (passage content hash, model id), so an unchanged
passage is never embedded twice, whatever document or collection it is in.

The library persists what it is given: callers chunk a document
(``ragcore.corpus.add_document`` does it for them) and hand it the passages.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import errors
from .permissions import secure_home
from .records import Document, Passage

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS collections (
    name TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    owner TEXT,            -- a browser session or user for private collections
    touched_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY,
    collection TEXT NOT NULL REFERENCES collections(name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    added_at REAL NOT NULL,
    chunking TEXT NOT NULL,
    text TEXT NOT NULL,
    line_pages TEXT NOT NULL,       -- JSON list, empty for non-PDF
    control_first INTEGER,
    control_last INTEGER,
    UNIQUE (collection, name)
);
CREATE INDEX IF NOT EXISTS documents_hash ON documents (collection, content_hash);
CREATE TABLE IF NOT EXISTS passages (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    first_line INTEGER NOT NULL,
    last_line INTEGER NOT NULL,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    label TEXT NOT NULL,
    pages TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    chunking TEXT NOT NULL,
    PRIMARY KEY (document_id, idx)
);
CREATE TABLE IF NOT EXISTS embeddings (
    content_hash TEXT NOT NULL,
    model_id TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (content_hash, model_id)
);
"""


@dataclass(frozen=True)
class DocumentInfo:
    """A document as listed in the Library page."""

    name: str
    title: str
    kind: str
    size_bytes: int
    added_at: float
    chunking: str
    passages: int
    content_hash: str


@dataclass(frozen=True)
class AddResult:
    name: str
    status: str  # "added" | "duplicate" | "replaced"
    passages: int
    duplicate_of: str | None = None


class Library:
    """A SQLite library under ``home`` (``library.sqlite3``).

    Safe to share between threads: each thread gets its own connection.
    """

    def __init__(self, home: Path | str) -> None:
        self.home = Path(home)
        self.path = self.home / "library.sqlite3"
        secure_home(self.home, self.path)  # 0700 folder, 0600 files (ragcore.permissions)
        self._local = threading.local()
        conn = self.connect()
        conn.executescript(_SCHEMA)  # idempotent; executescript manages its own transaction
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    # ---------------------------------------------------------- connections

    def connect(self) -> sqlite3.Connection:
        """This thread's connection (WAL, foreign keys on)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    class _Tx:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __enter__(self) -> sqlite3.Connection:
            # IMMEDIATE takes the write lock up front so two writers queue
            # instead of failing half-way with "database is locked".
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, exc_type, exc, tb) -> None:
            if exc_type is None:
                self.conn.execute("COMMIT")
            elif self.conn.in_transaction:
                # SQLite may already have rolled back (e.g. on a full disk);
                # a second ROLLBACK would hide the original error.
                self.conn.execute("ROLLBACK")

    def _tx(self) -> Library._Tx:
        return Library._Tx(self.connect())

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """Several reads from one snapshot (a WAL read transaction), so a
        document added or removed by another session between them cannot
        make them disagree (passages of a document not in the list)."""
        conn = self.connect()
        if conn.in_transaction:  # already inside one: its snapshot holds
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    # ---------------------------------------------------------- collections

    def ensure_collection(self, name: str, owner: str | None = None) -> None:
        with self._tx() as conn:
            self._ensure_collection(conn, name, owner)

    @staticmethod
    def _ensure_collection(conn: sqlite3.Connection, name: str, owner: str | None = None) -> None:
        if not name or len(name) > 200:
            raise errors.LibraryError(f"invalid collection name {name!r}")
        now = time.time()
        conn.execute(
            "INSERT INTO collections (name, created_at, owner, touched_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET touched_at = excluded.touched_at",
            (name, now, owner, now),
        )

    def collections(self) -> list[str]:
        rows = self.connect().execute("SELECT name FROM collections ORDER BY name").fetchall()
        return [r[0] for r in rows]

    def drop_collection(self, name: str) -> None:
        with self._tx() as conn:
            conn.execute("DELETE FROM collections WHERE name = ?", (name,))

    def expire_collections(self, owner_prefix: str, older_than_s: float) -> list[str]:
        """Delete private collections (owner set, starting with the prefix)
        untouched for longer than ``older_than_s``; returns their names."""
        cutoff = time.time() - older_than_s
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT name FROM collections WHERE owner LIKE ? AND touched_at < ?",
                (owner_prefix + "%", cutoff),
            ).fetchall()
            for (name,) in rows:
                conn.execute("DELETE FROM collections WHERE name = ?", (name,))
        return [r[0] for r in rows]

    def fingerprint(self, collection: str) -> str:
        """Changes whenever the collection's documents or chunking change
        (cache key for indexes built over it)."""
        rows = (
            self.connect()
            .execute(
                "SELECT name, content_hash, chunking FROM documents WHERE collection = ? ORDER BY name",
                (collection,),
            )
            .fetchall()
        )
        from .records import sha256_hex

        return sha256_hex(json.dumps(rows))

    # ------------------------------------------------------------ documents

    def add_document(
        self,
        collection: str,
        doc: Document,
        passages: Sequence[Passage],
        chunking: str,
        *,
        replace: bool = True,
    ) -> AddResult:
        """Store ``doc`` and its ``passages`` (cut with strategy ``chunking``)
        in one transaction.

        Same bytes already present (under any name) -> "duplicate", nothing
        stored. Same name with new bytes -> "replaced" when ``replace``.
        """
        with self._tx() as conn:
            # The collection is made in the same transaction: a failed add
            # leaves no trace, not even an empty collection.
            self._ensure_collection(conn, collection)
            dup = conn.execute(
                "SELECT name FROM documents WHERE collection = ? AND content_hash = ?",
                (collection, doc.content_hash),
            ).fetchone()
            if dup is not None:
                return AddResult(doc.name, "duplicate", 0, duplicate_of=dup[0])
            existing = conn.execute(
                "SELECT id FROM documents WHERE collection = ? AND name = ?", (collection, doc.name)
            ).fetchone()
            status = "added"
            if existing is not None:
                if not replace:
                    raise errors.LibraryError(
                        f"{doc.name}: a different document of that name is already stored"
                    )
                conn.execute("DELETE FROM documents WHERE id = ?", (existing[0],))
                status = "replaced"
            doc_id = self._insert_document(conn, collection, doc, chunking, time.time())
            self._insert_passages(conn, doc_id, passages)
        return AddResult(doc.name, status, len(passages))

    def add_documents_bulk(
        self, collection: str, chunked: Iterable[tuple[Document, str, Sequence[Passage]]]
    ) -> int:
        """Store many (document, chunking strategy, passages) in one
        transaction (benchmark corpora); no dedupe. Returns the number of
        passages stored."""
        total = 0
        now = time.time()
        with self._tx() as conn:
            self._ensure_collection(conn, collection)
            for doc, strategy, passages in chunked:
                doc_id = self._insert_document(conn, collection, doc, strategy, now)
                self._insert_passages(conn, doc_id, passages)
                total += len(passages)
        return total

    def record_failure(self, collection: str, name: str, content_hash: str, reason: str) -> None:
        """Remember that these bytes could not be loaded, so a folder sync
        does not re-parse them every time."""
        with self._tx() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                (f"failed:{collection}:{name}", json.dumps([content_hash, reason])),
            )

    def failures(self, collection: str) -> dict[str, tuple[str, str]]:
        prefix = f"failed:{collection}:"
        rows = (
            self.connect()
            .execute("SELECT key, value FROM meta WHERE key >= ? AND key < ?", (prefix, prefix + "\uffff"))
            .fetchall()
        )
        return {key[len(prefix) :]: tuple(json.loads(value)) for key, value in rows}

    def clear_failures(self, collection: str) -> None:
        prefix = f"failed:{collection}:"
        with self._tx() as conn:
            conn.execute("DELETE FROM meta WHERE key >= ? AND key < ?", (prefix, prefix + "\uffff"))

    def fingerprint_marker(self, collection: str) -> str | None:
        row = (
            self.connect()
            .execute("SELECT value FROM meta WHERE key = ?", (f"marker:{collection}",))
            .fetchone()
        )
        return row[0] if row else None

    def set_fingerprint_marker(self, collection: str, marker: str) -> None:
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"marker:{collection}", marker))

    @staticmethod
    def _insert_document(
        conn: sqlite3.Connection, collection: str, doc: Document, strategy: str, added_at: float
    ) -> int:
        cur = conn.execute(
            "INSERT INTO documents (collection, name, title, kind, content_hash, size_bytes, added_at, "
            "chunking, text, line_pages, control_first, control_last) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                collection,
                doc.name,
                doc.title,
                doc.kind,
                doc.content_hash,
                doc.size_bytes,
                added_at,
                strategy,
                doc.text,
                json.dumps(list(doc.line_pages)),
                doc.control_lines[0] if doc.control_lines else None,
                doc.control_lines[1] if doc.control_lines else None,
            ),
        )
        return int(cur.lastrowid)

    @staticmethod
    def _insert_passages(conn: sqlite3.Connection, doc_id: int, passages: Iterable[Passage]) -> None:
        conn.executemany(
            'INSERT INTO passages (document_id, idx, first_line, last_line, start, "end", label, pages, '
            "content_hash, chunking) VALUES (?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    doc_id,
                    p.index,
                    p.first_line,
                    p.last_line,
                    p.start,
                    p.end,
                    p.label,
                    json.dumps(list(p.pages)),
                    p.content_hash,
                    p.chunking,
                )
                for p in passages
            ],
        )

    def remove_document(self, collection: str, name: str) -> bool:
        with self._tx() as conn:
            cur = conn.execute("DELETE FROM documents WHERE collection = ? AND name = ?", (collection, name))
        return cur.rowcount > 0

    def replace_passages(self, collection: str, name: str, chunking: str, passages: Sequence[Passage]) -> int:
        """Swap one stored document's passages for ``passages`` (cut with
        strategy ``chunking``) in one transaction; returns how many."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT id FROM documents WHERE collection = ? AND name = ?", (collection, name)
            ).fetchone()
            if row is None:
                raise errors.LibraryError(f"{name}: no such document in {collection!r}")
            conn.execute("DELETE FROM passages WHERE document_id = ?", (row[0],))
            conn.execute("UPDATE documents SET chunking = ? WHERE id = ?", (chunking, row[0]))
            self._insert_passages(conn, row[0], passages)
        return len(passages)

    def list_documents(self, collection: str) -> list[DocumentInfo]:
        rows = (
            self.connect()
            .execute(
                "SELECT d.name, d.title, d.kind, d.size_bytes, d.added_at, d.chunking, "
                "(SELECT COUNT(*) FROM passages p WHERE p.document_id = d.id), d.content_hash "
                "FROM documents d WHERE d.collection = ? ORDER BY d.name",
                (collection,),
            )
            .fetchall()
        )
        return [DocumentInfo(*r) for r in rows]

    def get_document(self, collection: str, name: str) -> Document:
        row = (
            self.connect()
            .execute(
                "SELECT name, title, kind, text, content_hash, size_bytes, line_pages, control_first, control_last "
                "FROM documents WHERE collection = ? AND name = ?",
                (collection, name),
            )
            .fetchone()
        )
        if row is None:
            raise errors.LibraryError(f"{name}: no such document in {collection!r}")
        return _document_from_row(row)

    def documents(self, collection: str) -> dict[str, Document]:
        rows = (
            self.connect()
            .execute(
                "SELECT name, title, kind, text, content_hash, size_bytes, line_pages, control_first, control_last "
                "FROM documents WHERE collection = ? ORDER BY name",
                (collection,),
            )
            .fetchall()
        )
        return {r[0]: _document_from_row(r) for r in rows}

    def passages(self, collection: str, documents: dict[str, Document] | None = None) -> list[Passage]:
        """All passages of a collection, in document then passage order."""
        documents = documents if documents is not None else self.documents(collection)
        rows = (
            self.connect()
            .execute(
                'SELECT d.name, p.idx, p.first_line, p.last_line, p.start, p."end", p.label, p.pages, p.chunking '
                "FROM passages p JOIN documents d ON d.id = p.document_id WHERE d.collection = ? "
                "ORDER BY d.name, p.idx",
                (collection,),
            )
            .fetchall()
        )
        out = []
        for name, idx, first, last, start, end, label, pages, chunking in rows:
            text = documents[name].text[start:end]
            out.append(
                Passage(name, idx, first, last, start, end, label, text, tuple(json.loads(pages)), chunking)
            )
        return out

    # ----------------------------------------------------------- embeddings

    def get_vectors(self, content_hashes: list[str], model_id: str) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        conn = self.connect()
        for k in range(0, len(content_hashes), 500):
            chunk = content_hashes[k : k + 500]
            marks = ",".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT content_hash, vector FROM embeddings WHERE model_id = ? AND content_hash IN ({marks})",
                (model_id, *chunk),
            ).fetchall()
            for h, blob in rows:
                out[h] = np.frombuffer(blob, dtype=np.float32)
        return out

    def put_vectors(self, vectors: Mapping[str, np.ndarray], model_id: str) -> None:
        with self._tx() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO embeddings (content_hash, model_id, vector) VALUES (?, ?, ?)",
                [(h, model_id, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()],
            )

    def count_vectors(self, model_id: str | None = None) -> int:
        if model_id is None:
            return self.connect().execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        return (
            self.connect()
            .execute("SELECT COUNT(*) FROM embeddings WHERE model_id = ?", (model_id,))
            .fetchone()[0]
        )

    def integrity_check(self) -> str:
        return self.connect().execute("PRAGMA integrity_check").fetchone()[0]


def _document_from_row(row) -> Document:
    name, title, kind, text, content_hash, size, line_pages, cf, cl = row
    return Document(
        name=name,
        title=title,
        kind=kind,
        text=text,
        content_hash=content_hash,
        size_bytes=size,
        line_pages=tuple(json.loads(line_pages)),
        control_lines=(cf, cl) if cf is not None else None,
    )
