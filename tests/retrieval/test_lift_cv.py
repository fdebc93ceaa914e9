"""scripts/lift_cv.py: the leave-one-group-out choice, folds and ship rule
shared by the lift and expansion studies, on scores made up to know the answer."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from lift_cv import GroupScores, choose, folds, ship, training_gain

SETTINGS = ["off", "small", "big"]


def _group(gains: dict[str, float], base: float = 0.5) -> GroupScores:
    """One question, scored ``base`` off and ``base + gain`` per setting, in both modes."""
    per = {s: {"q": base + gains.get(s, 0.0)} for s in SETTINGS}
    return GroupScores(["q"], {"bm25": per, "hybrid": per})


def _tie(s: str) -> tuple[int]:
    return (-SETTINGS.index(s),)  # off first, then the smaller


GROUPS = {
    "a": _group({"small": 0.02, "big": 0.04}),
    "b:x": _group({"small": 0.02, "big": -0.02}),
    "b:y": _group({"small": 0.00, "big": 0.00}),
    "c": _group({"small": 0.01, "big": 0.01}),
}


def test_each_collection_weighs_the_same_whatever_its_types():
    # b's two types share b's weight: (0.02 + 0.00) / 2 for small
    assert training_gain(GROUPS, sorted(GROUPS), "small", "hybrid", "off") == pytest.approx(
        (0.02 + 0.01 + 0.01) / 3
    )


def test_choice_and_ties():
    assert choose(GROUPS, ["a"], "hybrid", SETTINGS, "off", _tie) == "big"
    assert choose(GROUPS, ["c"], "hybrid", SETTINGS, "off", _tie) == "small"  # a tie goes to the smaller
    assert choose(GROUPS, ["b:y"], "hybrid", SETTINGS, "off", _tie) == "off"


def test_folds_score_each_group_at_the_setting_chosen_without_it():
    held = {f["held_out"]: f for f in folds(GROUPS, "hybrid", SETTINGS, "off", _tie)}
    assert held["a"]["chosen"] == "small"  # without a, big gains nothing on average
    assert round(held["a"]["held_out_change"]["hybrid"], 9) == 0.02
    assert held["b:x"]["chosen"] == "big" and round(held["b:x"]["held_out_change"]["hybrid"], 9) == -0.02


def test_ship_rule_needs_a_mean_gain_and_no_large_loss():
    held = folds(GROUPS, "hybrid", SETTINGS, "off", _tie)
    decision = ship(GROUPS, held, SETTINGS, "off", _tie, max_group_loss=0.01)
    assert decision["chosen_on_all"] == "small" and not decision["ships"]  # b:x loses 0.02 held out
    assert decision["shipped_setting"] == "off"
    assert ship(GROUPS, held, SETTINGS, "off", _tie, max_group_loss=0.05)["ships"]
