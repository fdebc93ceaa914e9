import pytest

from ragcore.evaluation.metrics import recall_at_k

from .conftest import TOLERANCE, cases, trec_eval


@pytest.mark.parametrize("k", [5, 10, 15])
def test_matches_trec_eval_recall(k):
    for ranked, qrels, level in cases():
        expected = trec_eval(ranked, qrels, {f"recall.{k}"}, level)[f"recall_{k}"]
        assert recall_at_k(ranked, qrels, k, level) == pytest.approx(expected, abs=TOLERANCE)


def test_denominator_counts_relevant_items_not_retrieved():
    qrels = {"a": 1, "b": 1, "c": 1, "d": 0}
    assert recall_at_k(["a", "d", "x"], qrels, 5) == pytest.approx(1 / 3)


def test_level_two_excludes_grade_one_from_denominator():
    qrels = {"a": 2, "b": 1}
    assert recall_at_k(["a"], qrels, 5, relevant_min_grade=2) == 1.0
    assert recall_at_k(["a"], qrels, 5, relevant_min_grade=1) == 0.5


def test_nothing_relevant_scores_zero():
    assert recall_at_k(["a"], {"a": 0}, 5) == 0.0
