"""A learned fusion of two ranked lists (BM25 and dense).

Each passage in either list (the candidates) is described by a few rank
and score features: its reciprocal rank in each list (Cormack, Clarke &
Büttcher, SIGIR 2009, with k = 60), its score in each list normalised to
the list's top (theoretical-min-max for BM25, min-max for the cosine; Bruch,
Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM
TOIS 2023), the share of the query's idf mass it holds, and whether it holds
an identifier of the query. The features are also multiplied by per-query
signals that predict how much each list can be trusted (query performance
prediction: the idf coverage of each list's top passage, after Carmel &
Yom-Tov, "Estimating the Query Difficulty for Information Retrieval", 2010;
agreement between the lists, Aslam & Pavlu, ECIR 2007; the dense score
spread and top score; the query's length), so the weight given to BM25 and
dense is set per query, as a per-query convex combination would be.

A linear score over these features is fitted by a listwise softmax loss
(ListNet: Cao et al., "Learning to Rank: From Pairwise Approach to Listwise
Approach", ICML 2007) with an L2 penalty, each collection given the same
total weight. Linear fusion of retrieval scores learned from judgements goes
back to Vogt & Cottrell, "Fusion via a linear combination of scores",
Information Retrieval 1999. The weights are fitted only inside
leave-one-collection-out cross-validation (``scripts/fusion_study.py --cv``
reports each collection with weights fitted without it); the shipped weights,
fitted on all collections, are in ``learned_fusion.json`` beside this module.

The API needs only the two ranked lists and a :class:`FusionStats` (what
the lexical index knows about the query), so any backend holding two
result lists and term statistics can use it.

Status: a named, non-default method (``FusionConfig(method="learned")``;
the default ``hybrid`` is the gate, ``fusion_gate``). Its shipped weights
are stale: fitted in session 4's cross-validation (2026-12-01, commit
4b20645), before the demo gold set's later judgements and the BM25 index's
table header rows and named-document boost, and not refitted since (the
cross-validation runs without it, ``--no-learned``; docs/decisions.md).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .blas import one_blas_thread

Ranking = Sequence[tuple[int, float]]
RR_K = 60.0
AGREEMENT_DEPTH, AGREEMENT_POOL = 5, 20
CANDIDATE_FEATURES = ("rr_bm25", "rr_dense", "score_bm25", "score_dense", "coverage")
QUERY_FEATURES = (
    "dense_top_coverage",
    "bm25_top_coverage",
    "agreement",
    "dense_spread",
    "dense_top",
    "length",
)
FEATURES: tuple[str, ...] = (
    *CANDIDATE_FEATURES,
    "identifier",
    "rr_both",
    *(f"{c}*{q}" for c in CANDIDATE_FEATURES for q in QUERY_FEATURES),
)
WEIGHTS_FILE = Path(__file__).with_name("learned_fusion.json")


@dataclass(frozen=True)
class FusionStats:
    """What the lexical index knows about the query: for each candidate row,
    the share of the query's idf mass (distinct known terms) it holds; how
    many terms the query has; the rows holding an identifier of the query."""

    coverage: Mapping[int, float]
    query_terms: int
    identifier_rows: tuple[int, ...] = ()


def query_vector(lexical: Ranking, dense: Ranking, stats: FusionStats) -> np.ndarray:
    """The per-query signals, in the order of ``QUERY_FEATURES``."""
    top_b = stats.coverage.get(lexical[0][0], 0.0) if lexical else 0.0
    top_d = stats.coverage.get(dense[0][0], 0.0) if dense else 0.0
    head = [row for row, _ in lexical[:AGREEMENT_DEPTH]]
    pool = {row for row, _ in dense[:AGREEMENT_POOL]}
    agree = sum(row in pool for row in head) / len(head) if head else 0.0
    spread = dense[0][1] - dense[min(9, len(dense) - 1)][1] if dense else 0.0
    top = dense[0][1] if dense else 0.0
    return np.asarray([top_d, top_b, agree, spread, top, math.log1p(stats.query_terms)])


def candidate_features(lexical: Ranking, dense: Ranking, stats: FusionStats) -> tuple[list[int], np.ndarray]:
    """The candidates (rows of either list, lexical ones first) and their
    feature matrix, one row per candidate, columns as ``FEATURES``."""
    rows = list(dict.fromkeys([r for r, _ in lexical] + [r for r, _ in dense]))
    index = {row: i for i, row in enumerate(rows)}
    base = np.zeros((len(rows), len(CANDIDATE_FEATURES) + 2))
    b_top = lexical[0][1] if lexical else 0.0
    for rank, (row, score) in enumerate(lexical, start=1):
        base[index[row], 0] = RR_K / (RR_K + rank)
        base[index[row], 2] = score / b_top if b_top > 0 else 0.0
    if dense:
        d_top, d_low = dense[0][1], dense[-1][1]
        span = d_top - d_low
        for rank, (row, score) in enumerate(dense, start=1):
            base[index[row], 1] = RR_K / (RR_K + rank)
            base[index[row], 3] = (score - d_low) / span if span > 0 else 1.0
    for i, row in enumerate(rows):
        base[i, 4] = stats.coverage.get(row, 0.0)
    held = set(stats.identifier_rows)
    base[:, 5] = [row in held for row in rows]
    base[:, 6] = base[:, 0] * base[:, 1]
    q = query_vector(lexical, dense, stats)
    cand = base[:, : len(CANDIDATE_FEATURES)]
    crossed = (cand[:, :, None] * q[None, None, :]).reshape(len(rows), -1)
    return rows, np.hstack([base, crossed])


@dataclass(frozen=True)
class LearnedFusion:
    """A fitted linear scorer over ``FEATURES`` (standardised by ``mean`` and
    ``scale``, the training data's)."""

    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    l2: float = 1.0
    trained_on: tuple[str, ...] = ()

    def scores(self, features: np.ndarray) -> np.ndarray:
        x = (features - np.asarray(self.mean)) / np.asarray(self.scale)
        return x @ np.asarray(self.weights)

    def fuse(self, lexical: Ranking, dense: Ranking, stats: FusionStats) -> list[tuple[int, float]]:
        """The candidates by fitted score, best first (ties by row)."""
        rows, features = candidate_features(lexical, dense, stats)
        if not rows:
            return []
        scored = zip(rows, self.scores(features).tolist(), strict=True)
        return sorted(scored, key=lambda item: (-item[1], item[0]))

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(FEATURES),
            "weights": list(self.weights),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "l2": self.l2,
            "trained_on": list(self.trained_on),
        }

    def write(self, path: Path = WEIGHTS_FILE) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> LearnedFusion:
        if list(data["features"]) != list(FEATURES):  # type: ignore[call-overload]
            raise ValueError("learned fusion weights were fitted on other features; re-fit them")
        return cls(
            tuple(data["weights"]),  # type: ignore[arg-type]
            tuple(data["mean"]),  # type: ignore[arg-type]
            tuple(data["scale"]),  # type: ignore[arg-type]
            float(data.get("l2", 1.0)),  # type: ignore[arg-type]
            tuple(data.get("trained_on", ())),  # type: ignore[arg-type]
        )


