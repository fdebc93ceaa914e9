"""Money lens: figure extraction, amount keying, subjects and conflicts."""

from __future__ import annotations

import pytest

from ragcore.lenses.money import extract_figures, format_amount, money_lens, subject_key

# (text, [(amount, currency, period), ...]) - every currency amount in the text.
FIGURE_CASES = [
    # plain symbol, code and word forms
    ("The Pro plan costs $999.", [(999, "USD", None)]),
    ("Enterprise is $1,299.00 per year.", [(1299, "USD", "year")]),
    ("List price: USD 999.", [(999, "USD", None)]),
    ("A licence is 999 USD.", [(999, "USD", None)]),
    ("It came to 999 dollars in total.", [(999, "USD", None)]),
    ("Team edition: €49 per month.", [(49, "EUR", "month")]),
    ("Team edition: 49 € per month.", [(49, "EUR", "month")]),
    ("Add-on: 49€.", [(49, "EUR", None)]),
    ("Starter is £10 a month.", [(10, "GBP", "month")]),
    ("Licences cost ¥1,000 each.", [(1000, "JPY", None)]),
    ("Hosting is CHF 120 per year.", [(120, "CHF", "year")]),
    ("Paid in US$5 increments.", [(5, "USD", None)]),
    ("Canadian list: C$9.", [(9, "CAD", None)]),
    ("SMS cost 50 cents per message.", [(0.5, "USD", "message")]),
    # per-unit and per-period forms
    ("Network egress is billed at $0.10/GB.", [(0.10, "USD", "GB")]),
    ("Standard: $20 / team member / month", [(20, "USD", "user/month")]),
    ("That makes it $48 for the full year.", [(48, "USD", "year")]),
    ("It is $6/month on the monthly plan.", [(6, "USD", "month")]),
    ("Or $4 per month when paid yearly.", [(4, "USD", "month")]),
    ("Backups add $96 billed annually.", [(96, "USD", "year")]),
    ("Extra sites are $15/mo.", [(15, "USD", "month")]),
    ("Extra sites are $15/mo. per site", [(15, "USD", "site/month")]),
    ("Archive tier: $180/yr", [(180, "USD", "year")]),
    ("Seats are $12 per seat per month.", [(12, "USD", "user/month")]),
    ("Seats are $12 per user/month.", [(12, "USD", "user/month")]),
    ("Seats are $99 per month per user.", [(99, "USD", "user/month")]),
    ("API calls are $5 per 1,000 requests.", [(5, "USD", "1000 request")]),
    ("Consulting is $32 per hour.", [(32, "USD", "hour")]),
    ("Plus a $31.50 one-time charge.", [(31.5, "USD", "one-time")]),
    ("There is a one-time fee of $25.", [(25, "USD", "one-time")]),
    ("The monthly price is $20.", [(20, "USD", "month")]),
    ("Support is $9.99 monthly.", [(9.99, "USD", "month")]),
    ("Support is $100 a year.", [(100, "USD", "year")]),
    ("Cleaning is $7 each week.", [(7, "USD", "week")]),
    ("Seats are 49 EUR per user per month.", [(49, "EUR", "user/month")]),
    ("Prepay $200 for 12 months.", [(200, "USD", "year")]),
    ("Basic is $8/month billed annually.", [(8, "USD", "month")]),
    # multipliers and ranges
    ("Revenue was $1.2M last year.", [(1_200_000, "USD", None)]),
    ("The deal is worth $3.5 billion.", [(3_500_000_000, "USD", None)]),
    ("Budget: $3k.", [(3000, "USD", None)]),
    ("Plans run $10-20 per user.", [(10, "USD", "user"), (20, "USD", "user")]),
    ("From $10 to $20.", [(10, "USD", None), (20, "USD", None)]),
    ("We charge 49 EUR or 55 USD.", [(49, "EUR", None), (55, "USD", None)]),
    ("Take 50% off the $20 plan.", [(20, "USD", None)]),
    # never figures
    ("There's a 25% discount for yearly billing.", []),
    ("Up to 10,000 pageviews per month.", []),
    ("Published 2021-01-08.", []),
    ("Upgrade to version 1.2.3 first.", []),
    ("Call +1 (555) 123-4567 today.", []),
    ("We target 99.99% uptime.", []),
    ("Set $HOME and $PATH first.", []),
    ("In 2021 dollars, prices rose.", []),
    ("Measured in constant 2015 USD.", []),
    ("Logged at USD 2021-01-08.", []),
    ("See section 3.2 of the agreement.", []),
    ("Tagged $5.2.1 in the changelog.", []),
    ("Revenue grew 12 percent.", []),
    ("The 42 users on 3 teams.", []),
    ("The eur prefix is a code, usd 5 is not upper case.", []),
]


@pytest.mark.parametrize(("text", "expected"), FIGURE_CASES, ids=[c[0][:40] for c in FIGURE_CASES])
def test_figure_extraction(text: str, expected: list[tuple[float, str, str | None]]) -> None:
    found = [(f.amount, f.currency, f.period) for f in extract_figures(text)]
    assert len(found) == len(expected), found
    for (amount, currency, period), (want_amount, want_currency, want_period) in zip(
        found, expected, strict=True
    ):
        assert amount == pytest.approx(want_amount)
        assert (currency, period) == (want_currency, want_period)


