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
(by one fill when the rows summed are many). A large index is searched as
one span of rows per core at once, each span's exact top k merged.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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

SAFETY = 1e-9  # relative slack for rounding: partial sums are summed in another order
# A candidate's exact re-score costs about this many postings of a full scoring
# per query term (a binary search in each column). Speed only, never results:
# both ways give the same top k. Set by the cost of a binary search (log2 of
# a long column); the 200k synthetic bench confirmed it (docs/decisions.md).
RESCORE_COST = 16
# Past len(partial) / RESET_FILL_SHARE summed postings, the partial scores are
# reset by one fill rather than row by row (speed only; all zeros either way).
RESET_FILL_SHARE = 8
# Rows are split into spans searched at once (one per core) in multiples of
# this many, from two whole blocks a span on: below about 131,000 passages a
# thread's start is not repaid. Speed only: every split gives the same top k.
SPAN_BLOCK = 65_536


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
    out: np.ndarray, matrix: sparse.csc_matrix, span: tuple[int, int], factor: float, added: list[np.ndarray]
) -> int:
    """``out += matrix[:, col] * factor`` in place over the column's stored
    positions ``span`` (a column's rows are distinct); the rows go to
    ``added``. Returns how many there were."""
    start, end = span
    rows = matrix.indices[start:end]
    values = matrix.data[start:end]
    if factor == 1.0 and _matvec_fits(out, rows, values):
        # scipy's CSC product loop over this one column, ``out[row] +=
        # value * 1.0`` row by row: the same additions as np.add.at below
        # (value * 1.0 is value, fused or not), in half its time (100k
        # passages, a column of 99,541 rows: 75 against 158 us).
        _csc_matvec(len(out), 1, np.asarray([0, end - start], dtype=rows.dtype), rows, values, _ONE, out)
    else:
        # np.add.at makes the same additions as ``out[rows] += values`` (a
        # column's rows are distinct) without casting the int32 rows to intp or
        # gathering and scattering through temporaries: 2.5x faster here.
        np.add.at(out, rows, values if factor == 1.0 else values * factor)  # x * 1.0 is x: one pass fewer
    added.append(rows)
    return end - start


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


def _bounds(index: BM25Index, uniq: np.ndarray, counts: np.ndarray, maxima: np.ndarray) -> np.ndarray:
    """The most each term can add to one passage's score (body and heading)."""
    has_heading = (index.heading.indptr[uniq + 1] - index.heading.indptr[uniq]) > 0
    return counts * maxima[uniq] + index.params.heading_weight * index.idf[uniq] * has_heading


def pruned_top_k(index: BM25Index, ids: np.ndarray, k: int) -> list[tuple[int, float]] | None:
    """``top_k(index.scores_from_ids(ids), k)``: the same rows and scores in
    the same order; None for no query term or no passage.

    Each span of rows is searched one of two ways: every term's column summed
    into a scratch array (``_dense_span_top``), or terms summed from the
    shortest column up, the longer ones only bounded (``_span_top``).
    A large index is split into one span of rows per core, searched at once
    (numpy lets go of the interpreter lock): each span's exact top k, and the
    k best of those by (score, row) are the whole index's top k."""
    if k <= 0 or not len(ids) or not index.size:
        return None
    # The distinct terms and their counts of a query of a few words, in
    # Python (np.unique costs more than the sums of a rare word).
    listed = ids.tolist()
    distinct = sorted(set(listed))
    uniq = np.asarray(distinct, dtype=np.int64)
    counts = np.asarray([listed.count(t) for t in distinct], dtype=np.int64)
    terms = _maxscore_terms(index, uniq, counts) if _maxscore_pays(index, uniq) else None
    tops: dict[int, list[tuple[int, float]]] = {}
    with _scratch(index.size) as partial:  # the spans' rows are disjoint: one array serves all

        def span_top(first: int, last: int) -> None:
            top = None if terms is None else _span_top(index, terms, k, partial, first, last)
            tops[first] = (
                _dense_span_top(index, uniq, counts, k, partial, first, last) if top is None else top
            )

        _dense._in_parallel(span_top, index.size, SPAN_BLOCK)
    if len(tops) == 1:
        return next(iter(tops.values()))
    merged = [hit for first in sorted(tops) for hit in tops[first]]
    return sorted(merged, key=lambda hit: (-hit[1], hit[0]))[:k]


MAXSCORE = False


def _maxscore_pays(index: BM25Index, uniq: np.ndarray) -> bool:
    """Whether bounding the longer columns is likely to beat summing them all."""
    if getattr(index, "column_max", None) is None or index.idf[uniq].min() < 0:
        return False  # pruning needs every contribution >= 0 and the stored column maxima
    return MAXSCORE


