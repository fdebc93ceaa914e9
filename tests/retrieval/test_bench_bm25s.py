"""bench's bm25s row: both engines rank the same scores (a speed-only ratio)."""

from __future__ import annotations

import re

from ragcore import bench
from ragcore.benchdata import synthetic_passages, synthetic_queries
from ragcore.retrieval.bm25 import BM25Index, BM25Params
from ragcore.text import tokenize


def test_bm25s_row_times_the_same_ranking_as_ours():
    texts = synthetic_passages(3000, seed=4)
    tokens = [tokenize(t) for t in texts]
    plain = BM25Index(tokens, None, BM25Params().plain())
    queries = [tokenize(q) for q in synthetic_queries(texts, 30)]
    row = bench._versus_bm25s(plain, tokens, queries, len(texts))
    assert row.name == "bm25_query" and row.baseline == "bm25s"
    assert row.p50_ms and row.ratio and row.ratio > 0
    same, checked = (
        int(x) for x in re.search(r"same top-10 scores on (\d+) of (\d+) queries", row.note).groups()
    )
    assert checked == 30 and same == checked  # our weights in bm25s's engine: the same top 10
    assert "its own index" in row.note


def test_above_the_build_size_bm25s_only_gets_our_weights(monkeypatch):
    monkeypatch.setattr(bench, "BM25S_BUILD_MAX_SIZE", 10)
    texts = synthetic_passages(500, seed=2)
    tokens = [tokenize(t) for t in texts]
    plain = BM25Index(tokens, None, BM25Params().plain())
    row = bench._versus_bm25s(plain, tokens, [tokenize(q) for q in synthetic_queries(texts, 5)], len(texts))
    assert "its own index" not in row.note
