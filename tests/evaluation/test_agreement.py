"""Design-effect Wilson intervals and kappa against worked examples by hand."""

from __future__ import annotations

import math

import pytest

from ragcore.evaluation.agreement import (
    agreement,
    clustered_rate,
    cohens_kappa,
    design_effect,
    icc1,
    raw_agreement,
    topic_resamples,
    wilson_bounds,
)
from ragcore.evaluation.statistics import wilson_interval

Z95 = 1.959963984540054  # the 97.5% point of the standard normal

# Three topics of four items: 3 of 4, 1 of 4 and 4 of 4 pass.
TOPICS = [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]]


def test_icc1_from_one_way_anova_by_hand():
    # Topic means 3/4, 1/4, 1; grand mean 8/12 = 2/3.
    # SSB = 4 * ((3/4 - 2/3)^2 + (1/4 - 2/3)^2 + (1 - 2/3)^2) = 4 * (1/144 + 25/144 + 16/144) = 7/6
    # MSB = SSB / (3 - 1) = 7/12
    # SSW = (3 * (1/4)^2 + (3/4)^2) + (same, mirrored) + 0 = 3/4 + 3/4 = 3/2;  MSW = (3/2) / (12 - 3) = 1/6
    # ICC(1) = (7/12 - 1/6) / (7/12 + (4 - 1) * 1/6) = (5/12) / (13/12) = 5/13
    assert icc1(TOPICS) == pytest.approx(5 / 13, abs=1e-12)


def test_kish_design_effect_and_effective_n_by_hand():
    d = design_effect(TOPICS)
    assert d.mean_items == 4
    assert d.deff == pytest.approx(1 + 3 * 5 / 13, abs=1e-12)  # 28/13
    assert d.effective_n == pytest.approx(12 / (28 / 13), abs=1e-12)  # 39/7 = 5.571...


def test_design_effect_wilson_interval_by_hand():
    r = clustered_rate([[bool(v) for v in t] for t in TOPICS])
    # Wilson with p = 2/3 and n = 39/7:
    p, n, z2 = 2 / 3, 39 / 7, Z95**2
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    assert (r.rate, r.successes, r.n) == (pytest.approx(2 / 3), 8, 12)
    assert r.low == pytest.approx(centre - half, abs=1e-9)
    assert r.high == pytest.approx(centre + half, abs=1e-9)
    assert r.low == pytest.approx(0.28991, abs=1e-5) and r.high == pytest.approx(0.90738, abs=1e-5)
    # Wider than the naive interval on all 12 items, which ignores the topics.
    naive = wilson_interval(8, 12)
    assert r.low < naive[0] and r.high > naive[1]


def test_negative_icc_is_truncated_and_deff_never_below_one():
    # Every topic is half and half: between-topic variance is below chance.
    # Means all 1/2, SSB = 0, MSB = 0; MSW = (3 * 0.5) / (6 - 3) = 0.5 -> ICC = (0 - 0.5)/(0 + 0.5) = -1 -> 0.
    topics = [[1, 0], [1, 0], [0, 1]]
    assert icc1(topics) == 0.0
    d = design_effect(topics)
    assert d.deff == 1.0 and d.effective_n == 6
    # With deff 1 and integer n, the interval is scipy's Wilson interval.
    r = clustered_rate([[bool(v) for v in t] for t in topics])
    assert (r.low, r.high) == pytest.approx(wilson_interval(3, 6), abs=1e-9)


