import json
import random
import time

import numpy as np
import pytest

from ragcore.errors import GoldSetError
from ragcore.evaluation import statistics as st
from ragcore.evaluation.goldset import JudgedSpan, Question, ResolvedQuestion
from ragcore.evaluation.metrics import METRICS, score_question
from ragcore.evaluation.rankers import retriever_rankers
from ragcore.evaluation.runner import (
    RankedItem,
    Scoring,
    collapse_to_documents,
    compare_chunkings,
    evaluate,
)
from ragcore.retrieval.results import SearchResult

from .helpers import cut, make_doc


def synthetic(n_questions: int, seed: int = 1):
    """Questions, qrels over 40 ids, and three rankers of different skill."""
    rng = random.Random(seed)
    ids = [f"d{i}" for i in range(40)]
    questions = [
        Question(id=f"q{i}", text=f"text {i}", type=rng.choice(["fact", "compare"]))
        for i in range(n_questions)
    ]
    qrels = {q.id: {d: rng.choice([0, 1, 2, 3]) for d in rng.sample(ids, 6)} for q in questions}

    def ranker(skill: float, salt: int):
        def rank(text: str) -> list[str]:
            qid = "q" + text.split()[1]
            r = random.Random(f"{salt}-{qid}")
            judged = qrels[qid]
            return sorted(ids, key=lambda d: -(skill * judged.get(d, 0) + r.random() * 3))[:20]

        return rank

    rankers = {"bm25": ranker(0.5, 1), "dense": ranker(0.8, 2), "hybrid": ranker(1.5, 3)}
    return questions, qrels, rankers


def test_per_question_metrics_means_and_intervals():
    questions, qrels, rankers = synthetic(40)
    run = evaluate(questions, qrels, rankers, resamples=2000, seed=3)
    assert run["questions"] == {
        "total": 40,
        "scored": 40,
        "dropped": 0,
        "dropped_ids": [],
        "by_type": run["questions"]["by_type"],
    }
    for name, rank in rankers.items():
        per_q = {q.id: score_question(rank(q.text), qrels[q.id]) for q in questions}
        for metric in METRICS:
            values = np.array([per_q[q.id][metric] for q in questions])
            block = run["rankers"][name]["metrics"][metric]
            assert block["mean"] == pytest.approx(values.mean())
            assert block["ci_low"] <= block["mean"] <= block["ci_high"]
            if metric.startswith("success@"):
                low, high = st.wilson_interval(int(values.sum()), values.size)
                assert (block["ci_low"], block["ci_high"]) == pytest.approx((low, high))
                assert block["interval"] == "wilson"
            else:
                assert block["interval"] == "bootstrap-percentile"
        assert run["per_question"]["q0"]["metrics"][name] == per_q["q0"]
    json.dumps(run)  # the run is plain JSON


def test_dropped_questions_are_counted_and_excluded():
    questions, qrels, rankers = synthetic(12)
    qrels["q0"] = {"d1": 0, "d2": 0}  # judged, nothing relevant
    del qrels["q1"]  # not judged at all
    calls = []

    def recording(rank):
        def wrapped(text):
            calls.append(text)
            return rank(text)

        return wrapped

    rankers = {name: recording(r) for name, r in rankers.items()}
    run = evaluate(questions, qrels, rankers, resamples=200)
    assert (run["questions"]["total"], run["questions"]["scored"], run["questions"]["dropped"]) == (12, 10, 2)
    assert run["questions"]["dropped_ids"] == ["q0", "q1"]
    assert "q0" not in run["per_question"] and "q1" not in run["per_question"]
    assert "text 0" not in calls  # dropped questions are never ranked
    assert run["rankers"]["bm25"]["metrics"]["ndcg@10"]["n"] == 10


def test_relevant_min_grade_decides_which_questions_are_dropped():
    questions = [Question("a", "x"), Question("b", "y")]
    qrels = {"a": {"d1": 1}, "b": {"d1": 2}}
    run = evaluate(questions, qrels, {"only": lambda t: ["d1"]}, relevant_min_grade=2, resamples=100)
    assert run["questions"]["dropped_ids"] == ["a"]


def test_nothing_to_score_is_a_clear_error():
    with pytest.raises(GoldSetError, match="nothing to score"):
        evaluate([Question("a", "x")], {"a": {"d": 0}}, {"r": lambda t: ["d"]}, resamples=100)


