"""The gated family of the cross-validation (scripts/fusion_cv.py).

The gate (ragcore/retrieval/fusion_gate.py) chooses per query between dense
alone and a fused ranking. It is fitted, nested and with each collection
weighted equally, as scripts/fusion_fitted.py says. Settings (the grid is
written before the run): the fused ranking is RRF with k 20 or 60, or a
convex combination of min-max or of theoretical-min-max normalised scores
with dense weighted 0.3-0.9 (Bruch, Gai & Ingber, TOIS 2023); the gate reads
every signal, or only those that do not depend on how the embedding model
scales its cosines (``SCALE_FREE``). Every fused ranking's nDCG@10 is
computed once per query, so a fit's score is a lookup.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from fusion_fitted import FittedFamily, collection_weights, judged_queries

from ragcore.retrieval import fusion
from ragcore.retrieval.fusion_gate import (
    GATE_FEATURES,
    SCALE_FREE,
    FusedMethod,
    FusionGate,
    GateQuery,
    fit_gate,
    gate_features,
)

Ranking = list[tuple[int, float]]
L2 = 1.0  # fixed before any run
SIGNALS = {"": GATE_FEATURES, " scale-free": SCALE_FREE}
DENSE_WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
FUSED: dict[str, tuple[FusedMethod, float, float]] = {
    **{f"rrf k={k}": ("rrf", float(k), 0.5) for k in (20, 60)},
    **{f"convex dense {a}": ("convex", 20.0, a) for a in DENSE_WEIGHTS},
    **{f"convex tmm dense {a}": ("convex_tmm", 20.0, a) for a in DENSE_WEIGHTS},
}
SETTINGS = {f"{fused}{name}": (fused, used) for fused in FUSED for name, used in SIGNALS.items()}


def expert(name: str) -> FusionGate:
    """An unfitted gate whose ``fused`` is the named fused ranking."""
    method, k, a = FUSED[name]
    n = len(GATE_FEATURES)
    return FusionGate((0.0,) * n, 0.0, (0.0,) * n, (1.0,) * n, k, fused_method=method, dense_weight=a)


@dataclass
class GateData:
    """One query: its signals, identifier pins, and the nDCG@10 of dense
    alone and of each fused ranking (pins applied)."""

    collection: str
    group: str
    features: np.ndarray
    dense_ndcg: float
    fused_ndcg: dict[str, float]


def _pinned(ranking: Ranking, pins: tuple[int, ...]) -> Ranking:
    return fusion.pin_rows(ranking, pins) if pins else ranking


@dataclass
class GateFamily(FittedFamily):
    """Fits and scores the gate over prepared collections for one BM25
    setting (``label``)."""

    preps: list  # fusion_cv.Prepared
    label: str
    data: dict[tuple[str, str], GateData] = field(default_factory=dict)
    fits: dict[tuple[frozenset[str], str], FusionGate] = field(default_factory=dict)
    settings: tuple[str, ...] = tuple(SETTINGS)

    def __post_init__(self) -> None:
        experts = {name: expert(name) for name in FUSED}
        for q in judged_queries(self.preps, self.label):
            pins = q.stats.identifier_rows
            fused = {
                name: q.coll.ndcg(q.qid, _pinned(e.fused(q.lexical, q.dense), pins))
                for name, e in experts.items()
            }
            dense_ndcg = q.coll.ndcg(q.qid, _pinned(q.dense, pins))
            features = gate_features(q.lexical, q.dense, q.stats)
            self.data[(q.coll.name, q.qid)] = GateData(q.coll.name, q.group, features, dense_ndcg, fused)

    def model(self, excluded: Iterable[str], setting: str) -> FusionGate:
        key = (frozenset(excluded), setting)
        if key not in self.fits:
            fused, used = SETTINGS[setting]
            method, k, a = FUSED[fused]
            kept = [d for d in self.data.values() if d.group not in key[0]]
            weights = collection_weights([d.collection for d in kept])
            queries = [
                GateQuery(d.features, d.fused_ndcg[fused], d.dense_ndcg, w)
                for d, w in zip(kept, weights, strict=True)
            ]
            groups = sorted({d.group for d in kept})
            self.fits[key] = fit_gate(queries, k, False, L2, groups, used, method, a)
        return self.fits[key]

    def per_question(self, group: str, excluded: Iterable[str], setting: str) -> dict[str, float]:
        """nDCG@10 per question of ``group`` under the gate fitted without ``excluded``."""
        gate = self.model(excluded, setting)
        fused = SETTINGS[setting][0]
        out = {}
        for prep in self.preps:
            for qid in prep.coll.groups.get(group, []):
                d = self.data[(prep.coll.name, qid)]
                dense = gate.dense_probability(d.features) > 0.5
                out[qid] = d.dense_ndcg if dense else d.fused_ndcg[fused]
        return out
