"""The kind check beside the score threshold: does a retrieved unit carry the
question's subject and the kind of thing it asks for? And the study's
objective, which scores an answer by the facts it states."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

from ragcore.answer.answerability import KindCheck, carries_kind, part_threshold
from ragcore.answer.extractive import NOT_COVERED, extractive_answer
from ragcore.answer.relevance import Scorer, make_part
from ragcore.answer.units import answer_units
from ragcore.evaluation.answers import ScoredAnswer
from tests.answer.helpers import line_corpus

PLANS = (
    "The Team plan costs $299 per month.\n"
    "\n"
    "The Team plan includes ten seats and chat support.\n"
    "\n"
    "Integrations connect the workspace to chat tools.\n"
)
FEATURES = "The Team plan includes ten seats and chat support.\n\nEvery plan is billed each month.\n"
UNREACHABLE = 9.0  # a threshold no unit's score reaches


def _coverage(text: str, question: str):
    documents, hits = line_corpus({"plans.md": text})
    units = answer_units(hits, documents)
    scorer = Scorer(units)
    part = make_part(question)
    return part, units, (lambda u: scorer.coverage(u, part))


def test_a_unit_carries_the_kind_only_with_the_subject_and_the_kind_asked_for() -> None:
    part, units, coverage = _coverage(PLANS, "How much does the Team plan cost?")
    assert part.cue == "amount"
    assert carries_kind(part, units, coverage, 0.5)  # "$299 per month" about the Team plan
    part, units, coverage = _coverage(FEATURES, "How much does the Team plan cost?")
    assert not carries_kind(part, units, coverage, 0.5)  # the subject, but no figure
    part, units, coverage = _coverage(PLANS, "How much does extra storage cost?")
    assert not carries_kind(part, units, coverage, 0.5)  # a figure, not about storage


def test_the_threshold_moves_only_by_the_rule_chosen() -> None:
    part, units, coverage = _coverage(PLANS, "How much does the Team plan cost?")
    assert part_threshold(part, units, coverage, 1.0, KindCheck()) == 1.0
    assert part_threshold(part, units, coverage, 1.0, KindCheck("answer", 0.5, 0.7)) == 0.7
    assert part_threshold(part, units, coverage, 1.0, KindCheck("decline", 0.5)) == 1.0
    part, units, coverage = _coverage(FEATURES, "How much does the Team plan cost?")
    assert part_threshold(part, units, coverage, 1.0, KindCheck("answer", 0.5, 0.7)) == 1.0
    assert part_threshold(part, units, coverage, 1.0, KindCheck("decline", 0.5)) == math.inf


def test_the_answer_rule_answers_below_the_threshold_only_with_such_a_unit() -> None:
    documents, hits = line_corpus({"plans.md": PLANS})
    rule = KindCheck("answer", 0.5, 0.0)
    off = extractive_answer(
        "How much does the Team plan cost?", hits, documents=documents, min_score=UNREACHABLE
    )
    assert not off.covered and off.text.startswith(NOT_COVERED)
    on = extractive_answer(
        "How much does the Team plan cost?", hits, documents=documents, min_score=UNREACHABLE, kind_check=rule
    )
    assert on.covered and "$299 per month" in on.text
    # nothing about storage states a figure: still declined
    other = extractive_answer(
        "How much does extra storage cost?", hits, documents=documents, min_score=UNREACHABLE, kind_check=rule
    )
    assert not other.covered


def test_the_decline_rule_declines_a_part_no_unit_answers_in_kind() -> None:
    documents, hits = line_corpus({"plans.md": FEATURES})
    question = "How much does the Team plan cost?"
    assert extractive_answer(question, hits, documents=documents, min_score=0.0).covered
    declined = extractive_answer(
        question, hits, documents=documents, min_score=0.0, kind_check=KindCheck("decline", 0.5)
    )
    assert not declined.covered and declined.text.startswith(NOT_COVERED)


def _study():
    path = Path(__file__).resolve().parents[2] / "scripts" / "answer_study.py"
    spec = importlib.util.spec_from_file_location("answer_study_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _scored(qid: str, answerable: bool, abstained: bool, stated: bool) -> ScoredAnswer:
    facts = (("$299",),) if answerable else ()
    return ScoredAnswer(
        qid, "fact", "q", "text", "extractive", not abstained, answerable, False, facts,
        ("$299" if stated else None,) if answerable else (), abstained, 0, False, 0, 1, 1, 20,
    )  # fmt: skip


def test_the_objective_does_not_reward_an_answer_that_states_nothing() -> None:
    study = _study()
    unanswerable = _scored("u", False, True, False)
    declined = [_scored("a", True, True, False), unanswerable]
    empty_answer = [_scored("a", True, False, False), unanswerable]
    stating = [_scored("a", True, False, True), unanswerable]
    assert study.objective(empty_answer) == study.objective(declined)
    assert study.objective(stating) > study.objective(declined)
    # the former objective preferred the empty answer to the decline
    assert study.former_objective(empty_answer) > study.former_objective(declined)
    # a decline whose "related" passages show the fact states no answer
    related = [_scored("a", True, True, True), unanswerable]
    assert study.answered_recall(related) == 0.0
    # answering the unanswerable question costs its abstention
    assert study.objective([stating[0], _scored("u", False, False, False)]) < study.objective(stating)


def test_the_study_counts_declines_per_gold_set() -> None:
    study = _study()
    scored = [
        _scored("demo:a", True, True, False),
        _scored("demo:b", True, False, True),
        _scored("demo:u", False, True, False),
        _scored("dev:u", False, False, False),
    ]
    sets = study.per_set(scored)
    assert sets["demo"] == {
        "declined_answerable": 1,
        "answerable": 2,
        "declined_unanswerable": 1,
        "unanswerable": 1,
        "answered_fact_recall": 0.5,
    }
    assert sets["dev"]["declined_unanswerable"] == 0 and sets["dev"]["unanswerable"] == 1
    assert sets["dev"]["answered_fact_recall"] == 0.0  # no answerable question