def test_comparisons_pair_the_default_ranker_and_holm_adjust_the_primary_family():
    questions, qrels, rankers = synthetic(40)
    run = evaluate(questions, qrels, rankers, resamples=2000, seed=5)
    rows = run["comparisons"]
    assert {(r["a"], r["b"]) for r in rows} == {("hybrid", "bm25"), ("hybrid", "dense"), ("bm25", "dense")}
    primary = [r for r in rows if r["family"] == "primary"]
    assert [(r["a"], r["b"], r["metric"]) for r in primary] == [
        ("hybrid", "bm25", "ndcg@10"),
        ("hybrid", "dense", "ndcg@10"),
    ]
    assert [r["p_holm"] for r in primary] == pytest.approx(st.holm([r["p"] for r in primary]))
    secondary = [r for r in rows if r["family"] == "secondary"]
    assert [r["p_holm"] for r in secondary] == pytest.approx(st.holm([r["p"] for r in secondary]))
    for r in rows:
        a = np.array([run["per_question"][q]["metrics"][r["a"]][r["metric"]] for q in run["per_question"]])
        b = np.array([run["per_question"][q]["metrics"][r["b"]][r["metric"]] for q in run["per_question"]])
        assert r["diff"] == pytest.approx((a - b).mean())
        assert r["ci_low"] <= r["diff"] <= r["ci_high"]
        if r["metric"].startswith("success@"):
            both, first, second = int(np.sum(a * b)), int(np.sum(a * (1 - b))), int(np.sum((1 - a) * b))
            _, low, high = st.newcombe_paired_interval(both, first, second, a.size - both - first - second)
            assert (r["ci_low"], r["ci_high"]) == pytest.approx((low, high))
            assert r["p"] == pytest.approx(st.mcnemar_exact(first, second))
    # The strong ranker beats the weak one clearly on this data.
    hb = next(r for r in primary if r["b"] == "bm25")
    assert hb["diff"] > 0 and hb["ci_low"] > 0 and hb["p_holm"] < 0.05


def test_default_ranker_falls_back_to_the_first_when_absent():
    questions, qrels, rankers = synthetic(10)
    run = evaluate(questions, qrels, {"dense": rankers["dense"], "bm25": rankers["bm25"]}, resamples=100)
    assert run["settings"]["default_ranker"] == "dense"
    assert [(r["a"], r["b"]) for r in run["comparisons"] if r["family"] == "primary"] == [("dense", "bm25")]


def test_breakdown_by_type_uses_only_that_types_questions():
    questions, qrels, rankers = synthetic(30)
    run = evaluate(questions, qrels, rankers, resamples=500)
    for t in ("fact", "compare"):
        ids = [q.id for q in questions if q.type == t]
        values = [run["per_question"][i]["metrics"]["dense"]["mrr@10"] for i in ids]
        block = run["rankers"]["dense"]["by_type"][t]["mrr@10"]
        assert block["mean"] == pytest.approx(np.mean(values))
        assert block["n"] == len(ids) == run["questions"]["by_type"][t]


def test_document_unit_collapses_passages_to_documents_first():
    items = [
        RankedItem("a.md#2", "a.md", 10, 12),
        RankedItem("a.md#0", "a.md", 1, 3),
        RankedItem("b.md#1", "b.md", 5, 9),
        RankedItem("a.md#1", "a.md", 4, 9),
        RankedItem("c.md#0", "c.md", 1, 2),
    ]
    assert [(i.id, i.first_line) for i in collapse_to_documents(items)] == [
        ("a.md", 10),
        ("b.md", 5),
        ("c.md", 1),
    ]
    run = evaluate(
        [Question("q", "x")], {"q": {"b.md": 1}}, {"r": lambda t: items}, unit="document", resamples=100
    )
    assert run["per_question"]["q"]["metrics"]["r"]["mrr@10"] == 0.5  # b.md is the second document
    assert run["per_question"]["q"]["top10"]["r"] == [
        {"doc": "a.md", "first_line": 10, "last_line": 12, "grade": None},
        {"doc": "b.md", "first_line": 5, "last_line": 9, "grade": 1},
        {"doc": "c.md", "first_line": 1, "last_line": 2, "grade": None},
    ]


def test_progress_is_reported():
    questions, qrels, rankers = synthetic(20)
    messages = []
    evaluate(questions, qrels, rankers, resamples=100, progress=messages.append)
    assert any("bm25: question 1 of 20" in m for m in messages)
    assert any("hybrid: 20 questions done" in m for m in messages)


def test_full_size_statistics_take_seconds():
    questions, qrels, rankers = synthetic(225, seed=9)
    cached = {name: {q.text: r(q.text) for q in questions} for name, r in rankers.items()}
    fixed = {name: c.__getitem__ for name, c in cached.items()}
    t = time.perf_counter()
    evaluate(questions, qrels, fixed, resamples=10_000)
    assert time.perf_counter() - t < 60


# ------------------------------------------------------------------ retriever and chunkings


class FakeHit:
    def __init__(self, passage):
        self.passage = passage


class FakeRetriever:
    """Ranks passages by how many question words they contain."""

    def __init__(self, passages):
        self.passages = passages
        self.calls = []

    def search(self, question, mode="hybrid", k=10):
        self.calls.append((mode, k))
        words = set(question.lower().split())
        scored = sorted(self.passages, key=lambda p: (-len(words & set(p.text.lower().split())), p.id))
        if mode == "reverse":
            scored = scored[::-1]
        return SearchResult([FakeHit(p) for p in scored[:k]], mode=mode)


