"""Intervals and paired tests over per-question scores.

The unit of analysis is the question. Means get percentile bootstrap
intervals (Efron and Tibshirani, "An Introduction to the Bootstrap", 1993,
ch. 13); hit rates get Wilson score intervals (Wilson, JASA 22, 1927).
Rankers are compared on the same questions: the paired bootstrap resamples
question indices once and applies them to every ranker, the sign-flip
permutation test (Fisher 1935; Smucker, Allan and Carterette, CIKM 2007, for
IR) tests the mean difference, and Cohen's d_z (Cohen, "Statistical Power
Analysis", 1988, section 2.3.5) sizes it. Differences of hit rates get
Newcombe's paired score interval (Statistics in Medicine 17, 1998, method 10)
with McNemar's exact test. Holm (Scand. J. Statistics 6, 1979) adjusts a
family of p-values.

scipy does the Wilson interval, the binomial test and the permutation test;
Holm and Newcombe are written here and tested against worked examples.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

RESAMPLES = 10_000
SEED = 20_240_601
CONFIDENCE = 0.95
_BATCH = 1_000  # resamples drawn per step, to bound memory on large question sets


def _scipy_stats():
    # scipy.stats takes seconds to import; only runs that need it pay for it.
    from scipy import stats

    return stats


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    method: str  # "bootstrap-percentile" | "wilson" | "newcombe-paired"


@dataclass(frozen=True)
class Comparison:
    """Ranker a minus ranker b on one metric, over the same questions."""

    diff: float
    low: float
    high: float
    d_z: float | None  # None when every difference is the same
    p: float
    n: int
    interval: str
    test: str


# ------------------------------------------------------------------ bootstrap


def bootstrap_means(values: ArrayLike, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples of the rows of ``values``.

    ``values`` is (n,) or (n, m): n questions, m score columns. Every column
    is resampled with the same question indices, so columns stay paired (the
    paired bootstrap of two rankers is the difference of their columns). The
    indices are drawn as ``scipy.stats.bootstrap`` draws them from
    ``numpy.random.default_rng(seed)``, so a single column reproduces scipy's
    percentile interval. Returns (resamples,) or (resamples, m).
    """
    v = np.asarray(values, dtype=float)
    single = v.ndim == 1
    if single:
        v = v[:, None]
    n = v.shape[0]
    if n == 0:
        raise ValueError("cannot bootstrap an empty sample")
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, not {resamples}")
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, v.shape[1]))
    offsets = None
    for start in range(0, resamples, _BATCH):
        size = min(_BATCH, resamples - start)
        idx = rng.integers(0, n, (size, n))
        # Count how often each question is drawn, then one matrix product
        # gives every column's resampled mean.
        if offsets is None or offsets.shape[0] != size:
            offsets = (np.arange(size) * n)[:, None]
        counts = np.bincount((idx + offsets).ravel(), minlength=size * n).reshape(size, n)
        out[start : start + size] = counts @ v / n
    return out[:, 0] if single else out


