"""The contradiction rule: same subject, one affirms what the other denies;
two denials, or a statement and its restatement, are not a contradiction."""

from __future__ import annotations

import pytest

from ragcore.lenses.contradiction import contradicts, statement

GUARANTEE = r"guarantee[sd]?|guaranteeing"
PROMISE = r"promise[sd]?"
ALWAYS = r"always|never"


@pytest.mark.parametrize(
    ("a", "b", "term"),
    [
        (
            "We guarantee 99.99% uptime on the Premium tier.",
            "Uptime is not guaranteed on any tier.",
            GUARANTEE,
        ),
        ("Files are always kept for a year.", "Files are never kept for a year.", ALWAYS),
        (
            "The archive is guaranteed to survive a region outage.",
            "It is not a guarantee that the archive survives.",
            GUARANTEE,
        ),
        (
            "Every invoice is checked by two reviewers.",
            "Invoices are not checked by two reviewers before sending.",
            None,
        ),
    ],
)
def test_an_affirmed_and_a_denied_claim_about_one_subject_contradict(
    a: str, b: str, term: str | None
) -> None:
    assert contradicts(a, b, term)
    assert contradicts(b, a, term)  # symmetric


@pytest.mark.parametrize(
    ("a", "b", "term"),
    [
        # two denials agree
        ("We make no guarantees about uptime.", "Uptime is not guaranteed.", GUARANTEE),
        (
            "The tool does not promise that outages cannot happen.",
            "Staff cannot promise that to anyone.",
            PROMISE,
        ),
        # a statement and its restatement agree
        ("We guarantee 99.99% uptime on Premium.", "Premium uptime of 99.99% is guaranteed.", GUARANTEE),
        # different subjects
        ("We guarantee a reply within a day.", "Refund amounts are not guaranteed.", GUARANTEE),
        ("Every invoice is checked twice.", "Parking is not free on weekends.", None),
    ],
)
def test_agreeing_or_unrelated_statements_do_not_contradict(a: str, b: str, term: str | None) -> None:
    assert not contradicts(a, b, term)


@pytest.mark.parametrize(
    "text",
    [
        "Do not say that the service never goes down, or that we guarantee uptime.",  # instruction
        "Avoid words such as guaranteed, never and always in anything a client reads.",
        "Several clients asked whether uptime is guaranteed.",  # reported question
        "Is uptime guaranteed?",
        'The slogan used the word "guaranteed" about uptime.',  # mentioned, not used
    ],
)
def test_questions_instructions_and_mentions_are_not_claims(text: str) -> None:
    assert not statement(text, GUARANTEE).asserted
    assert not contradicts(text, "Uptime is not guaranteed at all.", GUARANTEE)


def test_a_sentence_does_not_contradict_itself() -> None:
    text = "We guarantee uptime, but not uptime during maintenance."
    assert not contradicts(text, text, GUARANTEE)


def test_negation_is_read_within_the_claim_clause() -> None:
    assert statement("Uptime is not guaranteed.", GUARANTEE).denies
    assert statement("Nothing is lost; we guarantee uptime.", GUARANTEE).denies is False
    assert statement("The team never promised a fixed date.", PROMISE).denies
    assert statement("It is never down.", ALWAYS).denies  # a negative absolute denies by itself
