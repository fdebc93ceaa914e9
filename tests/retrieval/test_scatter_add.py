"""BM25's scatter-adds (#18 speed: scipy's CSC loop for one column, else
``np.add.at``) give bit-identical scores to the forms they replaced: a
bincount of the joined columns (``column_sum``), ``out[rows] += values``
(``bm25_topk._add_column``) and ``np.add.at`` (``bm25_topk.add_values``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from ragcore.retrieval import bm25_topk
from ragcore.retrieval.bm25 import column_sum


def _matrix(dtype: type, seed: int = 0, rows: int = 3000, cols: int = 40) -> sparse.csc_matrix:
    rng = np.random.default_rng(seed)
    m = sparse.random(rows, cols, density=0.2, format="csc", random_state=rng, dtype=np.float64)
    m.data = (m.data * 7.3).astype(dtype)
    m.indices = m.indices.astype(np.int32)
    return m


def _joined_bincount(m: sparse.csc_matrix, cols: np.ndarray, weights: np.ndarray) -> np.ndarray:
    starts, ends = m.indptr[cols], m.indptr[cols + 1]
    rows = np.concatenate([m.indices[s:e] for s, e in zip(starts, ends, strict=True)])
    vals = np.concatenate([m.data[s:e] * w for s, e, w in zip(starts, ends, weights, strict=True)])
    return np.bincount(rows, weights=vals, minlength=m.shape[0]).astype(np.float64, copy=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_column_sum_is_bit_identical_to_a_bincount_of_the_joined_columns(dtype, seed) -> None:
    m = _matrix(dtype, seed)
    rng = np.random.default_rng(seed + 10)
    cols = np.unique(rng.integers(0, m.shape[1], 6))
    weights = rng.random(len(cols)) * 3 + 0.1
    got = column_sum(m, cols, weights)
    assert got.dtype == np.float64 and got.shape == (m.shape[0],)
    assert np.array_equal(got, _joined_bincount(m, cols, weights))
    assert np.allclose(got, m[:, cols] @ weights)


def test_column_sum_of_empty_columns_is_zeros() -> None:
    m = sparse.csc_matrix((50, 3), dtype=np.float64)
    assert np.array_equal(column_sum(m, np.array([0, 2]), np.ones(2)), np.zeros(50))


@pytest.mark.parametrize("factor", [1.0, 0.5 * 2.718281828])
def test_add_column_is_bit_identical_to_fancy_index_add(factor) -> None:
    m = _matrix(np.float64, 3)
    rng = np.random.default_rng(4)
    start = rng.random(m.shape[0])
    ours, theirs = start.copy(), start.copy()
    for col in range(m.shape[1]):
        span = (int(m.indptr[col]), int(m.indptr[col + 1]))
        added: list[np.ndarray] = []
        n = bm25_topk._add_column(ours, m, span, factor, added)
        rows, values = m.indices[span[0] : span[1]], m.data[span[0] : span[1]]
        theirs[rows] += values if factor == 1.0 else values * factor
        assert n == span[1] - span[0] and np.array_equal(added[0], rows)
    assert np.array_equal(ours, theirs)


def test_scipys_column_loop_is_there_for_the_pinned_scipy() -> None:
    # The fast path of add_values (requirements.txt pins scipy): without it
    # every sum still comes out the same, through np.add.at, at half the speed.
    assert bm25_topk._csc_matvec is not None


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_add_values_is_bit_identical_to_add_at(index_dtype, tmp_path) -> None:
    m = _matrix(np.float64, 5)
    m.indices = m.indices.astype(index_dtype)
    np.save(tmp_path / "data.npy", m.data)
    mapped = np.load(tmp_path / "data.npy", mmap_mode="r")  # read-only, as a reopened library maps it
    rng = np.random.default_rng(6)
    start = rng.random(m.shape[0]) * 5
    for factor in (1.0, np.float64(1.0), 3.0, 0.37):
        ours, theirs = start.copy(), start.copy()
        for col in range(m.shape[1]):
            s, e = int(m.indptr[col]), int(m.indptr[col + 1])
            bm25_topk.add_values(ours, m.indices[s:e], mapped[s:e], factor)
            np.add.at(theirs, m.indices[s:e], m.data[s:e] * factor)
        assert np.array_equal(ours, theirs), factor


def test_add_values_into_an_array_scipy_would_copy_still_adds_in_place() -> None:
    rows = np.asarray([0, 2, 5], dtype=np.int32)
    values = np.asarray([1.5, 2.0, 0.25])
    strided = np.zeros(12)[::2]  # not contiguous
    bm25_topk.add_values(strided, rows, values)
    single = np.zeros(6, dtype=np.float32)
    bm25_topk.add_values(single, rows, values)
    for out in (strided, single):
        assert out.tolist() == [1.5, 0.0, 2.0, 0.0, 0.0, 0.25]
