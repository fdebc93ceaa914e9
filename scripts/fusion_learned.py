"""The learned-fusion family of the cross-validation (scripts/fusion_cv.py).

Unlike the other families, whose settings are a fixed grid, the learned
fusion (ragcore/retrieval/learned_fusion.py) is fitted: for a held-out
group, on every query of the other groups; and, so that the family is
compared with the others on the training groups without being scored on
queries it was fitted on, its score on each training group h is that of a
fit without the held-out group and without h (nested leave-one-out).

Each collection (Cranfield, CISI, Vaswani, demo, dev-shared) gets the same
total weight in a fit, each of its queries an equal share, so the larger
classic collections do not outvote the question styles of the small ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from ragcore.retrieval import fusion
from ragcore.retrieval.learned_fusion import LearnedFusion, TrainingQuery, candidate_features, fit

Ranking = list[tuple[int, float]]
L2 = 1.0  # fixed before any run (no tuning on held-out figures)
SETTINGS = ("fitted", "fitted + identifier pins")


@dataclass
class QueryData:
    """One query's candidates, their features and gains."""

    collection: str
    group: str
    rows: list[int]
    features: np.ndarray
    gains: np.ndarray
    pins: tuple[int, ...]


@dataclass
class LearnedFamily:
    """Fits and scores the learned fusion over prepared collections for one
    BM25 setting (``label``)."""

    preps: list  # fusion_cv.Prepared
    label: str
    data: dict[tuple[str, str], QueryData] = field(default_factory=dict)  # (collection, qid)
    fits: dict[frozenset[str], LearnedFusion] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for prep in self.preps:
            coll = prep.coll
            group_of = {qid: g for g, qids in coll.groups.items() for qid in qids}
            for qid, _text, _ in coll.questions:
                bm, dn = prep.bm25[self.label][qid], prep.dense[qid]
                stats = prep.stats[self.label][qid]
                rows, features = candidate_features(bm, dn, stats)
                gains = np.asarray(
                    [float(coll.qrels[qid].get(coll.keys([r])[0], 0)) for r in rows], dtype=np.float64
                )
                gains = np.maximum(gains, 0.0)
                self.data[(coll.name, qid)] = QueryData(
                    coll.name, group_of[qid], rows, features, gains, stats.identifier_rows
                )

    def model(self, excluded: Iterable[str]) -> LearnedFusion:
        key = frozenset(excluded)
        if key not in self.fits:
            kept = [d for d in self.data.values() if d.group not in key]
            per_coll: dict[str, int] = {}
            for d in kept:
                per_coll[d.collection] = per_coll.get(d.collection, 0) + 1
            queries = [TrainingQuery(d.features, d.gains, 1.0 / per_coll[d.collection]) for d in kept]
            self.fits[key] = fit(queries, L2, sorted({d.group for d in kept}))
        return self.fits[key]

    def per_question(self, group: str, excluded: Iterable[str], setting: str) -> dict[str, float]:
        """nDCG@10 per question of ``group`` under the fit without ``excluded``."""
        model = self.model(excluded)
        out = {}
        for prep in self.preps:
            coll = prep.coll
            for qid in coll.groups.get(group, []):
                d = self.data[(coll.name, qid)]
                ranking = list(zip(d.rows, model.scores(d.features).tolist(), strict=True))
                ranking.sort(key=lambda item: (-item[1], item[0]))
                if setting.endswith("pins") and d.pins:
                    ranking = fusion.pin_rows(ranking, d.pins)
                out[qid] = coll.ndcg(qid, ranking)
        return out

    def fold_scores(self, held_out: str, groups: list[str]) -> dict[str, dict[str, float]]:
        """setting -> group -> mean nDCG@10: the held-out group scored by the
        fit without it, each training group by the fit without both."""
        out: dict[str, dict[str, float]] = {s: {} for s in SETTINGS}
        for setting in SETTINGS:
            for h in groups:
                excluded = {held_out} if h == held_out else {held_out, h}
                pq = self.per_question(h, excluded, setting)
                out[setting][h] = float(np.mean(list(pq.values())))
        return out

    def all_scores(self, groups: list[str]) -> dict[str, dict[str, float]]:
        """setting -> group -> mean nDCG@10 of the fit without that group (for
        the choice made on every group: the shipped default)."""
        return {
            s: {h: float(np.mean(list(self.per_question(h, {h}, s).values()))) for h in groups}
            for s in SETTINGS
        }
