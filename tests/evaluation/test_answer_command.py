"""``eval --gold FILE --answers``: the ask path's answers scored, with the
extractive answer and with a (mocked) LiteLLM model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcore.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corpus" / "demo"
AGGREGATES = ("fact_recall", "complete", "abstention", "wrongly_declined", "citation_support", "words")


@pytest.fixture
def fresh_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "RAGCORE_LLM_MODEL"):
        monkeypatch.delenv(key, raising=False)
    return tmp_path


def gold_file(tmp_path: Path) -> Path:
    data = {
        "name": "mini",
        "corpus": str(DEMO),
        "relevant_min_grade": 2,
        "questions": [
            {
                "id": "f1",
                "type": "fact",
                "text": "What's the largest file I can upload?",
                "judgements": [
                    {"doc": "support-faq.md", "quote": "Each single file can be up to 250 MB.", "grade": 2}
                ],
                "answer": {"facts": ["250 MB"]},
            },
            {
                "id": "u1",
                "type": "unanswerable",
                "text": "Which Lumenfold office in Singapore handles payroll?",
                "judgements": [],
                "answer": {"answerable": False},
            },
            {"id": "n1", "text": "Not scored for answers", "judgements": []},
        ],
    }
    path = tmp_path / "mini.gold.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run_json(argv: list[str], capsys) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_answers_json_contract(fresh_home, capsys) -> None:
    gold = gold_file(fresh_home)
    out_file = fresh_home / "run.json"
    argv = ["eval", "--gold", str(gold), "--answers", "--rankers", "bm25", "--resamples", "200"]
    run = run_json([*argv, "--json", "--quiet", "--out", str(out_file)], capsys)
    assert run["kind"] == "answers"
    assert "per_question" in run  # the retrieval run's own per-question list stays
    answers = run["answers"]
    for key in (*AGGREGATES, "contradictions_found"):
        assert set(answers[key]) >= {"mean", "ci_low", "ci_high", "n"}, key
    assert answers["words"]["median"] > 0
    assert isinstance(answers["false_contradictions"], int)
    assert isinstance(answers["duplicate_sentences"], int)
    rows = {q["id"]: q for q in answers["per_question"]}
    assert set(rows) == {"f1", "u1"}  # questions without an answer key are left out
    assert rows["f1"]["facts_required"] == [["250 MB"]]
    assert rows["f1"]["answer"] and rows["f1"]["mode"] == "extractive"
    assert answers["fact_recall"]["n"] == 1 and answers["abstention"]["n"] == 1
    assert json.loads(out_file.read_text(encoding="utf-8"))["kind"] == "answers"


def test_retrieval_runs_say_their_kind(fresh_home, capsys) -> None:
    gold = gold_file(fresh_home)
    run = run_json(
        ["eval", "--gold", str(gold), "--rankers", "bm25", "--resamples", "50", "--json", "--quiet"], capsys
    )
    assert run["kind"] == "retrieval" and "answers" not in run


def test_answers_need_a_gold_set(fresh_home, capsys) -> None:
    assert main(["eval", "--beir", str(fresh_home), "--answers", "--quiet"]) == 1
    assert "--answers needs --gold" in capsys.readouterr().err


def test_model_answers_are_scored_with_litellm_mocked(fresh_home, capsys, monkeypatch) -> None:
    from ragcore.answer.llm import load_litellm

    litellm = load_litellm()  # imported as the app imports it: offline cost map
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    real = litellm.completion
    calls = []

    def mocked(**kwargs):
        calls.append(kwargs["model"])
        reply = {
            "sentences": [{"text": "Each single file can be up to 250 MB.", "citations": [1]}],
            "covered": True,
        }
        return real(**kwargs, mock_response=json.dumps(reply))

    monkeypatch.setattr(litellm, "completion", mocked)
    gold = gold_file(fresh_home)
    argv = ["eval", "--gold", str(gold), "--answers", "--model", "gpt-4o-mini", "--rankers", "bm25"]
    run = run_json([*argv, "--resamples", "100", "--json", "--quiet"], capsys)
    assert calls and set(calls) == {"gpt-4o-mini"}
    rows = {q["id"]: q for q in run["answers"]["per_question"]}
    assert rows["f1"]["mode"] == "model" and rows["f1"]["facts_stated"] == ["250 MB"]
    assert run["answers"]["settings"]["model"] == "gpt-4o-mini"
    # the model "answered" the unanswerable question too: not an abstention
    assert run["answers"]["abstention"]["mean"] == 0.0


@pytest.mark.slow
def test_curated_answers_are_reported_apart(fresh_home, capsys) -> None:
    data = json.loads(gold_file(fresh_home).read_text(encoding="utf-8"))
    data["questions"].append(
        {
            "id": "p1",
            "type": "fact",
            "text": "Who approves discounts above 20%?",  # a pinned question of corpus/demo.curated.json
            "judgements": [
                {
                    "doc": "discount-approval-matrix.md",
                    "quote": "| Above 20% and up to 30% | VP Sales |",
                    "grade": 2,
                }
            ],
            "answer": {"facts": ["VP Sales"]},
        }
    )
    gold = fresh_home / "curated.gold.json"
    gold.write_text(json.dumps(data), encoding="utf-8")
    argv = [
        "eval",
        "--gold",
        str(gold),
        "--answers",
        "--rankers",
        "bm25",
        "--resamples",
        "100",
        "--json",
        "--quiet",
    ]
    off = run_json(argv, capsys)
    assert "answers_curated" not in off and off["answers"]["settings"]["curated"] is False
    assert all(q["mode"] != "curated" for q in off["answers"]["per_question"])
    on = run_json([*argv, "--curated", "on"], capsys)
    modes = {q["id"]: q["mode"] for q in on["answers_curated"]["per_question"]}
    assert modes["p1"] == "curated" and modes["f1"] != "curated"
    # the default figures stay those of the computed answers
    assert {q["id"]: q["mode"] for q in on["answers"]["per_question"]}["p1"] != "curated"


def test_the_eval_ask_path_gives_the_lens_the_collection_as_ask_does(monkeypatch, tmp_path) -> None:
    """``eval --answers`` answers as ``ask`` does: documents and every passage
    of the collection go to the answer (the lens reads beyond the top 10)."""
    import ragcore.answer.pipeline as pipeline
    import ragcore.cli as cli
    from ragcore.evaluation.answer_run import answer_env, ask_path

    corpus = type("Corpus", (), {"documents": {"a.md": object()}, "passages": ["p1", "p2"]})()
    retriever = type("Retriever", (), {"search": lambda self, q, mode, k: []})()
    monkeypatch.setattr(cli, "open_corpus", lambda args: (corpus, None))
    monkeypatch.setattr(cli, "make_retriever", lambda c, lib: retriever)
    seen: dict = {}

    def fake_answer(question, hits, **kwargs):
        seen.update(kwargs)
        raise StopIteration

    monkeypatch.setattr(pipeline, "answer_question", fake_answer)
    ask, documents = ask_path(tmp_path, answer_env(None))
    with pytest.raises(StopIteration):
        ask("Is our pricing consistent?")
    assert seen["passages"] is corpus.passages and seen["documents"] is corpus.documents
    assert documents is corpus.documents
