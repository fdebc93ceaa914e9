"""Pseudo-relevance feedback for the query vector (ragcore/retrieval/prf.py)
and where the gate applies it: tiny hand-made vectors, not the demo."""

import numpy as np
import pytest

from ragcore.retrieval import fusion
from ragcore.retrieval.dense import DenseIndex
from ragcore.retrieval.fusion_gate import GATE_FEATURES, FusionGate
from ragcore.retrieval.learned_fusion import FusionStats
from ragcore.retrieval.prf import feedback_ranking, index_feedback, rocchio


def _unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


# Row 0 is the query's own direction; rows 1 and 2 lean to the y axis, row 3
# lies on it, row 4 on z (never a candidate below).
VECTORS = np.vstack([_unit(1, 0, 0), _unit(1, 1, 0), _unit(1, 2, 0), _unit(0, 1, 0), _unit(0, 0, 1)])
QUERY = _unit(1, 0.1, 0)


def _score_rows(q: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return VECTORS[rows] @ q


def _vectors_of(rows: np.ndarray) -> np.ndarray:
    return VECTORS[rows]


def test_rocchio_moves_the_query_towards_the_feedback_mean_and_keeps_unit_length():
    moved = rocchio(QUERY, VECTORS[[1, 2]], 0.5)
    assert float(np.linalg.norm(moved)) == pytest.approx(1.0)
    want = QUERY + 0.5 * VECTORS[[1, 2]].mean(axis=0)
    assert moved == pytest.approx(want / np.linalg.norm(want))
    assert moved[1] > QUERY[1]  # towards y, where the feedback lies
    assert rocchio(QUERY, VECTORS[[1]], 0.0) == pytest.approx(QUERY)
    assert rocchio(QUERY, VECTORS[:0], 1.0) == pytest.approx(QUERY)


def test_feedback_ranking_rescores_only_the_two_lists_candidates():
    dense = [(1, 0.8), (0, 0.7), (2, 0.6)]  # a dense list whose first row is 45 degrees off the query
    lexical = [(3, 9.0)]  # a BM25-only candidate
    assert int(np.argmax(VECTORS[:4] @ QUERY)) == 0  # the query alone is nearest row 0
    ranked = feedback_ranking(QUERY, lexical, dense, 1, 1.0, _vectors_of, _score_rows)
    rows = [r for r, _ in ranked]
    assert sorted(rows) == [0, 1, 2, 3]  # row 4 is in neither list: never scored
    q = rocchio(QUERY, VECTORS[[1]], 1.0)
    assert [s for _, s in ranked] == pytest.approx(sorted((VECTORS[[0, 1, 2, 3]] @ q).tolist(), reverse=True))
    assert rows[0] == 1  # feedback from row 1 moves the query nearer it than row 0
    assert feedback_ranking(QUERY, lexical, dense, 1, 1.0, _vectors_of, _score_rows, depth=2) == ranked[:2]


def test_feedback_ranking_is_plain_dense_when_off_or_empty():
    dense = [(0, 0.99), (1, 0.77)]
    assert feedback_ranking(QUERY, [], dense, 0, 1.0, _vectors_of, _score_rows) == dense
    assert feedback_ranking(QUERY, [(3, 1.0)], [], 5, 1.0, _vectors_of, _score_rows) == []


def test_feedback_ties_go_by_row():
    same = np.vstack([_unit(1, 0, 0)] * 3)
    ranked = feedback_ranking(
        _unit(1, 0, 0), [(2, 1.0)], [(1, 1.0), (0, 1.0)], 1, 0.5, lambda r: same[r], lambda q, r: same[r] @ q
    )
    assert [r for r, _ in ranked] == [0, 1, 2]


def test_index_feedback_uses_the_dense_index_rows():
    index = DenseIndex(VECTORS)
    dense = [(int(r), s) for r, s in index.search(QUERY, 3)]
    want = feedback_ranking(QUERY, [(3, 1.0)], dense, 2, 0.5, _vectors_of, _score_rows)
    got = index_feedback(index, QUERY, [(3, 1.0)], dense)(2, 0.5)
    assert [r for r, _ in got] == [r for r, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want])


def _gate(bias: float, prf_k: int) -> FusionGate:
    n = len(GATE_FEATURES)
    return FusionGate(
        (0.0,) * n,
        bias,
        (0.0,) * n,
        (1.0,) * n,
        fused_method="convex",
        dense_weight=0.5,
        prf_k=prf_k,
        prf_beta=0.5,
    )