def percentile_interval(boot: ArrayLike, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile limits along axis 0 of bootstrap statistics."""
    alpha = (1 - confidence) / 2
    low, high = np.percentile(np.asarray(boot, dtype=float), [100 * alpha, 100 * (1 - alpha)], axis=0)
    return low, high


def bootstrap_ci(
    values: ArrayLike,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Interval:
    """Mean of ``values`` with its percentile bootstrap interval."""
    v = np.asarray(values, dtype=float)
    low, high = percentile_interval(bootstrap_means(v, resamples, seed), confidence)
    return Interval(float(v.mean()), float(low), float(high), "bootstrap-percentile")


# ------------------------------------------------------------------ proportions


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a proportion (scipy's ``proportion_ci``)."""
    if n < 1:
        raise ValueError("a proportion needs at least one trial")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in 0..{n}, not {successes}")
    ci = (
        _scipy_stats()
        .binomtest(int(successes), int(n))
        .proportion_ci(confidence_level=confidence, method="wilson")
    )
    return float(ci.low), float(ci.high)


def hit_rate_interval(hits: ArrayLike, confidence: float = CONFIDENCE) -> Interval:
    """Mean of 0/1 hits with its Wilson interval."""
    h = _binary(hits)
    low, high = wilson_interval(int(h.sum()), h.size, confidence)
    return Interval(float(h.mean()), low, high, "wilson")


def newcombe_paired_interval(
    both: int,
    first_only: int,
    second_only: int,
    neither: int,
    confidence: float = CONFIDENCE,
) -> tuple[float, float, float]:
    """Difference of two paired proportions with Newcombe's method 10.

    Newcombe, "Improved confidence intervals for the difference between
    binomial proportions based on paired data", Statistics in Medicine 17
    (1998) 2635-2650, method 10: the Wilson intervals of the two marginal
    proportions are combined with the correlation phi of the paired table,
    phi's numerator being reduced by n/2 (not below 0) when it is positive.
    Counts are the 2x2 table: both succeed (e), only the first (f), only the
    second (g), neither (h). Returns (p1 - p2, lower, upper).
    """
    e, f, g, h = (int(x) for x in (both, first_only, second_only, neither))
    if min(e, f, g, h) < 0:
        raise ValueError("table counts cannot be negative")
    n = e + f + g + h
    if n == 0:
        raise ValueError("the paired table is empty")
    p1, p2 = (e + f) / n, (e + g) / n
    l1, u1 = wilson_interval(e + f, n, confidence)
    l2, u2 = wilson_interval(e + g, n, confidence)
    margins = (e + f) * (g + h) * (e + g) * (f + h)
    if margins == 0:
        phi = 0.0
    else:
        a = e * h - f * g
        if a > 0:
            a = max(a - n / 2, 0.0)
        phi = a / math.sqrt(margins)
    theta = p1 - p2
    delta = math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    epsilon = math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return theta, max(theta - delta, -1.0), min(theta + epsilon, 1.0)


def mcnemar_exact(first_only: int, second_only: int) -> float:
    """Two-sided exact McNemar test: the discordant pairs against Binomial(b + c, 1/2)."""
    b, c = int(first_only), int(second_only)
    if b + c == 0:
        return 1.0
    return float(_scipy_stats().binomtest(b, b + c, 0.5).pvalue)


# ------------------------------------------------------------------ paired tests


def cohens_dz(differences: ArrayLike) -> float | None:
    """Cohen's d_z: mean paired difference over its standard deviation (n - 1).
    None when it is undefined (fewer than two questions, or all differences equal)."""
    d = np.asarray(differences, dtype=float)
    if d.size < 2:
        return None
    sd = float(d.std(ddof=1))
    if sd == 0 or not math.isfinite(sd):
        return None
    return float(d.mean()) / sd


def sign_flip_test(differences: ArrayLike, resamples: int = RESAMPLES, seed: int = SEED) -> float:
    """Two-sided paired permutation test of a mean difference of 0.

    Under the null each question's difference is as likely to have either
    sign. Questions with no difference flip to themselves, so they are set
    aside (the p-value is unchanged and exact enumeration comes sooner):
    scipy enumerates all 2^m sign patterns of the m non-zero differences when
    that is no more than ``resamples``, else draws ``resamples`` random
    patterns (p then counts the observed statistic, per Phipson and Smyth,
    2010).
    """
    d = np.asarray(differences, dtype=float)
    if d.size == 0:
        raise ValueError("no differences to test")
    nonzero = d[d != 0]
    if nonzero.size <= 1:
        # One difference: both of its signs are as extreme as observed.
        return 1.0
    result = _scipy_stats().permutation_test(
        (nonzero,),
        _mean_last_axis,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(min(result.pvalue, 1.0))


def _mean_last_axis(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def paired_mean_comparison(
    a: ArrayLike,
    b: ArrayLike,
    boot_diff: ArrayLike | None = None,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Comparison:
    """a minus b: mean difference, paired bootstrap interval, d_z, sign-flip p.

    ``boot_diff`` are bootstrap means of the differences drawn with the
    question indices shared by the whole evaluation; without it they are
    drawn here with ``seed``.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("paired scores must be two 1-D arrays of the same length")
    d = x - y
    boot = bootstrap_means(d, resamples, seed) if boot_diff is None else np.asarray(boot_diff, dtype=float)
    low, high = percentile_interval(boot, confidence)
    return Comparison(
        diff=float(d.mean()),
        low=float(low),
        high=float(high),
        d_z=cohens_dz(d),
        p=sign_flip_test(d, resamples, seed),
        n=int(d.size),
        interval="bootstrap-percentile",
        test="sign-flip permutation",
    )


def paired_hit_rate_comparison(a: ArrayLike, b: ArrayLike, confidence: float = CONFIDENCE) -> Comparison:
    """a minus b for 0/1 hits: Newcombe's paired interval and McNemar's exact test."""
    x, y = _binary(a), _binary(b)
    if x.shape != y.shape:
        raise ValueError("paired hits must have the same length")
    both = int(np.sum(x & y))
    first = int(np.sum(x & ~y))
    second = int(np.sum(~x & y))
    neither = int(x.size - both - first - second)
    diff, low, high = newcombe_paired_interval(both, first, second, neither, confidence)
    return Comparison(
        diff=diff,
        low=low,
        high=high,
        d_z=cohens_dz(x.astype(float) - y.astype(float)),
        p=mcnemar_exact(first, second),
        n=int(x.size),
        interval="newcombe-paired",
        test="mcnemar-exact",
    )


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given.

    Holm, "A simple sequentially rejective multiple test procedure",
    Scandinavian Journal of Statistics 6 (1979) 65-70. With the m p-values
    sorted ascending, the j-th is multiplied by (m - j + 1), a running maximum
    keeps the adjusted values monotone, and nothing exceeds 1. Rejecting where
    the adjusted p is at most alpha is Holm's procedure at level alpha.
    """
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1:
        raise ValueError("holm takes a flat list of p-values")
    if np.any((p < 0) | (p > 1) | np.isnan(p)):
        raise ValueError("p-values must lie in [0, 1]")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum((m - np.arange(m)) * p[order], 1.0)
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return [float(x) for x in adjusted]


def _binary(values: ArrayLike) -> np.ndarray:
    v = np.asarray(values)
    if v.ndim != 1:
        raise ValueError("hits must be a 1-D array")
    if not np.all((v == 0) | (v == 1)):
        raise ValueError("hits must be 0 or 1")
    return v.astype(bool)
