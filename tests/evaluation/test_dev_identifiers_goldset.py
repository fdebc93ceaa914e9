"""The held-out set of identifier questions (eval/dev-identifiers.gold.json):
questions over ../shared/documents asking for a code, version, number or
name they do not hold, judged by line spans only. The checks that read the
documents skip when ../shared is absent, and fail under CI=true."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcore.evaluation.goldset import load_goldset, resolve_spans
from ragcore.text import identifiers, is_code_token
from tests.conftest import judged_shared_documents

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "eval" / "dev-identifiers.gold.json"
OTHERS = ["demo", "dev-shared", "dev-answers", "dev-answers-b", "dev-named-parts"]


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(GOLD.read_text(encoding="utf-8"))


def test_judged_by_line_spans_each_question_answered(raw):
    assert raw["corpus"] == "../../shared/documents" and raw["unit"] == "passage"
    assert len({q["id"] for q in raw["questions"]}) == len(raw["questions"]) >= 15
    for q in raw["questions"]:
        assert q["type"] == "identifier"
        assert any(j["grade"] == 2 for j in q["judgements"]), q["id"]
        for j in q["judgements"]:
            assert "quote" not in j and len(j["lines"]) == 2 and j["lines"][0] <= j["lines"][1], q["id"]


def test_questions_are_new_and_hold_no_code(raw):
    others = {
        q["text"].lower()
        for name in OTHERS
        for q in json.loads((ROOT / "eval" / f"{name}.gold.json").read_text("utf-8"))["questions"]
    }
    for q in raw["questions"]:
        assert q["text"].lower() not in others, q["id"]
        # The set tests finding a code the question does not already hold.
        assert not any(is_code_token(t) for t in identifiers(q["text"])), q["id"]


def test_spans_resolve_and_do_not_copy_the_documents(raw):
    documents = judged_shared_documents(raw)
    for q in resolve_spans(load_goldset(GOLD), documents):
        for span in q.spans:
            assert documents[span.doc].text[span.start : span.end].strip(), (q.id, span.doc)
    for q in raw["questions"]:
        words = re.findall(r"[a-z0-9]+", q["text"].lower())
        grams = {" ".join(words[i : i + 6]) for i in range(len(words) - 5)}
        for j in q["judgements"]:
            text = " ".join(re.findall(r"[a-z0-9]+", documents[j["doc"]].text.lower()))
            assert not any(g in text for g in grams), (q["id"], j["doc"])
