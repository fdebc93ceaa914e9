"""nDCG@k with linear gain, exactly as trec_eval's ``ndcg_cut``.

Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR techniques",
ACM TOIS 20(4), 2002. trec_eval (9.x, ``m_ndcg_cut.c``) uses the judged grade
itself as the gain, discounts rank ``r`` by ``log2(r + 1)`` and builds the ideal
ranking from every judged grade above 0, cut at ``k``. Unjudged documents and
grades of 0 or below gain nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ._common import check


def dcg(gains: Sequence[float]) -> float:
    """Discounted cumulative gain of gains listed by rank (rank 1 first)."""
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, 1) if g > 0)


def ndcg_at_k(
    ranked: Sequence[str],
    qrels: Mapping[str, int],
    k: int = 10,
    relevant_min_grade: int = 1,
) -> float:
    """nDCG@k of ``ranked`` (ids, best first) against graded ``qrels``.

    ``relevant_min_grade`` is accepted for a uniform signature and ignored:
    nDCG weighs the grades themselves (trec_eval ignores ``-l`` here too).
    Returns 0.0 when no judged grade is above 0, as trec_eval does.
    """
    check(ranked, k)
    ideal = dcg(sorted((g for g in qrels.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([max(qrels.get(item, 0), 0) for item in ranked[:k]]) / ideal
