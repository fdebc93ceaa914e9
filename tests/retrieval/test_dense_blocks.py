"""Dense indexes written block by block (``dense.write_blocks``) search like
the ones built in memory and saved."""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.corpus import Corpus
from ragcore.records import Passage
from ragcore.retrieval import Retriever, dense
from ragcore.retrieval.dense import DenseIndex, write_blocks


def _unit(n: int, dim: int = 48, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_blocks_give_the_same_index_as_building_in_memory(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dense, "SCAN_BLOCK", 7)  # the blocked scan crosses block edges
    monkeypatch.setattr(dense, "INT8_BLOCK", 5)
    vectors = _unit(300)
    built = DenseIndex(vectors, prefilter="sign")
    built.save(tmp_path / "saved")
    write_blocks(tmp_path / "blocks", (vectors[i : i + 64] for i in range(0, 300, 64)), 300, 48)
    for name in ("rows", "signs", "int8", "scale"):
        assert np.array_equal(
            np.load(tmp_path / "saved" / f"{name}.npy"), np.load(tmp_path / "blocks" / f"{name}.npy")
        )
    opened = DenseIndex.load(tmp_path / "blocks")
    monkeypatch.setattr(dense, "PREFILTER_MIN_CANDIDATES", 0)
    monkeypatch.setattr(dense, "PREFILTER_FRACTION", 0.2)  # 60 of 300 rows pass the sign bits
    monkeypatch.setattr(dense, "RESCORE_MIN", 20)
    signs = vectors > 0
    for q in _unit(10, seed=1):
        assert opened.search(q, 5) == built.search(q, 5)
        # The blocked scan keeps the 60 rows of least Hamming distance, ties in row order.
        hamming = (signs != (q > 0)).sum(axis=1)
        expected = np.lexsort((np.arange(300), hamming))[:60]
        assert sorted(opened._prefilter(q, 60).tolist()) == sorted(expected.tolist())


def test_blocks_that_do_not_fit_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="does not fit"):
        write_blocks(tmp_path / "a", [_unit(10), _unit(10)], 15, 48)
    with pytest.raises(ValueError, match="5 vectors written, 8 expected"):
        write_blocks(tmp_path / "b", [_unit(5)], 8, 48)
    bad = _unit(4)
    bad[1, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        write_blocks(tmp_path / "c", [bad], 4, 48)


def test_retriever_takes_vector_blocks_into_its_index_dir(tmp_path) -> None:
    texts = [f"passage {i} about topic {i % 7}" for i in range(40)]
    passages = [Passage("d.md", i, i + 1, i + 1, 0, len(t), "", t) for i, t in enumerate(texts)]
    vectors = _unit(40)

    class Fixed:
        model_id = "fixed"

        def embed_query(self, text: str) -> np.ndarray:
            return vectors[3]

    r = Retriever(Corpus("c", {}, passages), embedder=Fixed(), index_dir=tmp_path / "idx")
    r.set_vector_blocks(iter([vectors[:25], vectors[25:]]), 48)
    assert r.dense_ready and r.search("anything", "dense", 1).hits[0].passage.index == 3
    again = Retriever(Corpus("c", {}, passages), embedder=Fixed(), index_dir=tmp_path / "idx")
    assert again.ensure_dense() == 0  # opened from disk, nothing embedded
    with pytest.raises(ValueError, match="index_dir"):
        Retriever(Corpus("c", {}, passages), embedder=Fixed()).set_vector_blocks(iter([vectors]), 48)


@pytest.mark.parametrize("cores", [2, 3, 5])
def test_the_scan_split_over_cores_gives_what_one_pass_gives(
    monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    monkeypatch.setattr(dense, "SCAN_BLOCK", 7)
    monkeypatch.setattr(dense, "INT8_BLOCK", 5)
    monkeypatch.setattr(dense, "PREFILTER_MIN_CANDIDATES", 0)
    monkeypatch.setattr(dense, "PREFILTER_FRACTION", 0.2)
    monkeypatch.setattr(dense, "RESCORE_MIN", 20)
    index = DenseIndex(_unit(300), prefilter="sign")
    queries = _unit(8, seed=2)
    monkeypatch.setattr(dense, "_workers", lambda: 1)
    one = [(index._prefilter(q, 60), index.search(q, 5)) for q in queries]
    approx_one = [index._int8_best(q, np.arange(0, 300, 2), 30) for q in queries]
    spans: list[tuple[int, int]] = []
    split = dense._in_parallel
    monkeypatch.setattr(dense, "_workers", lambda: cores)
    monkeypatch.setattr(
        dense, "_in_parallel", lambda w, n, b: split(lambda a, z: (spans.append((a, z)), w(a, z)), n, b)
    )
    many = [(index._prefilter(q, 60), index.search(q, 5)) for q in queries]
    approx_many = [index._int8_best(q, np.arange(0, 300, 2), 30) for q in queries]
    assert len({s for s in spans if s[0] > 0}) > 0  # the work really was split
    for (rows_1, hits_1), (rows_n, hits_n) in zip(one, many, strict=True):
        assert np.array_equal(rows_1, rows_n) and hits_1 == hits_n
    for a, b in zip(approx_one, approx_many, strict=True):
        assert np.array_equal(a, b)


def test_a_failure_in_a_scan_thread_reaches_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dense, "_workers", lambda: 2)

    def work(first: int, last: int) -> None:
        if first > 0:
            raise RuntimeError("span failed")

    with pytest.raises(RuntimeError, match="span failed"):
        dense._in_parallel(work, 100, 10)
