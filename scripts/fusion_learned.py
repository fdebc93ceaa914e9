"""The learned-fusion family of the cross-validation (scripts/fusion_cv.py).

Unlike the other families, whose settings are a fixed grid, the learned
fusion (ragcore/retrieval/learned_fusion.py) is fitted, nested and with
each collection weighted equally as scripts/fusion_fitted.py says.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from fusion_fitted import FittedFamily, collection_weights, judged_queries

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
class LearnedFamily(FittedFamily):
    """Fits and scores the learned fusion over prepared collections for one
    BM25 setting (``label``)."""

    preps: list  # fusion_cv.Prepared
    label: str
    data: dict[tuple[str, str], QueryData] = field(default_factory=dict)  # (collection, qid)
    fits: dict[frozenset[str], LearnedFusion] = field(default_factory=dict)
    settings: tuple[str, ...] = SETTINGS

    def __post_init__(self) -> None:
        for q in judged_queries(self.preps, self.label):
            rows, features = candidate_features(q.lexical, q.dense, q.stats)
            gains = [max(0.0, float(q.coll.qrels[q.qid].get(q.coll.keys([r])[0], 0))) for r in rows]
            self.data[(q.coll.name, q.qid)] = QueryData(
                q.coll.name, q.group, rows, features, np.asarray(gains), q.stats.identifier_rows
            )

    def model(self, excluded: Iterable[str]) -> LearnedFusion:
        key = frozenset(excluded)
        if key not in self.fits:
            kept = [d for d in self.data.values() if d.group not in key]
            weights = collection_weights([d.collection for d in kept])
            queries = [TrainingQuery(d.features, d.gains, w) for d, w in zip(kept, weights, strict=True)]
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
