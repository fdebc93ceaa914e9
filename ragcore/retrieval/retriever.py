"""One retriever over a corpus, five modes, one result type.

Modes:
- ``bm25``: lexical only;
- ``dense``: embedding similarity only;
- ``hybrid``: the fusion of the BM25 and dense top 100 (the default);
- ``widen``: dense order over a pool widened by BM25's top hits (a recall
  pool for the reranker);
- ``rerank``: the hybrid top ``RERANK_DEPTH`` re-ordered by a cross-encoder
  when one is configured and loaded; otherwise the fused order, with a note.

Every Hit carries a trace of its rank and score under each stage. A search
returns a :class:`SearchResult`; the retriever itself holds only index state
(set once), so concurrent searches need no lock. It knows no store: passages
are handed in, and vectors come from a :class:`VectorCache` when one is given.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from ..heap import returning_frees
from ..records import Hit, Passage, StageTrace
from . import fusion, index_files
from .bm25 import BM25Index, BM25Params
from .bm25_answer_type import lift_note
from .dense import DenseIndex, write_blocks
from .document_names import name_terms, names_by_terms
from .fusion_config import STATS_METHODS, FusionConfig
from .prf import index_feedback
from .protocols import (
    MODES,
    STAGES,
    EmbedderLike,
    Mode,
    PassageSource,
    RerankerLike,
    VectorCache,
)
from .query import MERGE_LEAD, MIN_OWN_WORDS, Carry, Lead, rank_by_parts, retrieval_parts
from .results import CallLog, SearchResult
from .term_blocks import workers
from .word_neighbours import Expansion, WordNeighbours

CANDIDATES = 100  # per signal, before fusion
RERANK_DEPTH = 20
WIDEN_FROM_BM25 = 20
Ranking = list[tuple[int, float]]
# Multi-part questions are split in the fused modes (the single signals stay
# single-query baselines); on/off, how a later part carries the first
# part's subject, how many of the whole question's passages stay first and
# how many words of its own a part needs were chosen by cross-validation
# (docs/decisions.md, "Multi-part questions").
SPLIT_PARTS = True
PART_CARRY: Carry = "pronoun"
PART_HEAD = 1  # the whole question's first passage kept first (with PART_LEAD "whole" the same as 0)
PART_LEAD: Lead = MERGE_LEAD  # each round: the whole question's next passage, then each part's
PART_MIN_OWN_WORDS = MIN_OWN_WORDS
SPLIT_MODES: tuple[Mode, ...] = ("hybrid", "rerank")
# With PART_SCOPE, a multi-part question that names a document
# (document_names.names_document: "What uptime does the SLA guarantee, and
# what credits apply?") has each part's ranking put that document's passages
# first (in their order); the whole question's ranking is left as it is. Off:
# it loses on a held-out set whose later parts ask about other documents
# (scripts/part_scope_cv.py; docs/decisions.md, "Parts scoped to a named document").
PART_SCOPE = False
# Whether a split question's parts take the gate's pseudo-relevance feedback
# (prf) as the whole question does; chosen by leave-one-group-out CV
# (scripts/prf_parts_study.py; docs/decisions.md section 1).
PART_PRF = False
# Unknown question words searched by their nearest collection words (word_neighbours).
EXPANSION = Expansion()
CONCURRENT_SIGNALS = True  # fused modes rank BM25 and dense at once (#18, _both_rankings)


DEFAULT_FUSION = FusionConfig()


class Retriever:
    """Searches one corpus. Dense vectors are made (or read from the vector
    cache) on first use of a dense mode, by ``ensure_dense``, or handed in
    with ``set_vectors``.

    With ``index_dir`` (a folder the caller keys by the corpus's contents,
    e.g. ``index_files.index_dir_for``), the BM25 and dense indexes are saved
    there when built and memory-mapped from there when present, so a
    reopened collection is searchable without rebuilding or re-reading them."""

    concurrent_signals: bool = CONCURRENT_SIGNALS

    def __init__(
        self,
        corpus: PassageSource,
        *,
        vector_cache: VectorCache | None = None,
        embedder: EmbedderLike | None = None,
        bm25_params: BM25Params | None = None,
        fusion_config: FusionConfig | None = None,
        reranker: RerankerLike | None = None,
        default_mode: Mode = "hybrid",
        index_dir: Path | None = None,
        split_parts: bool = SPLIT_PARTS,
    ) -> None:
        self._keep_settings(corpus, vector_cache, embedder, fusion_config, reranker, default_mode)
        self.index_dir = index_dir
        self.split_parts = split_parts  # multi-part questions in fused modes: chosen by cross-validation
        self.part_prf = PART_PRF  # the parts' rankings take PRF too (prf_parts_study.py)
        self.expansion = EXPANSION
        t0 = time.perf_counter()
        with returning_frees():  # what the build frees leaves the process (heap.py)
            self.bm25 = self._open_bm25(bm25_params or BM25Params())
        self.build_seconds: dict[str, float] = {"bm25": time.perf_counter() - t0}
        # A PassageFile lists its documents without reading any text.
        names = getattr(self.passages, "docs", None) or [p.doc for p in self.passages]
        docs = {name: i for i, name in enumerate(sorted(set(names)))}
        self._doc_codes = np.asarray([docs[name] for name in names], dtype=np.int32)
        self.word_neighbours = WordNeighbours(
            self.passages, lambda: self.bm25.params, lambda: self.bm25.vocab, vector_cache
        )

    def _keep_settings(
        self,
        corpus: PassageSource,
        vector_cache: VectorCache | None,
        embedder: EmbedderLike | None,
        fusion_config: FusionConfig | None,
        reranker: RerankerLike | None,
        default_mode: Mode,
    ) -> None:
        """The fields every retriever has, whichever backend holds its indexes."""
        self.corpus = corpus
        self.passages: list[Passage] = corpus.passages
        self.vector_cache = vector_cache
        self.fusion = fusion_config or DEFAULT_FUSION
        self.reranker = reranker
        self.default_mode: Mode = _check_mode(default_mode)
        self._embedder = embedder
        self._dense: DenseIndex | None = None
        self._dense_build = threading.Lock()  # taken only while the dense index is made, once
        # named_rows: each document's name terms and rows, made on first use
        self._rows_by_doc: list[tuple[tuple[frozenset[str], str], list[int]]] | None = None

    def _open_bm25(self, params: BM25Params) -> BM25Index:
        folder = self.index_dir / "bm25" if self.index_dir is not None else None
        if folder is not None:
            loaded = index_files.load_bm25(folder, params, len(self.passages))
            if loaded is not None:
                return loaded
        index = BM25Index.from_passages(self.passages, params)
        if folder is None:
            return index
        try:
            index_files.prune_other_versions(folder.parent)
            if folder.exists():  # made for other parameters: replaced
                index_files.remove(folder)
            index_files.save_bm25(index, folder)
        except OSError:  # a full or read-only disk costs the reopen time, never the search
            return index
        reopened = index_files.load_bm25(folder, params, len(self.passages))
        return reopened if reopened is not None else index

    # -------------------------------------------------------------- dense

    @property
    def embedder(self) -> EmbedderLike:
        if self._embedder is None:
            from .embedding import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def ensure_dense(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Make the dense index ready; returns how many passages were embedded now."""
        if self._dense is not None:
            return 0

        with self._dense_build:
            if self._dense is not None:  # made by another thread meanwhile
                return 0
            t0 = time.perf_counter()
            dense, embedded = self._open_dense(progress)
            self.build_seconds["dense"] = time.perf_counter() - t0
            self.build_seconds["embedded"] = embedded
            self._dense = dense
        return embedded

    def _dense_folder(self) -> Path | None:
        if self.index_dir is None:
            return None
        return self.index_dir / "dense" / re.sub(r"[^A-Za-z0-9._-]+", "_", self.embedder.model_id)

    def _open_dense(self, progress: Callable[[int, int], None] | None) -> tuple[DenseIndex, int]:
        from .vectors import passage_vectors

        folder = self._dense_folder()
        if folder is not None and (folder / "meta.json").is_file():
            try:
                index = DenseIndex.load(folder)
                if len(index) == len(self.passages):
                    return index, 0
            except (OSError, ValueError):
                pass  # unreadable or another format: rebuilt below
            index_files.remove(folder)
        vectors, embedded = passage_vectors(
            self.passages, self.embedder, self.vector_cache, progress=progress
        )
        with returning_frees():
            index = DenseIndex(vectors)  # keeps its own layout; no second copy here
            del vectors
            return self._kept(index), embedded

    def _kept(self, index: DenseIndex) -> DenseIndex:
        """``index`` saved to ``index_dir`` and reopened memory-mapped (the
        built copy is then freed); as it is without a folder or on a disk error."""
        folder = self._dense_folder()
        if folder is None:
            return index
        try:
            index_files.remove(folder)
            index_files.write_folder(folder, index.save)
            return DenseIndex.load(folder)
        except (OSError, ValueError):  # a full or read-only disk costs the reopen time only
            return index

    def set_vectors(self, vectors: np.ndarray) -> None:
        """Use these passage vectors (row-aligned with ``passages``) as they
        are (saved to, and memory-mapped from, ``index_dir`` when given)."""
        if len(vectors) != len(self.passages):
            raise ValueError(f"{len(vectors)} vectors for {len(self.passages)} passages")
        with returning_frees():
            self._dense = self._kept(DenseIndex(np.asarray(vectors, dtype=np.float32)))

    def set_vector_blocks(self, blocks: Iterable[np.ndarray], dim: int) -> None:
        """Passage vectors arriving in blocks of rows (row-aligned with
        ``passages``), written straight to ``index_dir`` as a memory-mapped
        three-step index (``dense.write_blocks``): the float32 vectors are
        never all in memory."""
        folder = self._dense_folder()
        if folder is None:
            raise ValueError("set_vector_blocks needs an index_dir")
        index_files.remove(folder)
        with returning_frees():
            index_files.write_folder(folder, lambda tmp: write_blocks(tmp, blocks, len(self.passages), dim))
        self._dense = DenseIndex.load(folder)

    @property
    def dense_ready(self) -> bool:
        return self._dense is not None

    def dense_index(self) -> DenseIndex:
        """The dense index (made first if need be)."""
        self.ensure_dense()
        assert self._dense is not None
        return self._dense

    def _dense_ranking(self, question: str, k: int, log: CallLog | None = None) -> Ranking:
        """Dense top ``k`` as (row, cosine); stage timings go to ``log``."""
        log = log if log is not None else CallLog()
        index = self.dense_index()
        with log.timed("embed_query"):
            query = self.embedder.embed_query(question)
        with log.timed("dense"):
            ranking = index.search(query, k)
        log.query_vector = query
        return [(int(r), float(s)) for r, s in ranking]

    def _bm25_ranking(self, question: str, k: int, log: CallLog | None = None) -> Ranking:
        log = log if log is not None else CallLog()
        with log.timed("bm25"):
            extra = self.word_neighbours.weighted_terms(
                question, lambda: self.embedder, self.expansion, log.notes
            )
            return self.bm25.search(question, k, extra)

    def _both_rankings(self, question: str, log: CallLog) -> tuple[Ranking, Ranking]:
        """The BM25 and dense top ``CANDIDATES``, each exactly as alone; with
        ``concurrent_signals`` dense (embedding, then matrix scans: both let go
        of the interpreter lock) runs in a short-lived thread beside BM25, so
        hybrid costs about the slower one. No idle thread outlives the search."""
        if not self.concurrent_signals or workers() < 2:
            bm = self._bm25_ranking(question, CANDIDATES, log)
            return bm, self._dense_ranking(question, CANDIDATES, log)
        self.ensure_dense()  # a first build (and its progress) stays in the calling thread
        dense_log, out, errors = CallLog(), list[Ranking](), list[BaseException]()

        def dense() -> None:
            try:
                out.append(self._dense_ranking(question, CANDIDATES, dense_log))
            except BaseException as exc:  # re-raised in the calling thread
                errors.append(exc)

        thread = threading.Thread(target=dense, name="ragcore-dense", daemon=True)
        thread.start()
        try:
            bm = self._bm25_ranking(question, CANDIDATES, log)
        finally:
            thread.join()
        if errors:
            raise errors[0]
        log.timings_ms.update(dense_log.timings_ms)
        log.query_vector = dense_log.query_vector
        return bm, out[0]

    # ------------------------------------------------------------- search

    def search(self, question: str, mode: Mode | None = None, k: int = 10) -> SearchResult:
        """The top ``k`` passages for ``question``, with notes on what fell
        back and why, and the time each stage took."""
        chosen = _check_mode(mode or self.default_mode)
        log = CallLog()
        if not self.passages or not question.strip():
            if not question.strip():
                log.notes.append("empty question")
            return SearchResult([], log.notes, log.timings_ms, chosen)
        t0 = time.perf_counter()
        final, traces = self._rank(question, chosen, k, log)
        asked = self.bm25.asked_type(question) if chosen != "dense" else None
        if asked:
            log.notes.append(lift_note(asked))
        if self.split_parts and chosen in SPLIT_MODES:  # each part ranked, then merged (query.py)
            scope: list[
                frozenset[int]
            ] = []  # found only once a part is ranked (#18: a pass over every document)

            def ranked_part(part: str) -> Ranking:
                if not scope:
                    scope.append(self.named_rows(question) if PART_SCOPE else frozenset())
                return _scoped(self._rank(part, chosen, k, CallLog(), prf=self.part_prf)[0], scope[0])

            merged = rank_by_parts(
                question,
                ranked_part,
                PART_CARRY,
                head=PART_HEAD,
                min_own_words=PART_MIN_OWN_WORDS,
                whole=final,
                lead=PART_LEAD,
            )
            if merged is not None:
                final = merged
                log.notes.append(
                    f"multi-part question: {len(retrieval_parts(question, PART_MIN_OWN_WORDS))} parts ranked and merged"
                )
        hits = []
        for rank, (row, score) in enumerate(final[:k], start=1):
            trace = {stage: traces.get(stage, {}).get(row) for stage in STAGES}
            hits.append(Hit(self.passages[row], rank, score, trace))
        log.timings_ms["total"] = (time.perf_counter() - t0) * 1000
        return SearchResult(hits, log.notes, log.timings_ms, chosen)

    def named_rows(self, question: str) -> frozenset[int]:
        """The rows of the documents ``question`` names (``names_document``
        with this retriever's BM25 settings); empty when it names none."""
        by_doc = self._rows_by_doc
        params = self.bm25.params
        if by_doc is None:  # made once, with each name's terms; a race makes the same mapping twice
            names = getattr(self.passages, "docs", None) or [p.doc for p in self.passages]
            rows_of: dict[str, list[int]] = {}
            for row, name in enumerate(names):
                rows_of.setdefault(name, []).append(row)
            by_doc = [(name_terms(doc, params), rows) for doc, rows in rows_of.items()]
            self._rows_by_doc = by_doc
        terms = set(params.terms(question))
        named = [rows for (words, acronym), rows in by_doc if names_by_terms(terms, words, acronym)]
        return frozenset(row for rows in named for row in rows)

    def _rank(
        self, question: str, mode: Mode, k: int, log: CallLog, prf: bool = True
    ) -> tuple[Ranking, dict[str, dict[int, StageTrace]]]:
        """The final ranking of ``mode`` and each stage's trace; ``prf``
        off, the gate fuses plain dense (no feedback step)."""
        traces: dict[str, dict[int, StageTrace]] = {}
        if mode == "bm25":
            final = self._bm25_ranking(question, max(k, CANDIDATES), log)
            traces["bm25"] = _trace(final)
            return final, traces
        if mode == "dense":
            final = self._dense_ranking(question, max(k, CANDIDATES), log)
            traces["dense"] = _trace(final)
            return final, traces
        bm, dn = self._both_rankings(question, log)
        traces["bm25"], traces["dense"] = _trace(bm), _trace(dn)
        if mode == "widen":
            final = self._widen(question, dn, bm)
        else:
            with log.timed("fuse"):
                method = self.fusion.method
                signals = fusion.query_signals(self.bm25, question, bm, dn) if method == "signals" else None
                stats = fusion.fusion_stats(self.bm25, question, bm, dn) if method in STATS_METHODS else None
                vec = log.query_vector if prf and method == "gated" and self._dense is not None else None
                feedback = None if vec is None else index_feedback(self._dense, np.asarray(vec), bm, dn)
                final = self.fusion.fuse({"bm25": bm, "dense": dn}, signals, stats, feedback)
        traces["fused"] = _trace(final)
        if mode == "rerank":
            final, reranked = self._rerank(question, final, log)
            if reranked:
                traces["rerank"] = _trace(final[:RERANK_DEPTH])
        return final, traces

    def _widen(self, question: str, dense: Ranking, bm: Ranking) -> Ranking:
        """Dense order over dense candidates plus BM25's top hits; a BM25
        hit outside the dense top gets its own cosine score."""
        pool = {row: score for row, score in dense}
        missing = [row for row, _ in bm[:WIDEN_FROM_BM25] if row not in pool]
        if missing:
            query = self.embedder.embed_query(question)
            sims = self.dense_index().score_rows(query, missing)
            pool.update({row: float(s) for row, s in zip(missing, sims, strict=True)})
        return sorted(pool.items(), key=lambda item: (-item[1], item[0]))

    def _rerank(self, question: str, fused: Ranking, log: CallLog) -> tuple[Ranking, bool]:
        """The fused ranking with its head re-ordered by the cross-encoder,
        and whether that happened (if not, a note says why)."""
        reranker = self.reranker
        status = reranker.status if reranker is not None else "none configured"
        head = fused[:RERANK_DEPTH]
        scores = None
        if reranker is not None and status == "ready":
            t0 = time.perf_counter()
            scores = reranker.rerank(question, [self.passages[row].text for row, _ in head])
            if scores is not None:
                log.timings_ms["rerank"] = (time.perf_counter() - t0) * 1000
        if scores is None:
            log.notes.append(f"rerank unavailable ({status}): fused order")
            return fused, False
        reordered = sorted(
            ((row, float(s)) for (row, _), s in zip(head, scores, strict=True)),
            key=lambda item: (-item[1], item[0]),
        )
        return reordered + fused[RERANK_DEPTH:], True

    # ------------------------------------------------------------ lineage

    def row_of(self, passage: Passage) -> int:
        for i, p in enumerate(self.passages):
            if p.doc == passage.doc and p.index == passage.index:
                return i
        raise KeyError(passage.id)

    def related(self, passage: Passage, k: int = 3) -> list[tuple[Passage, float]]:
        """Nearest passages in other documents ("related across documents")."""
        index = self.dense_index()
        row = self.row_of(passage)
        return [(self.passages[r], float(s)) for r, s in index.related(row, self._doc_codes, k)]


def _check_mode(mode: str) -> Mode:
    for known in MODES:
        if mode == known:
            return known
    raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")


def _scoped(ranking: Ranking, rows: frozenset[int]) -> Ranking:
    """``ranking`` with the rows of ``rows`` first, each group in its order."""
    if not rows:
        return ranking
    return [x for x in ranking if x[0] in rows] + [x for x in ranking if x[0] not in rows]


def _trace(ranking: Ranking) -> dict[int, StageTrace]:
    return {row: StageTrace(rank, score) for rank, (row, score) in enumerate(ranking, start=1)}
