"""Lens choice: which words pick the money or risk lens, and overrides."""

from __future__ import annotations

import pytest

from ragcore.lenses.choice import choose_lens

CHOICE_CASES = [
    ("How much does the Pro plan cost?", "money", ("how much", "cost")),
    ("Is our pricing consistent?", "money", ("pricing",)),
    ("What discounts do we give per seat?", "money", ("discounts", "per seat")),
    ("Which fees are charged on refunds?", "money", ("fees", "charged")),
    ("Is $999 the right figure?", "money", ("$",)),
    ("What is the budget for next year?", "money", ("budget",)),
    ("How are the plans priced?", "money", ("priced",)),
    ("What are the risks in this contract?", "risk", ("risks",)),
    ("Do we guarantee uptime?", "risk", ("guarantee", "uptime")),
    ("What does our SLA promise?", "risk", ("sla", "promise")),
    ("Where do we accept liability?", "risk", ("liability",)),
    ("Do we ever say always or never?", "risk", ("always", "never")),
    ("What commitments did we make?", "risk", ("commitments",)),
    ("Who founded the company?", "none", ()),
    ("Summarise the privacy policy.", "none", ()),
    # whole words only: "caprice" is not "price", "riskless" is not "risk"
    ("Was the caprice of the author visible?", "none", ()),
    # both kinds: more trigger words win; a tie goes to the kind named first
    ("Is the price guaranteed?", "money", ("price",)),
    ("Do we always guarantee the price?", "risk", ("always", "guarantee")),
]


@pytest.mark.parametrize(("question", "kind", "triggers"), CHOICE_CASES, ids=[c[0] for c in CHOICE_CASES])
def test_choose_lens(question: str, kind: str, triggers: tuple[str, ...]) -> None:
    choice = choose_lens(question)
    assert choice.kind == kind
    assert choice.triggers == triggers
    assert choice.chosen_by == "question"


def test_other_kind_words_are_kept_for_display() -> None:
    choice = choose_lens("Is the price guaranteed?")
    assert choice.other_triggers == {"risk": ("guaranteed",)}


def test_user_override_wins_and_is_marked() -> None:
    choice = choose_lens("How much does it cost?", override="risk")
    assert (choice.kind, choice.chosen_by) == ("risk", "user")
    assert choice.triggers == ()
    assert choice.other_triggers == {"money": ("how much", "cost")}
    assert choose_lens("Who founded it?", override="money").kind == "money"
    assert choose_lens("How much?", override="none").kind == "none"
    assert choose_lens("How much?", override="AUTO").kind == "money"


def test_bad_override_is_named() -> None:
    with pytest.raises(ValueError, match="'prices'"):
        choose_lens("How much?", override="prices")


def test_json() -> None:
    assert choose_lens("Is our pricing consistent?").to_json() == {
        "kind": "money",
        "triggers": ["pricing"],
        "chosen_by": "question",
    }
