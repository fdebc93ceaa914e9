"""The exact BM25 top k of a query's term ids, from a per-thread scratch array (#18).

Each query term's column (its postings) is added into the scratch array in
the order ``BM25Index.scores_from_ids`` sums them (terms by id, from 0.0), so
the sums are the scores themselves: scores and ranking are identical to
scoring everything into a fresh array, without allocating (and page-faulting)
a collection's worth of memory per query. The top k is then read from rows at
or above a sampled guess of the k-th score, and the rows summed go back to
zero (by one fill when they are many). A large index is searched as one span
of rows per core at once, each span's exact top k merged.

Sessions 5-8 bounded the common terms instead (MaxScore: sum the rare
columns, re-score the few rows that could still reach the top k); on the
bench's Zipf text, summing every column this way took 0.5x (1M passages) to
0.7x (100k) of that path's time, so the bounding was removed (docs/decisions.md).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from . import dense as _dense  # its span runner: one span of rows per core

try:  # y += A @ x for a CSC matrix, scipy's C loop (it lets go of the interpreter lock)
    from scipy.sparse._sparsetools import csc_matvec as _csc_matvec
except ImportError:  # a scipy without it: np.add.at, the same sums
    _csc_matvec = None

if TYPE_CHECKING:
    from .bm25 import BM25Index

# Past len(partial) / RESET_FILL_SHARE summed postings, the partial scores are
# reset by one fill rather than row by row (speed only; all zeros either way).
RESET_FILL_SHARE = 8
# Rows are split into spans searched at once (one per core) in multiples of
# this many, from two whole blocks a span on: below about 131,000 passages a
# thread's start is not repaid. Speed only: every split gives the same top k.
SPAN_BLOCK = 65_536


def search_top_k(index: BM25Index, ids: np.ndarray, k: int) -> list[tuple[int, float]]:
    """``top_k(index.scores_from_ids(ids), k)``: the same rows and scores in
    the same order, for an index whose scores are its body and heading
    columns alone (the caller scores named documents and table rows in full).

    A large index is split into one span of rows per core, searched at once
    (numpy and scipy let go of the interpreter lock): each span's exact top
    k, and the k best of those by (score, row) are the whole index's top k."""
    if k <= 0 or not len(ids) or not index.size:
        return []
    # The distinct terms and their counts of a query of a few words, in
    # Python (np.unique costs more than the sums of a rare word).
    listed = ids.tolist()
    distinct = sorted(set(listed))
    uniq = np.asarray(distinct, dtype=np.int64)
    counts = [listed.count(t) for t in distinct]
    tops: dict[int, list[tuple[int, float]]] = {}
    with _scratch(index.size) as partial:  # the spans' rows are disjoint: one array serves all

        def span_top(first: int, last: int) -> None:
            tops[first] = _span_top(index, uniq, counts, k, partial, first, last)

        _dense._in_parallel(span_top, index.size, SPAN_BLOCK)
    if len(tops) == 1:
        return next(iter(tops.values()))
    merged = [hit for first in sorted(tops) for hit in tops[first]]
    return sorted(merged, key=lambda hit: (-hit[1], hit[0]))[:k]


def _span_top(
    index: BM25Index, uniq: np.ndarray, counts: list[int], k: int, partial: np.ndarray, first: int, last: int
) -> list[tuple[int, float]]:
    """The exact top k of rows ``first..last-1`` with every term's column
    summed into ``partial`` in ``scores_from_ids``'s order (terms by id, from
    0.0), so the sums are the scores themselves and need no re-scoring;
    ``partial`` (zeros there) is left all zeros there."""
    added: list[np.ndarray] = []
    try:
        for span, count in zip(_positions(index.matrix, uniq, first, last), counts, strict=True):
            _add_column(partial, index.matrix, span, float(count), added)
        if index.params.heading_weight:
            _add_heading(partial, index, uniq, _positions(index.heading, uniq, first, last), added)
        top = top_k(partial[first:last], k)
    finally:
        _reset(partial, added, first, last)
    return [(row + first, score) for row, score in top]


def _add_heading(
    partial: np.ndarray,
    index: BM25Index,
    uniq: np.ndarray,
    spans: list[tuple[int, int]],
    added: list[np.ndarray],
) -> None:
    """``partial += heading_weight * heading`` as ``scores_from_ids`` adds it,
    where ``heading`` sums each term's heading column times its idf in term
    order: summed here over the rows that hold a query term in their heading
    alone (np.add.at adds in the order given, so each row's sum is the same;
    a row with none would add 0.0, which changes no score)."""
    m = index.heading
    pieces = [
        (m.indices[s:e], m.data[s:e] * index.idf[t])
        for (s, e), t in zip(spans, uniq.tolist(), strict=True)
        if e > s
    ]
    if not pieces:
        return
    rows, slot = np.unique(np.concatenate([r for r, _ in pieces]), return_inverse=True)
    heading = np.zeros(len(rows), dtype=np.float64)
    np.add.at(heading, slot, np.concatenate([v for _, v in pieces]))
    partial[rows] += index.params.heading_weight * heading
    added.append(rows)


def _reset(partial: np.ndarray, added: list[np.ndarray], first: int, last: int) -> None:
    """Back to all zeros: row by row, or in one pass when the rows summed
    are many (scattered writes cost more)."""
    if sum(len(held) for held in added) > (last - first) // RESET_FILL_SHARE:
        partial[first:last].fill(0.0)
    else:
        for held in added:
            partial[held] = 0.0


