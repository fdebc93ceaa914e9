"""What one search returns: the hits and what happened on the way.

Per-call facts live here, never on the retriever, so one retriever serves
any number of concurrent searches without a lock.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from ..records import Hit
from .protocols import Mode


@dataclass(frozen=True)
class SearchResult:
    """The top hits of one search, what fell back and why (``notes``), and
    how long each stage took (``timings_ms``: "bm25", "embed_query",
    "dense", "fuse", "rerank", "total", as the mode ran them)."""

    hits: list[Hit]
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    mode: Mode = "hybrid"


@dataclass
class CallLog:
    """Notes and stage timings gathered while one search runs (private to it)."""

    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    query_vector: np.ndarray | None = None  # the dense query's vector, kept for feedback (prf)

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings_ms[stage] = (time.perf_counter() - started) * 1000
