"""BM25's scatter-adds with ``np.add.at`` (#18 speed) give bit-identical
scores to the forms they replaced: a bincount of the joined columns
(``column_sum``) and ``out[rows] += values`` (``bm25_topk._add_column``)."""

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
