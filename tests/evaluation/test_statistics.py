import itertools
import math

import numpy as np
import pytest
from scipy import stats

from ragcore.evaluation import statistics as st

# ------------------------------------------------------------------ bootstrap


def test_bootstrap_ci_equals_scipy_percentile_bootstrap():
    x = np.random.default_rng(3).gamma(2.0, 0.2, 225)
    ours = st.bootstrap_ci(x, resamples=10_000, seed=11)
    ref = stats.bootstrap(
        (x,), np.mean, n_resamples=10_000, method="percentile", rng=np.random.default_rng(11), vectorized=True
    ).confidence_interval
    assert ours.mean == pytest.approx(x.mean())
    assert ours.low == pytest.approx(ref.low, abs=1e-12)
    assert ours.high == pytest.approx(ref.high, abs=1e-12)


def test_bootstrap_columns_share_question_indices():
    rng = np.random.default_rng(0)
    a = rng.random(50)
    b = a + 0.1  # b beats a by exactly 0.1 on every question
    boot = st.bootstrap_means(np.column_stack([a, b]), resamples=500, seed=1)
    assert np.allclose(boot[:, 1] - boot[:, 0], 0.1)
    single = st.bootstrap_means(a, resamples=500, seed=1)
    assert np.allclose(single, boot[:, 0])


def test_bootstrap_is_reproducible_with_its_seed_and_varies_without():
    x = np.random.default_rng(5).random(40)
    assert st.bootstrap_ci(x, 2000, seed=4) == st.bootstrap_ci(x, 2000, seed=4)
    assert st.bootstrap_ci(x, 2000, seed=4) != st.bootstrap_ci(x, 2000, seed=5)


def test_bootstrap_is_fast_for_a_full_run():
    import time

    values = np.random.default_rng(1).random((225, 3 * 8))
    t = time.perf_counter()
    boot = st.bootstrap_means(values, resamples=10_000, seed=1)
    assert boot.shape == (10_000, 24)
    assert time.perf_counter() - t < 5


# ------------------------------------------------------------------ proportions


def test_wilson_interval_worked_example():
    # Newcombe (1998), "Two-sided confidence intervals for the single
    # proportion", example 81/263: score interval 0.2553 to 0.3662.
    low, high = st.wilson_interval(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)


def test_wilson_interval_matches_the_closed_form():
    z = stats.norm.ppf(0.975)
    for k, n in [(0, 10), (3, 10), (10, 10), (40, 225)]:
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low, high = st.wilson_interval(k, n)
        assert low == pytest.approx(centre - half, abs=1e-12)
        assert high == pytest.approx(centre + half, abs=1e-12)


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # Newcombe (1998), Statistics in Medicine 17:2635-2650, method 10 on
        # the paper's examples (e, f, g, h) -> (lower, upper).
        ((36, 12, 2, 0), (0.0569, 0.3404)),
        ((18, 12, 2, 18), (0.0562, 0.3290)),
        ((53, 0, 0, 1), (-0.0729, 0.0729)),
        ((0, 30, 0, 0), (0.8395, 1.0)),
    ],
)
def test_newcombe_paired_interval_reproduces_the_paper(table, expected):
    e, f, g, h = table
    diff, low, high = st.newcombe_paired_interval(*table)
    assert diff == pytest.approx((f - g) / (e + f + g + h))
    assert (round(low, 4), round(high, 4)) == expected


def test_mcnemar_exact_is_a_two_sided_binomial_on_discordant_pairs():
    # 12 vs 2 discordant pairs: 2 * P(X <= 2 | Binomial(14, 1/2)).
    expected = 2 * sum(math.comb(14, i) for i in range(3)) / 2**14
    assert st.mcnemar_exact(12, 2) == pytest.approx(expected)
    assert st.mcnemar_exact(2, 12) == pytest.approx(expected)
    assert st.mcnemar_exact(0, 0) == 1.0


def test_paired_hit_rate_comparison_builds_the_table():
    a = np.array([1] * 36 + [1] * 12 + [0] * 2 + [0] * 0)
    b = np.array([1] * 36 + [0] * 12 + [1] * 2 + [0] * 0)
    c = st.paired_hit_rate_comparison(a, b)
    assert (round(c.low, 4), round(c.high, 4)) == (0.0569, 0.3404)
    assert c.p == pytest.approx(st.mcnemar_exact(12, 2))
    assert c.test == "mcnemar-exact"


