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
are identical to scoring everything. After the last term the bound is 0, so
a query that never prunes still ends with a few exact re-scores. When the
candidates are too many to re-score cheaply, the caller scores every passage
as before. The partial scores live in a per-thread array reset row by row
(by one fill when the rows summed are many).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

if TYPE_CHECKING:
    from .bm25 import BM25Index

SAFETY = 1e-9  # relative slack for rounding: partial sums are summed in another order
# A candidate's exact re-score costs about this many postings of a full scoring
# per query term (a binary search in each column). Speed only, never results:
# both ways give the same top k. Set by the cost of a binary search (log2 of
# a long column); the 200k synthetic bench confirmed it (docs/decisions.md).
RESCORE_COST = 16
# Past len(partial) / RESET_FILL_SHARE summed postings, the partial scores are
# reset by one fill rather than row by row (speed only; all zeros either way).
RESET_FILL_SHARE = 8


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
    # ``rows`` in the column's dtype: a wider one makes numpy cast the whole
    # column on every call (the same positions either way).
    pos = np.minimum(np.searchsorted(held, rows.astype(held.dtype)), end - start - 1)
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


def _add_column(
    out: np.ndarray, matrix: sparse.csc_matrix, col: int, factor: float, added: list[np.ndarray]
) -> int:
    """``out += matrix[:, col] * factor`` in place (a column's rows are
    distinct); the rows go to ``added``. Returns how many there were."""
    start, end = int(matrix.indptr[col]), int(matrix.indptr[col + 1])
    rows = matrix.indices[start:end]
    out[rows] += matrix.data[start:end] * factor
    added.append(rows)
    return end - start


def _bounds(index: BM25Index, uniq: np.ndarray, counts: np.ndarray, maxima: np.ndarray) -> np.ndarray:
    """The most each term can add to one passage's score (body and heading)."""
    has_heading = (index.heading.indptr[uniq + 1] - index.heading.indptr[uniq]) > 0
    return counts * maxima[uniq] + index.params.heading_weight * index.idf[uniq] * has_heading


def pruned_top_k(index: BM25Index, ids: np.ndarray, k: int) -> list[tuple[int, float]] | None:
    """``top_k(index.scores_from_ids(ids), k)``, or None when scoring every
    passage is the cheaper way to it.

    Terms are summed from the shortest column up; after each, the longer
    terms not yet summed are bounded, and the search stops as soon as their
    bound falls below the k-th best partial score (after the last term the
    bound is 0), then re-scores the few rows that can still reach the top k."""
    maxima = getattr(index, "column_max", None)
    if maxima is None or k <= 0 or not len(ids) or not index.size or index.idf.min() < 0:
        return None  # pruning needs every contribution >= 0 and the stored column maxima
    uniq, counts = np.unique(ids, return_counts=True)
    lengths = index.matrix.indptr[uniq + 1] - index.matrix.indptr[uniq]
    by_length = np.argsort(lengths, kind="stable")
    bounds = _bounds(index, uniq, counts, maxima)[by_length]
    rest = np.append(np.cumsum(bounds[::-1])[::-1], 0.0)  # bound of terms i.. on; 0 after the last
    # Re-scoring a candidate looks it up in every term's column; past this
    # many candidates, scoring every passage (the columns' postings, then two
    # passes over the collection) costs less.
    most = max(k, int((lengths.sum() + 2 * index.size) / (RESCORE_COST * len(uniq))))
    added: list[np.ndarray] = []
    with _scratch(index.size) as partial:
        try:
            rows = _summed_candidates(index, uniq, counts, by_length, bounds, rest, k, most, partial, added)
        finally:
            # The scratch array goes back to all zeros: row by row, or in one
            # pass when the rows summed are many (scattered writes cost more).
            if sum(len(held) for held in added) > len(partial) // RESET_FILL_SHARE:
                partial.fill(0.0)
            else:
                for held in added:
                    partial[held] = 0.0
    return None if rows is None else _exact_top(index, uniq, counts, rows, k)


def _summed_candidates(
    index: BM25Index,
    uniq: np.ndarray,
    counts: np.ndarray,
    by_length: np.ndarray,
    bounds: np.ndarray,
    rest: np.ndarray,
    k: int,
    most: int,
    partial: np.ndarray,
    added: list[np.ndarray],
) -> np.ndarray | None:
    """The loop of :func:`pruned_top_k`: the candidate rows, or None."""
    weight = index.params.heading_weight
    summed, spent, last = 0, 0.0, len(by_length) - 1
    for i, j in enumerate(by_length.tolist()):
        term = int(uniq[j])
        summed += _add_column(partial, index.matrix, term, float(counts[j]), added)
        if weight:
            summed += _add_column(partial, index.heading, term, weight * float(index.idf[term]), added)
        if i == last:
            return _candidates(partial, 0.0, k, last=True)
        spent += float(bounds[i])
        bound = float(rest[i + 1]) * (1 + SAFETY)
        # No k-th best partial score yet, or none can exceed the bound: no scan.
        if summed < k or bound >= spent:
            continue
        rows = _candidates(partial, bound, k)
        if rows is not None and len(rows) <= most:
            return rows
    return None


def _exact_top(
    index: BM25Index, uniq: np.ndarray, counts: np.ndarray, rows: np.ndarray, k: int
) -> list[tuple[int, float]]:
    scores = exact_scores(index, uniq, counts, rows)
    keep = scores > 0
    rows, scores = rows[keep], scores[keep]
    order = np.lexsort((rows, -scores))[:k]
    return [(int(rows[i]), float(scores[i])) for i in order]


def _candidates(partial: np.ndarray, bound: float, k: int, last: bool = False) -> np.ndarray | None:
    """The rows that may reach the top k when the terms not summed in
    ``partial`` add at most ``bound``; None when that bound prunes nothing
    for sure (it reaches the k-th best partial score). With ``last`` (every
    term summed, bound 0) fewer than k scored rows are all candidates.

    Only the rows above ``bound`` can hold the k best (the k-th best partial,
    less the slack, must exceed it), so the k-th best is looked for among
    those alone, and the whole array is scanned once more only when it prunes.
    (Reading the summed columns' rows instead of scanning was slower on the
    200k bench: they are many and repeat.)"""
    above = np.flatnonzero(partial > bound)
    if len(above) < k:
        return above if last and len(above) else None
    values = partial[above]
    strong = values[values * (1 - SAFETY) > bound]  # the rows whose floor would exceed the bound
    if len(strong) < k:
        return None
    floor = float(np.partition(strong, len(strong) - k)[len(strong) - k]) * (1 - SAFETY)
    if floor > 2 * bound:
        # Then partial + bound >= floor only where partial > bound (float
        # addition is monotonic and 2 * bound exact): the rows of ``above``,
        # tested by the same expression, so no second pass over the array.
        return above[values + bound >= floor]
    return np.flatnonzero(partial + bound >= floor)


class _Scratch(threading.local):
    """Per thread, a partial-score array kept between queries and reset row
    by row, so a query neither allocates nor clears a collection's worth."""

    partial: np.ndarray | None = None
    busy: bool = False


_SCRATCH = _Scratch()


@contextmanager
def _scratch(size: int) -> Iterator[np.ndarray]:
    mine = _SCRATCH
    if mine.busy:  # re-entered on this thread: a fresh array
        yield np.zeros(size, dtype=np.float64)
        return
    if mine.partial is None or len(mine.partial) < size:
        mine.partial = np.zeros(size, dtype=np.float64)
    mine.busy = True
    try:
        yield mine.partial[:size]
    finally:
        mine.busy = False
