"""Dense nearest-neighbour search over L2-normalised passage vectors.

Exact search is one matrix-vector product (cosine = dot product for unit
vectors, as in Sentence-BERT, Reimers & Gurevych 2019) and an ``argpartition``
for the top k. An exact index keeps its vectors transposed, shape (dim, n):
on this 2-core machine the product over a (dim, n) array ran about 2x faster
than over (n, dim) (10 ms against 22 ms at 100k x 384, one BLAS thread); the
scan is bound by memory bandwidth, so no exact scan of 100k x 384 float32
fits a 6 ms budget.

Large indexes therefore search in three steps, each on fewer rows and with
more precise vectors: sign bits (Charikar 2002, "Similarity estimation
techniques from rounding algorithms": the Hamming distance of sign bits
estimates the angle), 48 bytes per vector instead of 1536, pick
``PREFILTER_FRACTION`` of the rows; their int8 codes (one scale per row)
rank those; the best ``RESCORE_FACTOR * k`` are rescored exactly in float32.
Returned scores are always exact cosines; only which rows reach the last step
is approximate. The fraction and the int8 step were chosen by recall@10
against exact search on BEIR vaswani (``scripts/dense_recall.py``,
docs/decisions.md). Random vectors have no close neighbours to find, so
benchmarks on them measure speed only; ``prefilter="exact"`` is always
available.

A prefiltered index can be saved to a folder and opened memory-mapped
(``save`` / ``load``): the float32 rows stay on disk and only the rows
rescored are read, so a restart neither rebuilds nor copies them.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

import numpy as np

from .blas import one_blas_thread

# ------------------------------------------------------------------ index

Prefilter = Literal["auto", "exact", "sign"]
PREFILTERS: tuple[Prefilter, ...] = ("auto", "exact", "sign")

# Above this many rows "auto" switches from exact search to the three-step search.
PREFILTER_MIN_ROWS = 50_000
# Rows the sign bits keep: max(MIN_CANDIDATES, FRACTION * n, FACTOR * k).
PREFILTER_MIN_CANDIDATES = 1000
PREFILTER_FRACTION = 0.02  # chosen on Vaswani by scripts/dense_recall.py: docs/decisions.md
PREFILTER_FACTOR = 10
# Rows the int8 codes pass on to exact float32 rescoring: max(MIN, FACTOR * k).
RESCORE_MIN = 100
RESCORE_FACTOR = 10
FORMAT_VERSION = 1
SCAN_BLOCK = 65_536  # rows per block of the sign-bit scan
INT8_BLOCK = 1024  # rows per block of the int8 step, when it is split over cores
INT8_CHUNK = 256  # rows converted to float32 at a time in the int8 step


def int8_codes(matrix: np.ndarray, block: int = 65_536) -> tuple[np.ndarray, np.ndarray]:
    """Each row scaled so its largest magnitude is 127 and rounded: (codes
    int8 (n, dim), per-row factor back to the original scale, float32 (n,)).
    Made in blocks of rows, so no float copy of the whole matrix is needed."""
    n, dim = matrix.shape
    codes = np.empty((n, dim), dtype=np.int8)
    scale = np.empty(n, dtype=np.float32)
    for start in range(0, n, block):
        part = np.asarray(matrix[start : start + block], dtype=np.float32)
        peak = np.abs(part).max(axis=1) if dim else np.zeros(len(part), np.float32)
        peak = np.where(peak > 0, peak, 1.0).astype(np.float32)
        codes[start : start + block] = np.rint(part * (127 / peak)[:, None])
        scale[start : start + block] = peak / 127
    return codes, scale


def _sign_codes(matrix: np.ndarray) -> np.ndarray:
    """Sign bits of each row of an (n, dim) array, as (words, n) uint64, zero-padded.

    Word-major so the Hamming scan reads each word as one contiguous run.
    """
    n, dim = matrix.shape
    words = -(-dim // 64)
    bits = np.zeros((n, words * 64), dtype=bool)
    bits[:, :dim] = matrix > 0
    packed = np.packbits(bits, axis=1)  # (n, words * 8) uint8, C-contiguous
    return np.ascontiguousarray(packed.view(np.uint64).T)  # (words, n)


def write_blocks(folder: Path, blocks: Iterable[np.ndarray], n: int, dim: int) -> None:
    """Write a three-step index of ``n`` vectors that arrive in blocks of
    rows (e.g. as they are embedded) straight to ``folder`` in ``save``'s
    format: the float32 rows go to disk with plain file writes, so neither
    they nor a copy of them is ever in memory whole; only the int8 codes and
    sign bits (what a query scans) are. Open it with ``DenseIndex.load``."""
    folder.mkdir(parents=True, exist_ok=True)
    codes = np.empty((n, dim), dtype=np.int8)
    scale = np.empty(n, dtype=np.float32)
    signs = np.empty((-(-dim // 64), n), dtype=np.uint64)
    done = 0
    with open(folder / "rows.npy", "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f4", "fortran_order": False, "shape": (n, dim)})
        for block in blocks:
            rows = np.ascontiguousarray(block, dtype=np.float32)
            if rows.ndim != 2 or rows.shape[1] != dim or done + len(rows) > n:
                raise ValueError(f"a block of shape {rows.shape} does not fit ({n}, {dim}) after {done} rows")
            if not np.isfinite(rows).all():
                raise ValueError("vectors contain NaN or infinite values")
            fh.write(rows.tobytes())
            end = done + len(rows)
            codes[done:end], scale[done:end] = int8_codes(rows)
            signs[:, done:end] = _sign_codes(rows)
            done = end
    if done != n:
        raise ValueError(f"{done} vectors written, {n} expected")
    for name, array in {"signs": signs, "int8": codes, "scale": scale}.items():
        np.save(folder / f"{name}.npy", array, allow_pickle=False)
    meta = {"version": FORMAT_VERSION, "n": n, "dim": dim, "prefilter": "sign"}
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")  # written last: marks complete


class DenseIndex:
    """Top-k cosine search over rows of ``vectors`` (n, dim), float32, L2-normalised.

    ``ids`` (optional) names each row, e.g. passage ids; results are row numbers.
    ``prefilter``: "exact" always scans every vector; "sign" uses the
    three-step search (sign bits, int8 codes, exact float32); "auto" uses it
    from ``PREFILTER_MIN_ROWS`` rows on.

    Memory: an exact index keeps one transposed float32 copy (the fast layout
    for a full scan). A prefiltered index keeps ``vectors`` as given when they
    are float32 and C-contiguous (a memory map after ``load``), plus per row
    ``dim`` bytes of int8 codes, 4 of scale and 8 per 64 dimensions of sign bits.
    """

    def __init__(
        self, vectors: np.ndarray, ids: Sequence[str] | None = None, prefilter: Prefilter = "auto"
    ) -> None:
        matrix = np.asarray(vectors)
        if matrix.ndim != 2:
            raise ValueError(f"vectors must be a 2-D array (n, dim), not shape {matrix.shape}")
        if matrix.shape[0] and not np.isfinite(matrix).all():
            raise ValueError("vectors contain NaN or infinite values")
        if ids is not None and len(ids) != matrix.shape[0]:
            raise ValueError(f"{len(ids)} ids for {matrix.shape[0]} vectors")
        if prefilter not in PREFILTERS:
            raise ValueError(f"prefilter must be 'auto', 'exact' or 'sign', not {prefilter!r}")
        n = matrix.shape[0]
        use_sign = prefilter == "sign" or (prefilter == "auto" and n >= PREFILTER_MIN_ROWS)
        self._setup(matrix.shape, ids, "sign" if use_sign and n else "exact")
        if self.prefilter == "sign":
            self._rows = np.ascontiguousarray(matrix, dtype=np.float32)
            self._codes = _sign_codes(self._rows)
            self._int8, self._scale = int8_codes(self._rows)
        else:
            self._t = np.ascontiguousarray(matrix.T, dtype=np.float32)

    def _setup(self, shape: tuple[int, ...], ids: Sequence[str] | None, prefilter: Prefilter) -> None:
        self.n, self.dim = int(shape[0]), int(shape[1])
        self.ids: list[str] | None = list(ids) if ids is not None else None
        self.prefilter: Prefilter = prefilter
        self._rows: np.ndarray | None = None  # (n, dim) float32, prefiltered index
        self._t: np.ndarray | None = None  # (dim, n) float32, exact index
        self._codes: np.ndarray | None = None  # (words, n) uint64 sign bits
        self._int8: np.ndarray | None = None  # (n, dim) int8 codes
        self._scale: np.ndarray | None = None  # (n,) float32

    # ------------------------------------------------------------ files

    def save(self, folder: Path) -> None:
        """Write the index to ``folder`` (.npy arrays and meta.json), for ``load``."""
        folder.mkdir(parents=True, exist_ok=True)
        rows = self._rows if self._rows is not None else np.ascontiguousarray(self._t.T)  # type: ignore[union-attr]
        arrays = {"rows": rows, "signs": self._codes, "int8": self._int8, "scale": self._scale}
        for name, array in arrays.items():
            if array is not None:
                np.save(folder / f"{name}.npy", array, allow_pickle=False)
        meta = {"version": FORMAT_VERSION, "n": self.n, "dim": self.dim, "prefilter": self.prefilter}
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")  # written last: marks complete

    @classmethod
    def load(cls, folder: Path) -> DenseIndex:
        """Open an index written by ``save``; a prefiltered one memory-mapped
        (only the rows a query rescores are read from disk)."""
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if meta.get("version") != FORMAT_VERSION:
            raise ValueError(f"{folder}: dense index format {meta.get('version')}, expected {FORMAT_VERSION}")
        index = cls.__new__(cls)
        index._setup((meta["n"], meta["dim"]), None, meta["prefilter"])
        rows = np.load(folder / "rows.npy", mmap_mode="r", allow_pickle=False)
        if rows.shape != (index.n, index.dim):
            raise ValueError(f"{folder}: rows of shape {rows.shape}, meta says {(index.n, index.dim)}")
        if index.prefilter == "sign":
            index._rows = rows
            index._codes = np.load(folder / "signs.npy", mmap_mode="r", allow_pickle=False)
            index._int8 = np.load(folder / "int8.npy", mmap_mode="r", allow_pickle=False)
            index._scale = np.load(folder / "scale.npy", allow_pickle=False)
        else:
            index._t = np.ascontiguousarray(rows.T, dtype=np.float32)
        return index

    # ------------------------------------------------------------ search

    def __len__(self) -> int:
        return self.n

    def _check_row(self, row: int) -> None:
        if not 0 <= row < self.n:
            raise IndexError(f"row {row} is outside the index (0..{self.n - 1})")

    def _query(self, query_vec: np.ndarray) -> np.ndarray:
        query = np.asarray(query_vec, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"query vector has {query.shape[0]} dimensions, the index has {self.dim}")
        return query

    def vector(self, row: int) -> np.ndarray:
        """Row ``row``'s vector (a copy)."""
        self._check_row(row)
        return np.array(self._rows[row] if self._rows is not None else self._t[:, row])  # type: ignore[index]

    def _scan(self, query: np.ndarray) -> np.ndarray:
        with one_blas_thread():
            return self._rows @ query if self._rows is not None else query @ self._t  # type: ignore[operator]

    def _subset(self, query: np.ndarray, rows: np.ndarray) -> np.ndarray:
        with one_blas_thread():
            if self._rows is not None:
                return self._rows[rows] @ query
            return query @ self._t[:, rows]  # type: ignore[index]

    def scores(self, query_vec: np.ndarray) -> np.ndarray:
        """Exact cosine of the query with every row, shape (n,)."""
        return self._scan(self._query(query_vec))

    def score_rows(self, query_vec: np.ndarray, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """Exact cosine of the query with the given rows, in the order given."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if rows.size and (rows.min() < 0 or rows.max() >= self.n):
            raise IndexError(f"rows must lie in 0..{self.n - 1}")
        return self._subset(self._query(query_vec), rows)

    @staticmethod
    def _top(rows: np.ndarray, scores: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k best (row, score), best first; ties by row number so results are stable."""
        if k < len(rows):
            part = np.argpartition(-scores, k - 1)[:k]
            rows, scores = rows[part], scores[part]
        order = np.lexsort((rows, -scores))
        return [(int(rows[i]), float(scores[i])) for i in order]

    def search(self, query_vec: np.ndarray, k: int = 10) -> list[tuple[int, float]]:
        """The ``k`` rows most similar to ``query_vec``, as (row, cosine), best first."""
        if k < 0:
            raise ValueError(f"k must not be negative, not {k}")
        query = self._query(query_vec)
        k = min(k, self.n)
        if k == 0:
            return []
        if self._codes is None:
            return self._top(np.arange(self.n), self._scan(query), k)
        keep = max(PREFILTER_MIN_CANDIDATES, math.ceil(PREFILTER_FRACTION * self.n), PREFILTER_FACTOR * k)
        candidates = self._prefilter(query, keep)
        candidates = self._int8_best(query, candidates, max(RESCORE_MIN, RESCORE_FACTOR * k))
        return self._top(candidates, self._subset(query, candidates), k)

    def _int8_best(self, query: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
        """The ``count`` of ``rows`` with the highest cosine estimated from int8 codes."""
        assert self._int8 is not None and self._scale is not None
        if count >= len(rows):
            return rows
        approx = np.empty(len(rows), dtype=np.float32)
        codes = self._int8

        def blocks(first: int, last: int) -> None:
            # INT8_CHUNK rows at a time into buffers made once per span, so the
            # float32 copy of the codes stays in cache and nothing is allocated
            # per chunk (at 20,000 rows: 1.6x faster than converting all at once,
            # and 256-row chunks into buffers about 1.2x faster than 1024-row
            # ones allocated each time; the same products).
            size = min(INT8_CHUNK, last - first)
            raw = np.empty((size, codes.shape[1]), dtype=np.int8)
            wide = np.empty((size, codes.shape[1]), dtype=np.float32)
            for start in range(first, last, INT8_CHUNK):
                part = rows[start : min(start + INT8_CHUNK, last)]
                n = len(part)
                np.take(codes, part, axis=0, out=raw[:n])
                wide[:n] = raw[:n]
                np.matmul(wide[:n], query, out=approx[start : start + n])

        with one_blas_thread():
            _in_parallel(blocks, len(rows), INT8_BLOCK)
        approx *= self._scale[rows]
        return rows[np.argpartition(-approx, count - 1)[:count]]

    def _prefilter(self, query: np.ndarray, count: int) -> np.ndarray:
        """``count`` rows whose sign bits differ least from the query's (Hamming
        distance); rows at the cut-off distance are taken in row order."""
        assert self._codes is not None
        if count >= self.n:
            return np.arange(self.n)
        code = _sign_codes(query.reshape(1, -1))[:, 0]
        distance = np.empty(self.n, dtype=np.uint16)
        bins = 64 * self._codes.shape[0] + 1
        histograms: list[np.ndarray] = []  # one per span, made where its distances are

        def scan(first: int, last: int) -> None:
            _hamming(self._codes, code, distance, first, last)
            histograms.append(np.bincount(distance[first:last], minlength=bins))

        _in_parallel(scan, self.n, SCAN_BLOCK)
        # Distances are small integers: a histogram finds the cut-off faster than a partition.
        cumulative = np.cumsum(np.sum(histograms, axis=0))
        cut = int(np.searchsorted(cumulative, count))
        # One pass over the distances: the rows up to the cut, then split.
        within = np.flatnonzero(distance <= cut)
        near = distance[within]
        below = within[near < cut]
        at_cut = within[near == cut][: count - len(below)]
        return np.concatenate([below, at_cut])

    def related(
        self, row: int, doc_of_row: np.ndarray | Sequence[Any], k: int = 5
    ) -> list[tuple[int, float]]:
        """Nearest rows to ``row`` in *other* documents ("related across documents").

        ``doc_of_row[i]`` is row i's document (any comparable code, e.g. an int
        or the document name); rows of ``row``'s own document are excluded.
        Always exact: it runs on demand, not per query.
        """
        self._check_row(row)
        if k < 0:
            raise ValueError(f"k must not be negative, not {k}")
        docs = np.asarray(doc_of_row)
        if docs.shape != (self.n,):
            raise ValueError(f"doc_of_row has shape {docs.shape}, expected ({self.n},)")
        others = np.flatnonzero(docs != docs[row])
        if k == 0 or others.size == 0:
            return []
        scores = self._scan(self.vector(row))[others]  # one contiguous scan beats gathering
        return self._top(others, scores, min(k, others.size))


HAMMING_GROUP = 3  # words whose bit counts are summed in uint8 (3 x 64 = 192 < 256) before uint16


def _hamming(codes: np.ndarray, code: np.ndarray, distance: np.ndarray, first: int, last: int) -> None:
    """``distance[first:last]``: Hamming distances of those rows' sign bits
    to ``code``, block by block, every word of a block before the next
    block, so the scratch arrays stay in cache and the codes are read once.
    The counts of ``HAMMING_GROUP`` words are added as uint8 (no overflow)
    and widened to uint16 once per group: the same sums, fewer widenings."""
    scratch = np.empty(min(SCAN_BLOCK, last - first), dtype=np.uint64)
    bits = np.empty(len(scratch), dtype=np.uint8)
    group = np.empty(len(scratch), dtype=np.uint8)
    words = codes.shape[0]
    for start in range(first, last, SCAN_BLOCK):
        end = min(start + SCAN_BLOCK, last)
        part, x, b, g = distance[start:end], scratch[: end - start], bits[: end - start], group[: end - start]
        for head in range(0, words, HAMMING_GROUP):
            for word in range(head, min(head + HAMMING_GROUP, words)):
                np.bitwise_xor(codes[word, start:end], code[word], out=x)
                np.bitwise_count(x, out=g if word == head else b)
                if word != head:
                    g += b
            if head:
                part += g
            else:
                part[:] = g


PARALLEL_MIN_BLOCKS = 2  # fewer blocks than this are scanned in the calling thread alone


def _workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _in_parallel(work: Callable[[int, int], None], n: int, block: int) -> None:
    """``work(first, last)`` over ``range(n)`` split at multiples of
    ``block`` into one span per core, run at once: the calling thread takes
    the first span and a short-lived thread each other one (numpy lets go of
    the interpreter lock in these loops; no pool is kept, so no idle thread
    outlives the search to make forking unsafe, term_blocks.py). Each span
    computes exactly what one pass would, block for block: results are identical."""
    blocks = -(-n // block)
    spans = min(_workers(), blocks // PARALLEL_MIN_BLOCKS)
    if spans < 2:
        work(0, n)
        return
    edges = [min(n, -(-blocks * i // spans) * block) for i in range(spans + 1)]
    errors: list[BaseException] = []

    def run(first: int, last: int) -> None:
        try:
            work(first, last)
        except BaseException as exc:  # re-raised in the calling thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=span, daemon=True) for span in pairwise(edges[1:])]
    for thread in threads:
        thread.start()
    run(edges[0], edges[1])
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