def test_the_gate_feeds_back_into_its_fusion_only():
    lexical, dense = [(1, 10.0), (2, 5.0)], [(2, 0.9), (3, 0.5), (1, 0.1)]
    moved = [(3, 0.95), (1, 0.6), (2, 0.2)]
    stats = FusionStats({1: 1.0, 2: 0.5, 3: 0.0}, query_terms=2)
    calls: list[tuple[int, float]] = []

    def feedback(k: int, beta: float) -> list[tuple[int, float]]:
        calls.append((k, beta))
        return moved

    pair = {"bm25": lexical, "dense": moved}
    want = fusion.convex(pair, {"bm25": 0.5, "dense": 0.5})
    assert _gate(-5.0, 5).fuse(lexical, dense, stats, feedback) == want
    assert calls == [(5, 0.5)]
    assert _gate(5.0, 5).fuse(lexical, dense, stats, feedback) == dense  # dense alone stays plain
    assert _gate(-5.0, 0).fuse(lexical, dense, stats, feedback) == fusion.convex(
        {"bm25": lexical, "dense": dense}, {"bm25": 0.5, "dense": 0.5}
    )
    assert calls == [(5, 0.5)]  # neither dense alone nor a gate without PRF asks for feedback
    # Without a feedback ranking (a backend that cannot re-score) the fusion takes plain dense.
    assert _gate(-5.0, 5).fuse(lexical, dense, stats) == _gate(-5.0, 0).fuse(lexical, dense, stats)
    ruled = fusion.GatedRule(gate=_gate(-5.0, 5)).fuse(lexical, dense, stats, feedback)
    assert ruled == want
    assert fusion.fuse_two(lexical, dense, stats, fusion.GatedRule(gate=_gate(-5.0, 5)), feedback) == want


def test_gate_file_keeps_prf_and_old_files_read_without_it():
    gate = _gate(-1.0, 5)
    again = FusionGate.from_json(gate.to_json())
    assert (again.prf_k, again.prf_beta) == (5, 0.5)
    data = gate.to_json()
    del data["prf_k"], data["prf_beta"]
    assert FusionGate.from_json(data).prf_k == 0


def test_the_retriever_hands_the_gate_its_feedback_ranking():
    from ragcore.retrieval import FusionConfig, Retriever
    from tests.retrieval.test_retriever import ToyEmbedder, make_corpus

    gate = FusionGate(
        (0.0,) * len(GATE_FEATURES),
        -50.0,
        (0.0,) * len(GATE_FEATURES),
        (1.0,) * len(GATE_FEATURES),
        fused_method="convex",
        prf_k=2,
        prf_beta=1.0,
    )  # always the fusion
    config = FusionConfig(method="gated", gated=fusion.GatedRule(gate=gate))
    r = Retriever(make_corpus(), embedder=ToyEmbedder(), fusion_config=config, split_parts=False)
    question = "what is the price of the plan"
    bm, dn = r.bm25.search(question, 100), r._dense_ranking(question, 100)
    stats = fusion.fusion_stats(r.bm25, question, bm, dn)
    moved = index_feedback(r.dense_index(), r.embedder.embed_query(question), bm, dn)
    want = fusion.GatedRule(gate=gate).fuse(bm, dn, stats, moved)
    plain = fusion.GatedRule(gate=gate).fuse(bm, dn, stats)
    assert [s for _, s in want] != pytest.approx([s for _, s in plain])  # the feedback changes the fusion
    hits = r.search(question, mode="hybrid", k=5).hits
    assert [r.row_of(h.passage) for h in hits] == [row for row, _ in want[:5]]
    assert [h.score for h in hits] == pytest.approx([s for _, s in want[:5]])


def test_split_parts_are_ranked_without_feedback_and_the_whole_with_it():
    """PART_PRF off (scripts/prf_parts_study.py): a split question's parts
    fuse plain dense, the whole question keeps the feedback step."""
    from ragcore.retrieval import FusionConfig, Retriever
    from ragcore.retrieval.query import retrieval_parts
    from ragcore.retrieval.results import CallLog
    from ragcore.retrieval.retriever import PART_PRF
    from tests.retrieval.test_retriever import ToyEmbedder, make_corpus

    gate = _gate(-50.0, 2)  # always the fusion, PRF k 2
    config = FusionConfig(method="gated", gated=fusion.GatedRule(gate=gate))
    r = Retriever(make_corpus(), embedder=ToyEmbedder(), fusion_config=config)
    assert r.part_prf is PART_PRF is False
    question = (
        "What is the price of the Business plan per month, and what uptime does the SLA guarantee each month?"
    )
    assert len(retrieval_parts(question)) == 2
    calls: list[tuple[str, bool]] = []
    rank = r._rank

    def spy(text, mode, k, log, prf=True):
        calls.append((text, prf))
        return rank(text, mode, k, log, prf=prf)

    r._rank = spy  # type: ignore[method-assign]
    r.search(question, mode="hybrid", k=5)
    assert calls[0] == (question, True)
    assert len(calls) == 3 and all(not prf for _, prf in calls[1:])
    r.part_prf, calls[:] = True, []
    r.search(question, mode="hybrid", k=5)
    assert len(calls) == 3 and all(prf for _, prf in calls)
    # prf off is the gate over plain dense; on, the feedback ranking moves it.
    part = "what uptime does the SLA guarantee each month"
    bm, dn = r.bm25.search(part, 100), r._dense_ranking(part, 100)
    stats = fusion.fusion_stats(r.bm25, part, bm, dn)
    plain = fusion.GatedRule(gate=gate).fuse(bm, dn, stats)
    assert rank(part, "hybrid", 5, CallLog(), prf=False)[0] == plain
    moved = fusion.GatedRule(gate=gate).fuse(
        bm, dn, stats, index_feedback(r.dense_index(), r.embedder.embed_query(part), bm, dn)
    )
    assert rank(part, "hybrid", 5, CallLog())[0] == moved
    assert [s for _, s in moved] != pytest.approx([s for _, s in plain])  # the switch is not a no-op
