"""Sentence-level similarity between a question and the units it may quote.

A passage's dense score says the passage is about the question; it says
nothing about which of its sentences answers it. The same embedding model
that ranked the passages scores each sentence and table row against the
question, so a paraphrased question ("How expensive are your consultants?")
still finds the sentence that answers it ("... bill at an hourly rate of
$225") when they share no word. Used only when the retrieval already loaded
the model (a hit carries a dense score), so the keyless path stays as fast
as before for BM25-only searches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from ragcore.records import Hit
from ragcore.retrieval.text_vectors import query_vectors

Similarity = Callable[[str, Sequence[str]], list[float]]
CACHE_SIZE = 20_000  # unit vectors kept between questions


class _Embeds(Protocol):
    def embed_query(self, text: str) -> np.ndarray: ...


def embedding_similarity(embedder: _Embeds) -> Similarity:
    """Cosine similarity of the question to each text (vectors are normalised)."""
    cache: dict[str, np.ndarray] = {}

    def similarity(question: str, texts: Sequence[str]) -> list[float]:
        q = embedder.embed_query(question)
        missing = list(dict.fromkeys(t for t in texts if t not in cache))
        if len(cache) + len(missing) > CACHE_SIZE:
            cache.clear()
        # One by one as queries: the model is symmetric (no query or passage
        # prefix), and embed_passages stays the passage index's own pass. The
        # vectors persist in the library across restarts (retrieval/text_vectors.py).
        cache.update(zip(missing, query_vectors(embedder, missing), strict=True))
        return [float(cache[t] @ q) for t in texts]

    return similarity


_SHARED: list[Similarity] = []


def similarity_for(hits: Sequence[Hit]) -> Similarity | None:
    """The process-wide sentence similarity when the hits were ranked with
    dense retrieval (the model is loaded), else None."""
    if not any(h.trace.get("dense") is not None for h in hits if h.trace):
        return None
    if not _SHARED:
        # The process's model, loaded on first need (the app's example questions need no load).
        from ragcore.retrieval.lazy_embedder import shared_embedder

        _SHARED.append(embedding_similarity(shared_embedder()))
    return _SHARED[0]
