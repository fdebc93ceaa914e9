"""The BM25 top k from the scratch array (bm25_topk) and the term blocks tokenised in worker
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
def test_search_top_k_equals_scoring_everything(corpus, params) -> None:
    index = BM25Index.from_texts(corpus, [f"d{i // 10}" for i in range(len(corpus))], params)
    for query in synthetic_queries(corpus, 150, seed=2):
        ids = index.term_ids(index.query_tokens(query))
        for k in (1, 10, 100):
            assert bm25_topk.search_top_k(index, ids, k) == top_k(index.scores_from_ids(ids), k)
    assert bm25_topk.search_top_k(index, np.zeros(0, dtype=np.int64), 10) == []
    assert not bm25_topk._SCRATCH.partial.any()


def _sorted_positive(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The first definition: every positive row sorted by (-score, row)."""
    rows = np.flatnonzero(scores > 0)
    order = sorted(rows.tolist(), key=lambda r: (-scores[r], r))[: max(k, 0)]
    return [(r, float(scores[r])) for r in order]


def test_top_k_equals_sorting_every_positive_row() -> None:
    rng = np.random.default_rng(8)
    n = 20_000
    dense = rng.random(n)  # every row positive (a query of common words)
    ties = np.round(rng.random(n) * 4) / 4  # few values: ties at the k-th place
    sparse_rows = rng.random(n) * (rng.random(n) < 0.002)  # fewer positives in the sample than k
    signed = rng.standard_normal(n)
    cases = [dense, ties, sparse_rows, signed, np.zeros(n), np.full(n, 2.0), rng.random(15), np.zeros(0)]
    ascending = np.sort(rng.random(n))  # the strided sample sees the order
    cases += [ascending, ascending[::-1].copy()]
    for scores in cases:
        for k in (0, 1, 3, 10, 100, 2000):
            assert top_k(scores, k) == _sorted_positive(scores, k), (len(scores), k)


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
    for ids in queries:
        for k in (1, 10, 100):
            want = top_k(index.scores_from_ids(ids), k)
            assert bm25_topk.search_top_k(index, ids, k) == want
            assert index.search_ids(ids, k) == want
    assert len({s for s in spans if s[0] > 0}) == cores - 1  # the rows really were split
    assert not bm25_topk._SCRATCH.partial.any()
