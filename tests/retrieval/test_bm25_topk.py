"""The pruned BM25 top k (bm25_topk) and the term blocks tokenised in worker
processes give exactly what scoring every passage and tokenising here give."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from ragcore.benchdata import synthetic_passages, synthetic_queries
from ragcore.retrieval import bm25_topk, term_blocks
from ragcore.retrieval.bm25 import BM25Index, BM25Params, top_k
from ragcore.retrieval.term_blocks import term_block, text_blocks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return synthetic_passages(3000, seed=4, vocab_size=3000)


@pytest.mark.parametrize("params", [BM25Params(), BM25Params().plain()], ids=["default", "plain"])
def test_pruned_top_k_equals_scoring_everything(corpus, params) -> None:
    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], params)
    index.column_max = bm25_topk.column_max(index.matrix)
    pruned = 0
    for query in synthetic_queries(corpus, 150, seed=2):
        ids = index.term_ids(index.query_tokens(query))
        for k in (1, 10, 100):
            got = bm25_topk.pruned_top_k(index, ids, k)
            if got is not None:
                pruned += 1
                assert got == top_k(index.scores_from_ids(ids), k)
    assert pruned > 100  # the bound does prune on Zipf-distributed words


def test_column_max_and_exact_scores(corpus) -> None:
    index = BM25Index.from_texts(corpus[:300])
    dense = index.matrix.toarray()
    assert np.array_equal(bm25_topk.column_max(index.matrix), dense.max(axis=0))
    ids = index.term_ids(index.query_tokens(corpus[7]))
    rows = np.asarray([0, 7, 8, 299])
    assert np.array_equal(bm25_topk.exact_scores(index, *np.unique(ids, return_counts=True), rows),
                          index.scores_from_ids(ids)[rows])  # fmt: skip


def test_term_blocks_map_back_to_the_tokens() -> None:
    lists = [["b", "a", "b"], [], ["c", "a"]]
    block = term_block(lists)
    assert block.terms == ["b", "a", "c"] and block.lengths.tolist() == [3, 0, 2]
    assert [block.terms[i] for i in block.ids] == ["b", "a", "b", "c", "a"]


WORKER_CHECK = """
import numpy as np
from concurrent import futures
from ragcore.benchdata import synthetic_passages
from ragcore.retrieval import term_blocks
from ragcore.retrieval.bm25 import BM25Params
pools = []
class Counted(futures.ProcessPoolExecutor):
    def __init__(self, *a, **kw):
        pools.append(1)
        super().__init__(*a, **kw)
term_blocks.ProcessPoolExecutor = Counted
term_blocks.PARALLEL_MIN_PASSAGES = 500
texts = synthetic_passages(1700, seed=4, vocab_size=3000)
here = list(term_blocks.text_blocks(texts, BM25Params(), 400, processes=1))
there = list(term_blocks.text_blocks(texts, BM25Params(), 400, processes=2))
assert pools == [1], pools
assert [len(b) for b in there] == [400, 400, 400, 400, 100]
for a, b in zip(here, there, strict=True):
    assert a.terms == b.terms and np.array_equal(a.ids, b.ids) and np.array_equal(a.lengths, b.lengths)
print("ok")
"""


def test_worker_processes_tokenise_like_this_process() -> None:
    # In a fresh single-threaded interpreter: workers are forked only from one.
    done = subprocess.run([sys.executable, "-c", WORKER_CHECK], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_threaded_process_tokenises_in_process(corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(term_blocks, "PARALLEL_MIN_PASSAGES", 500)
    monkeypatch.setattr(term_blocks, "ProcessPoolExecutor", None)  # would fail if used
    held = threading.Event()
    other = threading.Thread(target=held.wait)
    other.start()
    try:
        blocks = list(text_blocks(corpus[:1200], BM25Params(), 400, processes=2))
    finally:
        held.set()
        other.join()
    assert [len(b) for b in blocks] == [400, 400, 400]


@pytest.mark.parametrize("cores", [2, 3])
@pytest.mark.parametrize("params", [BM25Params(), BM25Params().plain()], ids=["default", "plain"])
def test_rows_split_into_spans_searched_at_once_give_the_same_top_k(
    corpus, params, cores, monkeypatch
) -> None:
    from ragcore.retrieval import dense

    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], params)
    queries = [index.term_ids(index.query_tokens(q)) for q in synthetic_queries(corpus, 120, seed=6)]
    spans: list[tuple[int, int]] = []
    split = dense._in_parallel
    monkeypatch.setattr(dense, "_workers", lambda: cores)
    monkeypatch.setattr(bm25_topk, "SPAN_BLOCK", 64)  # 3000 rows: 47 blocks, one span per core
    monkeypatch.setattr(
        dense, "_in_parallel", lambda w, n, b: split(lambda a, z: (spans.append((a, z)), w(a, z)), n, b)
    )
    pruned = 0
    for ids in queries:
        for k in (1, 10, 100):
            got = bm25_topk.pruned_top_k(index, ids, k)
            if got is not None:
                pruned += 1
                assert got == top_k(index.scores_from_ids(ids), k)
            assert index.search_ids(ids, k) == top_k(index.scores_from_ids(ids), k)
    assert len({s for s in spans if s[0] > 0}) == cores - 1  # the rows really were split
    assert pruned > 100
    assert not bm25_topk._SCRATCH.partial.any()
