"""``ask --json``: ``answer.covered`` and ``answer.sentences[].kind``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcore.cli import main

DEMO = Path(__file__).resolve().parents[2] / "corpus" / "demo"
KINDS = {"quote", "table-row", "conflict", "change", "contradiction", "not-covered", "related", "statement"}


@pytest.fixture
def fresh_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "RAGCORE_LLM_MODEL"):
        monkeypatch.delenv(key, raising=False)
    return tmp_path


def ask(question: str, capsys) -> dict:
    assert main(["ask", question, "--corpus", str(DEMO), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["answer"]


def test_answered_question_is_covered_with_quoted_sentences(fresh_home, capsys) -> None:
    answer = ask("What's the largest file I can upload?", capsys)
    assert answer["covered"] is True
    assert all(s["kind"] in KINDS for s in answer["sentences"])
    assert any(s["kind"] in {"quote", "table-row"} and s["citations"] for s in answer["sentences"])


def test_off_topic_question_is_not_covered(fresh_home, capsys) -> None:
    answer = ask("zxqv plorth wubble?", capsys)
    assert answer["covered"] is False
    assert not any(s["kind"] in {"quote", "table-row"} for s in answer["sentences"])
    assert any(s["kind"] == "not-covered" for s in answer["sentences"])
