"""Success@k (hit rate), as trec_eval's ``success_k``.

1 when at least one relevant item is in the top k, else 0; see Craswell,
"Success at n", Encyclopedia of Database Systems (2009). Averaged over
questions it is a proportion, so its interval is Wilson's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._common import check


def success_at_k(
    ranked: Sequence[str],
    qrels: Mapping[str, int],
    k: int = 10,
    relevant_min_grade: int = 1,
) -> float:
    """1.0 if an item graded ``relevant_min_grade`` or above is in the top k, else 0.0."""
    check(ranked, k)
    return 1.0 if any(item in qrels and qrels[item] >= relevant_min_grade for item in ranked[:k]) else 0.0