DOC = make_doc(
    "guide.md",
    [
        "# Guide",
        "refunds take thirty days",
        "shipping is free over fifty",
        "# Support",
        "email support answers within a day",
        "phone support is for enterprise",
    ],
)


def test_retriever_rankers_adapt_hits_and_fetch_deeper_for_documents():
    passages = cut(DOC, [(1, 3), (4, 6)])
    retriever = FakeRetriever(passages)
    rankers = retriever_rankers(retriever, ["bm25", "reverse"], unit="document")
    items = rankers["bm25"]("phone support")
    assert items[0] == RankedItem("guide.md#1", "guide.md", 4, 6)
    assert retriever.calls == [("bm25", 100)]
    retriever_rankers(retriever, ["bm25"], unit="passage")["bm25"]("x")
    assert retriever.calls[-1] == ("bm25", 10)


def test_compare_chunkings_maps_one_gold_set_onto_each_chunking():
    start = DOC.text.index("phone support")
    question = ResolvedQuestion(
        id="q1",
        text="phone support enterprise",
        type="fact",
        spans=(JudgedSpan("guide.md", start, start + 13, 2),),
    )
    other = ResolvedQuestion(
        id="q2",
        text="refunds days",
        type="fact",
        spans=(JudgedSpan("guide.md", DOC.text.index("refunds"), DOC.text.index("refunds") + 7, 1),),
    )
    setups = {}
    for name, ranges in {
        "coarse": [(1, 3), (4, 6)],
        "fine": [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)],
    }.items():
        passages = cut(DOC, ranges, name)
        setups[name] = (passages, retriever_rankers(FakeRetriever(passages), ["bm25", "reverse"]))
    result = compare_chunkings(
        [question, other], setups, Scoring(default_ranker="bm25", resamples=200)
    ).to_json()
    assert set(result["chunkings"]) == {"coarse", "fine"}
    assert result["chunkings"]["fine"]["settings"]["chunking"] == "fine"
    # Under the fine chunking the relevant passage is line 6 alone.
    top = result["chunkings"]["fine"]["per_question"]["q1"]["top10"]["bm25"][0]
    assert (top["first_line"], top["last_line"], top["grade"]) == (6, 6, 2)
    assert result["summary"]["coarse"]["bm25"]["mean"] == pytest.approx(1.0)
    assert {(c["ranker"], c["a"], c["b"]) for c in result["comparisons"]} == {
        ("bm25", "coarse", "fine"),
        ("reverse", "coarse", "fine"),
    }
    json.dumps(result)


def test_document_unit_run_matches_trec_eval_on_the_collapsed_rankings():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(21)
    questions = [Question(f"q{i}", f"text {i}") for i in range(30)]
    docs = [f"doc{i}.md" for i in range(25)]
    qrels = {q.id: {d: rng.choice([0, 1, 2, 3]) for d in rng.sample(docs, 5)} for q in questions}
    passages = {
        q.text: [RankedItem(f"{d}#{rng.randint(0, 3)}", d, 1, 2) for d in rng.choices(docs, k=40)]
        for q in questions
    }
    # A ranking lists each passage once: keep the first of any repeat.
    for text, items in passages.items():
        unique = {}
        for item in items:
            unique.setdefault(item.id, item)
        passages[text] = list(unique.values())
    run = evaluate(questions, qrels, {"r": passages.__getitem__}, unit="document", resamples=100)
    collapsed = {q.id: [i.id for i in collapse_to_documents(passages[q.text])] for q in questions}
    trec_run = {qid: {d: float(100 - r) for r, d in enumerate(ranked)} for qid, ranked in collapsed.items()}
    cut10 = {qid: {d: float(100 - r) for r, d in enumerate(ranked[:10])} for qid, ranked in collapsed.items()}
    measures = {"ndcg_cut.10", "recall.5,10", "success.1,3,5,10"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(trec_run)
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut10)
    names = {
        "ndcg@10": "ndcg_cut_10",
        "recall@5": "recall_5",
        "recall@10": "recall_10",
        "success@1": "success_1",
    }
    names |= {"success@3": "success_3", "success@5": "success_5", "success@10": "success_10"}
    for q in questions:
        if q.id not in run["per_question"]:
            continue
        ours = run["per_question"][q.id]["metrics"]["r"]
        for metric, ref_name in names.items():
            assert ours[metric] == pytest.approx(ref[q.id][ref_name], abs=1e-9)
        assert ours["mrr@10"] == pytest.approx(rr[q.id]["recip_rank"], abs=1e-9)
    scored = list(run["per_question"])
    mean_ndcg = np.mean([ref[q]["ndcg_cut_10"] for q in scored])
    assert run["rankers"]["r"]["metrics"]["ndcg@10"]["mean"] == pytest.approx(mean_ndcg, abs=1e-9)
