"""Rates and agreement over items that come in topics.

A generation evaluation writes several items per topic (one answer and a few
study items), and items of one topic share passages and difficulty, so they
are not independent draws: treating them as such makes intervals too narrow.

- ICC(1), the share of variance that lies between topics, from a one-way
  analysis of variance with topics as groups (Shrout and Fleiss, "Intraclass
  correlations: uses in assessing rater reliability", Psychological Bulletin
  86, 1979, case 1). With unequal topic sizes the group size in the formula is
  the adjusted mean n0 = (N - sum n_i^2 / N) / (g - 1) (Snedecor and Cochran,
  "Statistical Methods", section 13.5), which is the common size when all are
  equal. A negative estimate means no clustering and is truncated at 0.
- Kish's design effect, deff = 1 + (m - 1) * ICC with m the mean number of
  items per topic (Kish, "Survey Sampling", 1965, section 5.4), never below 1.
- A rate's interval is Wilson's score interval (Wilson, "Probable inference,
  the law of succession, and statistical inference", JASA 22, 1927) computed
  with the effective sample size n / deff.
- Agreement between an automatic check and a person's yes/no judgement is the
  raw share of items where they agree and Cohen's kappa (Cohen, "A coefficient
  of agreement for nominal scales", Educational and Psychological Measurement
  20, 1960), with percentile intervals from a cluster bootstrap that resamples
  whole topics (Field and Welsh, "Bootstrapping clustered data", JRSS B 69,
  2007), so the interval carries the same clustering.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcore.evaluation.statistics import CONFIDENCE, SEED

RESAMPLES = 2_000


def _z(confidence: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - confidence) / 2))


@dataclass(frozen=True)
class DesignEffect:
    """How much clustering in topics shrinks the information in n items."""

    icc: float  # ICC(1), truncated at 0
    mean_items: float  # m, items per topic on average
    deff: float  # 1 + (m - 1) * icc, at least 1
    topics: int
    items: int

    @property
    def effective_n(self) -> float:
        return self.items / self.deff if self.items else 0.0


@dataclass(frozen=True)
class ClusteredRate:
    """A rate over items in topics, with its design-effect Wilson interval."""

    rate: float
    low: float
    high: float
    successes: int
    n: int
    design: DesignEffect
    method: str = "wilson-deff"

    def to_json(self) -> dict[str, float | int | str]:
        return {
            "rate": self.rate,
            "low": self.low,
            "high": self.high,
            "successes": self.successes,
            "n": self.n,
            "effective_n": self.design.effective_n,
            "icc": self.design.icc,
            "deff": self.design.deff,
            "mean_items_per_topic": self.design.mean_items,
            "topics": self.design.topics,
            "method": self.method,
        }


def _groups(values_by_topic: Sequence[Sequence[float]]) -> list[np.ndarray]:
    return [np.asarray(g, dtype=float) for g in values_by_topic if len(g)]


def icc1(values_by_topic: Sequence[Sequence[float]]) -> float:
    """ICC(1) of the values grouped by topic, from one-way ANOVA, truncated at 0.

    (MSB - MSW) / (MSB + (n0 - 1) * MSW). Returns 0.0 when it cannot be
    estimated: fewer than two topics, no topic with two items, or no variance.
    """
    groups = _groups(values_by_topic)
    g = len(groups)
    sizes = np.array([len(x) for x in groups], dtype=float)
    total = sizes.sum()
    if g < 2 or total - g < 1:
        return 0.0
    grand = np.concatenate(groups).mean()
    ssb = float(sum(n * (x.mean() - grand) ** 2 for n, x in zip(sizes, groups, strict=True)))
    ssw = float(sum(((x - x.mean()) ** 2).sum() for x in groups))
    msb = ssb / (g - 1)
    msw = ssw / (total - g)
    n0 = (total - (sizes**2).sum() / total) / (g - 1)
    denominator = msb + (n0 - 1) * msw
    if denominator <= 0:
        return 0.0
    return float(max(0.0, (msb - msw) / denominator))


def design_effect(values_by_topic: Sequence[Sequence[float]]) -> DesignEffect:
    """Kish's design effect 1 + (m - 1) * ICC(1); 1 when nothing clusters."""
    groups = _groups(values_by_topic)
    items = sum(len(x) for x in groups)
    if not groups:
        return DesignEffect(0.0, 0.0, 1.0, 0, 0)
    m = items / len(groups)
    icc = icc1(groups)
    return DesignEffect(icc, m, float(max(1.0, 1 + (m - 1) * icc)), len(groups), items)