def test_enough_real_phrasings() -> None:
    assert len(FIGURE_CASES) >= 40
    assert sum(1 for _, expected in FIGURE_CASES if not expected) >= 10


def test_offsets_and_raw_text() -> None:
    text = "Intro. The Pro plan costs $49 per user per month, really."
    (fig,) = extract_figures(text)
    assert text[fig.start : fig.end] == "$49"
    assert fig.raw == "$49 per user per month"
    assert text[fig.phrase_start : fig.phrase_end] == "The Pro plan costs $49 per user per month, really."


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


def test_table_subjects_use_row_label_and_column_header() -> None:
    text = "| Plan | Monthly | Yearly |\n|---|---|---|\n| Pro | $20 | $200 |\n| Business | $50 | $500 |"
    found = [(f.amount, f.subject, f.period) for f in extract_figures(text)]
    assert found == [
        (20, "pro plan / billed monthly", "month"),
        (200, "pro plan / billed annually", "year"),
        (50, "business plan / billed monthly", "month"),
        (500, "business plan / billed annually", "year"),
    ]


def test_transposed_table_takes_plan_from_column_header() -> None:
    text = (
        "|  | Starter | Pro |\n|---|---|---|\n| Price per month | $10 | $20 |\n| Storage | $1/GB | $0.5/GB |"
    )
    found = [(f.amount, f.subject, f.period) for f in extract_figures(text)]
    assert found == [
        (10, "starter / billed monthly", "month"),
        (20, "pro / billed monthly", "month"),
        (1, "storage / starter", "GB"),
        (0.5, "storage / pro", "GB"),
    ]


def test_subject_key_normalises_plan_words() -> None:
    assert subject_key("pro plan") == subject_key("pro")
    assert subject_key("lowest subscription tier") == subject_key("lowest tier")
    assert subject_key("pro plans") == subject_key("pro plan")
    assert subject_key("pro plan / billed monthly") != subject_key("pro plan / billed annually")
    assert subject_key("pro plan") != subject_key("business plan")


def test_format_amount() -> None:
    assert format_amount(1299, "USD") == "$1,299"
    assert format_amount(49.5, "EUR") == "€49.50"
    assert format_amount(1000, "CHF") == "1,000 CHF"


# ---------------------------------------------------------------- the lens over hits


