"""A per-query gate between a fused ranking and dense alone.

The fused ranking is reciprocal rank fusion or a convex combination of
normalised scores (``fused_method``, chosen with the gate's other settings
by cross-validation).

Plain reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009) of
BM25 and dense beats either signal on keyword-heavy questions, but on a
question asked in other words than its evidence BM25 only matches
incidental words and drags the fusion below dense alone; Bruch, Gai &
Ingber ("An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS
2023) show a fusion's best weight differs by collection and question set.
So the weight is set per query, from what the query and the two rankings
show at query time (query performance prediction: the idf coverage of each
list's top passage, after Carmel & Yom-Tov, "Estimating the Query
Difficulty for Information Retrieval", 2010; agreement between the lists,
Aslam & Pavlu, ECIR 2007; dense's score spread and top score; the query's
length; whether it names an identifier). A logistic model over these
signals gives the probability ``p`` that dense alone ranks the query better
than the fusion; the ranking is dense alone when ``p`` > 1/2 (``soft``
off), or, for RRF, RRF with BM25 weighted by 1 - ``p`` (``soft`` on). Choosing a
ranker per query from query features is Balasubramanian & Allan's
"Learning to Select Rankers" (SIGIR 2010).

The model is fitted to maximise the expected nDCG@10 of the choice,
sum_q w_q (p_q nDCG_dense(q) + (1 - p_q) nDCG_fused(q)), with an L2
penalty, each collection given the same total weight, and only inside
leave-one-collection-out cross-validation (``scripts/fusion_study.py
--cv``); the shipped model, fitted on every collection, is
``fusion_gate.json`` beside this module.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import numpy as np

from .learned_fusion import QUERY_FEATURES, FusionStats, query_vector
from .prf import Feedback

Ranking = Sequence[tuple[int, float]]
GATE_FEATURES: tuple[str, ...] = (*QUERY_FEATURES, "support", "identifier")
# The signals that do not depend on how the embedding model's cosines are
# scaled (dense's spread and top score do, and differ by collection).
SCALE_FREE: tuple[str, ...] = tuple(f for f in GATE_FEATURES if f not in ("dense_spread", "dense_top"))
GATE_FILE = Path(__file__).with_name("fusion_gate.json")
# The fused ranking the gate falls back from: RRF with constant ``k``, or a
# convex combination of min-max ("convex") or theoretical-min-max
# ("convex_tmm") normalised scores with dense weighted ``dense_weight``.
FusedMethod = Literal["rrf", "convex", "convex_tmm"]


def gate_features(lexical: Ranking, dense: Ranking, stats: FusionStats) -> np.ndarray:
    """The query's signals, in the order of ``GATE_FEATURES``: the learned
    fusion's query signals, then dense's top passage's idf coverage relative
    to BM25's (at most 1) and whether the query holds a known identifier."""
    q = query_vector(lexical, dense, stats)
    top_dense, top_bm25 = q[0], q[1]
    support = min(1.0, top_dense / top_bm25) if top_bm25 > 0 else 0.0
    return np.r_[q, support, float(bool(stats.identifier_rows))]


