"""Amounts: symbols, codes, words, separators, multipliers, ranges; what is not an amount."""

from __future__ import annotations

import re

import pytest

from ragcore.lenses.money import extract_figures, format_amount

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
    # European separators (session 7): a decimal comma, dot or no-break-space thousands
    ("Le forfait Pro coûte 1.299,00 € par an.", [(1299, "EUR", None)]),
    ("Preis: 9,99 € pro Monat", [(9.99, "EUR", None)]),
    ("Team: EUR 12,50 per user", [(12.5, "EUR", "user")]),
    ("Business: €\u00a01\u00a0299 per year.", [(1299, "EUR", "year")]),
    ("Archive: 1\u202f299,50 € one-time", [(1299.5, "EUR", "one-time")]),
    # ... while "1,299" (three digits after the comma) stays a thousands separator
    ("Pro is $1,299 a year.", [(1299, "USD", "year")]),
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


def test_format_amount() -> None:
    assert format_amount(1299, "USD") == "$1,299"
    assert format_amount(49.5, "EUR") == "€49.50"
    assert format_amount(1000, "CHF") == "1,000 CHF"


# ---------------------------------------------------------------- rebuilt parsing rules

RATE_CASES = [
    # tiny per-unit decimals come out exactly as written
    ("Egress: $0.000004629629630 / GB / second", 0.000004629629630, "GB/second"),
    ("Compute is $0.00001667 per GB-second.", 0.00001667, "GB/second"),
    ("Block storage costs $0.10 per GB-month.", 0.10, "GB/month"),
    ("Builds are billed at $0.008 per minute.", 0.008, "minute"),
    ("Webhooks: $1.50 per 1,000 requests", 1.5, "1000 request"),
    # a unit on the next line of hard-wrapped text still belongs to the amount
    ("Training is charged at $180 per\nhour of trainer time.", 180, "hour"),
]


@pytest.mark.parametrize(("text", "amount", "per"), RATE_CASES, ids=[c[0][:40] for c in RATE_CASES])
def test_per_unit_rates_keep_their_unit_and_exact_amount(text: str, amount: float, per: str) -> None:
    (f,) = extract_figures(text)
    assert f.amount == amount  # exact, not approximately
    assert f.period == per


def test_a_range_with_the_symbol_twice_shares_its_unit() -> None:
    found = [(f.amount, f.period) for f in extract_figures("Seats run $8-$12 per user per month.")]
    assert found == [(8, "user/month"), (12, "user/month")]


def test_percentages_are_kept_apart_from_money() -> None:
    found = [f.amount for f in extract_figures("Save 20% on the $50 plan; 100% of fees are refundable.")]
    assert found == [50]


def test_a_relative_time_is_not_a_period() -> None:
    (_now, before) = extract_figures("Revenue reached $5M, up from $4M a year earlier.")
    assert before.period is None
    (f,) = extract_figures("It comes to $700 a month before discounts.")
    assert f.period == "month"


def test_a_period_word_before_the_amount() -> None:
    (f,) = extract_figures("Monthly net spend fell to about $0.3M in the quarter.")
    assert f.period == "month"
    (g,) = extract_figures("Engineers bill at an hourly rate of $190.")
    assert g.period == "hour"


# ---------------------------------------------------------------- property: no nonsense amounts

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.sampled_from(
    ["plan", "per", "/", "GB", "month", "-", "–", "$", "€", "USD", "0", "0.0", ".", ",", "1,000", "%", "k", "M",
     "from", "until", "2024", "March", "was", "now", "|", "\n", "cents", "dollars", "e-8", "1e-9", "−", "(", ")",
     "(In millions)", "million", "bil\nlion", "mill\nion", "a$", "respectively", "compared to", "increase",
     "2023 2024", "in 2020", "fiscal", "in2021", "of", "included", "Inc.", "attributable to",
     "millionof", "for the year ended", "June 30,", "with", "which consisted of", "Year Ended", "Change",
     "Net sales", "10-K.Revenue",
     # session 6: statements' per-share rows, par values, stacked headers, entities, cash flows
     "per share", "par value", "(in thousands, except per share data)", "As of December 31, 2021", "Basic",
     "stockholders:", "Diluted", "Acme, Inc.\n", "cash used in", "provided by", "and 2020",
     # session 7: European separators and PDF text around them
     "9,99", "1.299,00", "0,01", "\u00a0", "\u202f", "EUR", "for each", "hour"]
)  # fmt: skip
_NUMBERS = (
    st.integers(0, 15)
    .flatmap(
        lambda places: st.decimals(
            min_value=0, max_value=10**9, places=places, allow_nan=False, allow_infinity=False
        )
    )
    .map(str)
)


# the same numbers with a decimal comma ("12,5", "0,0000001")
_COMMA_NUMBERS = _NUMBERS.map(lambda number: number.replace(".", ","))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_WORDS, _NUMBERS, _COMMA_NUMBERS), max_size=25))
def test_no_amount_is_negative_nan_or_tiny_unless_written(tokens: list[str]) -> None:
    text = " ".join(tokens)
    for f in extract_figures(text):
        assert f.amount == f.amount, text  # not NaN
        assert f.amount >= 0, text
        if 0 < f.amount < 1e-6:
            # only when the text writes such a decimal (or a fraction of a cent)
            written = text[f.start : f.end].replace(",", "")
            assert re.search(r"0\.0{4,}", written) or "cent" in text[f.end : f.end + 8], text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # run-together PDF text: a letter before the sign is a word, not a currency prefix
        ("expenses fell, chiefly a$193 million cut in fees", [193e6]),
        # a multiplier word touching the number, after two spaces, or after a line break
        ("a $873million rise", [873e6]),
        ("a pre-tax gain of $1.6  billion", [1.6e9]),
        ("we held $2.7 bil\nlion in cash", [2.7e9]),
        ("a cut of $41\n million in staff costs", [41e6]),
        # a loss in parentheses is a positive amount
        ("Operating loss $ (2,310) $ (1,004)", [2310, 1004]),
    ],
)
def test_amounts_as_pdf_text_writes_them(text: str, expected: list[float]) -> None:
    assert [f.amount for f in extract_figures(text)] == pytest.approx(expected)


def test_an_in_millions_header_scales_the_bare_amounts_under_it_only() -> None:
    text = (
        "Segment results (In millions, except percentages)\n"
        "2023 2024\n"
        "Subscriptions\n"
        "$ 4,120 $ 5,310 29 %\n"
        "Subscriptions rose $1.19 billion.\n"
    )
    assert [f.amount for f in extract_figures(text)] == pytest.approx([4.12e9, 5.31e9, 1.19e9])
    far = "Totals (in thousands)\n" + "filler line\n" * 20 + "A fee of $250 applies.\n"
    assert [f.amount for f in extract_figures(far)] == [250]


def test_a_page_number_label_is_not_a_subject() -> None:
    (figure,) = extract_figures("It was $40 in all.", label="Page 12")
    assert figure.subject == ""
