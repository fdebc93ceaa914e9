"""A library collection's passages indexed in Milvus (Lite, server or cluster).

BM25 (a Milvus BM25 function over the passages' own tokens), dense (HNSW, COSINE)
and hybrid (Milvus's RRF or weighted ranker) all run in Milvus. The library
stays the source of truth: ``sync`` makes the Milvus collection hold exactly
the given passages (adding new keys, deleting vanished ones), so uploads,
deletions and re-chunking propagate, and an upload made while Milvus was
down is indexed by the next sync. A marker in a small meta collection records
the content that was last synced in full, so an unchanged collection is
re-used without scanning it.

Every call carries a timeout; a Milvus that is unreachable or slow becomes
``IndexUnavailable`` with the address (never the token) within it. Long
calls (writes, flushing, index builds) are watched by pings instead, so a
server that stops answering in the middle of an ingest fails within seconds.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...records import Passage, sha256_hex
from ..bm25 import BM25Params, index_texts
from . import IndexTarget
from . import milvus_schema as schema
from .milvus_client import (  # noqa: F401  (re-exported: callers import them from here)
    DEFAULT_TIMEOUT_S,
    PING_TIMEOUT_S,
    IndexFailure,
    IndexUnavailable,
    client_for,
    forget_client,
    translated,
    watched,
)

# Writes may wait on the engine sealing a full buffer (Milvus Lite: seconds,
# more on a loaded machine); a refused or reset connection still fails at once.
WRITE_TIMEOUT_S = 60.0
SETTLE_TIMEOUT_S = 600.0  # flushing and first index build after an ingest (Lite: seconds per 10k rows)
INSERT_BATCH = 256
# Milvus Lite seals its write buffer inside an insert once it holds 128 MB
# (about 45k passages), which took over a minute at 100k on this loaded
# machine; sealing every 8k rows ourselves keeps each step short.
LITE_SEAL_ROWS = 8_192
DELETE_BATCH = 1_000
Ranked = list[tuple[str, float]]  # (primary key, score), best first
HybridRanker = Literal["rrf", "weighted"]


@dataclass(frozen=True)
class SyncReport:
    added: int
    removed: int
    kept: int
    reused: bool  # the marker matched: nothing was scanned
    before: str = ""  # content key of what the collection held before (when scanned)
    added_rows: tuple[int, ...] = ()  # rows of the passages inserted now


class MilvusIndex:
    """One Milvus collection of passages. Holds no per-search state."""

    def __init__(
        self,
        target: IndexTarget,
        name: str,
        dim: int,
        *,
        bm25: BM25Params | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.target, self.name, self.dim, self.timeout = target, name, dim, timeout
        self.bm25_params = bm25 or BM25Params()
        self._ready = False
        self._sides_ready: set[str] = set()  # meta and statistics collections loaded

    @property
    def client(self):
        return client_for(self.target, self.timeout)

    def _do(self, doing: str, method: str, *args, timeout: float | None = None, **kwargs):
        with translated(self.target, doing):
            return getattr(self.client, method)(*args, timeout=timeout or self.timeout, **kwargs)

    def _long(self, doing: str, method: str, *args, timeout: float, **kwargs):
        """A call that may take long on a healthy server (a write, a flush,
        the first index build), watched by pings so that a server that
        stops answering fails within seconds (``milvus_client.watched``)."""
        client = self.client

        def ping() -> object:
            return client.has_collection(schema.META_COLLECTION, timeout=PING_TIMEOUT_S)

        return watched(
            self.target, doing, lambda: getattr(client, method)(*args, timeout=timeout, **kwargs), ping
        )

    # ---------------------------------------------------------- lifecycle

    def ensure(self) -> None:
        """Create the collection (and the meta collection) if missing; load it."""
        if self._ready:
            return
        if not self._do("look up the collection", "has_collection", self.name):
            params = schema.build_index_params(self.client, self.bm25_params)
            self._do(
                "create the collection",
                "create_collection",
                self.name,
                schema=schema.build_schema(self.dim),
                index_params=params,
                consistency_level="Strong",
            )
        self._ensure_meta()
        self._long("load the collection", "load_collection", self.name, timeout=SETTLE_TIMEOUT_S)
        self._ready = True

    def _ensure_meta(self) -> None:
        self._ensure_side(schema.META_COLLECTION, "meta collection", schema.build_meta_schema)

    def _ensure_side(self, name: str, label: str, build_schema: Callable[[], object]) -> None:
        """Create (if missing) and load one of the small key/value collections
        kept beside the passages; once per index object."""
        if name in self._sides_ready:
            return
        if not self._do(f"look up the {label}", "has_collection", name):
            params = self.client.prepare_index_params()
            params.add_index(field_name="v", index_type="FLAT", metric_type="L2")
            self._do(
                f"create the {label}",
                "create_collection",
                name,
                schema=build_schema(),
                index_params=params,
                consistency_level="Strong",
            )
        self._do(f"load the {label}", "load_collection", name)
        self._sides_ready.add(name)

    def drop(self) -> None:
        if self._do("look up the collection", "has_collection", self.name):
            self._do("drop the collection", "drop_collection", self.name)
        self.set_meta(self.name, "")
        self.write_blob(self.name, b"")
        self._ready = False

    def exists(self) -> bool:
        return bool(self._do("look up the collection", "has_collection", self.name))

    # --------------------------------------------------------------- meta

    def meta(self, key: str) -> str | None:
        self._ensure_meta()
        rows = self._do("read the meta collection", "get", schema.META_COLLECTION, ids=[key])
        return str(rows[0]["value"]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self._ensure_meta()
        row = {"key": key, "value": value, "v": [0.0, 0.0]}
        self._do("write the meta collection", "upsert", schema.META_COLLECTION, [row])

    # -------------------------------------------------------------- blobs

    def _ensure_blobs(self) -> None:
        self._ensure_side(schema.BLOB_COLLECTION, "statistics collection", schema.build_blob_schema)

    def read_blob(self, key: str) -> bytes | None:
        """The bytes last written under ``key`` by ``write_blob``, or None
        (never written, emptied, or incomplete)."""
        self._ensure_blobs()
        head = self._do("read statistics", "get", schema.BLOB_COLLECTION, ids=[key])
        if not head or not str(head[0]["value"]):
            return None
        parts, digest = str(head[0]["value"]).split(":")
        ids = [f"{key}#{i}" for i in range(int(parts))]
        got = {
            str(r["key"]): str(r["value"])
            for r in self._do("read statistics", "get", schema.BLOB_COLLECTION, ids=ids)
        }
        if len(got) != len(ids):
            return None
        data = base64.b64decode("".join(got[i] for i in ids))
        return data if sha256_hex(data)[:16] == digest else None

    def write_blob(self, key: str, data: bytes) -> None:
        """Keep ``data`` under ``key`` (in parts of a VARCHAR's size; the head
        row, written last, names the parts and their digest)."""
        self._ensure_blobs()
        head = self._do("read statistics", "get", schema.BLOB_COLLECTION, ids=[key])
        old_parts = int(str(head[0]["value"]).split(":")[0]) if head and str(head[0]["value"]) else 0
        text = base64.b64encode(data).decode("ascii")
        size = schema.BLOB_PART_CHARS
        parts = [text[i : i + size] for i in range(0, len(text), size)]
        rows = [{"key": f"{key}#{i}", "value": part, "v": [0.0, 0.0]} for i, part in enumerate(parts)]
        for start in range(0, len(rows), 16):
            self._long(
                "write statistics",
                "upsert",
                schema.BLOB_COLLECTION,
                rows[start : start + 16],
                timeout=WRITE_TIMEOUT_S,
            )
        value = f"{len(parts)}:{sha256_hex(data)[:16]}" if data else ""
        self._do(
            "write statistics",
            "upsert",
            schema.BLOB_COLLECTION,
            [{"key": key, "value": value, "v": [0.0, 0.0]}],
        )
        if old_parts > len(parts):
            extra = [f"{key}#{i}" for i in range(len(parts), old_parts)]
            self._long(
                "delete statistics", "delete", schema.BLOB_COLLECTION, ids=extra, timeout=WRITE_TIMEOUT_S
            )

    # --------------------------------------------------------------- sync

    def sync(
        self,
        passages: Sequence[Passage],
        keys: Sequence[str],
        vectors_for: Callable[[list[int]], np.ndarray],
        collection: str,
        *,
        removed_rows: list[dict[str, object]] | None = None,
    ) -> SyncReport:
        """Make the collection hold exactly ``passages`` (keyed by ``keys``);
        ``vectors_for(rows)`` gives the vectors of the passages at ``rows``.
        With ``removed_rows``, the text, doc and label of each deleted
        passage are appended to it first (to count them out of statistics)."""
        self.ensure()
        wanted = schema.content_key(keys)
        if self.meta(self.name) == wanted:
            return SyncReport(0, 0, len(keys), reused=True, before=wanted)
        stored = set(self.stored_keys())
        key_set = set(keys)
        stale = [k for k in stored if k not in key_set]
        for start in range(0, len(stale), DELETE_BATCH):
            part = stale[start : start + DELETE_BATCH]
            if removed_rows is not None:
                fields = ["pk", "text", "doc", "label", "passage_index"]
                removed_rows.extend(
                    self._do("read passages", "get", self.name, ids=part, output_fields=fields)
                )
            self._long("delete passages", "delete", self.name, ids=part, timeout=WRITE_TIMEOUT_S)
        todo: dict[str, int] = {}
        for i, key in enumerate(keys):
            if key not in stored:
                todo.setdefault(key, i)
        rows = list(todo.values())
        bodies = list(index_texts(passages, self.bm25_params)) if rows else []
        for start in range(0, len(rows), INSERT_BATCH):
            part = rows[start : start + INSERT_BATCH]
            chunk = [passages[i] for i in part]
            vectors = vectors_for(part)
            data = schema.rows(
                chunk,
                [keys[i] for i in part],
                vectors,
                collection,
                self.bm25_params,
                [bodies[i] for i in part],
            )
            self._long("insert passages", "insert", self.name, data, timeout=WRITE_TIMEOUT_S)
            if (
                self.target.kind == "milvus-lite"
                and (start // INSERT_BATCH + 1) % (LITE_SEAL_ROWS // INSERT_BATCH) == 0
            ):
                self._long("flush the collection", "flush", self.name, timeout=SETTLE_TIMEOUT_S)
        if rows or stale:
            self._settle()
        self.set_meta(self.name, wanted)
        before = schema.content_key(stored)
        return SyncReport(len(rows), len(stale), len(key_set & stored), False, before, tuple(rows))

    def _settle(self) -> None:
        """Seal what was written and build the search indexes now, as part of
        ingest: Milvus Lite rebuilds the BM25 index of unsealed rows on every
        search and builds a sealed segment's indexes on its first search
        (seconds at 10k rows); a server indexes in the background."""
        doing = "flush and index the collection"
        self._long(doing, "flush", self.name, timeout=SETTLE_TIMEOUT_S)
        probe = np.zeros(self.dim, dtype=np.float32)
        probe[0] = 1.0
        for field, data, params in (
            ("sparse", "index", schema.bm25_params()),
            ("dense", probe.tolist(), schema.dense_params(1)),
        ):
            self._long(
                doing,
                "search",
                self.name,
                data=[data],
                anns_field=field,
                search_params=params,
                limit=1,
                output_fields=["pk"],
                timeout=SETTLE_TIMEOUT_S,
            )

    def stored_keys(self) -> Iterator[str]:
        """Every primary key in the collection."""
        with translated(self.target, "list the stored passages"):
            it = self.client.query_iterator(
                self.name, batch_size=1_000, filter="", output_fields=["pk"], timeout=self.timeout
            )
            try:
                while batch := it.next():
                    yield from (str(row["pk"]) for row in batch)
            finally:
                it.close()

    def count(self) -> int:
        stats = self._do("count the passages", "get_collection_stats", self.name)
        return int(stats.get("row_count", 0))

    # ------------------------------------------------------------- search

    def bm25(self, question: str, k: int, *, docs: Sequence[str] | None = None) -> Ranked:
        """BM25 over the passages' terms, in Milvus (the question tokenised
        as the passages were); with ``docs``, only those documents' passages."""
        terms = schema.milvus_terms(question, self.bm25_params)
        if not terms:
            return []
        kwargs: dict[str, object] = {}
        if docs:
            kwargs = {"filter": f"doc in [{', '.join(_literal(d) for d in docs)}]"}
        res = self._do(
            "search (BM25)",
            "search",
            self.name,
            data=[terms],
            anns_field="sparse",
            search_params=schema.bm25_params(),
            limit=k,
            output_fields=["pk"],
            **kwargs,
        )
        # Milvus Lite 3.2 reports BM25 as a negated distance, Milvus proper as
        # a positive score; order is the same, so keep the magnitude.
        return [(_pk(hit), abs(float(hit["distance"]))) for hit in res[0]]

    def dense(self, vector: np.ndarray, k: int, *, exclude_doc: str | None = None) -> Ranked:
        """Nearest passages by cosine; ``exclude_doc`` leaves one document out."""
        kwargs: dict[str, object] = {}
        if exclude_doc is not None:
            kwargs = {"filter": f"doc != {_literal(exclude_doc)}"}
        res = self._do(
            "search (dense)",
            "search",
            self.name,
            data=[np.asarray(vector, dtype=np.float32).tolist()],
            anns_field="dense",
            search_params=schema.dense_params(k),
            limit=k,
            output_fields=["pk"],
            **kwargs,
        )
        return [(_pk(hit), float(hit["distance"])) for hit in res[0]]

    def hybrid(
        self,
        question: str,
        vector: np.ndarray,
        k: int,
        ranker: HybridRanker,
        *,
        depth: int,
        rrf_k: float = 60.0,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> Ranked:
        """Milvus's own fusion of its BM25 and dense top ``depth``."""
        from pymilvus import AnnSearchRequest, RRFRanker, WeightedRanker

        terms = schema.milvus_terms(question, self.bm25_params) or "zz"  # no terms: no BM25 hit
        requests = [
            AnnSearchRequest(data=[terms], anns_field="sparse", param=schema.bm25_params(), limit=depth),
            AnnSearchRequest(
                data=[np.asarray(vector, dtype=np.float32).tolist()],
                anns_field="dense",
                param=schema.dense_params(depth),
                limit=depth,
            ),
        ]
        fuse = RRFRanker(int(rrf_k)) if ranker == "rrf" else WeightedRanker(*weights, norm_score=True)
        res = self._do(
            "search (hybrid)", "hybrid_search", self.name, requests, fuse, limit=k, output_fields=["pk"]
        )
        return [(_pk(hit), float(hit["distance"])) for hit in res[0]]

    def vectors(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        rows = self._do("read vectors", "get", self.name, ids=list(keys), output_fields=["pk", "dense"])
        return {str(r["pk"]): np.asarray(r["dense"], dtype=np.float32) for r in rows}


def _pk(hit) -> str:
    """A hit's primary key (pymilvus names it after the primary field)."""
    return str(hit["pk"] if "pk" in hit else hit["entity"]["pk"])


def _literal(value: str) -> str:
    """A Milvus filter string literal (Milvus Lite has no filter templates)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