def rrf_pair(lexical: Ranking, dense: Ranking, k: float, bm25_weight: float = 1.0) -> list[tuple[int, float]]:
    """RRF of the two lists, BM25's terms weighted (ties by row)."""
    fused: dict[int, float] = {}
    for rank, (row, _) in enumerate(lexical, start=1):
        fused[row] = fused.get(row, 0.0) + bm25_weight / (k + rank)
    for rank, (row, _) in enumerate(dense, start=1):
        fused[row] = fused.get(row, 0.0) + 1.0 / (k + rank)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class FusionGate:
    """A fitted gate: logistic weights over the standardised signals named
    by ``used`` (of ``GATE_FEATURES``; ``mean``, ``scale`` of the training
    data)."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    k: float = 60.0
    soft: bool = False
    l2: float = 1.0
    trained_on: tuple[str, ...] = ()
    used: tuple[str, ...] = GATE_FEATURES
    fused_method: FusedMethod = "rrf"
    dense_weight: float = 0.5  # convex methods only
    # Pseudo-relevance feedback for the fused ranking's dense half (``prf``):
    # dense's top ``prf_k`` passages move the query vector by ``prf_beta``;
    # 0 = off. Dense alone stays plain (scripts/prf_study.py chose both).
    prf_k: int = 0
    prf_beta: float = 0.0

    def dense_probability(self, features: np.ndarray) -> float:
        """The modelled probability that dense alone ranks this query better
        (``features``: all of ``GATE_FEATURES``, as ``gate_features`` gives)."""
        x = np.asarray(features)[[GATE_FEATURES.index(f) for f in self.used]]
        x = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        z = float(x @ np.asarray(self.weights)) + self.bias
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def rank(
        self, lexical: Ranking, dense: Ranking, p: float, feedback: Feedback | None = None
    ) -> list[tuple[int, float]]:
        """The ranking for a query whose dense probability is ``p``; with
        ``feedback`` and ``prf_k``, the fusion takes dense's feedback ranking."""
        if not lexical:
            return list(dense)
        if self.soft and self.fused_method == "rrf":
            return rrf_pair(lexical, dense, self.k, 1.0 - p)
        if p > 0.5 and dense:
            return list(dense)
        if feedback is not None and self.prf_k > 0 and dense:
            dense = feedback(self.prf_k, self.prf_beta)
        return self.fused(lexical, dense)

    def fused(self, lexical: Ranking, dense: Ranking) -> list[tuple[int, float]]:
        """The fused ranking (what the gate chooses when not dense alone)."""
        if self.fused_method == "rrf":
            return rrf_pair(lexical, dense, self.k)
        from . import fusion  # fusion imports this module

        weights = {"bm25": 1.0 - self.dense_weight, "dense": self.dense_weight}
        pair = {"bm25": lexical, "dense": dense}
        return (
            fusion.convex(pair, weights)
            if self.fused_method == "convex"
            else fusion.convex_tmm(pair, weights)
        )

    def fuse(
        self, lexical: Ranking, dense: Ranking, stats: FusionStats, feedback: Feedback | None = None
    ) -> list[tuple[int, float]]:
        """The gate's ranking; its signals always read the plain lists."""
        p = self.dense_probability(gate_features(lexical, dense, stats))
        return self.rank(lexical, dense, p, feedback)

    def to_json(self) -> dict[str, object]:
        return {
            "features": list(self.used),
            "weights": list(self.weights),
            "bias": self.bias,
            "mean": list(self.mean),
            "scale": list(self.scale),
            "k": self.k,
            "soft": self.soft,
            "l2": self.l2,
            "trained_on": list(self.trained_on),
            "fused_method": self.fused_method,
            "dense_weight": self.dense_weight,
            "prf_k": self.prf_k,
            "prf_beta": self.prf_beta,
        }

    def write(self, path: Path = GATE_FILE) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> FusionGate:
        used = tuple(data["features"])  # type: ignore[arg-type]
        if not used or any(f not in GATE_FEATURES for f in used):
            raise ValueError("the fusion gate was fitted on other features; re-fit it")
        return cls(
            tuple(data["weights"]),  # type: ignore[arg-type]
            float(data["bias"]),  # type: ignore[arg-type]
            tuple(data["mean"]),  # type: ignore[arg-type]
            tuple(data["scale"]),  # type: ignore[arg-type]
            float(data.get("k", 60.0)),  # type: ignore[arg-type]
            bool(data.get("soft", False)),
            float(data.get("l2", 1.0)),  # type: ignore[arg-type]
            tuple(data.get("trained_on", ())),  # type: ignore[arg-type]
            used,
            _fused_method(data.get("fused_method", "rrf")),
            float(data.get("dense_weight", 0.5)),  # type: ignore[arg-type]
            int(data.get("prf_k", 0)),  # type: ignore[call-overload]
            float(data.get("prf_beta", 0.0)),  # type: ignore[arg-type]
        )


def _fused_method(value: object) -> FusedMethod:
    if value == "convex":
        return "convex"
    if value == "convex_tmm":
        return "convex_tmm"
    if value == "rrf":
        return "rrf"
    raise ValueError(f"unknown fused method {value!r} in the fusion gate file")


@lru_cache(maxsize=1)
def shipped_gate() -> FusionGate:
    """The gate fitted on every collection (``fusion_gate.json``)."""
    return FusionGate.from_json(json.loads(GATE_FILE.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class GateQuery:
    """One judged query: its signals (all of ``GATE_FEATURES``), the nDCG@10 of the fusion and of dense
    alone on it, and its weight in the objective."""

    features: np.ndarray
    fused: float
    dense: float
    weight: float


def fit_gate(
    queries: Sequence[GateQuery],
    k: float = 60.0,
    soft: bool = False,
    l2: float = 1.0,
    trained_on: Sequence[str] = (),
    used: Sequence[str] = GATE_FEATURES,
    fused_method: FusedMethod = "rrf",
    dense_weight: float = 0.5,
    prf: tuple[int, float] = (0, 0.0),
) -> FusionGate:
    """Maximise the weighted expected nDCG@10 of the choice minus
    ``l2``/2 |w|^2 (the bias is not penalised), over the signals ``used``;
    ``prf`` (k, beta) is recorded, the queries' fused nDCG being under it."""
    if not queries:
        raise ValueError("no training query for the fusion gate")
    columns = [GATE_FEATURES.index(f) for f in used]
    x = np.vstack([q.features for q in queries])[:, columns]
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    x = (x - mean) / scale
    gain = np.asarray([q.dense - q.fused for q in queries])
    w = np.asarray([q.weight for q in queries])
    w = w / w.sum()
    n = len(queries)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = np.clip(x @ theta[:-1] + theta[-1], -50.0, 50.0)
        p = 1.0 / (1.0 + np.exp(-z))
        value = -float(np.sum(w * p * gain)) + 0.5 * l2 * float(theta[:-1] @ theta[:-1]) / n
        dz = -(w * gain * p * (1.0 - p))
        grad = np.r_[x.T @ dz + l2 * theta[:-1] / n, dz.sum()]
        return value, grad

    from scipy.optimize import minimize  # only fitting needs it (0.5 s of start-up)

    result = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B")
    theta = result.x
    return FusionGate(
        tuple(theta[:-1].tolist()),
        float(theta[-1]),
        tuple(mean.tolist()),
        tuple(scale.tolist()),
        k,
        soft,
        l2,
        tuple(trained_on),
        tuple(used),
        fused_method,
        dense_weight,
        *prf,
    )
