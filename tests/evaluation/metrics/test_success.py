import pytest

from ragcore.evaluation.metrics import METRICS, score_question, success_at_k

from .conftest import TOLERANCE, cases, trec_eval


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_matches_trec_eval_success(k):
    for ranked, qrels, level in cases():
        expected = trec_eval(ranked, qrels, {f"success.{k}"}, level)[f"success_{k}"]
        assert success_at_k(ranked, qrels, k, level) == pytest.approx(expected, abs=TOLERANCE)


def test_hit_at_rank_three_counts_from_k_three():
    qrels = {"a": 1}
    ranked = ["x", "y", "a"]
    assert [success_at_k(ranked, qrels, k) for k in (1, 2, 3, 10)] == [0.0, 0.0, 1.0, 1.0]


def test_score_question_reports_every_metric_and_matches_trec_eval():
    measures = {"ndcg_cut.10", "recall.5,10", "success.1,3,5,10"}
    for ranked, qrels, level in cases(100, seed=11):
        ours = score_question(ranked, qrels, level)
        assert list(ours) == list(METRICS)
        ref = trec_eval(ranked, qrels, measures, level)
        ref["recip_rank"] = trec_eval(ranked[:10], qrels, {"recip_rank"}, level)["recip_rank"]
        names = {
            "ndcg@10": "ndcg_cut_10",
            "mrr@10": "recip_rank",
            "recall@5": "recall_5",
            "recall@10": "recall_10",
            "success@1": "success_1",
            "success@3": "success_3",
            "success@5": "success_5",
            "success@10": "success_10",
        }
        for ours_name, ref_name in names.items():
            assert ours[ours_name] == pytest.approx(ref[ref_name], abs=TOLERANCE), ours_name


def test_trec_eval_breaks_score_ties_by_descending_doc_id():
    # Why the reference runs above never tie: trec_eval would reorder tied ids.
    import pytrec_eval

    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"a": 1}}, {"recip_rank"})
    tied = evaluator.evaluate({"q": {"a": 1.0, "b": 1.0, "c": 1.0}})["q"]["recip_rank"]
    assert tied == pytest.approx(1 / 3)  # order c, b, a
