"""The app's facade: everything a page does, as plain Python.

Pages stay thin: they call a :class:`Workspace` and render what it returns.
Nothing here imports streamlit, so every behaviour the app shows is testable
without a browser (``tests/test_service.py``).

A Workspace owns one library (``RAGCORE_HOME``), mirrors the shipped demo
folder into the collection ``demo``, keeps one retriever per collection
(rebuilt only when the collection's fingerprint changes) and remembers the
timings of the last query for the "How it works" page.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from typing import Any

from . import config, errors
from .corpus import Corpus, IngestReport, add_document, corpus_from_library, rechunk, sync_folder
from .records import Answer, Document, Hit, Passage, sha256_hex
from .store import DocumentInfo, Library

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO_ROOT / "corpus" / "demo"
DEMO_VECTORS = REPO_ROOT / "corpus" / "demo.vectors.npz"
EVAL_DIR = REPO_ROOT / "eval"
RESULTS_DIR = EVAL_DIR / "results"
DEMO_COLLECTION = "demo"
UPLOADS_COLLECTION = "uploads"
SESSION_PREFIX = "session:"  # private upload collections when RAGCORE_ISOLATION=session
# Session settings, read here until they join ragcore.config (see session_quota_bytes, session_ttl_s).
DEFAULT_SESSION_QUOTA_MB = 200.0
DEFAULT_SESSION_TTL_HOURS = 24.0
EXPIRY_INTERVAL_S = 300.0  # look for expired private collections at most this often
TOUCH_INTERVAL_S = 60.0  # refresh a live private collection's touched_at at most this often
CHUNKINGS = ("auto", "heading", "sentence", "whole")
UPLOAD_SUFFIXES = ("pdf", "txt", "md", "markdown", "text")
DEFAULT_K = 8
MAX_RETRIEVERS = 8  # indexes kept in memory at once (the demo's is always kept)

DEMO_QUESTIONS = (
    "Is our pricing consistent?",
    "What uptime does the SLA guarantee, and what credits apply?",
    "What are the risks of the Northgate Health deal?",
    "Can a customer get a refund after cancelling an annual plan?",
)

Progress = Callable[[str, float], None]  # (stage text, fraction done 0..1)


# ----------------------------------------------------------------- names


_UNSAFE = re.compile(r"[^\w .()\-+,&@=]", re.UNICODE)


def safe_name(filename: str, default: str = "upload") -> str:
    """A document name from an upload's file name: its base name only, with
    control and path characters replaced, never a path.

    The name is only ever a label in the library; no file is opened or
    written under it.
    """
    base = re.split(r"[\\/]", filename or "")[-1]
    base = unicodedata.normalize("NFC", base)
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")
    base = _UNSAFE.sub("_", base).strip(" .")
    stem, dot, suffix = base.rpartition(".")
    if not dot:
        stem, suffix = base, ""
    stem = stem.strip(" .") or default
    suffix = suffix.lower()[:10]
    stem = stem[: 120 - len(suffix) - 1]
    return f"{stem}.{suffix}" if suffix else stem


# --------------------------------------------------------------- results


@dataclass
class UploadOutcome:
    """What happened to one uploaded file."""

    name: str
    status: str  # "added" | "replaced" | "duplicate" | "rejected"
    message: str
    passages: int = 0
    embedded: int = 0

    @property
    def ok(self) -> bool:
        return self.status in ("added", "replaced")


@dataclass(frozen=True)
class ViewLine:
    number: int
    text: str
    marked: bool
    page: int | None = None


@dataclass(frozen=True)
class DocumentView:
    """A window of a document's numbered lines around a cited span."""

    name: str
    title: str
    kind: str
    first_line: int
    last_line: int
    lines: tuple[ViewLine, ...]
    total_lines: int
    pages: tuple[int, ...]

    @property
    def marked(self) -> list[ViewLine]:
        return [line for line in self.lines if line.marked]

    @property
    def citation(self) -> str:
        span = (
            f"line {self.first_line}"
            if self.first_line == self.last_line
            else (f"lines {self.first_line}-{self.last_line}")
        )
        if self.pages:
            span += (
                f", p. {self.pages[0]}" if len(self.pages) == 1 else f", pp. {self.pages[0]}-{self.pages[-1]}"
            )
        return f"{self.name}, {span}"


@dataclass
class AskOutcome:
    """One question, asked: the hits with their traces, the lens, the answer."""

    question: str
    collection: str
    mode: str
    hits: list[Hit]
    answer: Answer | None
    lens: Any  # the pipeline's lens result (money / risk / none)
    notes: list[str]
    timings_ms: dict[str, float]
    whole_documents: list[str] = field(default_factory=list)  # docs whose passage is the whole file


@dataclass(frozen=True)
class StoredRun:
    """An evaluation run stored as JSON in ``eval/results``."""

    path: Path
    name: str
    kind: str  # "run" | "chunkings"
    questions: int
    rankers: tuple[str, ...]
    title: str


