import json

import numpy as np
import pytest

from ragcore.retrieval import fusion, fusion_gate
from ragcore.retrieval.fusion_gate import (
    GATE_FEATURES,
    SCALE_FREE,
    FusionGate,
    GateQuery,
    fit_gate,
    gate_features,
    rrf_pair,
)
from ragcore.retrieval.learned_fusion import FusionStats


def test_gate_features_by_hand():
    lexical = [(10, 8.0), (20, 4.0)]
    dense = [(20, 0.9), (30, 0.5), (40, 0.1)]
    stats = FusionStats({10: 0.8, 20: 0.2, 30: 0.0, 40: 0.0}, query_terms=3, identifier_rows=(10,))
    f = dict(zip(GATE_FEATURES, gate_features(lexical, dense, stats), strict=True))
    assert f["dense_top_coverage"] == pytest.approx(0.2)
    assert f["bm25_top_coverage"] == pytest.approx(0.8)
    assert f["support"] == pytest.approx(0.25)  # 0.2 / 0.8
    assert f["identifier"] == 1.0
    assert f["agreement"] == pytest.approx(0.5)  # row 20 of BM25's two is in dense's list
    assert f["dense_spread"] == pytest.approx(0.8)  # 0.9 - 0.1 (the list is shorter than 10)
    assert f["length"] == pytest.approx(np.log1p(3))


def test_support_is_zero_when_bm25_top_holds_nothing():
    stats = FusionStats({1: 0.0, 2: 0.5}, query_terms=2)
    f = dict(zip(GATE_FEATURES, gate_features([(1, 1.0)], [(2, 0.5)], stats), strict=True))
    assert f["support"] == 0.0


def test_rrf_pair_weights_bm25_terms():
    lexical, dense = [(1, 5.0), (2, 4.0)], [(2, 0.9), (3, 0.8)]
    plain = dict(rrf_pair(lexical, dense, 60))
    assert plain[2] == pytest.approx(1 / 62 + 1 / 61)
    assert plain == pytest.approx(dict(fusion.rrf({"bm25": lexical, "dense": dense}, k=60)))
    off = rrf_pair(lexical, dense, 60, bm25_weight=0.0)
    assert [row for row, _ in off][:2] == [2, 3]  # dense order when BM25 weighs nothing


def _gate(bias: float, soft: bool = False) -> FusionGate:
    n = len(GATE_FEATURES)
    return FusionGate((0.0,) * n, bias, (0.0,) * n, (1.0,) * n, k=60.0, soft=soft)


def test_hard_gate_returns_dense_or_rrf():
    lexical, dense = [(1, 5.0), (2, 4.0)], [(3, 0.9), (2, 0.8)]
    stats = FusionStats({1: 1.0, 2: 0.5, 3: 0.0}, query_terms=2)
    assert _gate(5.0).fuse(lexical, dense, stats) == dense
    assert _gate(-5.0).fuse(lexical, dense, stats) == rrf_pair(lexical, dense, 60)
    assert _gate(5.0).fuse([], dense, stats) == dense


def test_soft_gate_weights_bm25_by_one_minus_p():
    lexical, dense = [(1, 5.0), (2, 4.0)], [(3, 0.9), (2, 0.8)]
    gate = _gate(0.0, soft=True)  # p = 1/2
    stats = FusionStats({1: 1.0, 2: 0.5, 3: 0.0}, query_terms=2)
    assert gate.fuse(lexical, dense, stats) == rrf_pair(lexical, dense, 60, 0.5)


def test_gate_falls_back_from_a_convex_combination():
    lexical, dense = [(1, 10.0), (2, 5.0)], [(2, 0.9), (3, 0.5), (1, 0.1)]
    stats = FusionStats({1: 1.0, 2: 0.5, 3: 0.0}, query_terms=2)
    n = len(GATE_FEATURES)
    for method, expected in (("convex", fusion.convex), ("convex_tmm", fusion.convex_tmm)):
        gate = FusionGate((0.0,) * n, -5.0, (0.0,) * n, (1.0,) * n, fused_method=method, dense_weight=0.8)
        pair = {"bm25": lexical, "dense": dense}
        fused, want = gate.fuse(lexical, dense, stats), expected(pair, {"bm25": 0.2, "dense": 0.8})
        assert [r for r, _ in fused] == [r for r, _ in want]
        assert [s for _, s in fused] == pytest.approx([s for _, s in want])
        # dense weighted 0.8: min-max puts row 2 (dense's first) above row 1 (BM25's first)
        assert gate.fuse(lexical, dense, stats)[0][0] == 2
        dense_gate = FusionGate((0.0,) * n, 5.0, (0.0,) * n, (1.0,) * n, fused_method=method)
        assert dense_gate.fuse(lexical, dense, stats) == dense


def test_unknown_fused_method_in_file_is_refused():
    data = _gate(0.0).to_json() | {"fused_method": "median"}
    with pytest.raises(ValueError, match="unknown fused method"):
        FusionGate.from_json(data)