def _maxscore_terms(index: BM25Index, uniq: np.ndarray, counts: np.ndarray) -> _Terms:
    lengths = index.matrix.indptr[uniq + 1] - index.matrix.indptr[uniq]
    by_length = np.argsort(lengths, kind="stable")
    bounds = _bounds(index, uniq, counts, index.column_max)[by_length]
    return _Terms(uniq, counts, by_length, bounds, np.append(np.cumsum(bounds[::-1])[::-1], 0.0))


@dataclass(frozen=True)
class _Terms:
    """A query's distinct terms, how often each occurs, their order (shortest
    column first), each one's bound in that order, and the bound of terms i.. on."""

    uniq: np.ndarray
    counts: np.ndarray
    by_length: np.ndarray
    bounds: np.ndarray
    rest: np.ndarray


def _span_top(
    index: BM25Index, terms: _Terms, k: int, partial: np.ndarray, first: int, last: int
) -> list[tuple[int, float]] | None:
    """The exact top k of rows ``first..last-1``, or None when scoring every
    passage is cheaper; ``partial`` (zeros there) is left all zeros there."""
    order = terms.uniq[terms.by_length]
    body = _positions(index.matrix, order, first, last)
    heading = _positions(index.heading, order, first, last)
    # Re-scoring a candidate looks it up in every term's column; past this
    # many candidates, scoring every passage (the columns' postings, then two
    # passes over the collection) costs less.
    postings = sum(end - start for start, end in body)
    most = max(k, int((postings + 2 * (last - first)) / (RESCORE_COST * len(order))))
    added: list[np.ndarray] = []
    try:
        rows = _summed_candidates(index, terms, (body, heading), k, most, partial, added, first, last)
    finally:
        _reset(partial, added, first, last)
    return None if rows is None else _exact_top(index, terms.uniq, terms.counts, rows, k)


def _dense_span_top(
    index: BM25Index, uniq: np.ndarray, counts: np.ndarray, k: int, partial: np.ndarray, first: int, last: int
) -> list[tuple[int, float]]:
    """The exact top k of rows ``first..last-1`` with every term's column
    summed into ``partial`` in ``scores_from_ids``'s order (terms by id, from
    0.0), so the sums are the scores themselves and need no re-scoring;
    ``partial`` (zeros there) is left all zeros there."""
    added: list[np.ndarray] = []
    try:
        for span, count in zip(_positions(index.matrix, uniq, first, last), counts.tolist(), strict=True):
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


def _summed_candidates(
    index: BM25Index,
    terms: _Terms,
    positions: tuple[list[tuple[int, int]], list[tuple[int, int]]],
    k: int,
    most: int,
    partial: np.ndarray,
    added: list[np.ndarray],
    first: int,
    last: int,
) -> np.ndarray | None:
    """The loop of :func:`_span_top`: the candidate rows, or None."""
    weight = index.params.heading_weight
    body, heading = positions
    view = partial[first:last]
    summed, spent, end = 0, 0.0, len(terms.by_length) - 1
    for i, j in enumerate(terms.by_length.tolist()):
        term = int(terms.uniq[j])
        summed += _add_column(partial, index.matrix, body[i], float(terms.counts[j]), added)
        if weight:
            summed += _add_column(partial, index.heading, heading[i], weight * float(index.idf[term]), added)
        if i == end:
            rows = _candidates(view, 0.0, k, last=True)
            return None if rows is None else rows + first
        spent += float(terms.bounds[i])
        bound = float(terms.rest[i + 1]) * (1 + SAFETY)
        # No k-th best partial score yet, or none can exceed the bound: no scan.
        if summed < k or bound >= spent:
            continue
        rows = _candidates(view, bound, k)
        if rows is not None and len(rows) <= most:
            return rows + first
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
    200k bench, and no faster at 1M even when they were few: they repeat.)"""
    above = np.flatnonzero(partial > bound)
    if len(above) < k:
        return above if last and len(above) else None
    values = partial[above]
    strong = values[values * (1 - SAFETY) > bound]  # the rows whose floor would exceed the bound
    if len(strong) < k:
        return None
    floor = kth_largest(strong, k) * (1 - SAFETY)
    if floor > 2 * bound:
        # Then partial + bound >= floor only where partial > bound (float
        # addition is monotonic and 2 * bound exact): the rows of ``above``,
        # tested by the same expression, so no second pass over the array.
        return above[values + bound >= floor]
    return _reaching(partial, bound, floor)


def _reaching(partial: np.ndarray, bound: float, floor: float) -> np.ndarray:
    """``np.flatnonzero(partial + bound >= floor)`` without a full-size sum:
    a comparison with a threshold a little below ``floor - bound`` keeps every
    row that passes (the slack, 2**-40 of ``floor + bound``, is far above
    float64 rounding), then the rows kept are tested by the same expression."""
    threshold = (floor - bound) - (floor + bound) * 2.0**-40
    rows = np.flatnonzero(partial >= threshold)
    return rows[partial[rows] + bound >= floor]


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
