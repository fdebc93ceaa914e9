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


@pytest.mark.parametrize("negator", ["weren't", "weren’t", "haven't", "hasn’t", "mustn't"])
def test_every_negative_contraction_denies(negator: str) -> None:
    assert statement(f"Customers {negator} happy with the plan.").denies
    # two denials of one thing agree, whichever contraction each uses
    assert not contradicts(
        "If you were really not happy with the plan, you can have your money back.",
        f"If you just {negator} happy with the plan, you can have your money back.",
    )


# ------------------------------------------------------------ stated times (session 9)
from ragcore.lenses.contradiction import StatedTime, stated_times, timing_conflict  # noqa: E402


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Within 30 days, all files will be erased from our servers.", [("eras", "by", 30, "day")]),
        ("After 60 days, we’ll permanently erase the files.", [("eras", "at", 60, "day")]),
        ("The handle will be released 30 days after closure.", [("releas", "at", 30, "day")]),
        ("Refunds shall be paid no later than ten (10) business days.", [("paid", "by", 10, "business day")]),
        ("We must answer within the first two hours.", [("answer", "by", 2, "hour")]),
        ("Acceptance shall become binding on the eighth day after signing.", [("becom", "at", 8, "day")]),
        ("Payment will be made on or before the 15th day following delivery.", [("made", "by", 15, "day")]),
        # a time with no modal in its clause has no act
        ("The trial ends after 30 days.", []),
        ("Files stay with us for 60 days.", []),
    ],
)
def test_stated_times(text: str, expected: list[tuple[str, str, int, str]]) -> None:
    assert [(t.act, t.kind, t.amount, t.unit) for t in stated_times(text)] == expected
    assert all(isinstance(t, StatedTime) for t in stated_times(text))


DEADLINE_30 = "Within 30 days of closure, all files will be permanently erased from our servers."


@pytest.mark.parametrize(
    ("b", "expected"),
    [
        ("After 60 days, we’ll permanently erase the files.", True),  # later than the deadline
        ("We’ll permanently erase the files 20 days after closure.", False),  # within the deadline
        ("We’ll erase the files within 60 days.", False),  # two deadlines both hold
        ("After 60 days, we’ll permanently archive the files.", False),  # another act
        ("After 2 months, we’ll permanently erase the files.", False),  # another unit: not compared
        ("After 60 days, we’ll erase the invoices.", False),  # nothing shared besides the act
        (
            "We do not erase anything; after 60 days, we’ll erase the files on request only.",
            False,
        ),  # a denial
    ],
)
def test_timing_conflict(b: str, expected: bool) -> None:
    assert timing_conflict(DEADLINE_30, "terms.md", b, "mail.md") is expected


def test_two_times_at_which_the_act_happens_conflict_unless_equal() -> None:
    a = "We’ll permanently erase the files 30 days after closure."
    assert timing_conflict(a, "a.md", "After 60 days, we’ll permanently erase the files.", "b.md")
    assert not timing_conflict(a, "a.md", "After 30 days, we’ll permanently erase the files.", "b.md")
    # one document qualifying its own time is one position
    assert not timing_conflict(a, "a.md", "After 60 days, we’ll permanently erase the files.", "a.md")
