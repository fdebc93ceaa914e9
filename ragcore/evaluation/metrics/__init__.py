"""Per-question ranking metrics, one file per metric (ranx-style).

Every metric is a function ``(ranked ids, qrels, k, relevant_min_grade) ->
float``; ``METRICS`` names the ones every evaluation reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .mrr import mrr_at_k
from .ndcg import dcg, ndcg_at_k
from .recall import recall_at_k
from .success import success_at_k

MetricFn = Callable[[Sequence[str], Mapping[str, int], int, int], float]

# name -> (function, k). Order is the order of every table and JSON block.
METRICS: dict[str, tuple[MetricFn, int]] = {
    "ndcg@10": (ndcg_at_k, 10),
    "mrr@10": (mrr_at_k, 10),
    "recall@5": (recall_at_k, 5),
    "recall@10": (recall_at_k, 10),
    "success@1": (success_at_k, 1),
    "success@3": (success_at_k, 3),
    "success@5": (success_at_k, 5),
    "success@10": (success_at_k, 10),
}
PRIMARY_METRIC = "ndcg@10"
HIT_RATES = frozenset(name for name in METRICS if name.startswith("success@"))
DEPTH = max(k for _, k in METRICS.values())


def score_question(
    ranked: Sequence[str], qrels: Mapping[str, int], relevant_min_grade: int = 1
) -> dict[str, float]:
    """Every metric in ``METRICS`` for one question."""
    return {name: fn(ranked, qrels, k, relevant_min_grade) for name, (fn, k) in METRICS.items()}


def has_relevant(qrels: Mapping[str, int], relevant_min_grade: int = 1) -> bool:
    """Whether a question can be scored: some item is judged relevant."""
    return any(grade >= relevant_min_grade for grade in qrels.values())


__all__ = [
    "DEPTH",
    "HIT_RATES",
    "METRICS",
    "PRIMARY_METRIC",
    "dcg",
    "has_relevant",
    "mrr_at_k",
    "ndcg_at_k",
    "recall_at_k",
    "score_question",
    "success_at_k",
]
