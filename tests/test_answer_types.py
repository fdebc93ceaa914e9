"""What kind of answer a question asks for, and which values a text states
(``ragcore.answer_types``: one table read by the extractive answer and by
BM25's value lift)."""

import pytest

from ragcore.answer_types import VALUE_CUES, answer_cue, asked_value, states_cue, value_kinds


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
