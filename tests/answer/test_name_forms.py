"""``answer.name_forms`` and the name check: a place or period a question
names is mentioned by any of its forms in a document."""

import pytest

from ragcore.answer.answerability import unknown_names
from ragcore.answer.name_forms import FORMS, other_forms

DOC = "Workspaces are hosted in our EU region in Frankfurt or in our U.S. region. The UK team answers calls."


@pytest.mark.parametrize(
    "question",
    [
        "In which city is the European data centre?",
        "Where are American workspaces hosted?",
        "Is data kept in the United States?",
        "Who answers calls for British customers?",
        "Which team serves Britain?",
    ],
)
def test_a_place_is_mentioned_by_any_of_its_names(question: str) -> None:
    assert unknown_names(question, [DOC]) == []


def test_a_place_no_document_names_in_any_way_stays_unknown() -> None:
    assert unknown_names("What does the plan cost in Japan?", [DOC]) == ["Japan"]
    assert unknown_names("Do Japanese customers pay in yen?", [DOC]) == ["Japanese"]


def test_a_short_form_is_read_with_its_capitals_never_as_a_word() -> None:
    assert unknown_names("Do US customers pay sales tax?", ["Tell us what you need."]) == ["US"]
    assert unknown_names("Do US customers pay sales tax?", ["Our U.S. customers pay it."]) == []
    assert "US" not in other_forms("Can you send us the invoice?")


def test_a_two_word_place_covers_both_its_words() -> None:
    found = other_forms("Is data kept in the United States?")
    assert {"United", "States"} <= set(found)
    assert any(p.search("our US region") for p in found["United"])


def test_every_group_finds_each_of_its_own_names() -> None:
    for group in FORMS:
        for name in group:
            words = other_forms(f"Is it about {name}?")
            assert words, name


def test_a_quarter_is_mentioned_by_its_words() -> None:
    doc = "Revenue in the third quarter was $4.2 million."
    assert unknown_names("What was revenue in Q3?", [doc]) == []
    assert unknown_names("What was revenue in Q4?", [doc]) == ["Q4"]


def test_an_incident_level_is_mentioned_by_its_long_form() -> None:
    doc = "We respond to a Severity 1 incident within 30 minutes."
    assert unknown_names("How fast do you respond to a Sev 1 incident?", [doc]) == []
    assert unknown_names("How fast do you respond to a SEV-1 outage?", [doc]) == []
    assert unknown_names("How fast do you respond to a Sev 2 incident?", [doc]) == ["Sev"]


def test_a_sentence_naming_the_place_another_way_states_the_questions_word() -> None:
    from ragcore.answer.relevance import Scorer, make_part
    from ragcore.answer.units import Unit

    unit = Unit(
        "quote", "Workspaces are hosted in our EU region in Frankfurt.", "hosting.md", 1, 1, "", (), 1, 0.5, 1
    )
    other = Unit("quote", "Workspaces are hosted in two regions.", "hosting.md", 2, 2, "", (), 2, 0.5, 2)
    part = make_part("In which city is the European data centre?")
    scorer = Scorer([unit, other])
    assert "european" in scorer.stated(unit, part)
    assert "european" not in scorer.stated(other, part)
