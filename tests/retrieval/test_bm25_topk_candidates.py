"""bm25_topk's candidate rows (#18): looked for among the rows above the
bound, they are exactly the rows the first definition gave (every positive
row partitioned), and the top k is still that of scoring everything."""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.benchdata import synthetic_passages, synthetic_queries
from ragcore.retrieval import bm25_topk
from ragcore.retrieval.bm25 import BM25Index, BM25Params, top_k


def _first_definition(partial: np.ndarray, bound: float, k: int) -> np.ndarray | None:
    positive = np.flatnonzero(partial > 0)
    if len(positive) < k:
        return None
    values = partial[positive]
    floor = float(np.partition(values, len(values) - k)[len(values) - k]) * (1 - bm25_topk.SAFETY)
    if not bound < floor:
        return None
    return positive[values + bound >= floor]


def _arrays() -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    sparse = rng.random(5000) * (rng.random(5000) < 0.1)
    ties = np.round(rng.random(3000) * 4) / 4 * (rng.random(3000) < 0.5)
    return [sparse, ties, np.zeros(100), np.full(50, 2.0), rng.random(20)]


@pytest.mark.parametrize("which", range(5))
def test_same_candidates_as_the_first_definition(which: int) -> None:
    partial = _arrays()[which]
    top = float(partial.max())
    for k in (1, 3, 10, 100, 1000):
        for bound in (0.0, top * 0.1, top * 0.5, top * 0.999, top, top * (1 - 1e-10), top * 2):
            got = bm25_topk._candidates(partial, bound, k)
            want = _first_definition(partial, bound, k)
            assert (got is None) == (want is None), (k, bound)
            if got is not None:
                assert np.array_equal(got, want)


def test_queries_of_common_words_still_get_the_exact_top_k() -> None:
    corpus = synthetic_passages(4000, seed=8, vocab_size=300)  # few words: each is common
    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], BM25Params())
    for query in synthetic_queries(corpus, 60, seed=5):
        ids = index.term_ids(index.query_tokens(query))
        for k in (10, 100):
            assert index.search_ids(ids, k) == top_k(index.scores_from_ids(ids), k)


def test_after_the_last_term_fewer_than_k_scored_rows_are_all_candidates() -> None:
    partial = np.zeros(50)
    partial[[3, 17, 40]] = [0.5, 2.0, 1.0]
    assert bm25_topk._candidates(partial, 0.0, 10) is None
    assert bm25_topk._candidates(partial, 0.0, 10, last=True).tolist() == [3, 17, 40]
    assert bm25_topk._candidates(np.zeros(50), 0.0, 10, last=True) is None


def test_the_scratch_array_is_all_zeros_after_each_query() -> None:
    corpus = synthetic_passages(3000, seed=9, vocab_size=2000)
    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], BM25Params())
    for query in synthetic_queries(corpus, 40, seed=1):
        ids = index.term_ids(index.query_tokens(query))
        assert index.search_ids(ids, 10) == top_k(index.scores_from_ids(ids), 10)
        assert not bm25_topk._SCRATCH.partial.any() and not bm25_topk._SCRATCH.busy


def test_threads_searching_at_once_get_the_same_answers() -> None:
    from concurrent.futures import ThreadPoolExecutor

    corpus = synthetic_passages(3000, seed=10, vocab_size=2000)
    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], BM25Params())
    queries = [index.term_ids(index.query_tokens(q)) for q in synthetic_queries(corpus, 60, seed=4)]
    expected = [top_k(index.scores_from_ids(ids), 10) for ids in queries]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda ids: index.search_ids(ids, 10), queries * 4))
    assert got == expected * 4


def test_kth_largest_equals_a_full_partition() -> None:
    rng = np.random.default_rng(3)
    arrays = [
        rng.random(20_000),
        np.sort(rng.random(20_000)),  # ascending: the strided guess sees the order
        np.sort(rng.random(20_000))[::-1],
        np.round(rng.random(30_000) * 3) / 3,  # few distinct values, many ties
        np.full(5000, 1.5),
        rng.random(70),
    ]
    for values in arrays:
        for k in (1, 2, 10, 100, 1000, len(values)):
            if k <= len(values):
                want = float(np.partition(values, len(values) - k)[len(values) - k])
                assert bm25_topk.kth_largest(values, k) == want, (len(values), k)


def test_rows_reaching_the_floor_are_those_of_the_full_sum() -> None:
    rng = np.random.default_rng(5)
    for _ in range(200):
        bound, floor = sorted(rng.random(2) * rng.choice([1e-3, 1.0, 40.0]))
        edge = floor - bound
        # Values on and around the edge, one and a few ulps apart, and at random.
        near = edge + np.arange(-4, 5) * np.spacing(max(edge, 1e-300))
        partial = np.concatenate([near, np.nextafter(near, 0), rng.random(50) * 2 * floor, [0.0]])
        rng.shuffle(partial)
        want = np.flatnonzero(partial + bound >= floor)
        assert np.array_equal(bm25_topk._reaching(partial, bound, floor), want)
