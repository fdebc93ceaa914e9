"""Reciprocal rank cut at k (MRR@k once averaged over questions).

Voorhees, "The TREC-8 Question Answering Track Report", TREC 1999: the score
of a question is 1/rank of the first relevant item, 0 when none is retrieved.
This equals trec_eval's ``recip_rank`` on a run cut to its first k items.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._common import check


def mrr_at_k(
    ranked: Sequence[str],
    qrels: Mapping[str, int],
    k: int = 10,
    relevant_min_grade: int = 1,
) -> float:
    """1/rank of the first item graded ``relevant_min_grade`` or above within the top k, else 0."""
    check(ranked, k)
    for rank, item in enumerate(ranked[:k], 1):
        if item in qrels and qrels[item] >= relevant_min_grade:
            return 1.0 / rank
    return 0.0
