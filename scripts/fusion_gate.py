"""The gated-RRF family of the cross-validation (scripts/fusion_cv.py).

The gate (ragcore/retrieval/fusion_gate.py) is fitted, like the learned
fusion: for a held-out group on every query of the other groups; for its
score on a training group h (used only to compare it with the other
families) on the groups other than the held-out one and h (nested
leave-one-out). Each collection gets the same total weight in a fit.
Settings: RRF k 20 or 60, the gate hard (dense alone or RRF) or soft
(BM25's RRF weight 1 - p), over every signal or only those that do not
depend on how the embedding model scales its cosines (``SCALE_FREE``; added
after the first run, whose folds chose k 20, hard, every signal).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ragcore.retrieval import fusion
from ragcore.retrieval.fusion_gate import (
    GATE_FEATURES,
    SCALE_FREE,
    FusionGate,
    GateQuery,
    fit_gate,
    gate_features,
    rrf_pair,
)

Ranking = list[tuple[int, float]]
L2 = 1.0  # fixed before any run
SIGNALS = {"": GATE_FEATURES, " scale-free": SCALE_FREE}
SETTINGS = {
    f"k={k} {'soft' if soft else 'hard'}{name}": (float(k), soft, used)
    for k in (20, 60)
    for soft in (False, True)
    for name, used in SIGNALS.items()
}


@dataclass
class GateData:
    """One query: its lists, identifier pins, signals and the nDCG@10 of
    each expert under each RRF k."""

    collection: str
    group: str
    lexical: Ranking
    dense: Ranking
    pins: tuple[int, ...]
    features: np.ndarray
    fused: dict[float, float]
    dense_ndcg: float


def _pinned(ranking: Ranking, pins: tuple[int, ...]) -> Ranking:
    return fusion.pin_rows(ranking, pins) if pins else ranking


@dataclass
class GateFamily:
    """Fits and scores the gate over prepared collections for one BM25
    setting (``label``)."""

    preps: list  # fusion_cv.Prepared
    label: str
    data: dict[tuple[str, str], GateData] = field(default_factory=dict)
    fits: dict[tuple[frozenset[str], str], FusionGate] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ks = sorted({k for k, _, _ in SETTINGS.values()})
        for prep in self.preps:
            coll = prep.coll
            group_of = {qid: g for g, qids in coll.groups.items() for qid in qids}
            for qid, _text, _ in coll.questions:
                bm, dn = prep.bm25[self.label][qid], prep.dense[qid]
                stats = prep.stats[self.label][qid]
                pins = stats.identifier_rows
                fused = {k: coll.ndcg(qid, _pinned(rrf_pair(bm, dn, k), pins)) for k in ks}
                dense_ndcg = coll.ndcg(qid, _pinned(dn, pins))
                self.data[(coll.name, qid)] = GateData(
                    coll.name, group_of[qid], bm, dn, pins, gate_features(bm, dn, stats), fused, dense_ndcg
                )

    def model(self, excluded: Iterable[str], setting: str) -> FusionGate:
        key = (frozenset(excluded), setting)
        if key not in self.fits:
            k, soft, used = SETTINGS[setting]
            kept = [d for d in self.data.values() if d.group not in key[0]]
            per_coll: dict[str, int] = {}
            for d in kept:
                per_coll[d.collection] = per_coll.get(d.collection, 0) + 1
            queries = [
                GateQuery(d.features, d.fused[k], d.dense_ndcg, 1.0 / per_coll[d.collection]) for d in kept
            ]
            self.fits[key] = fit_gate(queries, k, soft, L2, sorted({d.group for d in kept}), used)
        return self.fits[key]

    def per_question(self, group: str, excluded: Iterable[str], setting: str) -> dict[str, float]:
        """nDCG@10 per question of ``group`` under the gate fitted without ``excluded``."""
        gate = self.model(excluded, setting)
        out = {}
        for prep in self.preps:
            coll = prep.coll
            for qid in coll.groups.get(group, []):
                d = self.data[(coll.name, qid)]
                p = gate.dense_probability(d.features)
                out[qid] = coll.ndcg(qid, _pinned(gate.rank(d.lexical, d.dense, p), d.pins))
        return out

    def fold_scores(self, held_out: str, groups: list[str]) -> dict[str, dict[str, float]]:
        """setting -> group -> mean nDCG@10: the held-out group scored by the
        gate fitted without it, each training group by the one without both."""
        out: dict[str, dict[str, float]] = {s: {} for s in SETTINGS}
        for setting in SETTINGS:
            for h in groups:
                excluded = {held_out} if h == held_out else {held_out, h}
                out[setting][h] = float(np.mean(list(self.per_question(h, excluded, setting).values())))
        return out

    def all_scores(self, groups: list[str]) -> dict[str, dict[str, float]]:
        """setting -> group -> mean nDCG@10 of the gate fitted without that group."""
        return {
            s: {h: float(np.mean(list(self.per_question(h, {h}, s).values()))) for h in groups}
            for s in SETTINGS
        }