def test_amount_is_the_key_with_and_without_period(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $999.\n\nIt stays $999/month for everyone on Pro.\n"})
    lens = money_lens(hits)
    assert len(lens.figures) == 1
    figure = lens.figures[0]
    assert (figure.amount, figure.currency) == (999, "USD")
    assert [(m.first_line, m.period) for m in figure.mentions] == [(1, None), (3, "month")]
    assert not lens.conflicts


def test_currency_is_part_of_the_key(make_hits) -> None:
    lens = money_lens(make_hits({"a.md": "Pro is $49.\n\nIn Europe, Pro is €49.\n"}))
    assert sorted((f.amount, f.currency) for f in lens.figures) == [(49, "EUR"), (49, "USD")]
    assert not lens.conflicts  # one subject, two currencies: not comparable


def test_conflict_across_two_documents_comes_first(make_hits) -> None:
    hits = make_hits(
        {
            "pricing.md": "# Pricing\n\nStorage is $0.02/GB.\n\nThe Pro plan costs $49 per user per month.\n",
            "sales-call.md": "# Call notes\n\nWe agreed a pilot.\n\nTold them the Pro plan is $39 per user per month.\n",
        }
    )
    lens = money_lens(hits)
    assert len(lens.conflicts) == 1
    conflict = lens.conflicts[0]
    assert conflict.subject == "pro plan"
    assert conflict.period == "user/month"
    assert conflict.amounts == (49, 39)
    assert conflict.docs == ("pricing.md", "sales-call.md")
    assert [(m.doc, m.first_line) for m in conflict.mentions] == [("pricing.md", 5), ("sales-call.md", 5)]
    # the two conflicting figures first, each with its source; the storage price after
    assert [(f.amount, f.conflict) for f in lens.figures] == [(49, True), (39, True), (0.02, False)]
    assert lens.figures[0].mentions[0].doc == "pricing.md"
    assert lens.figures[1].mentions[0].doc == "sales-call.md"


def test_monthly_and_yearly_price_of_one_plan_is_not_a_conflict(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20 per month.\n\nThe Pro plan is $200 per year.\n"})
    lens = money_lens(hits)
    assert not lens.conflicts
    assert all(not f.conflict for f in lens.figures)


def test_missing_period_is_compared_with_a_stated_one(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20 per month.\n", "b.md": "We quoted the Pro plan at $25.\n"})
    (conflict,) = money_lens(hits).conflicts
    assert conflict.amounts == (20, 25)
    assert conflict.period == "month"


def test_a_change_within_one_sentence_is_not_a_conflict(make_hits) -> None:
    hits = make_hits({"a.md": "We proposed to raise the Pro plan from $20 per month to $25 per month.\n"})
    lens = money_lens(hits)
    assert [f.amount for f in lens.figures] == [20, 25]
    assert not lens.conflicts


def test_the_changed_price_stated_elsewhere_is_a_conflict(make_hits) -> None:
    hits = make_hits(
        {
            "minutes.md": "We proposed to raise the Pro plan from $20 per month to $25 per month.\n",
            "quote.md": "The Pro plan was quoted at $25 per month.\n",
            "pricing.md": "The Pro plan is $20/month on monthly billing.\n",
        }
    )
    (conflict,) = money_lens(hits).conflicts
    assert conflict.amounts == (20, 25)
    assert (
        conflict.subject == "pro plan / billed monthly"
    )  # no stated term is taken as monthly for a monthly price
    assert set(conflict.docs) == {"minutes.md", "quote.md", "pricing.md"}


def test_unstated_billing_is_not_compared_with_annual_billing(make_hits) -> None:
    hits = make_hits(
        {"a.md": "The Pro plan is $20 per month.\n\nThe Pro plan is $16 per month, billed annually.\n"}
    )
    assert not money_lens(hits).conflicts


def test_per_user_and_flat_prices_are_not_compared(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20 per user per month.\n\nThe Pro plan is $90 per month.\n"})
    assert not money_lens(hits).conflicts


def test_billing_terms_make_different_subjects(make_hits) -> None:
    hits = make_hits(
        {"a.md": "Pro is $10/month if you pay monthly.\n\nPro is $8/month with annual billing.\n"}
    )
    lens = money_lens(hits)
    assert not lens.conflicts
    assert {m.subject for f in lens.figures for m in f.mentions} == {
        "pro / billed monthly",
        "pro / billed annually",
    }


def test_subject_wording_is_unified_for_one_key(make_hits) -> None:
    hits = make_hits({"a.md": "The Pro plan is $20.\n\nPro is $25.\n"})
    lens = money_lens(hits)
    (conflict,) = lens.conflicts
    assert conflict.subject == "pro"  # the shortest wording of the key
    assert {m.subject for f in lens.figures for m in f.mentions} == {"pro"}


def test_mention_lines_follow_the_passage_start(passages_of, hits_from) -> None:
    text = "# Prices\n\nIntro line.\nThe Team plan\ncosts $30 per month.\nOther line.\n"
    passages = passages_of("doc.md", text)
    # only the second paragraph is retrieved: lines 3-6 of the document
    (fig,) = money_lens(hits_from(passages[1:])).figures
    (m,) = fig.mentions
    assert (m.first_line, m.last_line) == (4, 5)  # the sentence spans two lines
    assert m.text == "The Team plan costs $30 per month."
    assert m.subject == "team plan"
    assert m.label == "Prices"


def test_overlapping_passages_report_a_mention_once(passages_of, hits_from) -> None:
    passages = passages_of("doc.md", "Pro is $20.\n")
    lens = money_lens(hits_from([passages[0], passages[0]]))
    assert len(lens.figures) == 1 and len(lens.figures[0].mentions) == 1


def test_json_shape(make_hits) -> None:
    lens = money_lens(make_hits({"a.md": "Pro is $20 per month.\n", "b.md": "Pro is $25 per month.\n"}))
    fig = lens.figures[0].to_json()
    assert set(fig) == {"amount", "currency", "conflict", "mentions"}
    assert fig["amount"] == 20 and isinstance(fig["amount"], int)
    assert {"doc", "first_line", "last_line", "text", "subject", "period"} <= set(fig["mentions"][0])
    conflict = lens.conflicts[0].to_json()
    assert {"subject", "amounts", "docs"} <= set(conflict)
    assert conflict["amounts"] == [20, 25] and conflict["docs"] == ["a.md", "b.md"]
    assert [s["doc"] for s in conflict["sources"]] == ["a.md", "b.md"]


# ---------------------------------------------------------------- real documents


def _line_with(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def test_plausible_2021_lowest_tier_has_two_billing_terms(shared_dir, passages_of, hits_from) -> None:
    path = shared_dir / "documents" / "plausible" / "subscription-plans_2021-01-08_fa92cfd1.md"
    text = path.read_text(encoding="utf-8")
    lens = money_lens(hits_from(passages_of(path.name, text)))
    by_amount = {f.amount: f for f in lens.figures}
    assert {6, 48, 4} <= set(by_amount)
    six, forty_eight, four = by_amount[6].mentions[0], by_amount[48].mentions[0], by_amount[4].mentions[0]
    assert six.first_line == _line_with(text, "$6/month")
    assert forty_eight.first_line == four.first_line == _line_with(text, "$48")
    assert (six.period, forty_eight.period, four.period) == ("month", "year", "month")
    # one tier, two billing terms: the term is part of the subject
    tier, _, monthly = six.subject.partition(" / billed ")
    assert monthly == "monthly"
    assert forty_eight.subject == four.subject == f"{tier} / billed annually"
    assert "tier" in tier
    assert not lens.conflicts
    assert not any(f.conflict for f in lens.figures)