def _add_column(
    out: np.ndarray, matrix: sparse.csc_matrix, span: tuple[int, int], factor: float, added: list[np.ndarray]
) -> int:
    """``out += matrix[:, col] * factor`` in place over the column's stored
    positions ``span`` (a column's rows are distinct); the rows go to
    ``added``. Returns how many there were."""
    start, end = span
    rows = matrix.indices[start:end]
    add_values(out, rows, matrix.data[start:end], factor)
    added.append(rows)
    return end - start


def add_values(
    out: np.ndarray, rows: np.ndarray, values: np.ndarray, factor: float | np.floating = 1.0
) -> None:
    """``out[rows] += values * factor`` for distinct ``rows``, as
    ``np.add.at(out, rows, values * factor)`` adds it."""
    if factor == 1.0 and _matvec_fits(out, rows, values):
        # scipy's CSC product loop over one column, ``out[row] += value *
        # 1.0`` row by row: the same additions as np.add.at below (value *
        # 1.0 is value, fused or not), in half its time (100k passages, a
        # column of 99,541 rows: 75 against 158 us).
        _csc_matvec(len(out), 1, np.asarray([0, len(rows)], dtype=rows.dtype), rows, values, _ONE, out)
    else:
        # np.add.at makes the same additions as ``out[rows] += values`` (the
        # rows are distinct) without casting the int32 rows to intp or
        # gathering and scattering through temporaries: 2.5x faster here.
        np.add.at(out, rows, values if factor == 1.0 else values * factor)  # x * 1.0 is x: one pass fewer


_ONE = np.ones(1, dtype=np.float64)


def _matvec_fits(out: np.ndarray, rows: np.ndarray, values: np.ndarray) -> bool:
    """Whether scipy's loop can add into ``out`` itself: it would quietly
    work on a converted copy of an array of another type or layout."""
    return (
        _csc_matvec is not None
        and out.dtype == np.float64
        and values.dtype == np.float64
        and rows.dtype in (np.int32, np.int64)
        and out.flags.c_contiguous
        and out.flags.writeable
        and values.flags.c_contiguous
        and rows.flags.c_contiguous
    )


def _positions(matrix: sparse.csc_matrix, cols: np.ndarray, first: int, last: int) -> list[tuple[int, int]]:
    """For each of ``cols``, the stored positions of its rows in ``first..last-1``
    (a column's rows are sorted)."""
    out = []
    for col in cols.tolist():
        start, end = int(matrix.indptr[col]), int(matrix.indptr[col + 1])
        if first > 0 or last < matrix.shape[0]:
            held = matrix.indices[start:end]
            # The bounds in the column's dtype: a wider one casts the whole column (same positions).
            lo, hi = np.searchsorted(held, np.asarray([first, last], dtype=held.dtype)).tolist()
            start, end = start + lo, start + hi
        out.append((start, end))
    return out


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``k`` best rows with a positive score, best first; ties broken by
    row everywhere, the k-th place included, so results are reproducible.

    Only rows at or above a guess of the k-th best score are looked at: the
    k-th best positive score of every ``KTH_STRIDE``-th row is at most the
    k-th best of all, so no row of the top k is missed, and a query of common
    words (nearly every passage positive) no longer lists every passage
    (100k passages: 0.39 against 0.06 ms). Only positive values are
    partitioned: numpy's partition slows down by two orders of magnitude on
    arrays that are mostly equal values (the zeros of passages matching no
    query word)."""
    if k <= 0 or not len(scores):
        return []
    sample = scores[::KTH_STRIDE]
    sample = sample[sample > 0]
    if len(sample) >= k:
        guess = np.partition(sample, len(sample) - k)[len(sample) - k]
        positive = np.flatnonzero(scores >= guess)
    else:
        positive = np.flatnonzero(scores > 0)
    if positive.size == 0:
        return []
    if positive.size > k:
        values = scores[positive]
        cut = kth_largest(values, k)
        above = positive[values > cut]
        positive = np.concatenate([above, positive[values == cut][: k - above.size]])
    order = np.lexsort((positive, -scores[positive]))
    return [(int(positive[i]), float(scores[positive[i]])) for i in order]


KTH_STRIDE = 16  # kth_largest: every 16th value guesses the cut (speed only, the same value)


def kth_largest(values: np.ndarray, k: int) -> float:
    """The ``k``-th largest of ``values`` (1 <= k <= len), as
    ``np.partition`` gives it, partitioning far fewer values: the k-th
    largest of every ``KTH_STRIDE``-th value is at most the answer (those k
    values are all in ``values``), so the answer is the k-th largest of the
    values at or above that guess. (A partition of 360,000 scores took 4 ms;
    the guess, one comparison pass and a small partition about 1 ms.)"""
    n = len(values)
    if n < 4 * KTH_STRIDE * k:
        return float(np.partition(values, n - k)[n - k])
    sample = values[::KTH_STRIDE]
    guess = np.partition(sample, len(sample) - k)[len(sample) - k]
    top = values[values >= guess]
    return float(np.partition(top, len(top) - k)[len(top) - k])


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


def column_sum(matrix: sparse.csc_matrix, cols: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``matrix[:, cols] @ weights`` read straight from the CSC arrays, without
    building the sliced matrix (same products, summed in the same order, so
    the result is identical; a few times faster for a short query). Each
    column is added in place (``bm25_topk.add_values``): every row's products
    are summed from 0.0 in column order, as a bincount of the columns joined
    would, without joining them or casting their int32 rows."""
    out = np.zeros(matrix.shape[0], dtype=np.float64)
    starts, ends = matrix.indptr[cols], matrix.indptr[cols + 1]
    for s, e, w in zip(starts.tolist(), ends.tolist(), weights, strict=True):
        add_values(out, matrix.indices[s:e], matrix.data[s:e], w)  # w a numpy float64: the same products
    return out
