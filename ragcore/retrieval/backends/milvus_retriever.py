"""The retriever's interface over a Milvus index.

Same modes, same ``SearchResult``, same per-stage traces as the embedded
retriever; only where the signals run changes. BM25 and dense rankings come
from Milvus; hybrid is fused by the project's own fusion when that is the
configured method (the default, ``FusionConfig()``, and every method other
than ``rrf`` and ``convex``; query statistics come from
``term_stats.TermStats``), and by Milvus's RRF or
weighted ranker when the fusion method is ``rrf`` or ``convex``. Milvus's weighted ranker
normalises scores with arctan, not min-max, so ``convex`` orders can differ
from the embedded ones; and Milvus's rankers fuse its raw BM25 list, without
the two rules applied beside it here: the named-document boost and table
rows scored as passages of their own (``bm25_rows``, weighted with the
collection's term statistics, since Milvus holds whole passages only).
The default gate's pseudo-relevance feedback step (``prf``: dense's top
passages move the query vector, and the fused ranking's dense half is
re-scored with it) is not done here: it needs the candidates' vectors at
query time, so on Milvus the gate fuses the plain dense list.

The passages and their vectors are synchronised into Milvus on first use
(``ensure_dense``): new passages are embedded (or read from the vector
cache) and inserted, vanished ones deleted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np
from scipy import sparse

from ...records import Passage, StageTrace
from ..bm25 import BM25Params, column_sum
from ..bm25_rows import best_row_scores, table_row_index
from ..document_names import names_document
from ..protocols import EmbedderLike, Mode, PassageSource, RerankerLike, VectorCache
from ..results import CallLog
from ..retriever import (
    CANDIDATES,
    RERANK_DEPTH,
    SPLIT_PARTS,
    WIDEN_FROM_BM25,
    FusionConfig,
    Retriever,
)
from ..vectors import passage_vectors
from . import IndexTarget
from . import milvus_schema as schema
from .milvus import MilvusIndex, Ranked, SyncReport
from .term_stats import Frequencies, TermStats, params_key, removed_passages

Ranking = list[tuple[int, float]]


class MilvusRetriever(Retriever):
    """Searches one corpus whose index lives in Milvus.

    ``keyed_by_content``: the Milvus collection is named by the hash of the
    passages (a ``--corpus`` folder: re-used while the folder is unchanged);
    otherwise by the library collection's name (kept in step by ``sync``).
    """

    concurrent_signals = False  # one Milvus client, asked one thing at a time (as before)

    def __init__(
        self,
        corpus: PassageSource,
        target: IndexTarget,
        *,
        collection: str,
        keyed_by_content: bool = False,
        vector_cache: VectorCache | None = None,
        embedder: EmbedderLike | None = None,
        fusion_config: FusionConfig | None = None,
        reranker: RerankerLike | None = None,
        default_mode: Mode = "hybrid",
    ) -> None:
        # No super().__init__(): BM25 and the vectors live in Milvus, not here.
        self._keep_settings(corpus, vector_cache, embedder, fusion_config, reranker, default_mode)
        self.index_dir = None  # nothing is saved locally
        self.split_parts = SPLIT_PARTS  # multi-part questions split as in the embedded index
        self.bm25_params = BM25Params()
        # The project's fusion reads query statistics from ``self.bm25``
        # (``fusion.query_signals``); here they come from term statistics
        # kept beside the Milvus collection, set by ``ensure_dense``.
        self.bm25: TermStats | None = None  # type: ignore[assignment]
        self.build_seconds: dict[str, float] = {}
        self.target = target
        self.collection = collection
        self.keyed_by_content = keyed_by_content
        self.index: MilvusIndex | None = None
        self.sync_report: SyncReport | None = None
        self._given: np.ndarray | None = None
        self._keys: list[str] = []
        self._rows: dict[str, int] = {}
        self._table_rows: tuple[sparse.csc_matrix, np.ndarray] | None = None

    # ------------------------------------------------------------ syncing

    def set_vectors(self, vectors: np.ndarray) -> None:
        """Use these passage vectors (row-aligned with ``passages``) for the
        passages Milvus does not hold yet."""
        if len(vectors) != len(self.passages):
            raise ValueError(f"{len(vectors)} vectors for {len(self.passages)} passages")
        self._given = np.asarray(vectors, dtype=np.float32)

    @property
    def dense_ready(self) -> bool:
        return self.index is not None

    def ensure_dense(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Bring the Milvus collection in step with the passages; returns how
        many passages were embedded now."""
        if self.index is not None:
            return 0
        with self._dense_build:
            if self.index is not None:
                return 0
            t0 = time.perf_counter()
            model_id = getattr(self.embedder, "model_id", "given") if self._given is None else "given"
            keys = [schema.passage_key(p, model_id) for p in self.passages]
            dim = self._dim()
            name = (
                schema.folder_collection_name(schema.content_key(keys), dim)
                if self.keyed_by_content
                else schema.collection_name(self.collection, dim)
            )
            index = MilvusIndex(self.target, name, dim, bm25=self.bm25_params)
            embedded = [0]
            removed: list[dict[str, object]] = []
            vectors_for = self._vectors_for(embedded, progress)
            report = index.sync(self.passages, keys, vectors_for, self.collection, removed_rows=removed)
            self.bm25 = TermStats(
                self._frequencies(index, keys, report, removed), self.passages, self.bm25_params
            )
            self._table_rows = self._row_index(self.bm25)
            if self.keyed_by_content:
                self._drop_previous(index)
            self._keys, self._rows = keys, {k: i for i, k in enumerate(keys)}
            self.sync_report = report
            self.build_seconds["dense"] = time.perf_counter() - t0
            self.build_seconds["embedded"] = embedded[0]
            self.index = index
            return embedded[0]

    def _frequencies(
        self, index: MilvusIndex, keys: list[str], report: SyncReport, removed: list[dict[str, object]]
    ) -> Frequencies:
        """The collection's term statistics: read back from Milvus when they
        describe these passages; updated by this sync's additions and
        deletions when they describe what Milvus held before; else counted
        over every passage. Kept in Milvus when changed."""
        wanted, pkey = schema.content_key(keys), params_key(self.bm25_params)
        raw = index.read_blob(index.name)
        found = Frequencies.from_bytes(raw) if raw else None
        if found is not None and found.params == pkey and found.content == wanted:
            return found
        if (
            found is not None
            and found.params == pkey
            and not report.reused
            and found.content == report.before
            and not any(schema.maybe_clipped(row) for row in removed)
        ):
            found.add([self.passages[i] for i in report.added_rows], self.bm25_params)
            found.add(removed_passages(removed), self.bm25_params, sign=-1)
            found.content = wanted
        else:
            found = Frequencies.of(self.passages, self.bm25_params, wanted)
        index.write_blob(index.name, found.to_bytes())
        return found

    def _dim(self) -> int:
        if self._given is not None:
            return int(self._given.shape[1])
        dim = getattr(self.embedder, "dim", None)
        return int(dim) if dim else len(self.embedder.embed_query("dimension"))

    def _vectors_for(
        self, embedded: list[int], progress: Callable[[int, int], None] | None
    ) -> Callable[[list[int]], np.ndarray]:
        done = [0]

        def vectors_for(rows: list[int]) -> np.ndarray:
            if self._given is not None:
                out = self._given[rows]
            else:
                chunk = [self.passages[i] for i in rows]
                out, new = passage_vectors(chunk, self.embedder, self.vector_cache)
                embedded[0] += new
            done[0] += len(rows)
            if progress:
                progress(done[0], len(self.passages))
            return out

        return vectors_for

    def _drop_previous(self, index: MilvusIndex) -> None:
        """A folder's older content-keyed collection is dropped once its new
        one is complete."""
        key = f"folder:{self.collection}"
        previous = index.meta(key)
        if previous and previous != index.name:
            MilvusIndex(self.target, previous, index.dim).drop()
        index.set_meta(key, index.name)

    def _index(self) -> MilvusIndex:
        self.ensure_dense()
        assert self.index is not None
        return self.index

    def _to_rows(self, ranked: Ranked) -> Ranking:
        """Milvus keys as rows of ``passages``; keys of passages this
        retriever does not hold (another process's newer state) are skipped."""
        return [(self._rows[key], score) for key, score in ranked if key in self._rows]

    # ------------------------------------------------------------ signals

    def _bm25_ranking(self, question: str, k: int, log: CallLog | None = None) -> Ranking:
        """Milvus's BM25 top ``k``, with the embedded index's named-document
        boost: a question naming a document (``named_documents``) also gets
        that document's own BM25 top ``k`` (a filtered search, so passages
        outside the overall top can come in), and those passages' scores are
        multiplied by 1 + ``named_document_boost``."""
        log = log if log is not None else CallLog()
        index = self._index()
        with log.timed("bm25"):
            scores = self._with_table_rows(question, dict(self._to_rows(index.bm25(question, k))))
            named = named_documents(question, self._doc_names(), self.bm25_params)
            if not named:
                return _top(scores, k)
            for row, score in self._to_rows(index.bm25(question, k, docs=named)):
                scores[row] = max(score, scores.get(row, 0.0))
            boost = 1.0 + self.bm25_params.named_document_boost
            named_set = set(named)
            for row in scores:
                if self.passages[row].doc in named_set:
                    scores[row] *= boost
            return _top(scores, k)

    def _row_index(self, stats: TermStats) -> tuple[sparse.csc_matrix, np.ndarray] | None:
        """The embedded index's table rows (``bm25_rows``), weighted with the
        collection's term statistics; None when the rule is off or no passage
        holds a table. Rows are scored here: Milvus holds passages only."""
        if not self.bm25_params.table_row_weight or not any("|" in p.text for p in self.passages):
            return None
        rows, owner = table_row_index(self.passages, stats, self.bm25_params)  # type: ignore[arg-type]
        return (rows, owner) if owner.size else None

    def _with_table_rows(self, question: str, scores: dict[int, float]) -> dict[int, float]:
        """As ``BM25Index.scores_from_ids``: a passage scores the better of its
        own score and ``table_row_weight`` x its best table row's; a passage
        outside Milvus's top comes in on its row's score alone."""
        if not self.bm25_params.table_row_weight or self._table_rows is None or self.bm25 is None:
            return scores
        rows, owner = self._table_rows
        ids = self.bm25.term_ids(self.bm25.query_tokens(question))
        if not len(ids):
            return scores
        uniq, counts = np.unique(ids, return_counts=True)
        best = best_row_scores(
            rows, owner, column_sum(rows, uniq, counts.astype(np.float64)), len(self.passages)
        )
        weight = self.bm25_params.table_row_weight
        for row in np.flatnonzero(best > 0):
            scores[int(row)] = max(scores.get(int(row), 0.0), weight * float(best[row]))
        return scores

    def _doc_names(self) -> list[str]:
        return list(dict.fromkeys(p.doc for p in self.passages))

    def _dense_ranking(self, question: str, k: int, log: CallLog | None = None) -> Ranking:
        log = log if log is not None else CallLog()
        index = self._index()
        with log.timed("embed_query"):
            query = self.embedder.embed_query(question)
        with log.timed("dense"):
            return self._to_rows(index.dense(query, k))

    def _rank(
        self, question: str, mode: Mode, k: int, log: CallLog
    ) -> tuple[Ranking, dict[str, dict[int, StageTrace]]]:
        if mode not in ("hybrid", "rerank") or self.fusion.method not in ("rrf", "convex"):
            # The project's fusion (the default and every method but rrf/convex)
            # over the two Milvus lists, as in the embedded retriever.
            return super()._rank(question, mode, k, log)
        bm = self._bm25_ranking(question, CANDIDATES, log)
        dn = self._dense_ranking(question, CANDIDATES, log)
        traces = {"bm25": _trace(bm), "dense": _trace(dn)}
        with log.timed("fuse"):
            final = self._milvus_hybrid(question, max(k, CANDIDATES))
        traces["fused"] = _trace(final)
        if mode == "rerank":
            final, reranked = self._rerank(question, final, log)
            if reranked:
                traces["rerank"] = _trace(final[:RERANK_DEPTH])
        return final, traces

    def _milvus_hybrid(self, question: str, limit: int) -> Ranking:
        """Milvus's RRF (``rrf``) or weighted ranker (``convex``) over its
        BM25 and dense top ``CANDIDATES``."""
        query = self.embedder.embed_query(question)
        weights = (float(self.fusion.weights.get("bm25", 1.0)), float(self.fusion.weights.get("dense", 1.0)))
        ranked = self._index().hybrid(
            question,
            query,
            limit,
            "rrf" if self.fusion.method == "rrf" else "weighted",
            depth=CANDIDATES,
            rrf_k=self.fusion.k,
            weights=weights,
        )
        return self._to_rows(ranked)

    def _widen(self, question: str, dense: Ranking, bm: Ranking) -> Ranking:
        """As the embedded widen: a BM25 hit outside the dense top gets its
        cosine, from its vector stored in Milvus."""
        pool = {row: score for row, score in dense}
        missing = [row for row, _ in bm[:WIDEN_FROM_BM25] if row not in pool]
        if missing:
            query = np.asarray(self.embedder.embed_query(question), dtype=np.float32)
            stored = self._index().vectors([self._keys[row] for row in missing])
            for row in missing:
                vec = stored.get(self._keys[row])
                if vec is not None:
                    pool[row] = _cosine(query, vec)
        return sorted(pool.items(), key=lambda item: (-item[1], item[0]))

    # ------------------------------------------------------------ lineage

    def related(self, passage: Passage, k: int = 3) -> list[tuple[Passage, float]]:
        """Nearest passages in other documents, by a filtered Milvus search."""
        index = self._index()
        key = self._keys[self.row_of(passage)]
        vec = index.vectors([key]).get(key)
        if vec is None:
            return []
        ranked = self._to_rows(index.dense(vec, k, exclude_doc=passage.doc))
        return [(self.passages[row], score) for row, score in ranked]


def named_documents(question: str, docs: Sequence[str], params: BM25Params) -> list[str]:
    """The documents ``question`` names, by the embedded index's rule
    (``document_names.names_document``)."""
    if not params.named_document_boost:
        return []
    terms = set(params.terms(question))
    return [doc for doc in docs if names_document(terms, doc, params)]


def _top(scores: dict[int, float], k: int) -> Ranking:
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:k]


def _cosine(query: np.ndarray, vec: np.ndarray) -> float:
    denom = float(np.linalg.norm(query) * np.linalg.norm(vec)) or 1.0
    return float(query @ vec) / denom


def _trace(ranking: Sequence[tuple[int, float]]) -> dict[int, StageTrace]:
    return {row: StageTrace(rank, score) for rank, (row, score) in enumerate(ranking, start=1)}
