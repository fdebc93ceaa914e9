import math

import pytest

from ragcore.evaluation.metrics import ndcg_at_k

from .conftest import TOLERANCE, cases, trec_eval


@pytest.mark.parametrize("k", [1, 3, 5, 10, 20])
def test_matches_trec_eval_ndcg_cut_on_random_graded_runs(k):
    for ranked, qrels, level in cases():
        expected = trec_eval(ranked, qrels, {f"ndcg_cut.{k}"}, level)[f"ndcg_cut_{k}"]
        assert ndcg_at_k(ranked, qrels, k, level) == pytest.approx(expected, abs=TOLERANCE)


def test_worked_example_linear_gain_log2_discount():
    qrels = {"a": 3, "b": 2, "c": 1}
    # ranks: b (gain 2), x (unjudged), a (gain 3)
    dcg = 2 / math.log2(2) + 3 / math.log2(4)
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(["b", "x", "a"], qrels, 10) == pytest.approx(dcg / ideal)


def test_ideal_counts_relevant_documents_that_were_not_retrieved():
    assert ndcg_at_k(["a"], {"a": 1, "b": 1}, 10) < 1.0
    assert ndcg_at_k(["a", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(1.0)


def test_negative_and_zero_grades_gain_nothing():
    assert ndcg_at_k(["n", "z", "a"], {"n": -1, "z": 0, "a": 2}, 10) == pytest.approx(
        ndcg_at_k(["x", "y", "a"], {"a": 2}, 10)
    )


def test_no_positive_grade_scores_zero():
    assert ndcg_at_k(["a", "b"], {"a": 0, "b": -1}, 10) == 0.0


def test_relevant_min_grade_does_not_change_ndcg():
    qrels = {"a": 1, "b": 2}
    assert ndcg_at_k(["a", "b"], qrels, 10, 1) == ndcg_at_k(["a", "b"], qrels, 10, 2)


def test_rejects_repeated_ids_and_bad_cutoff():
    with pytest.raises(ValueError, match="twice"):
        ndcg_at_k(["a", "b", "a"], {"a": 1}, 10)
    with pytest.raises(ValueError, match="at least 1"):
        ndcg_at_k(["a"], {"a": 1}, 0)