def wilson_bounds(rate: float, n: float, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson's score interval for a rate observed on a (possibly fractional) n."""
    if n <= 0:
        raise ValueError("a rate needs a sample size above 0")
    if not 0 <= rate <= 1:
        raise ValueError(f"a rate lies in 0..1, not {rate}")
    z = _z(confidence)
    z2 = z * z
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n))
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def clustered_rate(
    values_by_topic: Sequence[Sequence[bool]], confidence: float = CONFIDENCE
) -> ClusteredRate:
    """The share of true values, with a Wilson interval on n / deff."""
    groups = _groups(values_by_topic)
    design = design_effect(groups)
    if design.items == 0:
        raise ValueError("a rate needs at least one item")
    successes = int(sum(x.sum() for x in groups))
    rate = successes / design.items
    low, high = wilson_bounds(rate, design.effective_n, confidence)
    return ClusteredRate(rate, low, high, successes, design.items, design)


# ------------------------------------------------------------------ agreement


def raw_agreement(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Share of items on which the two yes/no judgements agree."""
    x, y = _pair(a, b)
    return float((x == y).mean())


def cohens_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa (po - pe) / (1 - pe) of two yes/no judgements; None when
    chance agreement is already 1 (both always say the same one thing)."""
    x, y = _pair(a, b)
    po = float((x == y).mean())
    pe = float(x.mean() * y.mean() + (1 - x.mean()) * (1 - y.mean()))
    if pe >= 1:
        return None
    return (po - pe) / (1 - pe)


def _pair(a: Sequence[bool], b: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("agreement needs two judgements of the same items")
    if x.size == 0:
        raise ValueError("agreement needs at least one item")
    return x, y


@dataclass(frozen=True)
class Agreement:
    """One automatic check against the person's faithfulness rating."""

    check: str
    n: int
    topics: int
    agreement: float
    agreement_low: float
    agreement_high: float
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    resamples: int  # bootstrap resamples drawn
    kappa_undefined: int  # resamples where kappa was undefined (left out of its interval)
    method: str = "cluster-bootstrap-percentile"

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


def topic_resamples(topics: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """(resamples, topics) indices of topics drawn with replacement."""
    return np.random.default_rng(seed).integers(0, topics, size=(resamples, topics))


def agreement(
    check: str,
    pairs_by_topic: Sequence[Sequence[tuple[bool, bool]]],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> Agreement:
    """Raw agreement and kappa of (check passed, person said faithful) pairs,
    with intervals from resampling whole topics."""
    groups = [np.asarray(g, dtype=bool).reshape(-1, 2) for g in pairs_by_topic if len(g)]
    if not groups:
        raise ValueError("agreement needs at least one rated item")
    pooled = np.concatenate(groups)
    kappa = cohens_kappa(pooled[:, 0], pooled[:, 1])
    agree_draws, kappa_draws = [], []
    for draw in topic_resamples(len(groups), resamples, seed):
        sample = np.concatenate([groups[i] for i in draw])
        agree_draws.append(raw_agreement(sample[:, 0], sample[:, 1]))
        k = cohens_kappa(sample[:, 0], sample[:, 1])
        if k is not None:
            kappa_draws.append(k)
    alpha = 100 * (1 - confidence) / 2
    a_low, a_high = np.percentile(agree_draws, [alpha, 100 - alpha])
    k_low = k_high = None
    if kappa is not None and kappa_draws:
        k_low, k_high = (float(v) for v in np.percentile(kappa_draws, [alpha, 100 - alpha]))
    return Agreement(
        check,
        int(pooled.shape[0]),
        len(groups),
        raw_agreement(pooled[:, 0], pooled[:, 1]),
        float(a_low),
        float(a_high),
        kappa,
        k_low,
        k_high,
        resamples,
        resamples - len(kappa_draws),
    )
