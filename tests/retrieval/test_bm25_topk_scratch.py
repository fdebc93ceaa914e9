"""bm25_topk's scratch array (#18): the top k is still that of scoring
everything for queries of common words, the array is all zeros after each
query, threads searching at once get the same answers, and the k-th largest
value found from a sampled guess is a full partition's."""

from __future__ import annotations

import numpy as np

from ragcore.benchdata import synthetic_passages, synthetic_queries
from ragcore.retrieval import bm25_topk
from ragcore.retrieval.bm25 import BM25Index, BM25Params, top_k


def test_queries_of_common_words_still_get_the_exact_top_k() -> None:
    corpus = synthetic_passages(4000, seed=8, vocab_size=300)  # few words: each is common
    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], BM25Params())
    for query in synthetic_queries(corpus, 60, seed=5):
        ids = index.term_ids(index.query_tokens(query))
        for k in (10, 100):
            assert index.search_ids(ids, k) == top_k(index.scores_from_ids(ids), k)


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