def test_old_gate_files_read_as_rrf():
    data = _gate(0.0).to_json()
    del data["fused_method"], data["dense_weight"]
    assert FusionGate.from_json(data).fused_method == "rrf"


def _synthetic(rng, n):
    """Dense is better exactly when dense's top passage holds little of the
    query's idf mass: the fit must learn that."""
    out = []
    for _ in range(n):
        paraphrase = rng.random() < 0.5
        x = np.zeros(len(GATE_FEATURES))
        x[GATE_FEATURES.index("dense_top_coverage")] = (
            rng.uniform(0, 0.2) if paraphrase else rng.uniform(0.5, 1)
        )
        x[GATE_FEATURES.index("length")] = rng.uniform(1, 3)
        dense, fused = (0.8, 0.3) if paraphrase else (0.4, 0.7)
        out.append((paraphrase, GateQuery(x, fused, dense, 1.0)))
    return out


def test_fit_gate_learns_when_dense_is_better():
    rng = np.random.default_rng(3)
    train = _synthetic(rng, 200)
    gate = fit_gate([q for _, q in train], k=20.0, trained_on=["synthetic"])
    test = _synthetic(rng, 100)
    right = [(gate.dense_probability(q.features) > 0.5) == paraphrase for paraphrase, q in test]
    assert np.mean(right) > 0.95
    assert gate.k == 20.0 and gate.trained_on == ("synthetic",)


def test_fit_gate_rejects_no_queries():
    with pytest.raises(ValueError, match="no training query"):
        fit_gate([])


def test_json_round_trip_and_feature_check(tmp_path):
    gate = fit_gate(
        [q for _, q in _synthetic(np.random.default_rng(1), 40)], fused_method="convex_tmm", dense_weight=0.7
    )
    path = tmp_path / "gate.json"
    gate.write(path)
    again = FusionGate.from_json(json.loads(path.read_text()))
    assert again == gate
    data = gate.to_json() | {"features": ["other"]}
    with pytest.raises(ValueError, match="other features"):
        FusionGate.from_json(data)


def test_gated_rule_pins_identifier_rows():
    lexical, dense = [(1, 5.0), (2, 4.0), (7, 1.0)], [(3, 0.9), (2, 0.8)]
    stats = FusionStats({1: 1.0, 2: 0.5, 3: 0.0, 7: 0.3}, query_terms=2, identifier_rows=(7,))
    fused = fusion.GatedRule(pin=True, gate=_gate(5.0)).fuse(lexical, dense, stats)
    assert fused[0][0] == 7 and [row for row, _ in fused[1:]] == [3, 2]
    unpinned = fusion.GatedRule(pin=False, gate=_gate(5.0)).fuse(lexical, dense, stats)
    assert unpinned == dense


def test_gate_over_a_subset_of_signals():
    queries = [q for _, q in _synthetic(np.random.default_rng(2), 80)]
    gate = fit_gate(queries, used=SCALE_FREE)
    assert gate.used == SCALE_FREE and len(gate.weights) == len(SCALE_FREE)
    features = queries[0].features.copy()
    before = gate.dense_probability(features)
    for name in ("dense_spread", "dense_top"):  # signals it does not read
        features[GATE_FEATURES.index(name)] += 5.0
    assert gate.dense_probability(features) == before
    assert FusionGate.from_json(gate.to_json()) == gate


def test_shipped_gate_loads():
    gate = fusion_gate.shipped_gate()
    assert len(gate.weights) == len(gate.used) and gate.trained_on


def test_retriever_gated_method_uses_the_given_gate():
    from ragcore.retrieval import FusionConfig, Retriever
    from tests.retrieval.test_retriever import ToyEmbedder, make_corpus

    question = "what does the plan cost"
    dense_gate = fusion.GatedRule(pin=True, gate=_gate(5.0))
    rrf_gate = fusion.GatedRule(pin=True, gate=_gate(-5.0))
    corpus = make_corpus()
    gated = Retriever(
        corpus, embedder=ToyEmbedder(), fusion_config=FusionConfig(method="gated", gated=dense_gate)
    )
    dense = Retriever(corpus, embedder=ToyEmbedder()).search(question, mode="dense", k=4).hits
    hits = gated.search(question, mode="hybrid", k=4).hits
    assert [h.passage.id for h in hits] == [h.passage.id for h in dense]
    fused = Retriever(
        corpus, embedder=ToyEmbedder(), fusion_config=FusionConfig(method="gated", gated=rrf_gate)
    )
    bm = fused.bm25.search(question, 100)
    dn = fused._dense_ranking(question, 100)
    expected = rrf_pair(bm, dn, 60)[:4]
    assert [h.score for h in fused.search(question, mode="hybrid", k=4).hits] == pytest.approx(
        [s for _, s in expected]
    )


def test_fusion_import_leaves_scipy_optimize_out():
    """Only fitting needs scipy.optimize (about 0.5 s of the app's start-up)."""
    import subprocess
    import sys

    code = "import sys, ragcore.retrieval.fusion; print('scipy.optimize' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
