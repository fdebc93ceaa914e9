"""The BM25 query path outside the scoring core (#18): the named-document
rows found from the query's name columns alone equal the rule summed over
every passage."""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.records import Passage
from ragcore.retrieval.bm25 import BM25Index
from ragcore.retrieval.bm25 import column_sum as full_column_sum

NAMES = [
    "data-processing-addendum.pdf",
    "master-services-agreement.pdf",
    "sla.md",
    "refund-and-cancellation-policy.md",
    "pricing-notes.md",
    "1033",
    "service-level-agreement.md",
]
WORDS = "refund policy data processing addendum sla msa dpa master services agreement pricing notes level service".split()


def _every_passage_rule(index: BM25Index, ids: np.ndarray) -> np.ndarray:
    """The named-document rule summed over every passage (the former code)."""
    if not len(ids):
        return np.zeros(0, dtype=np.int64)
    cols = np.unique(ids)
    held = full_column_sum(index.names, cols, np.ones(len(cols)))
    return np.flatnonzero((index.name_size > 0) & (held >= index.name_size))


def test_named_rows_equal_the_rule_summed_over_every_passage():
    rng = np.random.default_rng(5)
    passages = [
        Passage(NAMES[i % len(NAMES)], i, 1, 1, 0, 40, "Section", " ".join(rng.choice(WORDS, 6)))
        for i in range(300)
    ]
    index = BM25Index.from_passages(passages)
    assert index.names.nnz
    named_some = 0
    for _ in range(400):
        question = " ".join(rng.choice([*WORDS, "the", "what", "uptime"], rng.integers(1, 7)))
        ids = index.term_ids(index.query_tokens(question))
        got = index.named_rows(ids)
        assert got.dtype == np.int64
        assert got.tolist() == _every_passage_rule(index, ids).tolist()
        named_some += bool(len(got))
    assert 50 < named_some < 400  # both outcomes were exercised


@pytest.mark.parametrize("share", [1, 8, 10**9])  # rarely, by default, always reset by one fill
def test_the_scratch_reset_either_way_leaves_zeros_and_the_exact_top_k(monkeypatch, share):
    from ragcore.benchdata import synthetic_passages, synthetic_queries
    from ragcore.retrieval import bm25_topk
    from ragcore.retrieval.bm25 import BM25Params, top_k

    monkeypatch.setattr(bm25_topk, "RESET_FILL_SHARE", share)
    corpus = synthetic_passages(3000, seed=12, vocab_size=800)
    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], BM25Params())
    for query in synthetic_queries(corpus, 40, seed=2):
        ids = index.term_ids(index.query_tokens(query))
        for k in (10, 100):
            assert index.search_ids(ids, k) == top_k(index.scores_from_ids(ids), k)
            assert not bm25_topk._SCRATCH.partial.any()
