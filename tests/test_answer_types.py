"""What kind of answer a question asks for, and which values a text states
(``ragcore.answer_types``: one table read by the extractive answer and by
BM25's value lift)."""

import pytest

from ragcore.answer_types import (
    DOCUMENT_PARTS,
    VALUE_CUES,
    answer_cue,
    asked_label,
    asked_value,
    label_kinds,
    states_cue,
    value_kinds,
)


@pytest.mark.parametrize(
    ("question", "cue"),
    [
        ("How long does the rotor take to cool down?", "duration"),
        ("What uptime does the hosting contract promise?", "percent"),
        ("How much does a replacement lid seal cost?", "amount"),
        ("How many tubes fit in the rotor?", "count"),
        ("When is the next service visit?", "date"),
        # Asks for no value, or states the value it asks about.
        ("Who signs off the service visit?", None),
        ("Does the lid seal cost $40?", None),
        ("Which firmware version fixes the error lights?", None),
    ],
)
def test_which_questions_ask_for_a_value(question, cue):
    assert asked_value(question) == cue


def test_value_kinds_are_bits_of_the_value_cues():
    kinds = value_kinds("The seal costs $40, about 15% of the rotor, and lasts 6 months.")
    named = {cue for i, cue in enumerate(VALUE_CUES) if kinds & (1 << i)}
    assert named == {"amount", "percent", "duration", "count"}
    assert value_kinds("No figure here.") == 0


def test_the_answer_and_retrieval_read_one_table():
    from ragcore.answer import relevance

    assert relevance.answer_cue is answer_cue and relevance.states_cue is states_cue


@pytest.mark.parametrize(
    ("question", "part"),
    [
        ("Which clause of the lease covers subletting?", "clause"),
        ("Under which exhibit is the loan agreement filed?", "exhibit"),
        ("Which appendices list the fees?", "appendix"),
        ("Which item of the annual report covers market risk?", "item"),
        ("How many clauses does the lease have?", None),
        ("Which firmware version fixes the fan?", None),
        ("Which cipher protects the backups?", None),
    ],
)
def test_which_questions_ask_for_a_labelled_part(question, part):
    assert asked_label(question) == part


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("See Clause 7 and clause 9.2.", {"clause"}),
        ("Exhibit 23.1 Consent of the auditors; Item 7A.", {"exhibit", "item"}),
        ("MODULE TWO: transfer controller to processor", {"module"}),
        ("Schedule B lists the furniture.", {"schedule"}),
        ("Articles 46 and 49 apply.", {"article"}),
        # no label after the noun, or a lower-case letter that is a word
        ("The item is 5 dollars; in section a customer may ask.", set()),
    ],
)
def test_label_kinds_name_the_parts_a_text_labels(text, parts):
    kinds = label_kinds(text)
    assert {p for i, p in enumerate(DOCUMENT_PARTS) if kinds & (1 << i)} == parts
