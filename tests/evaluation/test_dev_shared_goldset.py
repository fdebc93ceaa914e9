"""The development gold set over ../shared/documents (eval/dev-shared.gold.json):
questions in everyday words, judged by line spans only. The checks that read
the documents skip when ../shared is absent, and fail under CI=true."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcore.evaluation.goldset import load_goldset, resolve_spans
from tests.conftest import judged_shared_documents

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "eval" / "dev-shared.gold.json"
DEMO = ROOT / "eval" / "demo.gold.json"


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(GOLD.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def documents(raw):
    return judged_shared_documents(raw)


def test_judged_by_line_spans_only(raw):
    assert raw["corpus"] == "../../shared/documents" and raw["unit"] == "passage"
    questions = raw["questions"]
    assert 25 <= len(questions) <= 40
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        assert q["judgements"], q["id"]
        assert any(j["grade"] == 2 for j in q["judgements"]), q["id"]
        for j in q["judgements"]:
            assert "quote" not in j and len(j["lines"]) == 2 and j["lines"][0] <= j["lines"][1], q["id"]


def test_distinct_from_the_demo_gold_set(raw):
    demo = {q["text"].lower() for q in json.loads(DEMO.read_text(encoding="utf-8"))["questions"]}
    assert not demo & {q["text"].lower() for q in raw["questions"]}


def test_multi_part_questions_mark_each_part(raw):
    multi = [q for q in raw["questions"] if q["type"] == "multi-part"]
    assert multi
    for q in multi:
        parts = {j.get("part") for j in q["judgements"] if j["grade"] == 2}
        assert parts == {1, 2}, q["id"]


def test_spans_resolve_and_are_not_empty(documents):
    gold = load_goldset(GOLD)
    resolved = resolve_spans(gold, documents)
    for q in resolved:
        for span in q.spans:
            assert documents[span.doc].text[span.start : span.end].strip(), (q.id, span.doc)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def test_questions_do_not_copy_the_documents(raw, documents):
    # No question repeats a run of six words of a document it is judged on.
    for q in raw["questions"]:
        words = _words(q["text"])
        grams = {" ".join(words[i : i + 6]) for i in range(len(words) - 5)}
        for j in q["judgements"]:
            text = " ".join(_words(documents[j["doc"]].text))
            assert not any(g in text for g in grams), (q["id"], j["doc"])
