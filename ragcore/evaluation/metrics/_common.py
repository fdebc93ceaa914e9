"""Checks shared by the metric functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def check(ranked: Sequence[str], k: int) -> None:
    """Reject a cutoff below 1 and a ranking that lists an id twice (a run in
    trec_eval's format cannot, and a repeat would count a hit twice)."""
    if k < 1:
        raise ValueError(f"cutoff k must be at least 1, not {k}")
    if len(set(ranked)) != len(ranked):
        seen: set[str] = set()
        for item in ranked:
            if item in seen:
                raise ValueError(f"the ranking lists {item!r} twice")
            seen.add(item)


def relevant(qrels: Mapping[str, int], relevant_min_grade: int) -> set[str]:
    """Ids judged at ``relevant_min_grade`` or above (trec_eval's ``-l`` level)."""
    return {doc for doc, grade in qrels.items() if grade >= relevant_min_grade}