def test_hit_rate_interval_rejects_non_binary_values():
    with pytest.raises(ValueError, match="0 or 1"):
        st.hit_rate_interval([0, 0.5, 1])


# ------------------------------------------------------------------ paired means


def test_sign_flip_test_is_exact_for_small_samples():
    d = np.array([0.3, -0.1, 0.2, 0.5, 0.0, 0.4, -0.2, 0.1])
    observed = abs(d.mean())
    extreme = sum(abs((d * s).mean()) >= observed - 1e-12 for s in itertools.product([1, -1], repeat=d.size))
    assert st.sign_flip_test(d) == pytest.approx(extreme / 2**d.size)


def test_sign_flip_test_monte_carlo_agrees_with_a_t_test_on_large_samples():
    d = np.random.default_rng(2).normal(0.05, 0.3, 225)
    p = st.sign_flip_test(d, resamples=10_000, seed=3)
    assert p == pytest.approx(stats.ttest_1samp(d, 0).pvalue, abs=0.01)
    assert p == st.sign_flip_test(d, resamples=10_000, seed=3)


def test_sign_flip_test_of_no_difference_is_one():
    assert st.sign_flip_test(np.zeros(30)) == 1.0
    assert st.sign_flip_test(np.r_[np.zeros(39), 0.5]) == 1.0


def test_sign_flip_test_is_exact_when_few_questions_differ():
    # 200 questions, 9 of them differ: 2^9 patterns, enumerated exactly.
    nonzero = np.array([0.5, 0.25, 1.0, 0.2, -0.1, 0.3, 0.5, 0.4, -0.05])
    d = np.r_[nonzero, np.zeros(191)]
    observed = abs(nonzero.sum())
    patterns = itertools.product([1, -1], repeat=nonzero.size)
    extreme = sum(abs((nonzero * s).sum()) >= observed - 1e-12 for s in patterns)
    assert st.sign_flip_test(d, resamples=1000) == pytest.approx(extreme / 2**nonzero.size)


def test_cohens_dz():
    d = np.array([0.1, 0.2, 0.3, 0.4])
    assert st.cohens_dz(d) == pytest.approx(0.25 / np.std(d, ddof=1))
    assert st.cohens_dz(np.full(5, 0.2)) is None
    assert st.cohens_dz(np.array([0.2])) is None


def test_paired_mean_comparison_uses_given_bootstrap_draws():
    rng = np.random.default_rng(8)
    a, b = rng.random(60), rng.random(60)
    c = st.paired_mean_comparison(a, b, resamples=2000, seed=2)
    direct = st.bootstrap_ci(a - b, resamples=2000, seed=2)
    assert c.diff == pytest.approx(direct.mean)
    assert (c.low, c.high) == pytest.approx((direct.low, direct.high))
    shared = st.bootstrap_means(np.column_stack([a, b]), 2000, 2)
    c2 = st.paired_mean_comparison(a, b, shared[:, 0] - shared[:, 1], 2000, 2)
    assert (c2.low, c2.high) == pytest.approx((c.low, c.high), abs=1e-12)


# ------------------------------------------------------------------ Holm


def test_holm_worked_example():
    # The standard four-hypothesis example (Wikipedia, "Holm-Bonferroni
    # method"): p = 0.01, 0.04, 0.03, 0.005 at alpha 0.05 rejects H1 and H4.
    adjusted = st.holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [p <= 0.05 for p in adjusted] == [True, False, False, True]


def test_holm_equals_closed_testing_with_bonferroni_local_tests():
    # Holm (1979) is the closed test whose local tests are Bonferroni's: the
    # adjusted p of H_i is the largest, over every subset S holding i, of
    # min(1, |S| * min_{j in S} p_j).
    rng = np.random.default_rng(4)
    for _ in range(50):
        p = rng.random(rng.integers(1, 7)) ** 2
        m = p.size
        expected = []
        for i in range(m):
            worst = 0.0
            for size in range(1, m + 1):
                for subset in itertools.combinations(range(m), size):
                    if i in subset:
                        worst = max(worst, min(1.0, size * min(p[j] for j in subset)))
            expected.append(worst)
        assert st.holm(p) == pytest.approx(expected)


def test_holm_rejects_values_outside_zero_one():
    with pytest.raises(ValueError):
        st.holm([0.2, 1.5])
    assert st.holm([]) == []
