"""DenseIndex: exact top-k, the sign-bit prefilter, and related-across-documents."""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.retrieval import dense
from ragcore.retrieval.blas import one_blas_thread
from ragcore.retrieval.dense import DenseIndex


def _unit_rows(n: int, dim: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((n, dim)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _brute_force(vectors: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    scores = vectors.astype(np.float64) @ query.astype(np.float64)
    return sorted(range(len(vectors)), key=lambda i: (-scores[i], i))[:k]


@pytest.mark.parametrize("k", [1, 5, 10, 299, 300, 1000])
def test_top_k_matches_brute_force(k: int) -> None:
    vectors = _unit_rows(300, 48)
    index = DenseIndex(vectors)
    for seed in range(5):
        query = _unit_rows(1, 48, seed=100 + seed)[0]
        hits = index.search(query, k)
        assert [row for row, _ in hits] == _brute_force(vectors, query, k)
        for row, score in hits:
            assert score == pytest.approx(float(vectors[row] @ query), abs=1e-5)


def test_scores_descend_and_ties_are_stable() -> None:
    vectors = np.repeat(_unit_rows(3, 8), 3, axis=0)  # rows 0-2 equal, 3-5 equal, 6-8 equal
    index = DenseIndex(vectors)
    hits = index.search(vectors[4], 9)
    assert [row for row, _ in hits][:3] == [3, 4, 5]
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)


def test_empty_index_and_zero_k() -> None:
    empty = DenseIndex(np.zeros((0, 16), dtype=np.float32))
    assert len(empty) == 0 and empty.search(np.ones(16), 10) == []
    assert DenseIndex(_unit_rows(5, 16)).search(np.ones(16), 0) == []


def test_bad_input_is_rejected_clearly() -> None:
    index = DenseIndex(_unit_rows(10, 16), ids=[f"d#{i}" for i in range(10)])
    with pytest.raises(ValueError, match="query vector has 8 dimensions, the index has 16"):
        index.search(np.ones(8), 3)
    with pytest.raises(ValueError, match="negative"):
        index.search(np.ones(16), -1)
    with pytest.raises(ValueError, match="3 ids for 10 vectors"):
        DenseIndex(_unit_rows(10, 16), ids=["a", "b", "c"])
    with pytest.raises(ValueError, match="2-D"):
        DenseIndex(np.ones(16, dtype=np.float32))
    bad = _unit_rows(4, 16)
    bad[2, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DenseIndex(bad)
    with pytest.raises(ValueError, match="prefilter"):
        DenseIndex(bad[:1], prefilter="fast")


def test_sign_codes_count_differing_signs() -> None:
    vectors = _unit_rows(7, 100)  # 100 dims: two 64-bit words, the second one padded
    codes = dense._sign_codes(vectors)
    assert codes.shape == (2, 7) and codes.dtype == np.uint64
    for a in range(7):
        for b in range(7):
            expected = int(np.sum((vectors[a] > 0) != (vectors[b] > 0)))
            assert int(np.bitwise_count(codes[:, a] ^ codes[:, b]).sum()) == expected


def test_sign_prefilter_rescores_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    # Clustered data (like real embeddings): 40 tight clusters of 100 rows.
    rng = np.random.default_rng(3)
    centres = _unit_rows(40, 64, seed=4)
    vectors = np.repeat(centres, 100, axis=0) + 0.05 * rng.standard_normal((4000, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    monkeypatch.setattr(dense, "PREFILTER_MIN_CANDIDATES", 200)
    index = DenseIndex(vectors, prefilter="sign")
    assert index.prefilter == "sign"
    found = 0
    for q in range(20):
        query = vectors[q * 199 % 4000] + 0.02 * rng.standard_normal(64).astype(np.float32)
        query /= np.linalg.norm(query)
        hits = index.search(query, 10)
        for row, score in hits:  # scores are exact cosines whatever the candidates were
            assert score == pytest.approx(float(vectors[row] @ query), abs=1e-5)
        found += len({row for row, _ in hits} & set(_brute_force(vectors, query, 10)))
    assert found / 200 >= 0.95  # recall@10 of the prefilter on clustered data


def test_auto_mode_switches_on_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dense, "PREFILTER_MIN_ROWS", 50)
    assert DenseIndex(_unit_rows(49, 8)).prefilter == "exact"
    assert DenseIndex(_unit_rows(50, 8)).prefilter == "sign"
    assert DenseIndex(_unit_rows(50, 8), prefilter="exact").prefilter == "exact"


def test_sign_prefilter_with_fewer_rows_than_candidates_is_exact() -> None:
    vectors = _unit_rows(100, 32)
    index = DenseIndex(vectors, prefilter="sign")
    query = _unit_rows(1, 32, seed=9)[0]
    assert [row for row, _ in index.search(query, 7)] == _brute_force(vectors, query, 7)


def test_related_excludes_own_document() -> None:
    vectors = _unit_rows(60, 16)
    docs = np.array([i // 10 for i in range(60)])  # six documents of ten passages
    index = DenseIndex(vectors)
    hits = index.related(13, docs, k=5)
    assert len(hits) == 5 and all(docs[row] != 1 for row, _ in hits)
    others = [i for i in range(60) if docs[i] != 1]
    scores = vectors[others] @ vectors[13]
    expected = [others[i] for i in np.argsort(-scores, kind="stable")[:5]]
    assert [row for row, _ in hits] == expected


def test_related_with_names_and_edge_cases() -> None:
    vectors = _unit_rows(5, 8)
    names = ["a.md", "a.md", "b.md", "b.md", "c.md"]
    index = DenseIndex(vectors)
    assert {row for row, _ in index.related(0, names, k=10)} == {2, 3, 4}  # k larger than what is left
    assert index.related(0, ["a.md"] * 5, k=3) == []  # a single document has nothing related
    assert index.related(0, names, k=0) == []
    with pytest.raises(IndexError, match="row 5"):
        index.related(5, names)
    with pytest.raises(ValueError, match="doc_of_row"):
        index.related(0, names[:4])


@pytest.mark.parametrize("prefilter", ["exact", "sign"])
def test_vector_score_rows_and_related_in_both_layouts(prefilter: str) -> None:
    vectors = _unit_rows(40, 8)
    index = DenseIndex(vectors, prefilter=prefilter)
    np.testing.assert_array_equal(index.vector(2), vectors[2])
    query = _unit_rows(1, 8, seed=5)[0]
    np.testing.assert_allclose(index.score_rows(query, [7, 3, 7]), vectors[[7, 3, 7]] @ query, atol=1e-6)
    np.testing.assert_allclose(index.scores(query), vectors @ query, atol=1e-6)
    with pytest.raises(IndexError, match=r"rows must lie in 0\.\.39"):
        index.score_rows(query, [40])
    docs = np.arange(40) // 4
    related = index.related(9, docs, k=3)
    assert [row for row, _ in related] == [
        row for row, _ in DenseIndex(vectors, prefilter="exact").related(9, docs, k=3)
    ]
    assert all(docs[row] != docs[9] for row, _ in related)


def test_one_blas_thread_limits_and_restores() -> None:
    from threadpoolctl import threadpool_info

    def blas_threads() -> set[int]:
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    before = blas_threads()
    if not before:
        pytest.skip("numpy has no BLAS that threadpoolctl can see")
    with one_blas_thread():
        with one_blas_thread():  # nested blocks share the limit
            assert blas_threads() == {1}
        assert blas_threads() == {1}
    assert blas_threads() == before


@pytest.mark.parametrize("dim", [8, 64, 130, 384, 448])  # 1 to 7 words: whole and partial groups
def test_hamming_distances_equal_counting_every_differing_bit(dim: int, monkeypatch) -> None:
    from ragcore.retrieval import dense

    monkeypatch.setattr(dense, "SCAN_BLOCK", 64)  # several blocks and a short last one
    rng = np.random.default_rng(dim)
    rows = rng.standard_normal((300, dim)).astype(np.float32)
    codes = dense._sign_codes(rows)
    code = dense._sign_codes(rng.standard_normal((1, dim)).astype(np.float32))[:, 0]
    distance = np.full(300, 999, dtype=np.uint16)
    dense._hamming(codes, code, distance, 10, 290)
    want = np.bitwise_count(codes ^ code[:, None]).sum(axis=0)
    assert np.array_equal(distance[10:290], want[10:290])
    assert (distance[:10] == 999).all() and (distance[290:] == 999).all()


@pytest.mark.parametrize("chunk", [1, 7, 256, 5000])
def test_the_int8_step_keeps_the_rows_its_codes_rank_best(chunk: int, monkeypatch) -> None:
    from ragcore.retrieval import dense

    monkeypatch.setattr(dense, "INT8_CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    vectors = rng.standard_normal((3000, 48)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = DenseIndex(vectors, prefilter="sign")
    query = vectors[5] + 0.1 * rng.standard_normal(48).astype(np.float32)
    query /= np.linalg.norm(query)
    rows = np.sort(rng.choice(3000, 2500, replace=False))
    approx = (index._int8[rows].astype(np.float32) @ query) * index._scale[rows]
    want = np.sort(rows[np.argsort(-approx, kind="stable")[:100]])
    assert np.array_equal(np.sort(index._int8_best(query, rows, 100)), want)
