"""Optional cross-encoder reranking of the fused top results.

A cross-encoder reads query and passage together and scores the pair
(Nogueira & Cho 2019, "Passage Re-ranking with BERT"); run here by fastembed's
``TextCrossEncoder`` on onnxruntime. No package ships cross-encoder weights, so
the model comes from a folder the user names (RAGCORE_RERANKER_DIR) or, where
there is internet, from fastembed's download of a model it knows by name.

The model loads in a background thread. Until it is ready, or when none is
configured or loading failed, ``rerank`` returns None and callers keep the
fused order, showing ``status`` to say why.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragcore.config import settings
from ragcore.retrieval.blas import one_blas_thread

NONE_CONFIGURED = "none configured"
LOADING = "loading"
READY = "ready"
FAILED = "failed"

_MODEL_FILES = ("model.onnx", "onnx/model.onnx")  # a plain folder, or a Hugging Face style export
_REGISTER_LOCK = threading.Lock()


def _folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot hold a cross-encoder, or None when it looks complete."""
    if not folder.is_dir():
        return f"{folder} is not a folder"
    missing = [name for name in ("tokenizer.json", "tokenizer_config.json") if not (folder / name).is_file()]
    if not any((folder / name).is_file() for name in _MODEL_FILES):
        missing.insert(0, "model.onnx (or onnx/model.onnx)")
    if missing:
        return f"{folder} has no {', '.join(missing)}"
    return None


def _register_folder_layout(model_file: str) -> str:
    """Register a custom cross-encoder name for one file layout, once per process.

    The folder itself is given at load time (``specific_model_path``), so one
    name serves every folder with the same layout.
    """
    from fastembed.common.model_description import ModelSource
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    name = f"ragcore/local-cross-encoder/{model_file}"
    with _REGISTER_LOCK:
        # A second add_custom_model of one name raises (e.g. on a Streamlit rerun).
        if all(m["model"].lower() != name.lower() for m in TextCrossEncoder.list_supported_models()):
            TextCrossEncoder.add_custom_model(
                model=name,
                sources=ModelSource(hf=name),  # never fetched: loaded with specific_model_path
                model_file=model_file,
                description="ragcore: cross-encoder from a local folder",
            )
    return name


def load_cross_encoder(target: str, threads: int | None = None) -> Any:
    """Load a fastembed TextCrossEncoder from a folder, or by a model name fastembed knows.

    Raises ValueError with a plain reason when neither fits.
    """
    from fastembed.rerank.cross_encoder import TextCrossEncoder

    folder = Path(target).expanduser()
    if folder.exists():
        problem = _folder_problem(folder)
        if problem:
            raise ValueError(problem)
        model_file = next(name for name in _MODEL_FILES if (folder / name).is_file())
        name = _register_folder_layout(model_file)
        return TextCrossEncoder(name, threads=threads, specific_model_path=str(folder))
    known = {m["model"].lower() for m in TextCrossEncoder.list_supported_models()}
    if target.lower() in known:  # fastembed downloads it (needs internet)
        return TextCrossEncoder(target, threads=threads)
    raise ValueError(f"{target} is neither a folder nor a cross-encoder name fastembed knows")


class Reranker:
    """A cross-encoder that loads in the background and scores (query, passage) pairs.

    ``target`` is a folder holding model.onnx (or onnx/model.onnx),
    tokenizer.json and tokenizer_config.json, or a fastembed model name such as
    "Xenova/ms-marco-MiniLM-L-6-v2" (downloaded; needs internet). None means
    no reranker is configured.
    """

    def __init__(
        self,
        target: str | Path | None = None,
        threads: int | None = None,
        batch_size: int = 16,
        background: bool = True,
    ) -> None:
        self.target = str(target) if target not in (None, "") else None
        self.batch_size = batch_size
        self.load_seconds: float | None = None
        self._threads = threads
        self._encoder: Any = None
        self._lock = threading.Lock()
        self._status = NONE_CONFIGURED if self.target is None else LOADING
        self._thread: threading.Thread | None = None
        if self.target is not None:
            if background:
                self._thread = threading.Thread(target=self._load, name="ragcore-reranker-load", daemon=True)
                self._thread.start()
            else:
                self._load()

    @classmethod
    def from_settings(cls, **kwargs: Any) -> Reranker:
        """A reranker for the RAGCORE_RERANKER_DIR setting (none configured when unset)."""
        return cls(settings().reranker_dir, **kwargs)

    def _load(self) -> None:
        assert self.target is not None
        started = time.perf_counter()
        try:
            encoder = load_cross_encoder(self.target, threads=self._threads)
        except Exception as exc:  # any failure leaves the fused order in place
            with self._lock:
                self._status = f"{FAILED}: {self.target}: {exc}"
            return
        with self._lock:
            self._encoder = encoder
            self.load_seconds = time.perf_counter() - started
            self._status = READY

    @property
    def status(self) -> str:
        """ "none configured" | "loading" | "ready" | "failed: <reason>"."""
        with self._lock:
            return self._status

    @property
    def ready(self) -> bool:
        return self.status == READY

    def wait(self, timeout: float | None = None) -> str:
        """Block until loading ends (or ``timeout`` seconds pass); return the status."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.status

    def rerank(self, query: str, texts: Sequence[str]) -> list[float] | None:
        """One relevance score per text, in input order (higher is better); None when not ready.

        A failure while scoring marks the reranker failed (so the app says so)
        and returns None rather than breaking the search.
        """
        with self._lock:
            encoder = self._encoder if self._status == READY else None
        if encoder is None:
            return None
        if isinstance(texts, str):
            raise TypeError("rerank takes a sequence of texts, not one string")
        if not texts:
            return []
        try:
            with one_blas_thread():
                return [float(s) for s in encoder.rerank(query, list(texts), batch_size=self.batch_size)]
        except Exception as exc:  # degrade to the fused order, and say why
            with self._lock:
                self._status = f"{FAILED}: scoring with {self.target} raised {type(exc).__name__}: {exc}"
                self._encoder = None
            return None


_RERANKERS: dict[str | None, Reranker] = {}
_RERANKERS_LOCK = threading.Lock()


def get_reranker() -> Reranker:
    """The process-wide reranker for the current RAGCORE_RERANKER_DIR (started loading once)."""
    target = settings().reranker_dir
    key = str(target) if target else None
    with _RERANKERS_LOCK:
        reranker = _RERANKERS.get(key)
        if reranker is None:
            reranker = Reranker(target)
            _RERANKERS[key] = reranker
        return reranker
