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
- Agreement-weighted RRF (ours, the default): RRF in which the lexical
  signal's weight is the squared share of its top ``depth`` passages that
  the dense signal also ranks in its top ``pool``. When the two disagree,
  BM25 is usually matching incidental words of a question phrased in other
  words than its evidence, and plain RRF then drags good dense results
  down. Disagreement between rankers as a sign of a hard query follows
  Aslam & Pavlu, "Query Hardness Estimation Using Jensen-Shannon Divergence
  Among Multiple Scoring Functions", ECIR 2007. The constants were chosen
  on the benchmarks and the demo gold set (docs/decisions.md).
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


def agreement(lexical: Ranking, dense: Ranking, depth: int = 5, pool: int = 20) -> float:
    """Share of the lexical top ``depth`` that the dense top ``pool`` also holds."""
    top = [row for row, _ in lexical[:depth]]
    if not top:
        return 0.0
    dense_top = {row for row, _ in dense[:pool]}
    return sum(row in dense_top for row in top) / len(top)


def agreement_rrf(
    lexical: Ranking, dense: Ranking, k: float = 20.0, depth: int = 5, pool: int = 20, power: float = 2.0
) -> tuple[list[tuple[int, float]], float]:
    """RRF with the lexical weight set by agreement (see the module notes);
    returns the fused ranking and the lexical weight used."""
    weight = agreement(lexical, dense, depth, pool) ** power
    return rrf({"bm25": lexical, "dense": dense}, k=k, weights={"bm25": weight, "dense": 1.0}), weight


def _sorted(fused: dict[int, float]) -> list[tuple[int, float]]:
    # Ties broken by row so a fused list is reproducible.
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))