@dataclass
class CollectionFacts:
    """Live figures of a loaded collection ("How it works")."""

    collection: str
    documents: int
    passages: int
    chunkings: dict[str, int]
    kinds: dict[str, int]
    embedding_model: str | None
    embedding_load_s: float | None
    vectors_cached: int
    dense_ready: bool
    reranker_status: str
    build_seconds: dict[str, float]
    last_query: dict[str, Any] | None


# ------------------------------------------------------------- workspace


class Workspace:
    """One library and the indexes built over its collections.

    Thread-safe enough for Streamlit: sessions share one Workspace (a cached
    resource); the retriever cache is guarded by a lock and the library gives
    each thread its own SQLite connection.
    """

    def __init__(
        self,
        home: Path | str | None = None,
        *,
        demo_dir: Path = DEMO_DIR,
        demo_vectors: Path = DEMO_VECTORS,
        results_dir: Path | None = None,
        embedder: Any = None,
        reranker: Any = None,
    ) -> None:
        self.home = Path(home) if home is not None else config.settings().home
        self.library = Library(self.home)
        self.demo_dir = demo_dir
        self.demo_vectors = demo_vectors
        self._results_dir = results_dir
        self._embedder = embedder
        self._reranker = reranker
        self._lock = threading.RLock()
        self._dense_lock = threading.Lock()
        self._retrievers: dict[str, tuple[str, Any]] = {}
        self._demo_synced = False
        self._demo_seeded = False
        self.demo_reports: list[IngestReport] = []
        self.seeded_vectors = 0
        self.last_query: dict[str, Any] | None = None
        self._last_queries: dict[str | None, dict[str, Any]] = {}  # per session (session isolation)
        self._touched: dict[str, float] = {}
        self._expired_at: float | None = None
        self.expire_sessions()  # private collections of sessions that ended while no app ran
        self.warm_thread: threading.Thread | None = None  # set by the app when it warms up in the background

    @property
    def results_dir(self) -> Path:
        """Where stored evaluation runs live: as given, else RAGCORE_RESULTS_DIR,
        else ``eval/results`` of the project."""
        if self._results_dir is not None:
            return self._results_dir
        chosen = config.get("RAGCORE_RESULTS_DIR")
        return Path(chosen) if chosen else RESULTS_DIR

    # ------------------------------------------------------------ models

    @property
    def embedder(self) -> Any:
        """The embedding model (loaded once per process)."""
        if self._embedder is None:
            from .retrieval.embedding import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    @property
    def reranker(self) -> Any:
        """The cross-encoder of RAGCORE_RERANKER_DIR (status "none configured" without one)."""
        if self._reranker is None:
            from .retrieval.rerank import get_reranker

            self._reranker = get_reranker()
        return self._reranker

    # ------------------------------------------------------- collections

    def ensure_demo(self) -> list[IngestReport]:
        """Mirror the demo folder into the ``demo`` collection (once per
        Workspace). Cheap: files are re-read only when their bytes change."""
        with self._lock:
            if self._demo_synced:
                return self.demo_reports
            if self.demo_dir.is_dir():
                self.demo_reports = sync_folder(self.library, DEMO_COLLECTION, self.demo_dir)
            else:
                self.library.ensure_collection(DEMO_COLLECTION)
            self._demo_synced = True
            return self.demo_reports

    def _seed_demo_vectors(self) -> None:
        """Copy the shipped demo vectors (``corpus/demo.vectors.npz``) into the
        library cache once, so the demo needs no embedding pass when they
        were made by the model in use."""
        if self._demo_seeded:
            return
        self._demo_seeded = True
        if self.demo_vectors.is_file():
            from .retrieval.vectors import seed_from_precomputed

            self.seeded_vectors = seed_from_precomputed(
                self.library, self.demo_vectors, self.embedder.model_id
            )

    def uploads_collection(self, session_id: str | None = None) -> str:
        """Where this browser session's uploads go: the shared ``uploads``
        collection, or a private one per session when RAGCORE_ISOLATION=session."""
        if config.settings().isolation == "session" and session_id:
            return SESSION_PREFIX + sha256_hex(session_id)[:16]
        return UPLOADS_COLLECTION

    @staticmethod
    def isolated() -> bool:
        """True when RAGCORE_ISOLATION=session: uploads are private per session or user."""
        return config.settings().isolation == "session"

    @staticmethod
    def session_quota_bytes() -> int:
        """Bytes one private collection may hold (RAGCORE_SESSION_QUOTA_MB, default 200)."""
        return int(_positive_setting("RAGCORE_SESSION_QUOTA_MB", DEFAULT_SESSION_QUOTA_MB) * 1024 * 1024)

    @staticmethod
    def session_ttl_s() -> float:
        """Seconds a private collection lives untouched (RAGCORE_SESSION_TTL_HOURS, default 24)."""
        return _positive_setting("RAGCORE_SESSION_TTL_HOURS", DEFAULT_SESSION_TTL_HOURS) * 3600

    def open_session(self, owner: str | None) -> str:
        """Called on every run of a session: expires ended sessions' private
        collections (at most every EXPIRY_INTERVAL_S) and keeps this one's
        alive; returns the collection the session uploads to."""
        now = time.monotonic()
        if self._expired_at is None or now - self._expired_at >= EXPIRY_INTERVAL_S:
            self.expire_sessions()
        collection = self.uploads_collection(owner)
        self.touch(collection)
        return collection

    def touch(self, collection: str) -> None:
        """Mark a private collection as in use, so it does not expire while
        its session lives (written at most every TOUCH_INTERVAL_S)."""
        if not collection.startswith(SESSION_PREFIX):
            return
        now = time.monotonic()
        last = self._touched.get(collection)
        if last is not None and now - last < TOUCH_INTERVAL_S:
            return
        if collection in self.library.collections():  # a session that never uploaded stores nothing
            self.library.ensure_collection(collection, owner=collection)
        self._touched[collection] = now

    def expire_sessions(self, older_than_s: float | None = None) -> list[str]:
        """Delete private collections untouched for ``older_than_s`` (default
        RAGCORE_SESSION_TTL_HOURS) with their documents, indexes and kept
        PDF originals; returns their names."""
        self._expired_at = time.monotonic()
        ttl = self.session_ttl_s() if older_than_s is None else older_than_s
        gone = self.library.expire_collections(SESSION_PREFIX, ttl)
        if gone:
            with self._lock:
                for name in gone:
                    self._retrievers.pop(name, None)
                    self._touched.pop(name, None)
            self._drop_orphan_originals()
        return gone

    def _drop_orphan_originals(self) -> None:
        folder = self._originals_dir()
        if not folder.is_dir():
            return
        rows = self.library.connect().execute("SELECT DISTINCT content_hash FROM documents").fetchall()
        kept = {r[0] for r in rows}
        for path in folder.glob("*.pdf"):
            if path.stem not in kept:
                path.unlink(missing_ok=True)

    def writable(self, collection: str) -> bool:
        """Whether a session may add, remove or re-chunk in ``collection``:
        under session isolation only private collections (the demo and the
        shared uploads are read-only there)."""
        return not self.isolated() or collection.startswith(SESSION_PREFIX)

    def _check_writable(self, collection: str) -> None:
        if not self.writable(collection):
            what = (
                "the demo collection" if collection == DEMO_COLLECTION else f"the collection {collection!r}"
            )
            raise errors.LibraryError(
                f"{what} is shared and read-only on this deployment; add your own documents under My uploads"
            )

    def collection_choices(self, session_id: str | None = None) -> dict[str, str]:
        """Collections a session may use: label -> collection name."""
        return {"Demo documents": DEMO_COLLECTION, "My uploads": self.uploads_collection(session_id)}

    def documents(self, collection: str) -> list[DocumentInfo]:
        return self.library.list_documents(collection)

    def corpus(self, collection: str) -> Corpus:
        return corpus_from_library(self.library, collection)

    def retriever(self, collection: str) -> Any:
        """The retriever over ``collection``, rebuilt only when its documents or
        chunking change (keyed by the library's fingerprint)."""
        from .retrieval import Retriever

        with self._lock, self.library.reading():
            # Fingerprint and corpus come from one snapshot, so an index is
            # never filed under a state it was not built from.
            fingerprint = self.library.fingerprint(collection)
            cached = self._retrievers.get(collection)
            if cached is not None and cached[0] == fingerprint:
                return cached[1]
            corpus = self.corpus(collection)
            retriever = Retriever(
                corpus, vector_cache=self.library, embedder=self._lazy_embedder(), reranker=self.reranker
            )
            self._retrievers.pop(collection, None)
            self._retrievers[collection] = (fingerprint, retriever)  # most recently built last
            evictable = [name for name in self._retrievers if name != DEMO_COLLECTION]
            while len(self._retrievers) > MAX_RETRIEVERS and evictable:
                # Private per-session collections would otherwise pile up; an evicted
                # index is rebuilt from the library (vectors cached) when asked again.
                del self._retrievers[evictable.pop(0)]
            return retriever

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

    def warm_up(self, collection: str = DEMO_COLLECTION) -> None:
        """Load the demo, the model and the demo's indexes (run in a background
        thread at start-up, so the first question finds them ready)."""
        self.ensure_demo()
        self.ensure_dense(collection)

    def _lazy_embedder(self) -> Any:
        # The retriever loads the model only on first dense use; hand it ours when loaded.
        return self._embedder

    # ----------------------------------------------------------- library

    def upload(
        self,
        collection: str,
        filename: str,
        data: bytes,
        chunking: str = "auto",
        progress: Progress | None = None,
    ) -> UploadOutcome:
        """Parse, chunk, store and embed one uploaded file.

        The file's name is reduced to a safe base name (:func:`safe_name`);
        the size limit is ``RAGCORE_MAX_UPLOAD_MB``. A rejected file leaves the
        library unchanged and says why.
        """
        from .guard import load_bytes_guarded

        if chunking not in CHUNKINGS:
            raise ValueError(f"chunking must be one of {', '.join(CHUNKINGS)}, not {chunking!r}")
        name = safe_name(filename)
        try:
            self._check_writable(collection)
        except errors.LibraryError as exc:
            return UploadOutcome(name, "rejected", str(exc))
        refused = self._over_quota(collection, name, len(data))
        if refused:
            return UploadOutcome(name, "rejected", refused)
        report = progress or (lambda stage, fraction: None)
        report(f"{name}: parsing", 0.0)
        try:
            # PDFs parse in a worker with a time and memory limit (ragcore.guard).
            doc = load_bytes_guarded(data, name, max_bytes=config.settings().max_upload_bytes)
        except errors.DocumentError as exc:
            return UploadOutcome(name, "rejected", exc.reason)
        report(f"{name}: chunking", 0.3)
        if collection.startswith(SESSION_PREFIX):
            # Owned by its session, so private collections can be expired by owner.
            self.library.ensure_collection(collection, owner=collection)
        try:
            result = add_document(self.library, collection, doc, chunking)
        except errors.RagcoreError as exc:
            return UploadOutcome(name, "rejected", str(exc))
        if result.status == "duplicate":
            return UploadOutcome(
                name,
                "duplicate",
                f"same content as {result.duplicate_of}, already in the collection; not added",
            )
        if doc.kind == "pdf":
            self._keep_original(doc, data)
        report(f"{name}: embedding {result.passages} passages", 0.5)
        embedded = self._embed_document(collection, doc.name, report)
        report(f"{name}: done", 1.0)
        verb = "replaced the earlier version" if result.status == "replaced" else "added"
        return UploadOutcome(
            name,
            result.status,
            f"{verb}: {result.passages} passage{'' if result.passages == 1 else 's'}",
            passages=result.passages,
            embedded=embedded,
        )

    def _over_quota(self, collection: str, name: str, size: int) -> str | None:
        """Why a file of ``size`` bytes would overfill a private collection
        (a file replacing one of the same name frees that one's bytes)."""
        if not collection.startswith(SESSION_PREFIX):
            return None
        quota = self.session_quota_bytes()
        used = sum(i.size_bytes for i in self.documents(collection) if i.name != name)
        if used + size <= quota:
            return None
        mb = 1024 * 1024
        return (
            f"your storage quota is {quota / mb:g} MB (RAGCORE_SESSION_QUOTA_MB): {used / mb:.1f} MB in use "
            f"and this file is {size / mb:.1f} MB; remove documents first"
        )

    def _embed_document(self, collection: str, name: str, report: Progress) -> int:
        """Embed one document's passages into the library cache (by content
        hash), so the next retriever over the collection finds them ready."""
        from .chunking import chunk_document
        from .retrieval.vectors import passage_vectors

        doc = self.library.get_document(collection, name)
        strategy = next(i.chunking for i in self.library.list_documents(collection) if i.name == name)
        passages = chunk_document(doc, strategy)  # deterministic: the passages just stored
        if not passages:
            return 0

        def step(done: int, total: int) -> None:
            report(f"{name}: embedded {done} of {total} passages", 0.5 + 0.5 * done / max(total, 1))

        _, embedded = passage_vectors(passages, self.embedder, self.library, progress=step)
        return embedded

    def _originals_dir(self) -> Path:
        return self.home / "originals"

    def _keep_original(self, doc: Document, data: bytes) -> None:
        # Stored under its content hash, never under the uploaded name.
        folder = self._originals_dir()
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{doc.content_hash}.pdf"
        if not path.exists():
            path.write_bytes(data)

    def original_bytes(self, collection: str, name: str) -> bytes | None:
        """The original file of a PDF document, when it is available."""
        try:
            doc = self.library.get_document(collection, name)
        except errors.LibraryError:
            return None
        kept = self._originals_dir() / f"{doc.content_hash}.pdf"
        if kept.is_file():
            return kept.read_bytes()
        if collection == DEMO_COLLECTION:
            candidate = (self.demo_dir / PurePosixPath(name)).resolve()
            root = self.demo_dir.resolve()
            if candidate.is_file() and root in candidate.parents:
                data = candidate.read_bytes()
                if sha256_hex(data) == doc.content_hash:
                    return data
        return None

    def remove(self, collection: str, name: str) -> bool:
        self._check_writable(collection)
        return self.library.remove_document(collection, name)

    def rechunk(self, collection: str, name: str, chunking: str, progress: Progress | None = None) -> int:
        """Re-cut one document with another strategy and embed its new passages."""
        if chunking not in CHUNKINGS:
            raise ValueError(f"chunking must be one of {', '.join(CHUNKINGS)}, not {chunking!r}")
        self._check_writable(collection)
        count = rechunk(self.library, collection, name, chunking)
        self._embed_document(collection, name, progress or (lambda stage, fraction: None))
        return count

    def passages_of(self, collection: str, name: str) -> list[Passage]:
        self.library.get_document(collection, name)  # raises a clear error for an unknown document
        return [p for p in self.retriever(collection).passages if p.doc == name]

    def whole_document_names(self, collection: str) -> list[str]:
        return [info.name for info in self.documents(collection) if info.chunking == "whole"]

    def document_view(
        self, collection: str, name: str, first_line: int, last_line: int, context: int = 8
    ) -> DocumentView:
        """Lines ``first_line..last_line`` of a document marked, with
        ``context`` lines either side (the reader opens scrolled to them)."""
        doc = self.library.get_document(collection, name)
        if not 1 <= first_line <= last_line <= doc.line_count:
            raise errors.LibraryError(
                f"{name}: lines {first_line}-{last_line} are outside the document (1-{doc.line_count})"
            )
        lo = max(1, first_line - context)
        hi = min(doc.line_count, last_line + context)
        texts = doc.lines
        lines = tuple(
            ViewLine(
                n,
                texts[n - 1],
                first_line <= n <= last_line,
                doc.line_pages[n - 1] if doc.line_pages else None,
            )
            for n in range(lo, hi + 1)
        )
        return DocumentView(
            doc.name,
            doc.title,
            doc.kind,
            first_line,
            last_line,
            lines,
            doc.line_count,
            doc.pages_for(first_line, last_line),
        )

    def marked_pdf_page(self, collection: str, name: str, first_line: int, last_line: int) -> bytes | None:
        """The cited page of a PDF as a one-page PDF with the cited lines
        highlighted (None when the original is not available)."""
        data = self.original_bytes(collection, name)
        if data is None:
            return None
        doc = self.library.get_document(collection, name)
        pages = doc.pages_for(first_line, last_line)
        if not pages:
            return None
        page = pages[0]
        wanted = [
            doc.line(n)
            for n in range(first_line, last_line + 1)
            if doc.line_pages[n - 1] == page and doc.line(n).strip()
        ]
        return highlight_pdf_page(data, page, wanted)

    # --------------------------------------------------------------- ask

    def search(
        self, collection: str, question: str, mode: str = "hybrid", k: int = DEFAULT_K
    ) -> tuple[list[Hit], Any]:
        """The top ``k`` hits, and this search's ``notes`` and ``timings_ms``
        (with the searched ``passages`` and ``corpus``)."""
        retriever = self.retriever(collection)
        if mode != "bm25" and retriever.passages:
            self.ensure_dense(collection)
        # No lock: the result carries this search's notes and timings, and the
        # retriever holds only index state, so sessions search at once.
        result = retriever.search(question, mode, k)
        snapshot = SimpleNamespace(
            notes=list(result.notes),
            timings_ms=dict(result.timings_ms),
            passages=retriever.passages,
            corpus=retriever.corpus,
        )
        return result.hits, snapshot

    def ask(
        self,
        collection: str,
        question: str,
        *,
        mode: str = "hybrid",
        lens: str = "auto",
        k: int = DEFAULT_K,
        env: Mapping[str, str] | None = None,
        session: str | None = None,
        spend: Any = None,
        stream_callback: Callable[[str], None] | None = None,
        completion: Callable[..., Any] | None = None,
    ) -> AskOutcome:
        """Retrieve, then apply the lens and answer: by a model when one is
        configured in ``env`` (the call is logged in the AI log under
        ``session``), else extractively."""
        import os

        from .answer.pipeline import answer_question

        question = question.strip()
        if not question:
            raise errors.RagcoreError("type a question first")
        started = time.perf_counter()
        hits, retriever = self.search(collection, question, mode, k)
        timings = dict(retriever.timings_ms)
        notes = list(retriever.notes)
        if not hits:
            if not retriever.passages:
                notes.append("this collection has no documents yet: add some on the Library page")
            outcome = AskOutcome(question, collection, mode, [], None, None, notes, timings)
            self._remember(outcome, started, session)
            return outcome
        t0 = time.perf_counter()
        result = answer_question(
            question,
            hits,
            lens=lens,
            env=env if env is not None else os.environ,
            spend=spend,
            log=self.ai_log(session),
            stream_callback=stream_callback,
            completion=completion,
            documents=retriever.corpus.documents,
        )
        timings["answer"] = (time.perf_counter() - t0) * 1000
        notes.extend(result.notes)
        whole = sorted({h.passage.doc for h in hits if h.passage.chunking == "whole"})
        outcome = AskOutcome(
            question, collection, mode, hits, result.answer, result.lens, notes, timings, whole
        )
        self._remember(outcome, started, session)
        return outcome

    def relens(self, outcome: AskOutcome, lens: str) -> AskOutcome:
        """The same hits under another lens, without a new model call: a
        model's answer is kept; an extractive answer is rebuilt, since it
        leads with the lens's findings."""
        from dataclasses import replace

        from .answer.extractive import extractive_answer
        from .lenses import choose_lens, run_lens

        if not outcome.hits:
            return outcome
        found = run_lens(choose_lens(outcome.question, lens), outcome.hits)
        answer = outcome.answer
        if answer is None or answer.mode != "model":
            retriever = self.retriever(outcome.collection)
            answer = extractive_answer(
                outcome.question,
                outcome.hits,
                found,
                reason=answer.reason if answer else "no model configured",
                documents=retriever.corpus.documents,
            )
            if outcome.answer is not None:
                answer.header = outcome.answer.header
        return replace(outcome, lens=found, answer=answer)

    def _remember(self, outcome: AskOutcome, started: float, session: str | None = None) -> None:
        outcome.timings_ms["total"] = (time.perf_counter() - started) * 1000
        self.last_query = self._last_queries[session] = {
            "question": outcome.question,
            "collection": outcome.collection,
            "mode": outcome.mode,
            "timings_ms": dict(outcome.timings_ms),
            "hits": len(outcome.hits),
            "answer_mode": outcome.answer.mode if outcome.answer else None,
        }

    def related(self, collection: str, passage: Passage, k: int = 3) -> list[tuple[Passage, float]]:
        """Nearest passages in other documents of the collection."""
        return self.retriever(collection).related(passage, k)

    # ------------------------------------------------------- model output

    def ai_log(self, session: str | None = None) -> Any:
        """The AI log in this library, writing under ``session``."""
        from .answer.ailog import AiLog

        return AiLog(self.library.connect(), session or "default")

    def spend_tracker(self, session: str | None = None) -> Any:
        """A spending cap for ``session`` (RAGCORE_SPEND_CAP_USD), seeded with
        what the AI log says the session has already spent."""
        from .answer.llm import SpendTracker

        return SpendTracker.from_settings(spent_usd=self.ai_log(session).spent(session or "default"))

    def study(
        self,
        collection: str,
        topic: str,
        *,
        session: str | None = None,
        spend: Any = None,
        mode: str = "hybrid",
        k: int = DEFAULT_K,
        env: Mapping[str, str] | None = None,
        completion: Callable[..., Any] | None = None,
    ) -> list[Any]:
        """Study items on ``topic`` written by the model from the passages
        retrieved for it, each checked. Raises ``RagcoreError`` with the reason
        when no model is configured or the call fails."""
        import os

        from .answer.llm import explain_no_model, find_model
        from .answer.study import generate_study_items

        topic = topic.strip()
        if not topic:
            raise errors.RagcoreError("type a topic first")
        env = env if env is not None else os.environ
        model = find_model(env)
        if model is None:
            raise errors.RagcoreError(f"study items need a model: {explain_no_model(env)}")
        hits, _ = self.search(collection, topic, mode, k)
        return generate_study_items(
            topic,
            hits,
            config=model,
            spend=spend if spend is not None else self.spend_tracker(session),
            log=self.ai_log(session),
            completion=completion,
        )

    def review(
        self, session: str | None, call_id: int, item_ref: str, decision: str, edited_text: str | None = None
    ) -> None:
        """Record accept / edit / reject of one item of a logged call of this session."""
        self._own_call(session, call_id).record_review(call_id, item_ref, decision, edited_text)

    def decisions(self, session: str | None, call_id: int) -> dict[str, str]:
        return self._own_call(session, call_id).decisions(call_id)

    def _own_call(self, session: str | None, call_id: int) -> Any:
        """The AI log of ``session``, after checking the call is the session's own."""
        log = self.ai_log(session)
        if log.call(call_id).session != (session or "default"):
            raise errors.LibraryError(f"no AI call with id {call_id} in this session's log")
        return log

    def ai_calls(self, session: str | None) -> list[Any]:
        return self.ai_log(session).calls(session or "default")

    def export_accepted(self, session: str | None, fmt: str = "markdown") -> str:
        """The session's accepted (and edited) items as Markdown or JSON."""
        from .answer.export import export_json, export_markdown

        items = self.ai_log(session).accepted_items(session or "default")
        if fmt == "json":
            return export_json(items)
        if fmt == "markdown":
            return export_markdown(items)
        raise ValueError(f"format must be 'markdown' or 'json', not {fmt!r}")

    # --------------------------------------------------------- evaluation

    def stored_runs(self) -> list[StoredRun]:
        """Evaluation runs stored in ``eval/results/*.json``, unreadable files skipped."""
        out = []
        if not self.results_dir.is_dir():
            return out
        for path in sorted(self.results_dir.glob("*.json")):
            try:
                run = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if not isinstance(run, dict):
                continue
            out.append(describe_run(path, run))
        return out

    def load_run(self, path: Path | str) -> dict[str, Any]:
        path = Path(path)
        if path.resolve().parent != self.results_dir.resolve():
            raise errors.RagcoreError(f"{path.name}: not a stored run")
        return json.loads(path.read_text(encoding="utf-8"))

    def gold_sets(self) -> list[Path]:
        """Gold sets shipped with the project (``eval/*.json``, ``eval/gold/*.json``)."""
        folder = EVAL_DIR
        found = sorted(folder.glob("*.json")) + sorted((folder / "gold").glob("*.json"))
        return [p for p in found if p.is_file()]

    def evaluate_goldset(
        self,
        gold_bytes: bytes,
        collection: str,
        rankers: list[str],
        *,
        name: str = "goldset.json",
        resamples: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> dict[str, Any]:
        """Score ``rankers`` on a gold set (JSON bytes, uploaded as ``name``)
        against a loaded collection. Its judgements name documents of the
        collection, so its ``corpus`` may be left out."""
        from .evaluation import all_qrels, evaluate, load_goldset, resolve_spans, retriever_rankers
        from .evaluation import statistics as stats

        if not rankers:
            raise errors.RagcoreError("choose at least one ranker")
        try:
            parsed = json.loads(gold_bytes)
        except (UnicodeDecodeError, ValueError):
            parsed = None  # load_goldset reports what is wrong with it
        if isinstance(parsed, dict) and "corpus" not in parsed:
            gold_bytes = json.dumps({**parsed, "corpus": "."}).encode("utf-8")
        with tempfile.TemporaryDirectory() as tmp:
            # Only a sanitised base name, so messages name the file the user chose.
            path = Path(tmp) / safe_name(name, "goldset.json")
            path.write_bytes(gold_bytes)
            gold = load_goldset(path)
        retriever = self.retriever(collection)
        if not retriever.passages:
            raise errors.RagcoreError(f"the collection {collection!r} has no passages to evaluate against")
        resolved = resolve_spans(gold, retriever.corpus.documents)
        qrels = all_qrels(resolved, retriever.passages, gold.unit)
        return evaluate(
            resolved,
            qrels,
            retriever_rankers(retriever, rankers, gold.unit),
            unit=gold.unit,
            relevant_min_grade=gold.relevant_min_grade,
            resamples=resamples or stats.RESAMPLES,
            settings={"source": "goldset", "name": gold.name, "collection": collection, "rankers": rankers},
            progress=progress,
        )

    def evaluate_stored_goldset(
        self,
        gold_path: Path,
        rankers: list[str],
        chunking: str = "auto",
        *,
        resamples: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> dict[str, Any]:
        """Score ``rankers`` on a shipped gold set over its own corpus folder,
        cut with ``chunking``, or under each of heading, sentence and whole
        with ``chunking="compare"`` (vectors come from the library cache)."""
        from .evaluation import all_qrels, compare_chunkings, evaluate, load_goldset, resolve_spans
        from .evaluation import statistics as stats

        if not rankers:
            raise errors.RagcoreError("choose at least one ranker")
        if chunking not in (*CHUNKINGS, "compare"):
            raise ValueError(f"chunking must be one of {', '.join(CHUNKINGS)} or 'compare', not {chunking!r}")
        gold = load_goldset(gold_path)
        settings = {"source": "goldset", "name": gold.name, "gold": str(gold_path), "rankers": rankers}
        common = {
            "unit": gold.unit,
            "relevant_min_grade": gold.relevant_min_grade,
            "resamples": resamples or stats.RESAMPLES,
            "progress": progress,
        }
        if chunking == "compare":
            setups = {}
            resolved = None
            for strategy in ("heading", "sentence", "whole"):
                corpus, ranking = self._gold_rankers(gold, strategy, rankers, progress)
                if resolved is None:
                    resolved = resolve_spans(gold, corpus.documents)
                setups[strategy] = (corpus.passages, ranking)
            return compare_chunkings(resolved, setups, settings={**settings, "chunking": "compare"}, **common)
        corpus, ranking = self._gold_rankers(gold, chunking, rankers, progress)
        resolved = resolve_spans(gold, corpus.documents)
        qrels = all_qrels(resolved, corpus.passages, gold.unit)
        return evaluate(resolved, qrels, ranking, settings={**settings, "chunking": chunking}, **common)

    def _gold_rankers(
        self, gold: Any, chunking: str, rankers: list[str], progress: Callable[[str], None] | None
    ):
        from .corpus import load_corpus
        from .evaluation import retriever_rankers
        from .retrieval import Retriever

        if progress:
            progress(f"loading {Path(gold.corpus).name} with {chunking} chunking")
        corpus = load_corpus(Path(gold.corpus), chunking, self.library)
        retriever = Retriever(
            corpus, vector_cache=self.library, embedder=self._lazy_embedder(), reranker=self.reranker
        )
        if any(r != "bm25" for r in rankers):
            if progress:
                progress(f"dense index over {len(corpus.passages)} passages ({chunking})")
            retriever.ensure_dense()
        return corpus, retriever_rankers(retriever, rankers, gold.unit)

    # ------------------------------------------------------ how it works

    def facts(self, collection: str, session: str | None = None) -> CollectionFacts:
        """Live figures of ``collection`` for the "How it works" page; the
        last query is the session's own under session isolation (another
        visitor's question is never shown), else the last of any session."""
        infos = self.documents(collection)
        retriever = self.retriever(collection)
        chunkings: dict[str, int] = {}
        kinds: dict[str, int] = {}
        for info in infos:
            chunkings[info.chunking] = chunkings.get(info.chunking, 0) + 1
            kinds[info.kind] = kinds.get(info.kind, 0) + 1
        embedder = self._embedder or (retriever.embedder if retriever.dense_ready else None)
        last = self._last_queries.get(session) if self.isolated() else self.last_query
        return CollectionFacts(
            collection=collection,
            documents=len(infos),
            passages=len(retriever.passages),
            chunkings=chunkings,
            kinds=kinds,
            embedding_model=getattr(embedder, "model_id", None),
            embedding_load_s=getattr(embedder, "load_seconds", None),
            vectors_cached=self.library.count_vectors(getattr(embedder, "model_id", None)),
            dense_ready=retriever.dense_ready,
            reranker_status=getattr(self.reranker, "status", "none configured"),
            build_seconds=dict(retriever.build_seconds),
            last_query=last if last and last["collection"] == collection else None,
        )


def _positive_setting(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {raw!r}") from None
    if not value > 0:
        raise ValueError(f"{name} must be greater than 0, not {raw!r}")
    return value


# ----------------------------------------------------------------- runs


def describe_run(path: Path, run: Mapping[str, Any]) -> StoredRun:
    """A one-line description of a stored run for the run picker."""
    settings = run.get("settings", {}) or {}
    name = str(settings.get("name") or path.stem)
    if "chunkings" in run:
        first = next(iter(run["chunkings"].values()), {})
        questions = int(first.get("questions", {}).get("scored", 0))
        rankers = tuple(first.get("rankers", {}))
        title = f"{name}: chunking comparison ({', '.join(run['chunkings'])})"
        return StoredRun(path, name, "chunkings", questions, rankers, title)
    questions = int(run.get("questions", {}).get("scored", 0))
    rankers = tuple(run.get("rankers", {}))
    chunking = settings.get("chunking")
    extra = f", {chunking} chunking" if chunking else ""
    title = f"{name}: {questions} questions, {', '.join(rankers)}{extra}"
    return StoredRun(path, name, "run", questions, rankers, title)


def question_texts(run: Mapping[str, Any]) -> dict[str, str]:
    """Question id -> text, read from the run's gold set when it is a JSON
    file still at the recorded path (runs store ids only); empty otherwise."""
    gold = (run.get("settings") or {}).get("gold")
    if not isinstance(gold, str) or not gold.endswith(".json"):
        return {}
    path = Path(gold) if Path(gold).is_absolute() else REPO_ROOT / gold
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(q["id"]): str(q["text"]) for q in data.get("questions", []) if "id" in q and "text" in q}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def per_question_rows(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The run's per-question metrics as flat rows (one per question and ranker),
    for a table or a CSV download."""
    rows = []
    for qid, block in run.get("per_question", {}).items():
        for ranker, values in block.get("metrics", {}).items():
            rows.append({"question": qid, "type": block.get("type", ""), "ranker": ranker, **values})
    return rows


def summary_rows(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per ranker and metric: mean and 95% interval."""
    rows = []
    for ranker, block in run.get("rankers", {}).items():
        for metric, value in block.get("metrics", {}).items():
            rows.append(
                {
                    "ranker": ranker,
                    "metric": metric,
                    "mean": value.get("mean"),
                    "ci_low": value.get("ci_low"),
                    "ci_high": value.get("ci_high"),
                    "n": value.get("n"),
                }
            )
    return rows


def by_type_rows(run: Mapping[str, Any], metric: str) -> list[dict[str, Any]]:
    rows = []
    for ranker, block in run.get("rankers", {}).items():
        for qtype, metrics in block.get("by_type", {}).items():
            value = metrics.get(metric)
            if value is None:
                continue
            rows.append(
                {
                    "ranker": ranker,
                    "type": qtype,
                    "mean": value.get("mean"),
                    "ci_low": value.get("ci_low"),
                    "ci_high": value.get("ci_high"),
                    "n": value.get("n"),
                }
            )
    return rows


# ------------------------------------------------------------------ PDFs


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


def highlight_pdf_page(data: bytes, page_number: int, lines: list[str]) -> bytes | None:
    """Page ``page_number`` (1-based) of a PDF as a one-page PDF, with a
    highlight annotation over each text run that belongs to ``lines``.

    Text runs and their positions come from pypdf's text visitor; a run is
    marked when its text (white space ignored) occurs in one of the lines.
    The page itself is copied unchanged.
    """
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.annotations import Highlight
    from pypdf.generic import ArrayObject, FloatObject

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        if not 1 <= page_number <= len(reader.pages):
            return None
        page = reader.pages[page_number - 1]
        right_edge = float(page.mediabox.right) - 18  # keep marks inside the page margin
        targets = [_squash(line) for line in lines if _squash(line)]
        boxes: list[tuple[float, float, float, float]] = []

        def visit(text: str, cm: list[float], tm: list[float], font_dict: Any, font_size: float) -> None:
            piece = _squash(text)
            if len(piece) < 2 or not any(piece in t for t in targets):
                return
            size = abs(font_size * (tm[3] or 1) * (cm[3] or 1)) or 10.0
            x = tm[4] * cm[0] + cm[4]
            y = tm[5] * cm[3] + cm[5]
            width = 0.48 * size * len(text.rstrip())  # average glyph width of Latin text
            boxes.append((x - 1, y - 0.25 * size, min(x + width + 1, right_edge), y + 0.95 * size))

        page.extract_text(visitor_text=visit)
        writer = PdfWriter()
        writer.add_page(page)
        for x0, y0, x1, y1 in boxes:
            quad = ArrayObject([FloatObject(v) for v in (x0, y1, x1, y1, x0, y0, x1, y0)])
            writer.add_annotation(
                0, Highlight(rect=(x0, y0, x1, y1), quad_points=quad, highlight_color="ffe066")
            )
        out = io.BytesIO()
        writer.write(out)
        return out.getvalue()
    except Exception:
        return None
