"""Query-side vectors of short texts (the sentences and rows an answer may
quote), kept in the library's vector cache across restarts (#18).

The answer scores each unit of the retrieved passages against the question
with the embedding model, one unit at a time as a query
(``answer/semantic.py``). On the first question after a restart that was
most of the time to the first answer (about 2.4 s of 4.2 s for the demo),
though the units and their vectors had not changed. Here each unit's vector
is looked up in the vector cache first, keyed by the sha256 of its text
under the model id with ``MODEL_SUFFIX`` (so passage vectors, embedded with
their contextual header, never mix with these); only the missing ones are
embedded, by ``embed_query`` exactly as before, so the vectors and the
answers are the same. Questions are never stored: only document text.

The app's library is registered once per process (``keep_in``, called by
``services.indexes``); without one, or on a storage error, units are
embedded as before.
"""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..records import sha256_hex
from .protocols import VectorCache

MODEL_SUFFIX = "#query-text"  # units are embedded as queries (no contextual header)


class _QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> np.ndarray: ...


_LOCK = threading.Lock()
_CACHE: list[weakref.ReferenceType[VectorCache]] = []


def keep_in(cache: VectorCache) -> None:
    """Keep units' vectors in ``cache`` (the app's library) from now on.
    Held weakly: a library that is gone is simply not used."""
    with _LOCK:
        _CACHE[:] = [weakref.ref(cache)]


def _kept() -> VectorCache | None:
    with _LOCK:
        return _CACHE[0]() if _CACHE else None


def text_key(text: str) -> str:
    return sha256_hex(text)


def query_vectors(embedder: _QueryEmbedder, texts: Sequence[str]) -> list[np.ndarray]:
    """``[embedder.embed_query(t) for t in texts]``, reading the vectors kept
    in the registered cache and keeping those embedded now."""
    texts = list(texts)
    cache, model = _kept(), getattr(embedder, "model_id", None)
    if cache is None or not isinstance(model, str) or not texts:
        return [embedder.embed_query(t) for t in texts]
    model_id = model + MODEL_SUFFIX
    keys = [text_key(t) for t in texts]
    try:
        found = cache.get_vectors(list(set(keys)), model_id)
    except (sqlite3.Error, OSError):  # a library that cannot be read: embedded as before
        return [embedder.embed_query(t) for t in texts]
    new: dict[str, np.ndarray] = {}
    out = []
    for key, text in zip(keys, texts, strict=True):
        vector = found.get(key)
        if vector is None:
            vector = new.get(key)
            if vector is None:
                vector = new[key] = embedder.embed_query(text)
        out.append(vector)
    if new:
        try:
            cache.put_vectors(new, model_id)
        except (sqlite3.Error, OSError):  # a full or read-only disk costs the next restart only
            pass
    return out
