from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ragcore.answer.ailog import AiLog, ReviewedItem
from ragcore.answer.export import cite, export_json, export_markdown, export_records
from ragcore.answer.study import StudyItem
from ragcore.records import Answer, AnswerSentence, Citation, Passage

P1 = Passage("pricing.md", 0, 3, 5, 0, 10, "Pricing > Team", "x" * 10)
P2 = Passage("report.pdf", 4, 120, 120, 0, 10, "Risk", "y" * 10, pages=(7,))


def model_answer_item() -> dict:
    answer = Answer(
        mode="model",
        header="Model answer (gpt-4o-mini)",
        text="The Team plan costs $49 per month. [1]",
        reason="a model is configured",
        citations=[Citation.of(1, P1)],
        sentences=[AnswerSentence("The Team plan costs $49 per month.", (1,))],
        model="gpt-4o-mini",
        checks={"groundedness": 1.0, "removed_citations": [], "unsupported_numbers": []},
    )
    return {**answer.to_json(), "question": "What does the Team plan cost?"}


def study_items() -> dict[str, dict]:
    short = StudyItem(
        "short", "How many seats?", "10 seats", (1,), sources=(Citation.of(1, P1),), ref="item-1"
    )
    mcq = StudyItem(
        "mcq",
        "What does it cost?",
        "$49",
        (1,),
        ("$39", "$59", "$99"),
        sources=(Citation.of(1, P1),),
        ref="item-2",
    )
    risky = StudyItem(
        "short", "What is the risk?", "Supply", (2,), sources=(Citation.of(2, P2),), ref="item-3"
    )
    return {i.ref: {**i.to_json(), "topic": "pricing"} for i in (short, mcq, risky)}


@pytest.fixture
def log(tmp_path: Path) -> AiLog:
    log = AiLog(sqlite3.connect(tmp_path / "library.db"))
    answer_call = log.record_call(
        kind="answer",
        model="gpt-4o-mini",
        passage_ids=["pricing.md#0"],
        prompt_chars=900,
        response_chars=120,
        outcome="ok",
        question="What does the Team plan cost?",
        items={"answer": model_answer_item()},
    )
    study_call = log.record_call(
        kind="study",
        model="gpt-4o-mini",
        passage_ids=["pricing.md#0", "report.pdf#4"],
        prompt_chars=1500,
        response_chars=700,
        outcome="ok",
        question="pricing",
        items=study_items(),
    )
    unreviewed = log.record_call(
        kind="answer",
        model="gpt-4o-mini",
        passage_ids=["pricing.md#0"],
        prompt_chars=900,
        response_chars=120,
        outcome="ok",
        question="Never reviewed?",
        items={"answer": model_answer_item()},
    )
    assert unreviewed
    log.record_review(answer_call, "answer", "accepted")
    log.record_review(study_call, "item-1", "rejected")
    log.record_review(study_call, "item-2", "accepted")
    log.record_review(study_call, "item-3", "edited", "Supply-chain disruption")
    return log


def test_cite_gives_document_and_lines() -> None:
    assert cite(Citation.of(1, P1).to_json()) == "pricing.md, lines 3-5"
    assert cite(Citation.of(2, P2).to_json()) == "report.pdf, line 120, p. 7"


def test_only_accepted_and_edited_items_export(log: AiLog) -> None:
    records = export_records(log.accepted_items())
    assert [(r["type"], r["item"], r["decision"]) for r in records] == [
        ("answer", "answer", "accepted"),
        ("mcq", "item-2", "accepted"),
        ("short", "item-3", "edited"),
    ]
    text = export_markdown(log.accepted_items())
    assert "How many seats?" not in text  # rejected
    assert "Never reviewed?" not in text  # no decision


def test_json_export_has_citations_as_document_and_lines(log: AiLog) -> None:
    records = json.loads(export_json(log.accepted_items()))
    assert records[0]["answer"] == "The Team plan costs $49 per month. [1]"
    assert records[0]["citations"] == [
        {"n": 1, "doc": "pricing.md", "first_line": 3, "last_line": 5, "cite": "pricing.md, lines 3-5"}
    ]
    assert records[0]["checks"]["groundedness"] == 1.0
    assert records[2]["answer"] == "Supply-chain disruption"  # the edit, not the model's text
    assert records[2]["citations"][0]["cite"] == "report.pdf, line 120, p. 7"
    assert sorted(records[1]["options"]) == ["$39", "$49", "$59", "$99"]


def test_markdown_export_marks_the_key_and_lists_sources(log: AiLog) -> None:
    text = export_markdown(log.accepted_items())
    assert text.startswith("# Reviewed answers and study items")
    assert "## 1. Answer" in text and "**Question:** What does the Team plan cost?" in text
    assert "## 2. Multiple choice" in text and "$49 **(key)**" in text
    assert text.count("**(key)**") == 1
    assert "## 3. Short answer (edited)" in text and "**Answer:** Supply-chain disruption" in text
    assert "- [1] pricing.md, lines 3-5" in text and "- [2] report.pdf, line 120, p. 7" in text


def test_items_not_accepted_are_refused_even_if_passed_directly() -> None:
    rejected = ReviewedItem(1, "answer", "rejected", model_answer_item(), None, None, "m", "t", "t", "q")
    assert export_records([rejected]) == []
    assert "No accepted items." in export_markdown([rejected])


def test_an_edited_mcq_key_replaces_the_option_too(tmp_path: Path) -> None:
    item = study_items()["item-2"]
    edited = ReviewedItem(1, "item-2", "edited", item, "$45", None, "m", "t", "t", "q")
    record = export_records([edited])[0]
    assert record["answer"] == "$45" and "$45" in record["options"] and "$49" not in record["options"]
