"""The hedged dense-alone ranking of scripts/gate_hedge_study.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import gate_hedge_study


def test_hedge_moves_bm25_top_up_to_its_rank_and_keeps_scores_in_order():
    dense = [(4, 0.9), (5, 0.8), (6, 0.7), (7, 0.6)]
    bm25 = [(7, 12.0), (4, 9.0)]
    hedged = gate_hedge_study.hedge(dense, bm25, 2)
    assert [row for row, _ in hedged] == [4, 7, 5, 6]
    scores = [s for _, s in hedged]
    assert scores == sorted(scores, reverse=True)


def test_hedge_leaves_dense_alone_when_it_already_ranks_bm25_top_high_or_is_off():
    dense = [(4, 0.9), (5, 0.8), (6, 0.7)]
    assert gate_hedge_study.hedge(dense, [(4, 3.0)], 2) == dense
    assert gate_hedge_study.hedge(dense, [(6, 3.0)], 0) == dense
    assert gate_hedge_study.hedge(dense, [], 2) == dense


def test_hedge_inserts_a_passage_dense_never_listed():
    hedged = gate_hedge_study.hedge([(1, 0.5)], [(9, 4.0)], 3)
    assert [row for row, _ in hedged] == [1, 9]
