import pytest

from ragcore.evaluation.metrics import mrr_at_k

from .conftest import TOLERANCE, cases, trec_eval


@pytest.mark.parametrize("k", [1, 5, 10])
def test_matches_trec_eval_recip_rank_on_the_run_cut_at_k(k):
    for ranked, qrels, level in cases():
        expected = trec_eval(ranked[:k], qrels, {"recip_rank"}, level)["recip_rank"]
        assert mrr_at_k(ranked, qrels, k, level) == pytest.approx(expected, abs=TOLERANCE)


def test_first_relevant_beyond_k_scores_zero():
    ranked = [f"x{i}" for i in range(10)] + ["a"]
    assert mrr_at_k(ranked, {"a": 1}, 10) == 0.0
    assert mrr_at_k(ranked, {"a": 1}, 11) == pytest.approx(1 / 11)


def test_grade_below_the_level_is_not_relevant():
    assert mrr_at_k(["a", "b"], {"a": 1, "b": 2}, 10, relevant_min_grade=2) == pytest.approx(0.5)
    assert mrr_at_k(["a", "b"], {"a": 0, "b": 1}, 10) == pytest.approx(0.5)
