"""The answers' development gold sets over ../shared/documents
(eval/dev-answers.gold.json, eval/dev-answers-b.gold.json and, for the
risks of a named subject, eval/dev-risks.gold.json): what the
extractive answer's thresholds are chosen on besides the demo. Judged by line spans only (no text of ../shared
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
GOLDS = {  # file: (answerable, unanswerable) questions it holds at least
    ROOT / "eval" / "dev-answers.gold.json": (20, 20),
    ROOT / "eval" / "dev-answers-b.gold.json": (15, 12),
    ROOT / "eval" / "dev-risks.gold.json": (7, 0),  # risks of a named subject (session 7)
}
OTHERS = (ROOT / "eval" / "demo.gold.json", ROOT / "eval" / "dev-shared.gold.json", *GOLDS)
SHARED_DOCS = ROOT / ".." / "shared" / "documents"


@pytest.fixture(scope="module", params=sorted(GOLDS), ids=lambda p: p.stem)
def gold_path(request) -> Path:
    return request.param


@pytest.fixture(scope="module")
def raw(gold_path) -> dict:
    return json.loads(gold_path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def documents(raw):
    return judged_shared_documents(raw)


def test_loads_with_answerable_and_unanswerable_questions(raw, gold_path):
    require_shared(SHARED_DOCS)  # loading checks that the gold set's corpus folder exists
    gold = load_goldset(gold_path)
    keyed = [q for q in gold.questions if q.answer is not None]
    assert len(keyed) == len(raw["questions"])
    answerable, unanswerable = GOLDS[gold_path]
    assert sum(not q.answer.answerable for q in keyed) >= unanswerable
    assert sum(q.answer.answerable for q in keyed) >= answerable
    assert raw["corpus"] == "../../shared/documents"


def test_judged_by_line_spans_only_and_distinct_from_the_other_sets(raw, gold_path):
    for q in raw["questions"]:
        for j in q["judgements"]:
            assert "quote" not in j and len(j["lines"]) == 2 and j["lines"][0] <= j["lines"][1], q["id"]
        if q["answer"].get("answerable", True):
            assert any(j["grade"] == 2 for j in q["judgements"]), q["id"]
    texts = {q["text"].lower() for q in raw["questions"]}
    for other in (o for o in OTHERS if o != gold_path):
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
