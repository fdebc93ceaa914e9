"""Pseudo-relevance feedback for the query vector: one Rocchio step.

q' = normalise(q + beta * mean of the vectors of dense's top ``k`` passages)
(Rocchio, 1971; for dense retrievers Li et al., "Pseudo Relevance Feedback
with Deep Language Models and Dense Retrievers: Successes and Pitfalls",
ACM TOIS 2023, who found this vector step a robust gain). To keep the dense
search's speed (issue #18), q' scans nothing: it re-scores only the
candidates the hybrid already holds, the union of the BM25 and dense lists,
and the feedback ranking is the best ``depth`` of those. Where it applies
(the gate's fused ranking, not dense alone, and not the parts of a split
question: ``retriever.PART_PRF``) and ``k``, ``beta`` were chosen by
leave-one-group-out cross-validation (``scripts/prf_study.py``,
``scripts/prf_parts_study.py``; docs/decisions.md section 1).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .dense import DenseIndex

Ranking = Sequence[tuple[int, float]]
# (k, beta) -> dense's ranking under q'; made by the retriever per query.
Feedback = Callable[[int, float], list[tuple[int, float]]]


def rocchio(query: np.ndarray, feedback: np.ndarray, beta: float) -> np.ndarray:
    """q + beta * mean(``feedback`` rows), unit length (``query`` when
    there is no feedback or the sum vanishes)."""
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    if len(feedback) == 0 or beta == 0:
        return q
    moved = q + np.float32(beta) * np.asarray(feedback, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(moved))
    return moved / norm if norm > 0 else q


def feedback_ranking(
    query: np.ndarray,
    lexical: Ranking,
    dense: Ranking,
    k: int,
    beta: float,
    vectors_of: Callable[[np.ndarray], np.ndarray],
    score_rows: Callable[[np.ndarray, np.ndarray], np.ndarray],
    depth: int = 100,
) -> list[tuple[int, float]]:
    """Dense's ranking under q' over the rows of ``lexical`` and ``dense``
    only, best ``depth`` first, ties by row (as the dense index orders)."""
    if not dense or k <= 0:
        return list(dense)
    top = np.asarray([row for row, _ in dense[:k]], dtype=np.int64)
    moved = rocchio(query, vectors_of(top), beta)
    rows = np.asarray(sorted({r for r, _ in lexical} | {r for r, _ in dense}), dtype=np.int64)
    scores = np.asarray(score_rows(moved, rows), dtype=np.float64)
    order = np.lexsort((rows, -scores))[:depth]
    return [(int(rows[i]), float(scores[i])) for i in order]


def index_feedback(index: DenseIndex, query: np.ndarray, lexical: Ranking, dense: Ranking) -> Feedback:
    """``feedback_ranking`` over a ``DenseIndex`` (exact cosines of its rows)."""

    def vectors_of(rows: np.ndarray) -> np.ndarray:
        return np.vstack([index.vector(int(r)) for r in rows])

    return lambda k, beta: feedback_ranking(query, lexical, dense, k, beta, vectors_of, index.score_rows)
