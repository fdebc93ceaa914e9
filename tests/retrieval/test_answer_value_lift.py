"""The value lift (``BM25Params.answer_value_lift``): a question asking for a
value it does not state ("How long ...", "What uptime ...", "How much ...")
ranks the passage whose sentence or table row stating a value of that kind
covers the question's subject above passages that share more of its words
but state no such value. Texts of a lab's equipment notes, none from the
demo corpus."""

import numpy as np

from ragcore.answer_types import VALUE_CUES, value_kinds
from ragcore.records import Passage
from ragcore.retrieval.bm25 import BM25Index, BM25Params
from ragcore.retrieval.bm25_answer_type import value_units

FILLER = [("canteen.md", "Rota", f"Weekly note {i} on the canteen rota and the car park.") for i in range(12)]

QUESTION = "How long does the centrifuge rotor take to cool down after a run?"
DOCS = [
    # Every subject word, more than once, and no duration: wins without the lift.
    (
        "centrifuge-faq.md",
        "Centrifuge rotor",
        "The centrifuge rotor must cool down after a run. Let the rotor cool down after every run "
        "before opening the centrifuge; a rotor that has not cooled down can warp.",
    ),
    # The answer: a duration in the sentence that states the subject.
    (
        "centrifuge-manual.md",
        "Cooling",
        "The rotor takes about 20 minutes to cool down. The manual also covers balancing tubes, "
        "cleaning spills, replacing the lid seal and reading the error lights.",
    ),
    # A duration beside none of the question's subject words.
    ("freezer.md", "Freezer", "A defrost run of the freezer takes 30 minutes with the door open."),
    *FILLER,
]


def _passages(docs: list[tuple[str, str, str]]) -> list[Passage]:
    return [Passage(doc, i, 1, 1, 0, len(t), label, t) for i, (doc, label, t) in enumerate(docs)]


def _index(lift: float = 1.0, docs: list[tuple[str, str, str]] = DOCS, **params: float) -> BM25Index:
    return BM25Index.from_passages(_passages(docs), BM25Params(answer_value_lift=lift, **params))


def test_value_units_are_sentences_and_rows_stating_a_value():
    text = (
        "Service notes. The lid seal costs $40 and lasts 6 months.\n\n"
        "| Part | Price |\n| --- | --- |\n| Rotor | $1,900 |\n| Lid | none |"
    )
    units = dict(value_units(text))
    assert set(units) == {"The lid seal costs $40 and lasts 6 months.\n\n", "| Rotor | $1,900 |"}
    seal = units["The lid seal costs $40 and lasts 6 months.\n\n"]
    assert seal & (1 << VALUE_CUES.index("amount")) and seal & (1 << VALUE_CUES.index("duration"))
    assert value_kinds("Service notes.") == 0


def test_the_value_beside_the_subject_ranks_first():
    ranked = [row for row, _ in _index().search(QUESTION)]
    assert ranked[0] == 1
    assert ranked.index(1) < ranked.index(2)
    # Off, the passage holding more of the question's words wins.
    assert _index(0.0).search(QUESTION)[0][0] == 0


def test_only_units_of_the_asked_kind_lift():
    # An amount question: the cooling sentence states a duration, not an
    # amount, so it is not lifted and the word-rich passage keeps first place.
    question = "How much does it cost to let the centrifuge rotor cool down after a run?"
    assert _index().asked_type(question) == ("value", "amount")
    assert _index().search(question) == _index(0.0).search(question)


def test_a_question_asking_for_no_value_ranks_as_with_the_lift_off():
    on, off = _index(), _index(0.0)
    for question in (
        "Does the centrifuge rotor cool down after a run?",
        "Who cleans the rotor after 20 minutes?",
    ):
        assert on.search(question) == off.search(question)


def test_the_lifts_are_off_in_plain_bm25():
    assert BM25Params().plain().answer_value_lift == 0.0
    assert BM25Params().plain().answer_label_lift == 0.0
    plain = BM25Index.from_passages(_passages(DOCS), BM25Params().plain())
    assert plain.value_owner.size == 0
    assert np.array_equal(_index().value_kinds, _index().value_kinds.astype(np.uint8))


LEASE = [
    # Every subject word, "clause" too, and no clause named by its label.
    (
        "lease-faq.md",
        "Subletting",
        "The subletting clause of the lease needs the landlord's consent to sublet the flat. "
        "Subletting the flat without consent ends the lease; ask before subletting the flat.",
    ),
    # The answer: the clause's label beside the subject.
    (
        "lease.md",
        "Terms",
        "Clause 14 deals with subletting. Rent is due monthly; an agent holds the deposit.",
    ),
    # A label of another part beside the subject.
    ("lease-notes.md", "Notes", "Schedule B lists the flat's furniture; subletting is discussed later."),
    *FILLER,
]


def test_the_label_of_the_asked_part_ranks_first():
    question = "Which clause of the lease covers subletting the flat?"
    on = _index(0.0, LEASE, answer_label_lift=1.0)
    assert on.asked_type(question) == ("label", "clause")
    ranked = [row for row, _ in on.search(question)]
    assert ranked[0] == 1 and ranked.index(1) < ranked.index(2)
    assert _index(0.0, LEASE).search(question)[0][0] == 0


def test_a_label_lift_leaves_other_questions_alone():
    on, off = _index(0.0, LEASE, answer_label_lift=1.0), _index(0.0, LEASE)
    for question in ("Can I sublet the flat?", "Which schedule lists the furniture?"):
        if on.asked_type(question) is None:
            assert on.search(question) == off.search(question)
    # Asking for a schedule lifts the schedule's label, not the clause's.
    assert on.search("Which schedule lists the furniture of the flat?")[0][0] == 2
