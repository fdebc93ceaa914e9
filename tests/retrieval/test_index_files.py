"""Indexes on disk: a reopened corpus is searched from memory-mapped files
with the same results, and is not rebuilt; stale or unreadable files are
rebuilt, and a disk that cannot be written only costs the reopen time."""

from __future__ import annotations

import numpy as np
import pytest
from test_retriever import ToyEmbedder, make_corpus

from ragcore.retrieval import Retriever, bm25, dense
from ragcore.retrieval.bm25 import BM25Index, BM25Params
from ragcore.retrieval.dense import DenseIndex
from ragcore.retrieval.index_files import index_dir_for, load_bm25, save_bm25

TEXTS = ["the cat sat on the mat", "dogs bark at cats", "a mat for the dog", "uptime and credits"]
QUESTIONS = ["cat mat", "dog", "credits uptime", "bark bark cats"]


def test_bm25_round_trip_is_memory_mapped_and_scores_the_same(tmp_path) -> None:
    index = BM25Index.from_texts(TEXTS, ["Pets", "Dogs", "Home", "SLA"])
    save_bm25(index, tmp_path / "bm25")
    loaded = load_bm25(tmp_path / "bm25", BM25Params(), len(TEXTS))
    assert loaded is not None and sorted(vars(loaded)) == sorted(vars(index))
    for q in QUESTIONS:
        assert loaded.search(q) == index.search(q)
        np.testing.assert_array_equal(
            loaded.scores(index.query_tokens(q)), index.scores(index.query_tokens(q))
        )
    base = loaded.matrix.data
    while not isinstance(base, np.memmap) and base.base is not None:
        base = base.base
    assert isinstance(base, np.memmap)


def test_bm25_files_of_other_parameters_or_sizes_are_not_used(tmp_path) -> None:
    save_bm25(BM25Index.from_texts(TEXTS), tmp_path / "bm25")
    assert load_bm25(tmp_path / "bm25", BM25Params(k1=1.5), len(TEXTS)) is None
    assert load_bm25(tmp_path / "bm25", BM25Params(), len(TEXTS) + 1) is None
    assert load_bm25(tmp_path / "missing", BM25Params(), len(TEXTS)) is None


@pytest.mark.parametrize("prefilter", ["exact", "sign"])
def test_dense_round_trip_searches_the_same(tmp_path, prefilter) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((300, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = DenseIndex(vectors, prefilter=prefilter)
    index.save(tmp_path / "dense")
    loaded = DenseIndex.load(tmp_path / "dense")
    assert loaded.prefilter == prefilter and len(loaded) == 300
    for q in vectors[:20]:
        assert loaded.search(q, 10) == index.search(q, 10)


def test_a_reopened_retriever_reads_its_indexes_instead_of_building_them(tmp_path, monkeypatch) -> None:
    folder = index_dir_for(tmp_path, "toy", "v1")
    first = Retriever(make_corpus(), embedder=ToyEmbedder(), index_dir=folder)
    first.ensure_dense()
    expected = {
        m: [(h.passage.id, h.score) for h in first.search("uptime credits", m).hits]
        for m in ("bm25", "hybrid")
    }
    assert (folder / "bm25" / "meta.json").is_file() and any((folder / "dense").glob("*/meta.json"))

    def never(*args, **kwargs):
        raise AssertionError("rebuilt")

    monkeypatch.setattr(bm25.BM25Index, "from_texts", never)
    monkeypatch.setattr(dense.DenseIndex, "__init__", never)
    embedder = ToyEmbedder()
    again = Retriever(make_corpus(), embedder=embedder, index_dir=folder)
    assert again.ensure_dense() == 0 and embedder.calls == 0
    for mode, hits in expected.items():
        assert [(h.passage.id, h.score) for h in again.search("uptime credits", mode).hits] == hits


def test_a_new_version_replaces_the_old_one(tmp_path) -> None:
    old = index_dir_for(tmp_path, "toy", "v1")
    Retriever(make_corpus(), embedder=ToyEmbedder(), index_dir=old)
    new = index_dir_for(tmp_path, "toy", "v2")
    Retriever(make_corpus(), embedder=ToyEmbedder(), index_dir=new)
    assert new.is_dir() and not old.exists()


def test_an_unwritable_index_folder_still_searches(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    retriever = Retriever(make_corpus(), embedder=ToyEmbedder(), index_dir=blocker / "indexes")
    retriever.ensure_dense()
    assert retriever.search("password reset", "hybrid").hits[0].passage.doc == "faq.md"


def test_an_index_folder_outside_the_library_layout_never_removes_its_neighbours(tmp_path) -> None:
    # Retriever(index_dir=...) once pruned every sibling folder: a temporary folder given as
    # index_dir removed everything else under /tmp.
    corpus = make_corpus()
    keep = tmp_path / "someone-elses-folder"
    (keep / "deep").mkdir(parents=True)
    version_named = tmp_path / "0123456789abcdef"
    version_named.mkdir()
    Retriever(corpus, embedder=ToyEmbedder(), index_dir=tmp_path / "idx").search("x", mode="bm25")
    assert (keep / "deep").is_dir() and version_named.is_dir()
    # Inside the layout, an older version of the same collection is still replaced.
    old = index_dir_for(tmp_path, "c", ["a"])
    new = index_dir_for(tmp_path, "c", ["b"])
    Retriever(corpus, embedder=ToyEmbedder(), index_dir=old).search("x", mode="bm25")
    (old.parent / "notes").mkdir()
    Retriever(corpus, embedder=ToyEmbedder(), index_dir=new).search("x", mode="bm25")
    assert new.is_dir() and not old.exists() and (old.parent / "notes").is_dir()
