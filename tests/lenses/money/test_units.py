"""Units and periods written after or before an amount."""

from __future__ import annotations

import pytest

from ragcore.lenses.money.units import per_before, read_per


@pytest.mark.parametrize(
    ("after", "period"),
    [
        ("/month", "month"),
        (" per user per month", "user/month"),
        (" / GB / month", "GB/month"),
        (" per 1,000 requests", "1000 request"),
        (" billed annually", "year"),
        (" for the full year", "year"),
        (" one-time", "one-time"),
        (" in total", None),
        # the period a report covers is no rate: "was $48.3 million for the year ended June 30"
        (" for the year ended June 30, 2024", None),
        (" for the year endedJune 30, 2024", None),  # PDF text glues the date on
        (" for the year ending March 31", None),
        # "per" written out (session 7, heldout-notes-stats): an hourly rate written "for each hour"
        (" for each hour worked", "hour"),
        (" for every 1,000 requests", "1000 request"),
        (" for each additional user", "user"),  # "additional" is skipped, as after "per"
        (" for each of them", None),
        # counts with a multiplier or an adjective first, and a currency code restated (session 7)
        (" per 100k pageviews", "100000 pageview"),
        (" per 1M tokens", "1000000 token"),
        (" per million requests", "1000000 request"),
        (" per additional 10,000 events", "10000 event"),
        (" per 2.5k emails", "2500 email"),
        (" USD/month", "month"),
        (" per 5 members", "5 user"),
    ],
)
def test_period_after_an_amount(after: str, period: str | None) -> None:
    text = "$5" + after
    assert read_per(text, 2, len(text))[0] == period


@pytest.mark.parametrize(
    ("before", "period"),
    [
        ("a one-time fee of ", "one-time"),
        ("the monthly price is ", "month"),
        ("the price per seat is ", "user"),
        ("it costs ", None),
    ],
)
def test_period_before_an_amount(before: str, period: str | None) -> None:
    assert per_before(before) == period
