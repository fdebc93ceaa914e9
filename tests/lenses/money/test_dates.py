"""Dates and time marks around an amount, and document dates."""

from __future__ import annotations

from datetime import date

import pytest

from ragcore.lenses.money import extract_figures
from ragcore.lenses.money.dates import document_date, document_family, find_dates, is_newest_version


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("Effective 2025-07-01.", date(2025, 7, 1)),
        ("From April 9, 2025 on.", date(2025, 4, 9)),
        ("On 9 April 2025 we changed it.", date(2025, 4, 9)),
        ("Through September 2024.", date(2024, 9, 1)),
    ],
)
def test_written_dates(text: str, when: date) -> None:
    (d,) = find_dates(text)
    assert d.resolve(None) == when


def test_a_month_without_a_year_takes_the_latest_before_the_document_date() -> None:
    (d,) = find_dates("the figures for November")
    assert d.resolve(date(2026, 3, 2)) == date(2025, 11, 1)
    assert d.resolve(None) is None


def test_may_the_verb_is_not_a_month() -> None:
    assert find_dates("Admins may export the data.") == []


@pytest.mark.parametrize(
    ("text", "edge", "tense"),
    [
        ("Archive storage is $0.02 / GB / month from June 1, 2025.", "start", None),
        ("The old rate was $0.03 / GB / month until May 31, 2025.", "end", "past"),
        ("Previous price: $12 per seat.", None, "past"),
        ("The Team plan is now $18 per seat.", None, "current"),
        ("The Team plan is $18 per seat.", None, None),
    ],
)
def test_time_marks_of_an_amount(text: str, edge: str | None, tense: str | None) -> None:
    (f,) = extract_figures(text)
    assert (f.mark.edge if f.mark.when else None, f.mark.tense) == (edge, tense)


def test_the_date_before_a_past_marker_belongs_to_the_other_amount() -> None:
    new, old = extract_figures("Bookings hit $3.1M at 30 June 2025, up from $2.4M a year earlier.")
    assert new.mark.when == date(2025, 6, 30)
    assert old.mark.tense == "past" and old.mark.when is None
    assert old.period is None  # "a year earlier" is not a period of the amount


def test_document_dates_and_versions() -> None:
    assert document_date("notes-2025-03-04.md") == date(2025, 3, 4)
    assert document_date("dpa_v202212.pdf") == date(2022, 12, 1)
    assert document_date("terms.md", "---\ntitle: Terms\n---\n*Last updated: March 5, 2024*\n") == date(
        2024, 3, 5
    )
    assert document_date("terms.md", "# Terms\n") is None
    assert document_family("pricing_2023-01-08_ab12cd3.md") == document_family("pricing_HEAD-9f8e7d6.md")
    assert document_family("pricing.md") != document_family("billing.md")
    assert is_newest_version("pricing_HEAD-9f8e7d6.md") and not is_newest_version("pricing_2023-01-08.md")