def test_unequal_topic_sizes_use_the_adjusted_group_size():
    # Sizes 1, 3: N = 4, n0 = (4 - (1 + 9) / 4) / 1 = 1.5.
    # Values [1], [0, 0, 1]: means 1, 1/3, grand 1/2.
    # SSB = 1 * (1/2)^2 + 3 * (1/6)^2 = 1/4 + 1/12 = 1/3; MSB = 1/3.
    # SSW = 0 + (2 * (1/3)^2 + (2/3)^2) = 2/3; MSW = (2/3) / 2 = 1/3 -> ICC = 0.
    assert icc1([[1], [0, 0, 1]]) == 0.0
    # Values [1], [1, 1, 0]: means 1, 2/3, grand 3/4; SSB = 1/16 + 3/144 = 1/12; MSB = 1/12;
    # SSW = 2/3, MSW = 1/3: MSB < MSW, negative -> 0.
    assert icc1([[1], [1, 1, 0]]) == 0.0
    # [1, 1], [0, 0, 0] is perfectly clustered: MSW = 0 -> ICC = MSB / MSB = 1.
    assert icc1([[1, 1], [0, 0, 0]]) == pytest.approx(1.0)
    assert design_effect([[1, 1], [0, 0, 0]]).deff == pytest.approx(1 + (2.5 - 1) * 1.0)


def test_one_topic_or_single_items_have_no_design_effect():
    assert design_effect([[1, 0, 1]]).deff == 1.0
    assert design_effect([[1], [0], [1]]).deff == 1.0
    with pytest.raises(ValueError):
        clustered_rate([])


def test_wilson_bounds_reject_bad_input():
    with pytest.raises(ValueError):
        wilson_bounds(0.5, 0)
    with pytest.raises(ValueError):
        wilson_bounds(1.5, 10)


def test_cohens_kappa_by_hand():
    # 10 items: check yes & person yes 4, check yes & person no 1,
    # check no & person yes 2, both no 3.
    check = [True] * 4 + [True] + [False] * 2 + [False] * 3
    person = [True] * 4 + [False] + [True] * 2 + [False] * 3
    # po = (4 + 3) / 10 = 0.7; check says yes 5/10, person 6/10;
    # pe = 0.5 * 0.6 + 0.5 * 0.4 = 0.5; kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    assert raw_agreement(check, person) == pytest.approx(0.7)
    assert cohens_kappa(check, person) == pytest.approx(0.4)


def test_kappa_is_undefined_when_both_always_say_the_same():
    assert cohens_kappa([True, True], [True, True]) is None
    # Perfect disagreement with balanced margins: po = 0, pe = 0.5 -> kappa = -1.
    assert cohens_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        cohens_kappa([True], [True, False])


def test_cluster_bootstrap_resamples_whole_topics():
    # Topic A: check and person agree on all 4 items; topic B: disagree on all 4.
    a = [(True, True), (False, False), (True, True), (False, False)]
    b = [(True, False), (False, True), (True, False), (False, True)]
    result = agreement("numbers_present", [a, b], resamples=400)
    assert result.agreement == pytest.approx(0.5)
    assert (result.n, result.topics) == (8, 2)
    # Whole topics are drawn, so a resample agrees on 0, 1/2 or all items: the
    # percentile interval spans the full range. Resampling items would not.
    assert (result.agreement_low, result.agreement_high) == (0.0, 1.0)
    draws = topic_resamples(2, 400)
    assert draws.shape == (400, 2) and set(draws.ravel()) == {0, 1}


def test_agreement_interval_holds_its_estimate_and_kappa():
    topics = [
        [(True, True), (True, True), (False, False)],
        [(True, True), (False, True), (False, False)],
        [(True, False), (True, True), (False, False), (False, False)],
        [(True, True), (False, False)],
    ]
    r = agreement("answerable", topics, resamples=500)
    pooled = [p for t in topics for p in t]
    assert r.kappa == pytest.approx(cohens_kappa([c for c, _ in pooled], [p for _, p in pooled]))
    assert r.agreement_low <= r.agreement <= r.agreement_high
    assert r.kappa_low is not None and r.kappa_low <= r.kappa <= r.kappa_high
    assert r.resamples == 500 and 0 <= r.kappa_undefined < 500
    with pytest.raises(ValueError):
        agreement("x", [])
