"""The choice rules of the cross-validation script (scripts/fusion_cv.py)."""

import sys
from pathlib import Path

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
