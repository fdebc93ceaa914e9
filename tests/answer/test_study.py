from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path

import pytest

from ragcore.answer import llm
from ragcore.answer.ailog import AiLog
from ragcore.answer.study import StudyItem, check_item, generate_study_items, parse_items, study_from_topic
from ragcore.records import Document, Hit, Passage
from ragcore.retrieval.results import SearchResult

TEXTS = [
    "The Team plan costs $49 per month and includes 10 seats.",
    "The Enterprise plan costs $1,299 per year and adds single sign-on.",
    "Refunds are available within 30 days of purchase.",
]


def make_hits(texts: list[str]) -> list[Hit]:
    doc = Document(name="pricing.md", title="Pricing", kind="md", text="\n".join(texts), content_hash="x")
    hits = []
    for i, text in enumerate(texts):
        start, end = doc.line_span(i + 1, i + 1)
        hits.append(Hit(Passage("pricing.md", i, i + 1, i + 1, start, end, "Pricing", text), i + 1, 1.0, {}))
    return hits


HITS = make_hits(TEXTS)


def short(question: str, answer: str, citations=(1,), ref: str = "item-1") -> StudyItem:
    return StudyItem("short", question, answer, tuple(citations), ref=ref)


def mcq(question: str, key: str, distractors, citations=(2,), ref: str = "item-2") -> StudyItem:
    return StudyItem("mcq", question, key, tuple(citations), tuple(distractors), ref=ref)


GOOD_SHORT = short("How many seats does the Team plan include?", "10 seats")
GOOD_MCQ = mcq("What does the Enterprise plan cost per year?", "$1,299", ["$999", "$1,499", "$2,499"])


def test_good_items_pass_every_check() -> None:
    for item in (GOOD_SHORT, GOOD_MCQ):
        result = check_item(item, HITS, [GOOD_SHORT, GOOD_MCQ])
        assert all(ok for ok, _ in result.values()), result
    assert set(check_item(GOOD_SHORT, HITS, [])) == {
        "citations_valid",
        "numbers_present",
        "word_overlap",
        "answerable",
        "no_duplicate",
    }
    assert "mcq_form" in check_item(GOOD_MCQ, HITS, [])


@pytest.mark.parametrize(
    ("item", "check", "detail"),
    [
        (
            short("How many seats does the Team plan include?", "10 seats", citations=(1, 9)),
            "citations_valid",
            "[9]",
        ),
        (
            short("How many seats does the Team plan include?", "10 seats", citations=()),
            "citations_valid",
            "no passage",
        ),
        (short("How many seats does the Team plan include?", "12 seats"), "numbers_present", "12"),
        (short("Who founded the company in Lisbon?", "A retired sailor"), "word_overlap", "content words"),
        (
            short("How many seats does the Team plan include?", "Unlimited guest accounts"),
            "answerable",
            "answer's words",
        ),
        (short("How many seats does the Team plan include?", ""), "answerable", "no answer"),
    ],
)
def test_each_check_fails_on_a_bad_item(item: StudyItem, check: str, detail: str) -> None:
    ok, message = check_item(item, HITS, [])[check]
    assert not ok and detail in message, message


def test_answerable_needs_the_question_to_be_about_the_cited_passage() -> None:
    # Answer words are in passage 1, but the question has nothing to do with it.
    item = short("Which colour is the logo?", "10 seats")
    ok, message = check_item(item, HITS, [])["answerable"]
    assert not ok and "no word with the question" in message


@pytest.mark.parametrize(
    ("distractors", "key", "detail"),
    [
        (["$999", "$1,499"], "$1,299", "2 distractors"),
        (["$999", "$1,299", "$2,499"], "$1,299", "more than one option is correct"),
        (["$999", "$999", "$2,499"], "$1,299", "two distractors are the same"),
        (["$999", "free of charge", "$2,499"], "$1,299", "not a figure"),
        (["$999", "", "$2,499"], "$1,299", "empty distractor"),
        (["$999", "$1,499", "$2,499"], "", "no key"),
        (
            ["$999", "$1,499", "a long sentence that goes on and on about many other things"],
            "$1,299",
            "longer",
        ),
    ],
)
def test_mcq_form_fails_on_a_bad_item(distractors, key: str, detail: str) -> None:
    ok, message = check_item(mcq("What does the Enterprise plan cost?", key, distractors), HITS, [])[
        "mcq_form"
    ]
    assert not ok and detail in message, message


def test_duplicates_are_caught_across_items() -> None:
    a = short("How many seats does the Team plan include?", "10 seats", ref="item-1")
    same = short("How many seats are included in the Team plan?", "10 seats", ref="item-2")
    reworded = mcq("How much is the Enterprise plan?", "$1,299", ["$999", "$1,499", "$2,499"], ref="item-3")
    assert not check_item(a, HITS, [a, same])["no_duplicate"][0]
    ok, detail = check_item(GOOD_MCQ, HITS, [GOOD_MCQ, reworded])["no_duplicate"]
    assert not ok and "item-3" in detail
    assert check_item(a, HITS, [a, GOOD_MCQ])["no_duplicate"][0]  # itself is not a duplicate


def test_options_put_the_key_in_a_stable_place() -> None:
    assert sorted(GOOD_MCQ.options) == sorted(["$1,299", "$999", "$1,499", "$2,499"])
    assert GOOD_MCQ.options == mcq(GOOD_MCQ.question, "$1,299", ["$999", "$1,499", "$2,499"]).options
    assert GOOD_SHORT.options == ()


