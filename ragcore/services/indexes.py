"""The models and the in-memory indexes over collections.

One retriever per collection, rebuilt only when the collection's fingerprint
changes; the demo's is always kept, others are evicted beyond
``MAX_RETRIEVERS``. The embedding model and the reranker load once, lazily.

Embedding can run in the background (``embed_later``): one worker thread
takes queued jobs in order, so an upload is searchable by BM25 as soon as it
is stored (each job builds the collection's BM25 index before it embeds, so
the two never share the cores), and a page reads ``embedding_progress`` to
show how far it got.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..retrieval import text_vectors
from ..startup_trace import mark
from ..store import Library
from .common import DEMO_COLLECTION

if TYPE_CHECKING:
    from ..corpus import Corpus
    from ..records import Document
    from ..retrieval import Retriever
    from ..retrieval.protocols import EmbedderLike, RerankerLike

DEMO_TEXT_VECTORS = "demo.text-vectors.npz"  # beside the demo's passage vectors
DEMO_QUESTION_VECTORS = "demo.question-vectors.npz"  # the Ask page's example questions, as queries
MAX_RETRIEVERS = 8  # indexes kept in memory at once (the demo's is always kept)
log = logging.getLogger(__name__)

# A background job: embeds its passages, reporting (done, total) as it goes; returns how many it embedded.
EmbedJob = Callable[[Callable[[int, int], None]], int]


@dataclass(frozen=True)
class EmbeddingProgress:
    """How far the background embedding of one collection has got."""

    done: int = 0  # passages of the queued jobs embedded (or found cached) so far
    total: int = 0  # passages of every job queued since the collection was last idle
    running: bool = False
    embedded: int = 0  # passages actually embedded by finished jobs
    error: str | None = None  # why the last job failed, if it did

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


class Indexes:
    """Retrievers over the library's collections, and the models they use."""

    def __init__(
        self,
        library: Library,
        demo_vectors: Path,
        embedder: EmbedderLike | None = None,
        reranker: RerankerLike | None = None,
    ) -> None:
        self.library = library
        text_vectors.keep_in(library)  # answer sentences' vectors survive a restart
        self.demo_vectors = demo_vectors
        self._embedder = embedder
        self._reranker = reranker
        self._lock = threading.RLock()
        self._dense_lock = threading.Lock()
        self._retrievers: dict[str, tuple[str, Retriever]] = {}
        self._demo_seeded = False
        self.seeded_vectors = 0
        self._jobs: queue.Queue[tuple[str, int, EmbedJob]] = queue.Queue()
        self._progress: dict[str, EmbeddingProgress] = {}
        self._progress_lock = threading.Lock()
        self._worker: threading.Thread | None = None

    @property
    def embedder(self) -> EmbedderLike:
        """The embedding model: the process's, loaded on first need (its
        ``model_id`` and the demo's example questions need no load:
        ``retrieval.lazy_embedder``), unless one was given."""
        if self._embedder is None:
            from ..retrieval.lazy_embedder import shared_embedder

            lazy = shared_embedder()
            lazy.know(self.demo_vectors.with_name(DEMO_QUESTION_VECTORS))
            self._embedder = lazy
        return self._embedder

    @property
    def loaded_embedder(self) -> EmbedderLike | None:
        """The embedding model if it is loaded already, else None (never loads it)."""
        from ..retrieval.lazy_embedder import LazyEmbedder

        if isinstance(self._embedder, LazyEmbedder):
            return self._embedder.loaded
        return self._embedder

    def load_model(self) -> None:
        """Load the embedding model now (the warm-up's last step), so a typed question finds it loaded."""
        embedder = self.embedder
        load = getattr(embedder, "load", None)
        if callable(load):
            mark("embedding model loading")
            load()
            mark("embedding model loaded")

    @property
    def reranker(self) -> RerankerLike:
        """The cross-encoder of RAGCORE_RERANKER_DIR (status "none configured" without one)."""
        if self._reranker is None:
            from ..retrieval.rerank import get_reranker

            self._reranker = get_reranker()
        return self._reranker

    def retriever(self, collection: str) -> Retriever:
        """The retriever over ``collection``, rebuilt only when its documents or
        chunking change (keyed by the library's fingerprint)."""
        from ..corpus import corpus_from_library

        with self._lock, self.library.reading():
            # Fingerprint and corpus come from one snapshot, so an index is
            # never filed under a state it was not built from.
            fingerprint = self.library.fingerprint(collection)
            cached = self._retrievers.get(collection)
            if cached is not None and cached[0] == fingerprint:
                return cached[1]
            corpus = corpus_from_library(self.library, collection)
            retriever = self.new_retriever(corpus)
            self._retrievers.pop(collection, None)
            self._retrievers[collection] = (fingerprint, retriever)  # most recently built last
            evictable = [name for name in self._retrievers if name != DEMO_COLLECTION]
            while len(self._retrievers) > MAX_RETRIEVERS and evictable:
                # Private per-session collections would otherwise pile up; an evicted
                # index is rebuilt from the library (vectors cached) when asked again.
                del self._retrievers[evictable.pop(0)]
            return retriever

    def prepare_terms(self, doc: Document) -> int:
        """Tokenise ``doc``'s lines for the BM25 build ahead (``line_terms``:
        called while its chunking worker cuts it); returns how many lines."""
        from ..retrieval.bm25 import BM25Params
        from ..retrieval.line_terms import LineTerms, prefill

        params = BM25Params()  # the settings new_retriever's embedded index is built with
        return prefill(doc.text, LineTerms(params.stemming, params.stop_list, params.whole_identifiers))

    def new_retriever(self, corpus: Corpus) -> Retriever:
        """A retriever over ``corpus`` with this library's vector cache and models
        (the model loads only on first need: ``embedder``)."""
        from ..retrieval.backends.select import make_retriever  # RAGCORE_INDEX: embedded or Milvus
        from ..retrieval.index_files import index_dir_for

        index_dir = index_dir_for(
            self.library.home, corpus.name, self.library.fingerprint(corpus.name), corpus.fingerprint
        )
        return make_retriever(
            corpus,
            vector_cache=self.library,
            embedder=self.embedder,
            reranker=self.reranker,
            index_dir=index_dir,
        )

    def forget(self, collections: Iterable[str]) -> None:
        """Drop the indexes of collections that no longer exist."""
        with self._lock:
            for name in collections:
                self._retrievers.pop(name, None)

    def ensure_dense(self, collection: str, progress: Callable[[int, int], None] | None = None) -> int:
        """Make the dense index of ``collection`` ready (vectors from the
        library cache, the rest embedded once); returns how many were embedded."""
        retriever = self.retriever(collection)
        with self._dense_lock:  # one embedding pass at a time, whoever asks first
            if collection == DEMO_COLLECTION:
                self._seed_demo_vectors()
            return retriever.ensure_dense(progress)

    def dense_ready(self, collection: str) -> bool:
        return self.retriever(collection).dense_ready

    def missing_vectors(self, collection: str) -> int:
        """Passages of ``collection`` without a cached vector for the model."""
        retriever = self.retriever(collection)
        if retriever.dense_ready:
            return 0
        if collection == DEMO_COLLECTION:
            with self._dense_lock:
                self._seed_demo_vectors()
        hashes = list({p.content_hash for p in retriever.passages})
        return len(hashes) - len(self.library.get_vectors(hashes, self.embedder.model_id))

    def _seed_demo_vectors(self) -> None:
        """Copy the shipped demo vectors (``corpus/demo.vectors.npz``) into the
        library cache once, so the demo needs no embedding pass when they
        were made by the model in use."""
        if self._demo_seeded:
            return
        self._demo_seeded = True
        if self.demo_vectors.is_file():
            from ..retrieval.vectors import seed_from_precomputed

            self.seeded_vectors = seed_from_precomputed(
                self.library, self.demo_vectors, self.embedder.model_id
            )
            # The demo's answer units and curated questions, as queries
            # (scripts/make_demo_text_vectors.py): the first answer embeds none.
            seed_from_precomputed(
                self.library,
                self.demo_vectors.with_name(DEMO_TEXT_VECTORS),
                self.embedder.model_id + text_vectors.MODEL_SUFFIX,
            )

    # ------------------------------------------------------ background embedding

    def embed_later(self, collection: str, passages: int, job: EmbedJob) -> None:
        """Queue ``job`` (embedding ``passages`` passages of ``collection``) for
        the background worker; once the collection's last queued job ends,
        its dense index is made ready too."""
        with self._progress_lock:
            now = self._progress.get(collection, EmbeddingProgress())
            base = now if now.running else EmbeddingProgress()
            self._progress[collection] = replace(base, total=base.total + passages, running=True, error=None)
            self._jobs.put((collection, passages, job))
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._work, name="ragcore-embedding", daemon=True)
                self._worker.start()

    def embedding_progress(self, collection: str) -> EmbeddingProgress:
        with self._progress_lock:
            return self._progress.get(collection, EmbeddingProgress())

    def embedding_running(self, collection: str) -> bool:
        return self.embedding_progress(collection).running

    def embedding_note(self, collection: str) -> str | None:
        """A note for a search made while ``collection`` is being embedded
        in the background (None when it is not)."""
        now = self.embedding_progress(collection)
        if not now.running:
            return None
        return (
            f"embedding in the background ({now.done} of {now.total} passages): keyword (BM25) results only"
        )

    def wait_for_embedding(self, timeout: float | None = None) -> bool:
        """Block until every queued job has ended (True), or ``timeout`` passed (False)."""
        done = threading.Event()
        threading.Thread(target=lambda: (self._jobs.join(), done.set()), daemon=True).start()
        return done.wait(timeout)

    def _work(self) -> None:
        while True:
            try:
                collection, passages, job = self._jobs.get(timeout=30)
            except queue.Empty:
                return  # idle: the next embed_later starts a new worker
            try:
                self._run_job(collection, passages, job)
            finally:
                self._jobs.task_done()

    def _run_job(self, collection: str, passages: int, job: EmbedJob) -> None:
        start = self.embedding_progress(collection).done

        def step(done: int, total: int) -> None:
            with self._progress_lock:
                now = self._progress[collection]
                share = done * passages // total if total else 0  # a job may find some cached
                self._progress[collection] = replace(now, done=min(now.total, start + share))

        embedded, error = 0, None
        try:
            # BM25 first: the collection's index is built before embedding takes the cores.
            self.retriever(collection)
            embedded = job(step)
            if self._last_job_of(collection):
                self.ensure_dense(collection)  # vectors are cached now: the index is made from them
        except Exception as exc:  # a background thread has no caller to raise to
            log.exception("background embedding of %s failed", collection)
            error = f"{type(exc).__name__}: {exc}"
        with self._progress_lock:  # embed_later queues under this lock: no job slips in unseen
            now = self._progress[collection]
            self._progress[collection] = replace(
                now,
                done=min(now.total, start + passages),
                embedded=now.embedded + embedded,
                running=not self._last_job_of(collection),
                error=error or now.error,
            )

    def _last_job_of(self, collection: str) -> bool:
        with self._jobs.mutex:
            return all(item[0] != collection for item in self._jobs.queue)
