"""The answers' development gold set over ../shared/documents
(eval/dev-answers.gold.json): what the extractive answer's thresholds are
chosen on besides the demo. Judged by line spans only (no text of ../shared
is copied but the short facts); every fact is a verbatim part of a grade-2
span; unanswerable questions carry no facts. The checks that read the
documents skip when ../shared is absent, and fail under CI=true."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcore.evaluation.answers import normalise
from ragcore.evaluation.goldset import load_goldset
from tests.conftest import judged_shared_documents, require_shared

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "eval" / "dev-answers.gold.json"
OTHERS = (ROOT / "eval" / "demo.gold.json", ROOT / "eval" / "dev-shared.gold.json")
SHARED_DOCS = ROOT / ".." / "shared" / "documents"


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(GOLD.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def documents(raw):
    return judged_shared_documents(raw)


def test_loads_with_answerable_and_unanswerable_questions(raw):
    require_shared(SHARED_DOCS)  # loading checks that the gold set's corpus folder exists
    gold = load_goldset(GOLD)
    keyed = [q for q in gold.questions if q.answer is not None]
    assert len(keyed) == len(raw["questions"])
    assert sum(not q.answer.answerable for q in keyed) >= 20
    assert sum(q.answer.answerable for q in keyed) >= 20
    assert raw["corpus"] == "../../shared/documents"


def test_judged_by_line_spans_only_and_distinct_from_the_other_sets(raw):
    for q in raw["questions"]:
        for j in q["judgements"]:
            assert "quote" not in j and len(j["lines"]) == 2 and j["lines"][0] <= j["lines"][1], q["id"]
        if q["answer"].get("answerable", True):
            assert any(j["grade"] == 2 for j in q["judgements"]), q["id"]
    texts = {q["text"].lower() for q in raw["questions"]}
    for other in OTHERS:
        assert not texts & {q["text"].lower() for q in json.loads(other.read_text("utf-8"))["questions"]}


def test_every_fact_is_in_a_grade_2_span_and_not_in_the_question(raw, documents):
    for q in raw["questions"]:
        facts = q["answer"].get("facts", [])
        spans = [
            "\n".join(documents[j["doc"]].lines[j["lines"][0] - 1 : j["lines"][1]])
            for j in q["judgements"]
            if j["grade"] == 2
        ]
        said = normalise(" ".join(spans))
        for fact in facts:
            alternatives = [fact] if isinstance(fact, str) else fact
            assert any(normalise(a) in said for a in alternatives), (q["id"], fact)
            assert not any(normalise(a) in normalise(q["text"]) for a in alternatives), (q["id"], fact)
