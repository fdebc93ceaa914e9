"""One retriever over a corpus, five modes, one result type.

Modes:
- ``bm25``: lexical only;
- ``dense``: embedding similarity only;
- ``hybrid``: the fusion of the BM25 and dense top 100 (the default);
- ``widen``: dense order over a pool widened by BM25's top hits (a recall
  pool for the reranker);
- ``rerank``: the hybrid top ``RERANK_DEPTH`` re-ordered by a cross-encoder
  when one is configured and loaded; otherwise the fused order, with a note.

Every Hit carries a trace of its rank and score under each stage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..corpus import Corpus
from ..records import Hit, Passage, StageTrace
from ..store import Library
from . import fusion
from .bm25 import BM25Index, BM25Params

MODES = ("bm25", "dense", "hybrid", "widen", "rerank")
CANDIDATES = 100  # per signal, before fusion
RERANK_DEPTH = 20
WIDEN_FROM_BM25 = 20


@dataclass(frozen=True)
class FusionConfig:
    """How hybrid mode fuses BM25 and dense. Default chosen by measurement
    (docs/decisions.md)."""

    method: str = "agreement"  # "agreement" | "rrf" | "convex"
    k: float = 20.0  # RRF constant
    weights: dict[str, float] = field(default_factory=lambda: {"bm25": 1.0, "dense": 1.0})
    depth: int = 5  # agreement: lexical top examined
    pool: int = 20  # agreement: dense top it must fall in
    power: float = 2.0

    def fuse(self, rankings: dict[str, list[tuple[int, float]]]) -> list[tuple[int, float]]:
        if self.method == "agreement":
            fused, _ = fusion.agreement_rrf(
                rankings["bm25"], rankings["dense"], self.k, self.depth, self.pool, self.power
            )
            return fused
        if self.method == "rrf":
            return fusion.rrf(rankings, k=self.k, weights=self.weights)
        if self.method == "convex":
            return fusion.convex(rankings, self.weights)
        raise ValueError(f"unknown fusion method {self.method!r}")


DEFAULT_FUSION = FusionConfig()


class Retriever:
    """Searches one corpus. Dense vectors are made (or read from the
    library cache) on first use of a dense mode, or by ``ensure_dense``."""

    def __init__(
        self,
        corpus: Corpus,
        *,
        library: Library | None = None,
        embedder=None,
        bm25_params: BM25Params | None = None,
        fusion_config: FusionConfig | None = None,
        reranker=None,
        default_mode: str = "hybrid",
    ) -> None:
        self.corpus = corpus
        self.passages: list[Passage] = corpus.passages
        self.library = library
        self.fusion = fusion_config or DEFAULT_FUSION
        self.reranker = reranker
        self.default_mode = default_mode
        self._embedder = embedder
        self._dense = None
        t0 = time.perf_counter()
        self.bm25 = BM25Index.from_texts(
            (p.text for p in self.passages), [p.label for p in self.passages], bm25_params
        )
        self.build_seconds = {"bm25": time.perf_counter() - t0}
        docs = {name: i for i, name in enumerate(sorted({p.doc for p in self.passages}))}
        self._doc_codes = np.asarray([docs[p.doc] for p in self.passages], dtype=np.int32)
        self.notes: list[str] = []
        self.timings_ms: dict[str, float] = {}

    # -------------------------------------------------------------- dense

    @property
    def embedder(self):
        if self._embedder is None:
            from .embedding import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def ensure_dense(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Make the dense index ready; returns how many passages were embedded now."""
        if self._dense is not None:
            return 0
        from .dense import DenseIndex
        from .vectors import passage_vectors

        t0 = time.perf_counter()
        vectors, embedded = passage_vectors(self.passages, self.embedder, self.library, progress=progress)
        self._dense = DenseIndex(vectors)  # keeps its own layout; no second copy here
        self.build_seconds["dense"] = time.perf_counter() - t0
        self.build_seconds["embedded"] = embedded
        return embedded

    def set_vectors(self, vectors: np.ndarray) -> None:
        """Use these passage vectors (row-aligned with ``passages``) as they are."""
        from .dense import DenseIndex

        if len(vectors) != len(self.passages):
            raise ValueError(f"{len(vectors)} vectors for {len(self.passages)} passages")
        self._dense = DenseIndex(np.asarray(vectors, dtype=np.float32))

    @property
    def dense_ready(self) -> bool:
        return self._dense is not None

    def _dense_ranking(self, question: str, k: int) -> list[tuple[int, float]]:
        self.ensure_dense()
        t0 = time.perf_counter()
        query = self.embedder.embed_query(question)
        self.timings_ms["embed_query"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        ranking = self._dense.search(query, k)
        self.timings_ms["dense"] = (time.perf_counter() - t1) * 1000
        return [(int(r), float(s)) for r, s in ranking]

    def _bm25_ranking(self, question: str, k: int) -> list[tuple[int, float]]:
        t0 = time.perf_counter()
        ranking = self.bm25.search(question, k)
        self.timings_ms["bm25"] = (time.perf_counter() - t0) * 1000
        return ranking

    # ------------------------------------------------------------- search

    def search(self, question: str, mode: str | None = None, k: int = 10) -> list[Hit]:
        """The top ``k`` passages for ``question``; ``self.notes`` says what
        fell back and why."""
        mode = mode or self.default_mode
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.notes = []
        self.timings_ms = {}
        if not self.passages or not question.strip():
            if not question.strip():
                self.notes.append("empty question")
            return []
        t0 = time.perf_counter()
        traces: dict[str, dict[int, StageTrace]] = {}
        if mode == "bm25":
            final = self._bm25_ranking(question, max(k, CANDIDATES))
            traces["bm25"] = _trace(final)
        elif mode == "dense":
            final = self._dense_ranking(question, max(k, CANDIDATES))
            traces["dense"] = _trace(final)
        else:
            bm = self._bm25_ranking(question, CANDIDATES)
            dn = self._dense_ranking(question, CANDIDATES)
            traces["bm25"], traces["dense"] = _trace(bm), _trace(dn)
            if mode == "widen":
                final = self._widen(question, dn, bm)
                traces["fused"] = _trace(final)
            else:
                t1 = time.perf_counter()
                final = self.fusion.fuse({"bm25": bm, "dense": dn})
                self.timings_ms["fuse"] = (time.perf_counter() - t1) * 1000
                traces["fused"] = _trace(final)
            if mode == "rerank":
                final = self._rerank(question, final)
                if "rerank" in self.timings_ms:
                    traces["rerank"] = _trace(final[:RERANK_DEPTH])
        hits = []
        for rank, (row, score) in enumerate(final[:k], start=1):
            trace = {stage: traces.get(stage, {}).get(row) for stage in ("bm25", "dense", "fused", "rerank")}
            hits.append(Hit(self.passages[row], rank, score, trace))
        self.timings_ms["total"] = (time.perf_counter() - t0) * 1000
        return hits

    def _widen(
        self, question, dense: list[tuple[int, float]], bm: list[tuple[int, float]]
    ) -> list[tuple[int, float]]:
        """Dense order over dense candidates plus BM25's top hits; a BM25
        hit outside the dense top gets its own cosine score."""
        pool = {row: score for row, score in dense}
        missing = [row for row, _ in bm[:WIDEN_FROM_BM25] if row not in pool]
        if missing:
            query = self.embedder.embed_query(question)
            sims = self._dense.score_rows(query, missing)
            pool.update({row: float(s) for row, s in zip(missing, sims, strict=True)})
        return sorted(pool.items(), key=lambda item: (-item[1], item[0]))

    def _rerank(self, question: str, fused: list[tuple[int, float]]) -> list[tuple[int, float]]:
        reranker = self.reranker
        status = getattr(reranker, "status", "none configured") if reranker is not None else "none configured"
        head = fused[:RERANK_DEPTH]
        scores = None
        if reranker is not None and status == "ready":
            t0 = time.perf_counter()
            scores = reranker.rerank(question, [self.passages[row].text for row, _ in head])
            self.timings_ms["rerank"] = (time.perf_counter() - t0) * 1000
        if scores is None:
            self.notes.append(f"rerank unavailable ({status}): fused order")
            self.timings_ms.pop("rerank", None)
            return fused
        reordered = sorted(
            ((row, float(s)) for (row, _), s in zip(head, scores, strict=True)),
            key=lambda item: (-item[1], item[0]),
        )
        return reordered + fused[RERANK_DEPTH:]

    # ------------------------------------------------------------ lineage

    def row_of(self, passage: Passage) -> int:
        for i, p in enumerate(self.passages):
            if p.doc == passage.doc and p.index == passage.index:
                return i
        raise KeyError(passage.id)

    def related(self, passage: Passage, k: int = 3) -> list[tuple[Passage, float]]:
        """Nearest passages in other documents ("related across documents")."""
        self.ensure_dense()
        row = self.row_of(passage)
        return [(self.passages[r], float(s)) for r, s in self._dense.related(row, self._doc_codes, k)]


def _trace(ranking: list[tuple[int, float]]) -> dict[int, StageTrace]:
    return {row: StageTrace(rank, score) for rank, (row, score) in enumerate(ranking, start=1)}
