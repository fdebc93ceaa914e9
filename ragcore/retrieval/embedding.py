"""Sentence embeddings for the dense signal, fully offline.

Model: all-MiniLM-L6-v2 (Wang et al. 2020, "MiniLM: Deep Self-Attention
Distillation"; Reimers & Gurevych 2019, "Sentence-BERT" for mean pooling and
cosine use), int8 ONNX, run by fastembed (Qdrant) on onnxruntime. Files are
located and verified by ``model_registry``; see ../shared/models.md for the
measurements behind batch size and the BLAS thread limit.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ragcore.config import settings
from ragcore.errors import ModelError
from ragcore.retrieval.blas import one_blas_thread
from ragcore.retrieval.model_registry import DEFAULT_MODEL, ModelSpec, ResolvedModel, resolve_model_dir

_REGISTER_LOCK = threading.Lock()
# onnxruntime threads for a single query on a second session of the same
# model file (passages keep fastembed's session and its thread count); None:
# queries use fastembed's session too. Chosen None on a separate timing of
# 60 English-like queries on the idle machine (18:00 UTC, 2026-12-01): one
# thread took 7.85 ms p50 against 5.51 ms with the default of one thread
# per core, and its session added 105 MB of RSS. Under load (6-7, other jobs)
# one thread had been faster (11-13 against 26-30 ms): docs/decisions.md.
QUERY_THREADS: int | None = None  # None: queries run on fastembed's session (chosen: see above)
# onnxruntime's intra-op threads spin while they wait for work (its default);
# with SPIN_WAIT False fastembed's session is made with them sleeping instead,
# so a query's embedding leaves the cores to the BM25 search it runs beside
# (retriever._both_rankings). The same vectors either way (tested). Chosen
# off by an A/B at 1M in the quiet window (02:20 UTC 2026-12-02, 2 rounds of
# 80 queries): hybrid p50 42.4/43.4 ms spinning against 28.1/28.8 without,
# dense incl. embedding 31.0/27.2 against 20.0/25.3 (docs/decisions.md).
SPIN_WAIT = False


def register_with_fastembed(spec: ModelSpec) -> None:
    """Register ``spec`` as a fastembed custom model once per process.

    fastembed raises on a second registration of the same name, which a
    Streamlit rerun (same process, module state kept) would trigger.
    """
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _REGISTER_LOCK:
        known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
        if spec.name.lower() in known:
            return
        pooling = {"mean": PoolingType.MEAN, "cls": PoolingType.CLS}[spec.pooling]
        TextEmbedding.add_custom_model(
            model=spec.name,
            pooling=pooling,
            normalization=spec.normalize,
            # Never used for fetching: the model is always loaded with specific_model_path.
            sources=ModelSource(hf=spec.hub_name or spec.name),
            dim=spec.dim,
            model_file=spec.model_file,
            description="ragcore offline model, files verified by sha256",
        )


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0  # an all-zero row stays zero rather than becoming NaN
    return matrix / norms


class Embedder:
    """A loaded embedding model: passages in batches, queries one at a time with a cache.

    ``model_id`` (model name + onnx sha256 prefix) keys cached vectors in the
    library, so vectors from a different model file are never mixed in.
    """

    def __init__(
        self,
        spec: ModelSpec = DEFAULT_MODEL,
        model_dir: Path | None = None,
        threads: int | None = None,
        query_cache_size: int = 1024,
    ) -> None:
        """``model_dir`` overrides the RAGCORE_MODEL_DIR setting (None: use the setting)."""
        from fastembed import TextEmbedding

        if model_dir is None:
            model_dir = settings().model_dir
        started = time.perf_counter()
        self.spec = spec
        self.resolved: ResolvedModel = resolve_model_dir(spec, model_dir)
        if self.resolved.source != "download":
            register_with_fastembed(spec)
        try:
            with _session_options(spin=SPIN_WAIT):
                self._model = TextEmbedding(
                    self.resolved.model_name,
                    threads=threads,
                    specific_model_path=str(self.resolved.path),
                )
        except Exception as exc:  # onnxruntime and tokenizers raise assorted types
            raise ModelError(
                f"{spec.name}: the files in {self.resolved.path} passed their checks but did not load "
                f"({type(exc).__name__}: {exc}). Reinstall with: {spec.install_hint} --force-reinstall"
            ) from exc
        self.load_seconds = time.perf_counter() - started
        self.dim = spec.dim
        self.model_id = f"{self.resolved.model_name}@sha256:{self.resolved.onnx_sha256[:16]}"
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = max(0, query_cache_size)
        self._cache_lock = threading.Lock()
        self.query_cache_hits = 0
        self.query_cache_misses = 0
        self._query_session: _QuerySession | None = None
        self._query_session_lock = threading.Lock()

    @property
    def source(self) -> str:
        """Where the model came from: "setting" | "package" | "download"."""
        return self.resolved.source

    def _embed(self, texts: list[str], batch_size: int) -> np.ndarray:
        # One BLAS thread: OpenBLAS threads spinning beside onnxruntime slowed embedding ~3x (models.md).
        with one_blas_thread():
            rows: list[Any] = list(self._model.embed(texts, batch_size=batch_size))
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise_rows(np.vstack(rows))

    def _embed_one(self, text: str) -> np.ndarray:
        """One query's vector: from the query session when ``QUERY_THREADS``
        is set (made on first use), else or when it cannot be made from
        fastembed's own session."""
        with self._query_session_lock:
            if self._query_session is None and QUERY_THREADS is not None:
                self._query_session = _QuerySession.open(
                    self._model, self.resolved.path / self.spec.model_file
                )
        session = self._query_session
        if session is None or not session.ready:
            return self._embed([text], batch_size=1)[0]
        with one_blas_thread():
            return _normalise_rows(session.embed(text))[0]

    def embed_passages(self, texts: Sequence[str], batch_size: int = 8) -> np.ndarray:
        """L2-normalised float32 vectors, shape (len(texts), dim), in input order.

        Keep ``batch_size`` small (8-16): fastembed's default of 256 took peak
        memory to 7-10 GB on 800-character passages (models.md).
        """
        if isinstance(texts, str):
            raise TypeError("embed_passages takes a sequence of texts, not one string")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {batch_size}")
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"passage {i} is {type(text).__name__}, not str")
        return self._embed(texts, batch_size)

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector (dim,), read-only, cached per exact text (LRU)."""
        if not isinstance(text, str):
            raise TypeError(f"query is {type(text).__name__}, not str")
        if settings().isolation == "session":
            # Visitors share this process: a cache hit would tell one visitor, by its speed,
            # that another asked the same question. Each query is embedded afresh.
            vector = self._embed_one(text)
            vector.setflags(write=False)
            return vector
        with self._cache_lock:
            cached = self._cache.get(text)
            if cached is not None:
                self._cache.move_to_end(text)
                self.query_cache_hits += 1
                return cached
        vector = self._embed_one(text)
        vector.setflags(write=False)  # shared by every caller that asks for this text
        with self._cache_lock:
            self.query_cache_misses += 1
            if self._cache_size:
                self._cache[text] = vector
                self._cache.move_to_end(text)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return vector


@contextmanager
def _session_options(spin: bool) -> Iterator[None]:
    """While open, onnxruntime session options made by fastembed (which makes
    its own and exposes no spinning setting) have intra-op spinning off,
    unless ``spin``."""
    if spin:
        yield
        return
    import onnxruntime as ort

    original = ort.SessionOptions

    class _NoSpin(original):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            self.add_session_config_entry("session.intra_op.allow_spinning", "0")

    with _REGISTER_LOCK:
        ort.SessionOptions = _NoSpin  # type: ignore[misc]
        try:
            yield
        finally:
            ort.SessionOptions = original  # type: ignore[misc]


class _QuerySession:
    """fastembed's tokenizer and pooling around a second onnxruntime session
    of the same model file with ``QUERY_THREADS`` threads: the same steps
    as ``TextEmbedding.embed`` for one text, so the same vector."""

    def __init__(self, model: Any, session: Any) -> None:
        self.model = model  # fastembed's inner model: tokenizer, input names, pooling
        self.session = session
        self.ready = session is not None

    @classmethod
    def open(cls, embedding: Any, model_file: Path) -> _QuerySession:
        inner = getattr(embedding, "model", None)
        try:
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = QUERY_THREADS
            options.inter_op_num_threads = QUERY_THREADS
            # Its threads sleep between queries instead of spinning: a query's
            # embedding runs beside BM25 (retriever._both_rankings).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
            if inner is None or not hasattr(inner, "tokenize"):
                session = None
        except Exception:  # any failure leaves queries on fastembed's own session
            session = None
        return cls(inner, session)

    def embed(self, text: str) -> np.ndarray:
        from fastembed.common.onnx_model import OnnxOutputContext

        encoded = self.model.tokenize([text])
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        names = {node.name for node in self.session.get_inputs()}
        feeds = {"input_ids": ids}
        if "attention_mask" in names:
            feeds["attention_mask"] = mask
        if "token_type_ids" in names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        output = self.session.run(self.model.ONNX_OUTPUT_NAMES, feeds)[0]
        context = OnnxOutputContext(model_output=output, attention_mask=mask, input_ids=ids)
        return np.vstack(list(self.model._post_process_onnx_output(context)))


_EMBEDDERS: dict[tuple[str, str | None, int | None], Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def get_embedder(spec: ModelSpec = DEFAULT_MODEL, threads: int | None = None) -> Embedder:
    """The process-wide embedder for the current RAGCORE_MODEL_DIR setting (loaded once)."""
    model_dir = settings().model_dir
    key = (spec.name, str(model_dir) if model_dir else None, threads)
    with _EMBEDDERS_LOCK:
        embedder = _EMBEDDERS.get(key)
        if embedder is None:
            embedder = Embedder(spec, model_dir, threads=threads)
            _EMBEDDERS[key] = embedder
        return embedder
