"""Evaluation page, Answers view: a stored answer run shows its answer
metrics, and a question's answer beside its required facts, stated ones marked."""

from __future__ import annotations

import ragcore.services.evaluation as service
from tests.app.helpers import plain, start


def test_a_stored_answer_run_shows_its_answers_view(app_env, tmp_path, monkeypatch) -> None:
    results = tmp_path / "results"
    results.mkdir()
    stored = service.RESULTS_DIR / "demo-answers.json"
    (results / "demo-answers.json").write_bytes(stored.read_bytes())
    monkeypatch.setattr(service, "RESULTS_DIR", results)
    at = start("pages/evaluation.py")
    assert not at.exception, at.exception
    assert "Answers" in [s.value for s in at.subheader]
    summary = next(d.value for d in at.dataframe if "metric" in d.value.columns)
    assert {"fact recall", "complete answers", "false contradictions"} <= set(summary["metric"])
    assert {"evidence precision", "sentences off evidence"} <= set(summary["metric"])
    questions = next(d.value for d in at.dataframe if "fact recall" in d.value.columns)
    assert len(questions) == 127
    at.selectbox(key="run-answer-q").set_value("fact-03").run()
    assert not at.exception, at.exception
    marks = [plain(m.value) for m in at.markdown if m.value.startswith(("✅", "❌"))]
    assert marks and all(m.endswith("250 MB") for m in marks)