@lru_cache(maxsize=1)
def shipped() -> LearnedFusion:
    """The weights fitted on every collection (``learned_fusion.json``)."""
    return LearnedFusion.from_json(json.loads(WEIGHTS_FILE.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class TrainingQuery:
    """One judged query: its candidates' features, their gains (grades), and
    the query's weight in the loss."""

    features: np.ndarray
    gains: np.ndarray
    weight: float


def fit(queries: Sequence[TrainingQuery], l2: float = 1.0, trained_on: Sequence[str] = ()) -> LearnedFusion:
    """ListNet fit: minimise the weighted cross-entropy between each query's
    gain distribution and the softmax of its scores, plus ``l2``/2 |w|^2.
    Queries whose candidates hold no gain are left out."""
    kept = [q for q in queries if len(q.gains) and q.gains.sum() > 0]
    if not kept:
        raise ValueError("no training query has a relevant candidate")
    x = np.vstack([q.features for q in kept])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    x = (x - mean) / scale
    bounds = np.cumsum([0] + [len(q.gains) for q in kept])
    target = np.concatenate([q.gains / q.gains.sum() for q in kept])
    qweight = np.asarray([q.weight for q in kept])
    qweight = qweight / qweight.sum()

    starts = bounds[:-1]
    sizes = np.diff(bounds)
    row_weight = np.repeat(qweight, sizes)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = x @ w
        z = s - np.repeat(np.maximum.reduceat(s, starts), sizes)
        e = np.exp(z)
        sums = np.add.reduceat(e, starts)
        log_p = z - np.repeat(np.log(sums), sizes)
        p = e / np.repeat(sums, sizes)
        total = -float(np.sum(row_weight * target * log_p)) + 0.5 * l2 * float(w @ w) / len(kept)
        grad = x.T @ (row_weight * (p - target)) + l2 * w / len(kept)
        return total, grad

    # Imported here: scipy.optimize costs about 0.5 s of the app's start-up,
    # and only fitting (the cross-validation script) needs it.
    from scipy.optimize import minimize

    # One BLAS thread: spinning OpenBLAS threads on a busy machine made each
    # step of the fit about 25 times slower (measured, 2 cores, load 15).
    with one_blas_thread():
        result = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    return LearnedFusion(
        tuple(result.x.tolist()), tuple(mean.tolist()), tuple(scale.tolist()), l2, tuple(trained_on)
    )
