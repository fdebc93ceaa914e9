import json

import numpy as np
import pytest

from ragcore.retrieval import fusion, learned_fusion
from ragcore.retrieval.learned_fusion import (
    FEATURES,
    FusionStats,
    LearnedFusion,
    TrainingQuery,
    candidate_features,
    fit,
)


def _column(name: str) -> int:
    return FEATURES.index(name)


def test_candidate_features_by_hand():
    lexical = [(10, 8.0), (20, 4.0)]
    dense = [(20, 0.9), (30, 0.5), (40, 0.1)]
    stats = FusionStats({10: 1.0, 20: 0.5, 30: 0.0, 40: 0.25}, query_terms=3, identifier_rows=(10,))
    rows, x = candidate_features(lexical, dense, stats)
    assert rows == [10, 20, 30, 40]
    assert x.shape == (4, len(FEATURES))
    rr_b, rr_d = _column("rr_bm25"), _column("rr_dense")
    assert x[0, rr_b] == pytest.approx(60 / 61) and x[0, rr_d] == 0.0
    assert x[1, rr_b] == pytest.approx(60 / 62) and x[1, rr_d] == pytest.approx(60 / 61)
    assert x[1, _column("score_bm25")] == pytest.approx(0.5)
    assert x[2, _column("score_dense")] == pytest.approx(0.5)  # (0.5 - 0.1) / (0.9 - 0.1)
    assert x[3, _column("score_dense")] == 0.0
    assert list(x[:, _column("identifier")]) == [1, 0, 0, 0]
    # dense's top passage (20) holds half the idf mass; crossed features multiply it in
    assert x[1, _column("coverage*dense_top_coverage")] == pytest.approx(0.5 * 0.5)
    assert x[0, _column("rr_bm25*bm25_top_coverage")] == pytest.approx(60 / 61 * 1.0)
    assert x[0, _column("coverage*length")] == pytest.approx(np.log1p(3))


def _synthetic_queries(rng, n):
    """Relevance follows BM25 when dense's top passage covers the query's
    words and dense otherwise: a fit must learn the crossed features."""
    out = []
    for _ in range(n):
        rows = list(range(20))
        bm_order = list(rng.permutation(rows))
        dn_order = list(rng.permutation(rows))
        lexical_query = rng.random() < 0.5
        relevant = bm_order[0] if lexical_query else dn_order[0]
        lexical = [(r, 10.0 - i * 0.4) for i, r in enumerate(bm_order)]
        dense = [(r, 0.9 - i * 0.02) for i, r in enumerate(dn_order)]
        coverage = {r: 0.2 for r in rows}
        coverage[dn_order[0]] = 0.9 if lexical_query else 0.05
        stats = FusionStats(coverage, 4)
        got, x = candidate_features(lexical, dense, stats)
        gains = np.asarray([1.0 if r == relevant else 0.0 for r in got])
        out.append((lexical, dense, stats, relevant, TrainingQuery(x, gains, 1.0)))
    return out


def test_fit_learns_when_to_trust_each_list():
    rng = np.random.default_rng(7)
    model = fit([q[-1] for q in _synthetic_queries(rng, 300)], l2=0.1)
    test = _synthetic_queries(rng, 100)
    hits = sum(model.fuse(lex, dn, st)[0][0] == rel for lex, dn, st, rel, _ in test)
    assert hits >= 90  # either fixed list alone finds about half


def test_fit_needs_a_relevant_candidate():
    x = np.zeros((3, len(FEATURES)))
    with pytest.raises(ValueError, match="no training query"):
        fit([TrainingQuery(x, np.zeros(3), 1.0)])


def test_json_round_trip_and_feature_check(tmp_path):
    rng = np.random.default_rng(1)
    model = fit([q[-1] for q in _synthetic_queries(rng, 40)], trained_on=["a", "b"])
    path = tmp_path / "w.json"
    model.write(path)
    again = LearnedFusion.from_json(json.loads(path.read_text()))
    assert again == model
    bad = model.to_json() | {"features": ["x"]}
    with pytest.raises(ValueError, match="other features"):
        LearnedFusion.from_json(bad)


def test_shipped_weights_load_and_rank_every_candidate():
    model = learned_fusion.shipped()
    assert len(model.weights) == len(FEATURES)
    lexical, dense = [(1, 5.0), (2, 1.0)], [(3, 0.8), (1, 0.7)]
    fused = fusion.fuse_two(lexical, dense, FusionStats({1: 1.0, 2: 0.2, 3: 0.5}, 2))
    assert sorted(r for r, _ in fused) == [1, 2, 3]
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)


def test_learned_rule_pins_identifier_rows():
    lexical, dense = [(1, 5.0), (2, 4.0)], [(3, 0.9), (4, 0.8)]
    stats = FusionStats({1: 0.1, 2: 1.0, 3: 0.2, 4: 0.1}, 2, identifier_rows=(2,))
    assert fusion.LearnedRule(pin=True).fuse(lexical, dense, stats)[0][0] == 2
    assert fusion.fusion_stats.__doc__  # the helper a backend calls is documented


def test_fusion_stats_from_an_index():
    from ragcore.retrieval.bm25 import BM25Index

    index = BM25Index.from_texts(["Error ERR-4012 means the upload failed.", "Lunch is at noon.", "x y"])
    question = "what does ERR-4012 mean"
    lexical = index.search(question)
    stats = fusion.fusion_stats(index, question, lexical, [(1, 0.5)])
    assert stats.coverage[0] == pytest.approx(1.0) and stats.coverage[1] == 0.0
    assert stats.identifier_rows == (0,) and stats.query_terms >= 3
