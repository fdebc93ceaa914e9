"""The BM25 build in blocks gives the same index as one block, and the
row lookups (coverage, holding) agree with reading the dense matrix."""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.retrieval import bm25
from ragcore.retrieval.bm25 import BM25Index, BM25Params

TEXTS = [
    "refund window is thirty days for annual plans",
    "the annual plan renews each year unless cancelled",
    "support answers within four hours on business days",
    "refund requests go to billing within thirty days",
    "uptime commitment is 99.9% per month",
    "data retention is thirty days after cancellation",
    "business days exclude public holidays",
]
HEADINGS = ["Refunds", "Plans", "Support", "Refunds > Requests", "SLA", "Data", "Support > Hours"]


def _build(block: int, monkeypatch: pytest.MonkeyPatch, **params) -> BM25Index:
    monkeypatch.setattr(bm25, "BUILD_BLOCK", block)
    return BM25Index.from_texts(TEXTS, HEADINGS, BM25Params(**params))


@pytest.mark.parametrize("params", [{}, {"adjacency_weight": 0.5}])
def test_blocks_build_the_same_index(monkeypatch: pytest.MonkeyPatch, params) -> None:
    small, whole = _build(2, monkeypatch, **params), _build(1000, monkeypatch, **params)
    assert small.vocab == whole.vocab and np.array_equal(small.idf, whole.idf)
    for name in ("matrix", "heading", "bigrams"):
        a, b = getattr(small, name), getattr(whole, name)
        assert a.shape == b.shape and (a != b).nnz == 0
    assert small.matrix.indices.dtype == np.int32
    for query in ("refund thirty days", "annual plan", "business days support"):
        assert small.search(query, 5) == whole.search(query, 5)


def test_no_bigram_matrix_while_adjacency_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    off = _build(3, monkeypatch)
    on = _build(3, monkeypatch, adjacency_weight=1.0)
    assert off.bigrams.nnz == 0 and on.bigrams.nnz > 0
    q = off.params.terms("thirty days")
    assert on.scores(q)[0] > off.scores(q)[0]  # the phrase bonus still applies when on


def test_coverage_and_holding_match_the_dense_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    index = _build(2, monkeypatch)
    dense = index.matrix.toarray() > 0
    tokens = index.params.terms("refund within thirty business days")
    ids = sorted({index.vocab[t] for t in tokens if t in index.vocab})
    rows = [0, 3, 3, 6, 2]
    expected = (dense[rows][:, ids] @ index.idf[ids]) / index.idf[ids].sum()
    assert index.coverage(tokens, rows) == [float(x) for x in expected]
    term = index.params.terms("refund")[0]
    assert index.holding(term, [6, 0, 2, 3]) == [0, 3]
    assert index.holding("no-such-term", [0, 1]) == []
