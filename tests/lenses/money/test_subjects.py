"""Subjects: what an amount prices, and the comparison key."""

from __future__ import annotations

import pytest

from ragcore.lenses.money import extract_figures, subject_key

SUBJECT_CASES = [
    ("The Pro plan costs $49 per user per month.", ["pro plan"]),
    ("Network egress is billed at $0.10/GB.", ["network egress"]),
    ("List price: USD 999 for the Business plan.", ["business plan"]),
    ("Told the client the Pro plan is $39.", ["pro plan"]),
    ("Support costs an extra $500 per year.", ["support"]),
    # a pronoun falls back to the plan the sentence names; the billing term joins the subject
    (
        "Our entry tier covers 5,000 visits and it is priced at $9/month when you pay monthly.",
        ["entry tier / billed monthly"],
    ),
    # alternatives after one subject share it
    (
        "The annual billing discount makes our starter tier $60 for the full year or $5 per month.",
        ["starter tier / billed annually", "starter tier / billed annually"],
    ),
    (
        "The Basic plan is $8/month billed annually or $10 billed monthly.",
        ["basic plan / billed annually", "basic plan / billed monthly"],
    ),
    # a bare quantity is not what is priced
    ("The Team plan includes 5 users for $20.", ["team plan"]),
    ("Pro costs $20 and Business costs $50.", ["pro", "business"]),
    # a customer's name is not what is priced: the plan the sentence names is
    ("We quoted the Business plan to Acme Freight at $1,199 per month.", ["business plan"]),
    # adjectives alone, or a word for money itself, name nothing
    ("He confirmed that the correct list price is $999 per month.", [""]),
    ("Always write the period: $999/month.", [""]),
    # each amount takes the billing term of its own stretch of the sentence
    (
        "The Max plan stays at $90 per month, and $900 per year on annual billing.",
        ["max plan", "max plan / billed annually"],
    ),
]


@pytest.mark.parametrize(("text", "subjects"), SUBJECT_CASES, ids=[c[0][:40] for c in SUBJECT_CASES])
def test_subjects(text: str, subjects: list[str]) -> None:
    assert [f.subject for f in extract_figures(text)] == subjects


def test_subject_key_normalises_plan_words() -> None:
    assert subject_key("pro plan") == subject_key("pro")
    assert subject_key("lowest subscription tier") == subject_key("lowest tier")
    assert subject_key("pro plans") == subject_key("pro plan")
    assert subject_key("pro plan / billed monthly") != subject_key("pro plan / billed annually")
    assert subject_key("pro plan") != subject_key("business plan")


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Gross merchandise value (GMV) reached $42M in 2025.", "gmv"),
        ("Cash at 31 March 2025 was $6.1M.", "cash"),
        ("Cash at the end of April was $5.8M.", "cash"),
        ("New MRR added in the third quarter was $0.4M.", "new mrr"),
        ("ARR reached $9.9M, ahead of plan.", "arr"),
    ],
)
def test_time_phrases_and_acronyms_leave_the_subject(text: str, subject: str) -> None:
    assert extract_figures(text)[0].subject == subject


def test_a_sentence_without_a_subject_takes_the_plan_named_before() -> None:
    text = "We discussed the Studio plan with the customer.\n\nThe agreed list price is $640 per month."
    assert extract_figures(text)[-1].subject == "studio plan"


def test_a_bare_plan_word_names_nothing() -> None:
    found = extract_figures("The rule applies to every plan: Solo $90/year and Duo $150/year.")
    assert [f.subject for f in found] == ["solo", "duo"]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        # words between the subject and a threshold are not part of the item
        ("Claims above $5,000 go to the finance lead.", "claims"),
        ("We plan for net burn falling below $0.3M a month.", "net burn"),
        ("The setup fee is waived above $50,000.", "setup fee"),
        ("Their Basic tier lists at $29 per user per month.", "basic tier"),
        # a charge named after the amount
        ("Reopening an archived project is subject to a $175 restoration fee.", "restoration fee"),
        ("Invoices paid late carry a $40 late-payment charge.", "late-payment charge"),
    ],
)
def test_subjects_read_like_an_item_name(text: str, subject: str) -> None:
    (figure,) = extract_figures(text)
    assert figure.subject == subject


def test_a_heading_that_is_a_generic_word_and_a_preposition_names_what_follows() -> None:
    (figure,) = extract_figures("Write it as $12 a month.", label="Guide > Prices in brochures")
    assert figure.subject == "brochures"


def test_the_item_names_the_billing_term_in_words(make_hits) -> None:
    from ragcore.lenses.money import money_lens

    docs = {"plans.md": "The Growth plan is $79 per month, billed monthly.\n"}
    (figure,) = money_lens(make_hits(docs)).figures
    (mention,) = figure.mentions
    assert mention.subject == "growth plan / billed monthly"
    assert mention.item == "growth plan (billed monthly)"
    assert mention.to_json()["item"] == "growth plan (billed monthly)"


def test_a_heading_names_a_price_under_it_but_not_every_total_in_its_prose() -> None:
    (price,) = extract_figures("Billed at $49 a month.", label="Plans > Starter")
    assert price.subject == "starter"
    (total,) = extract_figures("In total we received $515 million.", label="Report > Asset sale")
    assert total.subject == ""
