"""The choice rules of the cross-validation script (scripts/fusion_cv.py)."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from fusion_cv import choose, goal_met, nested, pick_mean

SCORES = {
    "a": {"c1": 0.5, "demo:x": 0.9, "demo:y": 0.9, "demo:z": 0.9},
    "b": {"c1": 0.8, "demo:x": 0.7, "demo:y": 0.7, "demo:z": 0.7},
}
GROUPS = list(SCORES["a"])


def test_pick_mean_weights_each_collection_equally():
    # Unweighted, the demo's three types outvote c1: a (0.80) beats b (0.725).
    assert pick_mean(SCORES, GROUPS) == "a"
    # Each collection weighted once: a (0.5 + 0.9) / 2 = 0.70 < b (0.8 + 0.7) / 2 = 0.75.
    collection_of = {"c1": "c1", "demo:x": "demo", "demo:y": "demo", "demo:z": "demo"}
    assert pick_mean(SCORES, GROUPS, collection_of) == "b"


# A family whose three settings each fit two groups and fail the third, and
# a steady one: tuned in-sample the first looks better (0.633 vs 0.6);
# compared on nested scores (each group scored with the setting picked
# without it) it scores 0.1 on every group, and the steady family wins.
OVERFIT = {
    "x1": {"a": 0.9, "b": 0.9, "c": 0.1},
    "x2": {"a": 0.1, "b": 0.9, "c": 0.9},
    "x3": {"a": 0.9, "b": 0.1, "c": 0.9},
}
STEADY = {"y": {"a": 0.6, "b": 0.6, "c": 0.6}}
OWN = {"a": "a", "b": "b", "c": "c"}


def test_nested_scores_each_group_without_it():
    assert nested(OVERFIT, ["a", "b", "c"], OWN) == pytest.approx({"a": 0.1, "b": 0.1, "c": 0.1})


def test_choose_compares_families_on_nested_scores():
    tuned, chosen, inner = choose({"overfit": OVERFIT, "steady": STEADY}, ["a", "b", "c"], OWN)
    assert pick_mean(OVERFIT, ["a", "b", "c"]) == tuned["overfit"]  # in-sample it would look better
    assert chosen == "steady"
    assert inner["steady"] == STEADY["y"]


def _row(name, hybrid, bm25, dense):
    return {"collection": name, "chosen": {"held_out": hybrid}, "bm25": bm25, "dense": dense}


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (_row("demo:fact", 0.81, 0.70, 0.80), "yes"),
        (_row("demo:fact", 0.79, 0.70, 0.80), "no"),
        (_row("cisi", 0.4409, 0.40, 0.42), "no (ref 0.441)"),  # unrounded: below the reference
        (_row("cisi", 0.4410, 0.40, 0.42), "yes (ref 0.441)"),
        (_row("vaswani", 0.52, 0.53, 0.44), "no (ref 0.515)"),  # above the reference, below BM25
    ],
)
def test_goal_met(row, expected):
    assert goal_met(row) == expected


def _toy_prep():
    """Two groups of four questions over six passages, with lists where
    dense alone or the fusion wins depending on the question."""
    from fusion_cv import Collection, Prepared

    from ragcore.records import Passage
    from ragcore.retrieval.learned_fusion import FusionStats

    passages = [Passage(f"d{i}.md", 0, 1, 1, 0, 1, "s", "t") for i in range(6)]
    rng = np.random.default_rng(5)
    questions, qrels, bm25, dense, stats = [], {}, {}, {}, {}
    for n in range(8):
        qid = f"q{n}"
        questions.append((qid, f"question {n}", "g1" if n < 4 else "g2"))
        order_b, order_d = rng.permutation(6), rng.permutation(6)
        bm25[qid] = [(int(r), float(6 - i)) for i, r in enumerate(order_b)]
        dense[qid] = [(int(r), 0.9 - 0.1 * i) for i, r in enumerate(order_d)]
        qrels[qid] = {passages[int(order_d[0])].id: 2, passages[int(order_b[1])].id: 1}
        stats[qid] = FusionStats({r: float(rng.random()) for r in range(6)}, int(rng.integers(1, 6)))
    groups = {"g1": [f"q{n}" for n in range(4)], "g2": [f"q{n}" for n in range(4, 8)]}
    coll = Collection("toy", "passage", passages, questions, qrels, groups)
    return Prepared(coll, dense, bm25={"L": bm25}, stats={"L": stats})


def test_gate_family_lookup_equals_the_fitted_gates_ranking():
    """The gated family scores a fit by looking up each query's precomputed
    nDCG of dense or of the fused ranking: it must equal the nDCG of the
    ranking the fitted gate itself makes (as shipped, with pins)."""
    from dataclasses import replace

    from fusion_gate import SETTINGS, GateFamily

    from ragcore.retrieval import fusion

    prep = _toy_prep()
    family = GateFamily([prep], "L")
    key = frozenset({"g2"})
    for setting in ("rrf k=20", "convex dense 0.6", "convex tmm dense 0.8 scale-free"):
        assert setting in SETTINGS
        fitted = family.model(key, setting)
        # the fit, and the same gate forced to dense alone and to the fusion
        for gate in (fitted, replace(fitted, bias=50.0), replace(fitted, bias=-50.0)):
            family.fits[(key, setting)] = gate
            looked_up = family.per_question("g2", key, setting)
            rule = fusion.GatedRule(pin=True, gate=gate)
            for qid in prep.coll.groups["g2"]:
                ranking = rule.fuse(prep.bm25["L"][qid], prep.dense[qid], prep.stats["L"][qid])
                assert looked_up[qid] == pytest.approx(prep.coll.ndcg(qid, ranking))
    dense_only = {q: prep.coll.ndcg(q, prep.dense[q]) for q in prep.coll.groups["g2"]}
    assert looked_up != pytest.approx(dense_only)  # the toy lists tell the two apart
