"""Evaluation page: open a stored run, read its table and charts, drill down,
download; upload a gold set and score it against the loaded collection."""

from __future__ import annotations

import json

import pytest

import ragcore.services.evaluation as service
from tests.app.helpers import plain, start
from tests.test_service import small_run


@pytest.fixture
def stored(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    (results / "tiny.json").write_text(json.dumps(small_run(("bm25", "hybrid"))))
    monkeypatch.setattr(service, "RESULTS_DIR", results)
    return results


def test_open_a_stored_run_and_find_its_table(app_env, stored) -> None:
    at = start("pages/evaluation.py")
    assert at.selectbox(key="eval-stored").value.startswith("tiny: 6 questions, bm25, hybrid")
    assert [h.value for h in at.header] == ["tiny"]
    summary = at.dataframe[0].value
    # Metrics as rows, rankers as columns (fits 1,400 px; the browser test checks it is not clipped).
    assert list(summary.columns) == ["bm25", "hybrid"]
    assert summary.loc["ndcg@10", "hybrid"].startswith("1.000 [")
    assert set(summary.index) >= {"ndcg@10", "mrr@10", "recall@10", "success@1"}
    # Charts: metric means, per question, comparisons, by type.
    assert len(at.get("vega_lite_chart")) == 4
    comparisons = next(d.value for d in at.dataframe if "Comparison" in d.value.columns)
    assert list(comparisons["Comparison"]) == ["hybrid − bm25"]
    assert set(comparisons.columns) >= {"Difference", "95% interval", "d_z", "p", "p (Holm)"}
    # Drill into one question: each ranker's top 10 with grades.
    at.selectbox(key="run-drill").set_value("q3").run()
    tops = [d.value for d in at.dataframe if "Grade" in d.value.columns]
    assert len(tops) == 2
    assert list(tops[1]["Document"][:2]) == ["d3", "e3"] and list(tops[1]["Grade"][:2]) == ["2", "1"]
    assert tops[0]["Grade"][0] == "—"  # bm25 put an unjudged item first
    names = sorted(d.proto.label for d in at.get("download_button"))
    assert names == ["Per-question results (CSV)", "Run (JSON)"]


def test_no_stored_runs_says_how_to_make_one(app_env, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(service, "RESULTS_DIR", tmp_path / "nothing")
    at = start("pages/evaluation.py")
    assert any("python -m ragcore eval" in i.value for i in at.info)


def test_upload_a_gold_set_and_score_it_on_the_demo(app_env, stored) -> None:
    gold = {
        "name": "mine",
        "corpus": ".",
        "questions": [
            {
                "id": "sla",
                "text": "monthly uptime commitment",
                "type": "lookup",
                "judgements": [{"doc": "sla.md", "grade": 2}],
            },
            {
                "id": "refund",
                "text": "refund after cancelling",
                "type": "lookup",
                "judgements": [{"doc": "refund-and-cancellation-policy.md", "grade": 2}],
            },
        ],
    }
    at = start("pages/evaluation.py")
    at.button_group(key="eval-source").set_value("My gold set").run()
    at.get("file_uploader")[0].set_value(("mine.json", json.dumps(gold).encode(), "application/json"))
    at.multiselect(key="eval-up-rankers").set_value(["bm25"])
    at.button(key="FormSubmitter:eval-upload-Evaluate").click().run()
    assert not at.exception, at.exception
    assert [h.value for h in at.header] == ["mine"]
    assert list(at.dataframe[0].value.columns) == ["bm25"]


def test_a_broken_gold_set_gets_a_clear_message(app_env, stored) -> None:
    at = start("pages/evaluation.py")
    at.button_group(key="eval-source").set_value("My gold set").run()
    at.get("file_uploader")[0].set_value(("bad.json", b'{"questions": "none"}', "application/json"))
    at.button(key="FormSubmitter:eval-upload-Evaluate").click().run()
    assert not at.exception, at.exception
    [error] = [plain(e.value) for e in at.error]
    assert "bad.json" in error and "'questions' must be a non-empty list" in error


def test_run_now_compares_chunkings_with_progress(app_env, stored) -> None:
    at = start("pages/evaluation.py")
    at.button_group(key="eval-source").set_value("Run now").run()
    golds = at.selectbox(key="eval-run-gold").options
    # The demo gold set ships in eval/: a page that fails to list it is the bug, not a reason to skip.
    assert any(name.endswith("demo.gold.json") for name in golds), golds
    at.selectbox(key="eval-run-gold").set_value(next(g for g in golds if g.endswith("demo.gold.json")))
    at.multiselect(key="eval-run-rankers").set_value(["bm25"])
    at.selectbox(key="eval-run-chunking").set_value("compare")
    at.button(key="FormSubmitter:eval-run-Run evaluation").click().run()
    assert not at.exception, at.exception
    assert at.get("progress")[0].proto.value == 100
    assert at.header[0].value.endswith(": chunking comparison")
    comparisons = next(
        d.value for d in at.dataframe if "ranker" in d.value.columns and "p_holm" in d.value.columns
    )
    assert len(comparisons) == 3 and set(comparisons["ranker"]) == {"bm25"}
    # The chunking chart and its comparisons, then one chunking in detail: metrics, per question and
    # by type (one ranker: nothing to compare within the chunking).
    assert len(at.get("vega_lite_chart")) == 2 + 3


def test_a_stored_chunking_comparison_opens_with_its_chunkings(app_env, tmp_path, monkeypatch) -> None:
    results = tmp_path / "results"
    results.mkdir()
    stored_run = service.RESULTS_DIR / "demo-chunking.json"
    (results / "demo-chunking.json").write_bytes(stored_run.read_bytes())
    monkeypatch.setattr(service, "RESULTS_DIR", results)
    at = start("pages/evaluation.py")
    assert at.selectbox(key="eval-stored").value.startswith(
        "demo: chunking comparison (heading, sentence, whole)"
    )
    assert [h.value for h in at.header] == ["demo: chunking comparison"]
    assert at.selectbox(key="eval-chunking-detail").options == ["heading", "sentence", "whole"]
    across = next(
        d.value for d in at.dataframe if "ranker" in d.value.columns and "p_holm" in d.value.columns
    )
    assert set(across["a"]) <= {"heading", "sentence"} and len(across) == 9
    at.selectbox(key="eval-chunking-detail").set_value("whole").run()
    assert list(at.dataframe[1].value.columns) == ["bm25", "dense", "hybrid"]


def test_opens_on_the_demo_run_for_the_demo_collection(app_env) -> None:
    at = start("pages/evaluation.py")
    picked = at.selectbox(key="eval-stored")
    # The stored runs sort cisi, cranfield, demo...: the page must not open on whichever comes first.
    assert picked.value.startswith("demo:") and "chunking comparison" not in picked.value, picked.options
    notes = [plain(c.value) for c in at.caption]
    assert not any("None" in n for n in notes)


def test_held_out_view_shows_each_group_and_its_goal(app_env, tmp_path, monkeypatch) -> None:
    from tests.evaluation.test_heldout import fold, study

    results = tmp_path / "results"
    results.mkdir()
    (results / "fusion-cv.json").write_text(
        json.dumps(study(fold("cranfield", 0.43), fold("demo:table", 0.35)))
    )
    monkeypatch.setattr(service, "RESULTS_DIR", results)
    at = start("pages/evaluation.py")
    at.button_group(key="eval-source").set_value("Held out").run()
    table = next(d.value for d in at.dataframe if "Goal met" in d.value.columns)
    assert list(table["Group"]) == ["cranfield", "demo:table"]
    assert list(table["Goal met"]) == ["yes", "no: < bm25"]
    assert list(table["Published RRF"]) == ["0.417", "—"]
    assert any("1 of 2 groups" in plain(m.value) for m in at.markdown)
    assert len(at.get("vega_lite_chart")) == 2


def test_held_out_view_prefers_the_shipped_procedures_result(app_env, tmp_path, monkeypatch) -> None:
    from tests.evaluation.test_heldout import fold, study

    results = tmp_path / "results"
    results.mkdir()
    (results / "fusion-cv.json").write_text(json.dumps(study(fold("cranfield", 0.41))))
    (results / "heldout-default.json").write_text(json.dumps(study(fold("cranfield", 0.43))))
    monkeypatch.setattr(service, "RESULTS_DIR", results)
    at = start("pages/evaluation.py")
    at.button_group(key="eval-source").set_value("Held out").run()
    table = next(d.value for d in at.dataframe if "Goal met" in d.value.columns)
    assert list(table["hybrid"]) == [0.43]


def test_held_out_view_without_a_result_says_how_to_make_one(app_env, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(service, "RESULTS_DIR", tmp_path / "nothing")
    at = start("pages/evaluation.py")
    at.button_group(key="eval-source").set_value("Held out").run()
    assert any("fusion_study.py --cv" in i.value for i in at.info)


def test_a_stored_run_of_a_tuned_gold_set_says_it_is_in_sample(app_env, stored) -> None:
    from tests.evaluation.test_heldout import fold, study

    (stored / "fusion-cv.json").write_text(json.dumps(study(fold("demo:fact", 0.8), fold("cisi", 0.45))))
    at = start("pages/evaluation.py")
    assert not any("In-sample" in plain(c.value) for c in at.caption)  # tiny was not a group
    run = small_run(("bm25", "hybrid"))
    run["settings"]["name"] = "demo"
    (stored / "tiny.json").write_text(json.dumps(run))
    at = start("pages/evaluation.py")
    assert any("In-sample" in plain(c.value) for c in at.caption)
