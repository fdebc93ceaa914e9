"""What the two fitted families of the cross-validation share
(scripts/fusion_gate.py, scripts/fusion_learned.py): the loop over every
judged query of the prepared collections, the per-collection weights of a
fit, and the nested scoring.

A fitted family is scored, for a held-out group, by the fit on every query
of the other groups; for its score on a training group h (used only to
compare it with the other families), by a fit without the held-out group
and without h (nested leave-one-out). Each collection gets the same total
weight in a fit, each of its queries an equal share, so the larger classic
collections do not outvote the question styles of the small ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from ragcore.retrieval.learned_fusion import FusionStats

Ranking = list[tuple[int, float]]


@dataclass(frozen=True)
class JudgedQuery:
    """One judged query of a prepared collection, with its two rankings."""

    coll: object  # fusion_cv.Collection
    group: str
    qid: str
    lexical: Ranking
    dense: Ranking
    stats: FusionStats


def judged_queries(preps: list, label: str) -> Iterator[JudgedQuery]:
    """Every judged query of ``preps`` (fusion_cv.Prepared), BM25 ``label``."""
    for prep in preps:
        coll = prep.coll
        group_of = {qid: g for g, qids in coll.groups.items() for qid in qids}
        for qid, _text, _ in coll.questions:
            yield JudgedQuery(
                coll, group_of[qid], qid, prep.bm25[label][qid], prep.dense[qid], prep.stats[label][qid]
            )


def collection_weights(collections: list[str]) -> list[float]:
    """Each query's weight in a fit: 1 / its collection's query count."""
    count: dict[str, int] = {}
    for name in collections:
        count[name] = count.get(name, 0) + 1
    return [1.0 / count[name] for name in collections]


class FittedFamily:
    """Nested scoring over ``settings`` for a family that defines
    ``per_question(group, excluded, setting)``."""

    settings: tuple[str, ...] = ()

    def per_question(self, group: str, excluded: Iterable[str], setting: str) -> dict[str, float]:
        raise NotImplementedError

    def _mean(self, group: str, excluded: Iterable[str], setting: str) -> float:
        return float(np.mean(list(self.per_question(group, excluded, setting).values())))

    def fold_scores(self, held_out: str, groups: list[str]) -> dict[str, dict[str, float]]:
        """setting -> group -> mean nDCG@10: the held-out group scored by the
        fit without it, each training group by the fit without both."""
        return {
            s: {h: self._mean(h, {held_out} if h == held_out else {held_out, h}, s) for h in groups}
            for s in self.settings
        }

    def all_scores(self, groups: list[str]) -> dict[str, dict[str, float]]:
        """setting -> group -> mean nDCG@10 of the fit without that group (for
        the choice made on every group: the shipped default)."""
        return {s: {h: self._mean(h, {h}, s) for h in groups} for s in self.settings}
