"""Recall@k, as trec_eval's ``recall_k``.

Manning, Raghavan and Schütze, "Introduction to Information Retrieval" (2008),
section 8.3: the share of all relevant items found in the top k. The
denominator counts every item judged ``relevant_min_grade`` or above, retrieved
or not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._common import check, relevant


def recall_at_k(
    ranked: Sequence[str],
    qrels: Mapping[str, int],
    k: int = 10,
    relevant_min_grade: int = 1,
) -> float:
    """Relevant items in the top k over all relevant items; 0.0 when nothing is relevant (as trec_eval)."""
    check(ranked, k)
    wanted = relevant(qrels, relevant_min_grade)
    if not wanted:
        return 0.0
    return sum(1 for item in ranked[:k] if item in wanted) / len(wanted)