def test_parse_items_keeps_malformed_fields_for_the_checks_and_drops_non_items() -> None:
    items, dropped = parse_items(
        {
            "items": [
                {"type": "mcq", "question": "Q1?", "key": "A", "distractors": ["B"], "citations": [1]},
                {"type": "essay", "question": "Q2?"},
                "not an item",
                {"type": "short", "question": "", "answer": "x"},
                {"type": "short", "question": "Q3?", "answer": "y", "citations": [2]},
            ]
        }
    )
    assert [(i.kind, i.question, i.ref) for i in items] == [
        ("mcq", "Q1?", "item-1"),
        ("short", "Q3?", "item-2"),
    ]
    assert items[0].distractors == ("B",)
    assert len(dropped) == 3 and "'essay'" in dropped[0]
    with pytest.raises(llm.SchemaError, match='"items" must be a list'):
        parse_items({"items": {}})


# ------------------------------------------------------------ generation through LiteLLM's mock


@pytest.fixture(scope="module")
def litellm():
    return llm.load_litellm()


CONFIG = llm.ModelConfig("gpt-4o-mini", "openai", "test")
REPLY = json.dumps(
    {
        "items": [
            {
                "type": "short",
                "question": "How many seats does the Team plan include?",
                "answer": "10 seats",
                "citations": [1],
            },
            {
                "type": "mcq",
                "question": "What does the Enterprise plan cost per year?",
                "key": "$1,299",
                "distractors": ["$999", "$1,499", "$2,499"],
                "citations": [2],
            },
            {
                "type": "short",
                "question": "Within how many days are refunds available?",
                "answer": "45 days",
                "citations": [3],
            },
        ]
    }
)


def test_generate_checks_logs_and_attaches_items(litellm, tmp_path: Path) -> None:
    log = AiLog(sqlite3.connect(tmp_path / "library.db"))
    items = generate_study_items(
        "pricing",
        HITS,
        config=CONFIG,
        spend=llm.SpendTracker(0.5),
        log=log,
        completion=functools.partial(litellm.completion, mock_response=REPLY),
    )
    assert [i.kind for i in items] == ["short", "mcq", "short"]
    assert items[0].passed and items[1].passed
    assert not items[2].checks["numbers_present"][0]  # 45 is not in passage 3
    assert [(c.n, c.first_line) for c in items[1].sources] == [(2, 2)]
    call = log.calls()[0]
    assert call.kind == "study" and call.outcome == "ok" and call.question == "pricing"
    assert all(i.call_id == call.id for i in items)
    assert set(call.items) == {"item-1", "item-2", "item-3"}
    assert call.items["item-2"]["sources"][0]["doc"] == "pricing.md"
    assert call.items["item-3"]["checks"]["numbers_present"]["passed"] is False


def test_generate_raises_with_a_reason_on_invalid_json_and_logs_it(litellm, tmp_path: Path) -> None:
    log = AiLog(sqlite3.connect(tmp_path / "library.db"))
    with pytest.raises(llm.ModelCallError, match="not valid JSON"):
        generate_study_items(
            "pricing",
            HITS,
            config=CONFIG,
            spend=llm.SpendTracker(0.5),
            log=log,
            completion=functools.partial(litellm.completion, mock_response="Here are some questions: ..."),
        )
    assert log.calls()[0].outcome == "invalid_json"
    with pytest.raises(llm.ModelCallError, match="no usable item"):
        generate_study_items(
            "pricing",
            HITS,
            config=CONFIG,
            spend=llm.SpendTracker(0.5),
            log=log,
            completion=functools.partial(litellm.completion, mock_response='{"items": []}'),
        )
    with pytest.raises(llm.ModelCallError, match="failed"):
        generate_study_items(
            "pricing",
            HITS,
            config=CONFIG,
            spend=llm.SpendTracker(0.5),
            log=log,
            completion=functools.partial(litellm.completion, mock_response=Exception("down")),
        )
    assert [c.outcome for c in log.calls()] == ["invalid_json", "schema_error", "provider_error"]


def test_generate_respects_the_spending_cap_and_needs_passages() -> None:
    def never(**kwargs):
        raise AssertionError("no call expected")

    with pytest.raises(llm.ModelCallError, match="spending cap"):
        generate_study_items("pricing", HITS, config=CONFIG, spend=llm.SpendTracker(0.0), completion=never)
    with pytest.raises(llm.ModelCallError, match="no passages matched"):
        generate_study_items("pricing", [], config=CONFIG, spend=llm.SpendTracker(0.5), completion=never)


def test_study_from_topic_retrieves_first(litellm) -> None:
    class Retriever:
        def __init__(self) -> None:
            self.asked = []

        def search(self, question: str, mode: str = "hybrid", k: int = 10) -> SearchResult:
            self.asked.append((question, mode, k))
            return SearchResult(HITS)

    retriever = Retriever()
    items = study_from_topic(
        "pricing",
        retriever,
        k=3,
        config=CONFIG,
        spend=llm.SpendTracker(0.5),
        completion=functools.partial(litellm.completion, mock_response=REPLY),
    )
    assert retriever.asked == [("pricing", "hybrid", 3)] and len(items) == 3
