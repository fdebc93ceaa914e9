"""Fusing ranked lists from different signals.

Each input ranking is a list of (row, score), best first. Outputs are the
same shape. The methods:

- Reciprocal rank fusion: score(d) = sum_i w_i / (k + rank_i(d)), Cormack,
  Clarke & Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and
  individual Rank Learning Methods", SIGIR 2009 (k = 60 there).
- Convex combination of normalised scores: score(d) = sum_i w_i * s_i(d),
  with s_i min-max normalised over signal i's candidates and 0 outside them;
  Fox & Shaw's CombSUM (TREC-2, 1994) with weights, which Bruch, Gai &
  Ingber ("An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS
  2023) found more robust than RRF when one signal is much weaker.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Ranking = Sequence[tuple[int, float]]


def rrf(
    rankings: Mapping[str, Ranking], k: float = 60.0, weights: Mapping[str, float] | None = None
) -> list[tuple[int, float]]:
    """Reciprocal rank fusion (Cormack et al. 2009)."""
    fused: dict[int, float] = {}
    for name, ranking in rankings.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, (row, _score) in enumerate(ranking, start=1):
            fused[row] = fused.get(row, 0.0) + w / (k + rank)
    return _sorted(fused)


def convex(rankings: Mapping[str, Ranking], weights: Mapping[str, float]) -> list[tuple[int, float]]:
    """Weighted sum of min-max normalised scores (CombSUM, Fox & Shaw 1994)."""
    fused: dict[int, float] = {}
    for name, ranking in rankings.items():
        w = weights.get(name, 0.0)
        if not ranking or w == 0:
            continue
        scores = [s for _, s in ranking]
        hi, lo = max(scores), min(scores)
        span = hi - lo
        for row, score in ranking:
            norm = (score - lo) / span if span > 0 else 1.0
            fused[row] = fused.get(row, 0.0) + w * norm
        for row, _ in ranking:
            fused.setdefault(row, 0.0)
    return _sorted(fused)


def _sorted(fused: dict[int, float]) -> list[tuple[int, float]]:
    # Ties broken by row so a fused list is reproducible.
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))
