"""The exact BM25 top k without summing every passage's score (#18).

A query term held by most passages (a common word) costs a pass over most of
the collection, yet adds little to any score. As in MaxScore (Turtle & Flood,
"Query evaluation: strategies and optimizations", 1995), each term's largest
contribution bounds what it can add: the rare terms are summed in full, the
common ones only bounded. When even the bound of all common terms together
falls below the k-th best partial score, no passage outside the few whose
partial score comes within that bound can reach the top k, and only those are
scored exactly, term by term in the order ``BM25Index.scores_from_ids`` sums
them (absent terms add 0.0, which changes no float), so scores and ranking
are identical to scoring everything. When the bound does not prune, the
caller scores every passage as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

if TYPE_CHECKING:
    from .bm25 import BM25Index

COMMON_SHARE = 1 / 32  # a term in more than this share of passages is only bounded
SAFETY = 1e-9  # relative slack for rounding: partial sums are summed in another order


def column_max(matrix: sparse.csc_matrix) -> np.ndarray:
    """Each column's largest stored value (0 for an empty column), float64."""
    out = np.zeros(matrix.shape[1], dtype=np.float64)
    lengths = np.diff(matrix.indptr)
    nonempty = np.flatnonzero(lengths)
    if len(nonempty):
        out[nonempty] = np.maximum.reduceat(np.asarray(matrix.data), matrix.indptr[nonempty])
    return out


def _column_values(matrix: sparse.csc_matrix, col: int, rows: np.ndarray) -> np.ndarray:
    """``matrix[rows, col]`` for sorted ``rows`` (0.0 where absent), from the sorted column."""
    start, end = int(matrix.indptr[col]), int(matrix.indptr[col + 1])
    out = np.zeros(len(rows), dtype=np.float64)
    if end == start or not len(rows):
        return out
    held = matrix.indices[start:end]
    pos = np.minimum(np.searchsorted(held, rows), end - start - 1)
    found = held[pos] == rows
    out[found] = matrix.data[start + pos[found]]
    return out


def exact_scores(index: BM25Index, uniq: np.ndarray, counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``index.scores_from_ids(ids)[rows]`` for sorted ``rows``, with the same
    floating-point operations in the same order."""
    body = np.zeros(len(rows), dtype=np.float64)
    for term, count in zip(uniq.tolist(), counts.tolist(), strict=True):
        body += _column_values(index.matrix, term, rows) * count
    weight = index.params.heading_weight
    if weight:
        heading = np.zeros(len(rows), dtype=np.float64)
        for term in uniq.tolist():
            heading += _column_values(index.heading, term, rows) * index.idf[term]
        body += weight * heading
    return body


def _add_column(out: np.ndarray, matrix: sparse.csc_matrix, col: int, factor: float) -> None:
    """``out += matrix[:, col] * factor`` in place (a column's rows are distinct)."""
    start, end = int(matrix.indptr[col]), int(matrix.indptr[col + 1])
    out[matrix.indices[start:end]] += matrix.data[start:end] * factor


def _bounds(index: BM25Index, uniq: np.ndarray, counts: np.ndarray, maxima: np.ndarray) -> np.ndarray:
    """The most each term can add to one passage's score (body and heading)."""
    has_heading = (index.heading.indptr[uniq + 1] - index.heading.indptr[uniq]) > 0
    return counts * maxima[uniq] + index.params.heading_weight * index.idf[uniq] * has_heading


def pruned_top_k(index: BM25Index, ids: np.ndarray, k: int) -> list[tuple[int, float]] | None:
    """``top_k(index.scores_from_ids(ids), k)`` when the bound prunes, else None.

    Terms are summed from the shortest column up; after each, the longer
    terms not yet summed are bounded, and the search stops as soon as their
    bound falls below the k-th best partial score."""
    maxima = getattr(index, "column_max", None)
    if maxima is None or k <= 0 or not len(ids) or not index.size or index.idf.min() < 0:
        return None  # pruning needs every contribution >= 0 and the stored column maxima
    uniq, counts = np.unique(ids, return_counts=True)
    lengths = index.matrix.indptr[uniq + 1] - index.matrix.indptr[uniq]
    if len(uniq) < 2 or lengths.max() <= COMMON_SHARE * index.size:
        return None  # nothing long enough to be worth skipping
    by_length = np.argsort(lengths, kind="stable")
    rest = np.cumsum(_bounds(index, uniq, counts, maxima)[by_length][::-1])[::-1]  # bound of terms i.. on
    weight = index.params.heading_weight
    partial = np.zeros(index.size, dtype=np.float64)
    for i, j in enumerate(by_length[:-1].tolist()):
        term = int(uniq[j])
        _add_column(partial, index.matrix, term, float(counts[j]))
        if weight:
            _add_column(partial, index.heading, term, weight * float(index.idf[term]))
        bound = float(rest[i + 1]) * (1 + SAFETY)
        rows = _candidates(partial, bound, k)
        if rows is not None:
            scores = exact_scores(index, uniq, counts, rows)
            keep = scores > 0
            rows, scores = rows[keep], scores[keep]
            order = np.lexsort((rows, -scores))[:k]
            return [(int(rows[i]), float(scores[i])) for i in order]
    return None


def _candidates(partial: np.ndarray, bound: float, k: int) -> np.ndarray | None:
    """The rows that may reach the top k when the terms not summed in
    ``partial`` add at most ``bound``; None when that bound prunes nothing
    for sure (it reaches the k-th best partial score)."""
    positive = np.flatnonzero(partial > 0)
    if len(positive) < k:
        return None
    values = partial[positive]
    floor = float(np.partition(values, len(values) - k)[len(values) - k]) * (1 - SAFETY)
    if not bound < floor:
        return None
    return positive[values + bound >= floor]
