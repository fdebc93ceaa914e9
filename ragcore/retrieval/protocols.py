"""What retrieval asks of the things handed to it, as structural types.

The retriever never imports the store or a model package: a caller hands it
passages, an embedder, a reranker and (optionally) a vector cache, and any
object with these methods will do (the library's ``Library`` is a
``VectorCache``; tests pass small fakes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Protocol, get_args

import numpy as np

from ..records import Passage

Mode = Literal["bm25", "dense", "hybrid", "widen", "rerank"]
MODES: tuple[Mode, ...] = get_args(Mode)
FusionMethod = Literal["learned", "gated", "signals", "agreement", "rrf", "convex"]
FUSION_METHODS: tuple[FusionMethod, ...] = get_args(FusionMethod)
Stage = Literal["bm25", "dense", "fused", "rerank"]
STAGES: tuple[Stage, ...] = get_args(Stage)
# Hits an answer is written from, one number for the ``ask`` command, ``eval
# --answers`` and the Ask page, so the figures describe the answer a visitor reads.
ASK_K = 10


class EmbedderLike(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    @property
    def model_id(self) -> str:
        """Names the model (and file), so cached vectors of another model are never mixed in."""
        ...

    def embed_passages(self, texts: Sequence[str], batch_size: int = 8) -> np.ndarray:
        """Vectors (len(texts), dim), in input order."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector (dim,)."""
        ...


class RerankerLike(Protocol):
    """Scores (query, passage) pairs; may be unavailable, and says why."""

    @property
    def status(self) -> str:
        """ "ready" when ``rerank`` scores; otherwise why not (e.g. "loading")."""
        ...

    def rerank(self, query: str, texts: Sequence[str]) -> list[float] | None:
        """One score per text (higher is better), or None when not ready."""
        ...


class VectorCache(Protocol):
    """Passage vectors kept by content hash and model id (the library is one)."""

    def get_vectors(self, content_hashes: list[str], model_id: str) -> dict[str, np.ndarray]: ...

    def put_vectors(self, vectors: Mapping[str, np.ndarray], model_id: str) -> None: ...


class PassageSource(Protocol):
    """What a retriever searches: a corpus, or anything holding its passages."""

    @property
    def passages(self) -> list[Passage]: ...
