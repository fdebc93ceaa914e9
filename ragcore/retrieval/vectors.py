"""Passage vectors: from a vector cache (the library) by content hash, or
embedded once and stored there; shipped precomputed vectors seed the cache.

The cache is anything with ``get_vectors``/``put_vectors`` (a
:class:`~ragcore.retrieval.protocols.VectorCache`); retrieval imports no store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..records import Passage
from .protocols import EmbedderLike, VectorCache

EMBED_BATCH = 8  # measured: larger batches raise peak memory sharply (shared/models.md)


def passage_vectors(
    passages: list[Passage],
    embedder: EmbedderLike,
    cache: VectorCache | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors (n, dim) float32 for ``passages`` in order, and how many had
    to be embedded now (0 when every one was cached)."""
    hashes = [p.content_hash for p in passages]
    cached = cache.get_vectors(list(set(hashes)), embedder.model_id) if cache is not None else {}
    missing: dict[str, str] = {}
    for p, h in zip(passages, hashes, strict=True):
        if h not in cached and h not in missing:
            missing[h] = p.embedding_text  # with its contextual header (records.Passage)
    if missing:
        keys = list(missing)
        new: dict[str, np.ndarray] = {}
        step = 256  # store as we go so an interrupted run keeps its work
        for k in range(0, len(keys), step):
            part = keys[k : k + step]
            vecs = embedder.embed_passages([missing[h] for h in part], batch_size=EMBED_BATCH)
            chunk = dict(zip(part, vecs, strict=True))
            if cache is not None:
                cache.put_vectors(chunk, embedder.model_id)
            new.update(chunk)
            if progress:
                progress(min(k + step, len(keys)), len(keys))
        cached = {**cached, **new}
    dim = len(next(iter(cached.values()))) if cached else 384
    out = np.zeros((len(passages), dim), dtype=np.float32)
    for i, h in enumerate(hashes):
        out[i] = cached[h]
    return out, len(missing)


def save_precomputed(path: Path, passages: list[Passage], vectors: np.ndarray, model_id: str) -> None:
    """Write vectors keyed by passage content hash (for ``corpus/demo.vectors.npz``)."""
    seen: dict[str, int] = {}
    for i, p in enumerate(passages):
        seen.setdefault(p.content_hash, i)
    np.savez_compressed(
        path,
        hashes=np.asarray(list(seen), dtype="U64"),
        vectors=vectors[list(seen.values())].astype(np.float32),
        model_id=np.asarray(model_id),
    )


def seed_from_precomputed(cache: VectorCache, path: Path, model_id: str) -> int:
    """Copy shipped vectors into the vector cache when they were made by the
    same model; returns how many were offered (0 on a model mismatch)."""
    if not path.is_file():
        return 0
    with np.load(path, allow_pickle=False) as data:
        if str(data["model_id"]) != model_id:
            return 0
        vectors = dict(zip((str(h) for h in data["hashes"]), data["vectors"], strict=True))
    cache.put_vectors(vectors, model_id)
    return len(vectors)
