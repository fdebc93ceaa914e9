"""Random runs and qrels, and the same runs scored by trec_eval (pytrec_eval)."""

from __future__ import annotations

import random

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

TOLERANCE = 1e-9


def random_case(rng: random.Random) -> tuple[list[str], dict[str, int], int]:
    """A ranking (distinct ids), graded qrels (negative grades included, as
    BEIR files may have them) and a relevance level of 1 or 2."""
    universe = [f"d{i:02d}" for i in range(rng.randint(1, 30))]
    judged = rng.sample(universe, rng.randint(1, len(universe)))
    qrels = {doc: rng.choice([-1, 0, 0, 1, 1, 2, 3, 4]) for doc in judged}
    ranked = rng.sample(universe, rng.randint(0, len(universe)))
    return ranked, qrels, rng.choice([1, 1, 2])


def cases(n: int = 400, seed: int = 7) -> list[tuple[list[str], dict[str, int], int]]:
    rng = random.Random(seed)
    return [random_case(rng) for _ in range(n)]


def trec_eval(ranked: list[str], qrels: dict[str, int], measures: set[str], relevance_level: int = 1) -> dict:
    """trec_eval's figures for one ranking. Scores fall with rank and never
    tie, so trec_eval's own ordering (score, then doc id, descending) keeps ours."""
    run = {"q": {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}}
    evaluator = pytrec_eval.RelevanceEvaluator({"q": qrels}, measures, relevance_level=relevance_level)
    return evaluator.evaluate(run)["q"]
