"""The app's embedding model, loaded when first needed (#18 cold start).

Loading the model (onnxruntime, fastembed and the tokenizer: about 0.6 s of
CPU, 1-2 s of a cold start beside the page's imports) sat on the path to the
first demo answer, though that answer needs no embedding: the demo's passage
vectors ship (corpus/demo.vectors.npz), and so do the query vectors of its
answer units and curated questions (corpus/demo.text-vectors.npz) and of the
Ask page's example questions (corpus/demo.question-vectors.npz, made by
``embed_query`` of the pinned model: scripts/make_demo_question_vectors.py).

A :class:`LazyEmbedder` knows its ``model_id`` without loading (the model's
files are found and verified by sha256 as for a load). Until the model is
loaded, ``embed_query`` of a text whose vector a known file holds is that
vector (checked by model id and the text's sha256); anything else loads the
model once per process (``embedding.get_embedder``) and asks it, as does
every call once it is loaded. The app's warm-up loads it in the background
after the demo's indexes are ready, so a typed question finds it loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..config import settings
from .model_registry import DEFAULT_MODEL, ModelSpec, resolve_model_dir
from .text_vectors import MODEL_SUFFIX, text_key


class LazyEmbedder:
    """``embedding.get_embedder()``, loaded on first need; see the module docstring."""

    def __init__(self, spec: ModelSpec = DEFAULT_MODEL) -> None:
        self.spec = spec
        self.dim = spec.dim
        self._model_id: str | None = None
        self._loaded = None  # the Embedder, once loaded
        self._lock = threading.Lock()  # held while the model loads
        self._known_lock = threading.Lock()  # never held while it loads: known queries do not wait
        self._known_files: list[Path] = []
        self._known: dict[str, np.ndarray] | None = None  # text sha256 -> vector, read on first need

    @property
    def model_id(self) -> str:
        """As the loaded Embedder's: the model name and its file's sha256 prefix."""
        if self._model_id is None:
            if self._loaded is not None:
                self._model_id = self._loaded.model_id
            else:
                resolved = resolve_model_dir(self.spec, settings().model_dir)
                self._model_id = f"{resolved.model_name}@sha256:{resolved.onnx_sha256[:16]}"
        return self._model_id

    @property
    def loaded(self):  # -> Embedder | None (not imported here: it pulls in fastembed's types)
        """The loaded model, or None while it is not loaded (never loads it)."""
        return self._loaded

    @property
    def load_seconds(self) -> float | None:
        return None if self._loaded is None else self._loaded.load_seconds

    def know(self, path: Path) -> None:
        """Answer queries from the vectors in ``path`` (hashes, vectors, model_id
        as text_vectors' files) while the model is not loaded."""
        with self._known_lock:
            if path not in self._known_files:
                self._known_files.append(path)
                self._known = None

    def load(self):  # -> Embedder
        """The loaded model (loaded now, once per process, if it is not yet)."""
        with self._lock:
            if self._loaded is None:
                from .embedding import get_embedder

                self._loaded = get_embedder(self.spec)
            return self._loaded

    def embed_query(self, text: str) -> np.ndarray:
        if self._loaded is None:
            known = self._known_vector(text)
            if known is not None:
                return known
        return self.load().embed_query(text)

    def embed_passages(self, texts: Sequence[str], batch_size: int = 8) -> np.ndarray:
        return self.load().embed_passages(texts, batch_size=batch_size)

    def __getattr__(self, name: str):
        # Anything else an Embedder has (source, resolved, query cache counts): from the loaded model.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.load(), name)

    def _known_vector(self, text: str) -> np.ndarray | None:
        if not isinstance(text, str) or not self._known_files:
            return None
        with self._known_lock:
            if self._known is None:
                self._known = {}
                for path in self._known_files:
                    self._known.update(read_known(path, self.model_id + MODEL_SUFFIX))
            return self._known.get(text_key(text))


def read_known(path: Path, model_id: str) -> dict[str, np.ndarray]:
    """The vectors of ``path`` by text sha256 (read-only), or none when the file
    is missing, unreadable or made by another model."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["model_id"]) != model_id:
                return {}
            vectors = np.asarray(data["vectors"], dtype=np.float32)
            hashes = [str(h) for h in data["hashes"]]
    except (OSError, KeyError, ValueError):
        return {}
    vectors.setflags(write=False)
    return dict(zip(hashes, vectors, strict=True))


_SHARED: dict[tuple[str, str | None], LazyEmbedder] = {}
_SHARED_LOCK = threading.Lock()


def shared_embedder(spec: ModelSpec = DEFAULT_MODEL) -> LazyEmbedder:
    """The process-wide LazyEmbedder for the current RAGCORE_MODEL_DIR setting,
    over the same model ``embedding.get_embedder`` loads."""
    model_dir = settings().model_dir
    key = (spec.name, str(model_dir) if model_dir else None)
    with _SHARED_LOCK:
        lazy = _SHARED.get(key)
        if lazy is None:
            lazy = _SHARED[key] = LazyEmbedder(spec)
        return lazy
