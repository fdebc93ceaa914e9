"""The typed run: every stored run loads through it and writes back the same
JSON, and a run made now has the typed fields the pages read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcore.evaluation.goldset import Question
from ragcore.evaluation.run import ChunkingRun, Comparison, Run, is_run, run_from_json
from ragcore.evaluation.runner import Scoring, score_run

RESULTS = Path(__file__).resolve().parents[2] / "eval" / "results"
STORED = [p for p in sorted(RESULTS.glob("*.json")) if is_run(json.loads(p.read_text(encoding="utf-8")))]


def test_there_are_stored_runs_to_check() -> None:
    assert len(STORED) >= 2
    assert not is_run({"kind": "curated-threshold"}) and is_run({"kind": "answers"})


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.name)
def test_a_stored_run_round_trips_exactly(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    run = run_from_json(data)
    assert isinstance(run, ChunkingRun if "chunkings" in data else Run)
    assert run.to_json() == data
    # Byte for byte too: key order is part of what the CLI writes.
    assert json.dumps(run.to_json(), indent=1, ensure_ascii=False) + "\n" == text


def test_unknown_keys_are_kept_and_written_back() -> None:
    data = json.loads((RESULTS / "demo.json").read_text(encoding="utf-8"))
    data = {**data, "kind": "answers", "answers": {"fact_recall": 0.5}}
    data["settings"] = {**data["settings"], "model": "m"}
    data["rankers"]["bm25"] = {**data["rankers"]["bm25"], "note": "cannot differ"}
    run = Run.from_json(data)
    assert run.kind == "answers" and run.extra == {"answers": {"fact_recall": 0.5}}
    assert run.settings.extra == {"model": "m"} and run.rankers["bm25"].note == "cannot differ"
    assert run.to_json() == data


def test_a_run_made_now_reads_by_field() -> None:
    questions = [Question(f"q{i}", f"question {i}", "a" if i % 2 else "b") for i in range(6)]
    qrels = {q.id: {f"d{i}": 2} for i, q in enumerate(questions)}
    rankers = {"good": lambda t: [f"d{t[-1]}"], "bad": lambda t: ["x", f"d{t[-1]}"]}
    run = score_run(questions, qrels, rankers, Scoring(default_ranker="good", resamples=200))
    assert run.settings.rankers == ("good", "bad") and run.settings.seed == Scoring().seed
    assert run.rankers["good"].metrics["ndcg@10"].mean == pytest.approx(1.0)
    assert run.rankers["bad"].metrics["success@1"].interval == "wilson"
    assert set(run.rankers["good"].by_type) == {"a", "b"}
    (primary,) = [c for c in run.comparisons if c.family == "primary"]
    assert isinstance(primary, Comparison) and (primary.a, primary.b) == ("good", "bad") and primary.diff > 0
    assert run.per_question["q1"].top10["bad"][0].doc == "x"
    assert Run.from_json(run.to_json()) == run
