"""Table titles (ragcore/lenses/money/titles.py): rows of two tables titled for
different things are not compared, even under one row label."""

from __future__ import annotations

import pytest

from ragcore.lenses.money import extract_figures, money_lens
from ragcore.lenses.money.titles import (
    is_header_line,
    markdown_table_titles,
    pdf_table_title,
    title_key,
    titles_differ,
)

# Two segment tables as pypdf writes an annual report: each title is glued to
# the end of the sentence before it, the header spans three lines, the first
# row's label ends the header's last line, and both tables label a row "Retail".
REPORT = (
    "We report three segments: Retail, Wholesale and Services, described in Note 9.Net sales\n"
    "Year Ended June 30,\n"
    "2023 to 2024 % Change\n"
    "(In millions, except percentages)2023 2024 Retail\n"
    "$ 2,410 $ 2,905 21 % Wholesale\n"
    "1,102 1,240 13 % Total net sales\n"
    "$ 3,512 $ 4,145 18 %  Includes\n"
    " the results of the acquired stores.Segment operating income\n"
    "Segment\n"
    " operating income is net sales less the costs of each segment, before shared\n"
    " costs and interest.\n"
    "Year Ended June 30,\n"
    "2023 to 2024 % Change\n"
    "(In millions, except percentages)2023 2024 Retail\n"
    "$ 388 $ 471 21 % Wholesale\n"
    "(52) (31) 40 % Operating income\n"
    "$ 336 $ 440 31 %\n"
)


def _start_of(text: str, fragment: str) -> int:
    return text.index(fragment)


def test_a_pdf_title_glued_to_a_sentence_end_heads_the_table_under_it() -> None:
    assert pdf_table_title(REPORT, _start_of(REPORT, "$ 2,410")) == "Net sales"
    assert pdf_table_title(REPORT, _start_of(REPORT, "$ 3,512")) == "Net sales"


def test_a_pdf_title_above_the_paragraph_that_introduces_the_table_is_found() -> None:
    # "Segment" alone is a paragraph's first word (the next line keeps its space): not a title
    assert pdf_table_title(REPORT, _start_of(REPORT, "$ 388")) == "Segment operating income"


@pytest.mark.parametrize(
    "text",
    [
        "Results were mixed across the year.\nYear Ended June 30,\n2023 2024\nRent\n$ 10 $ 12\n",
        # a paragraph's first words glued to the sentence before continue on the next line
        "See Note 3.Unrealized\n gains were large.\n2023 2024 Fees\n$ 4 $ 5\n",
        # another table's row above ends the search
        "Costs\n2023 2024 Rent\n$ 10 $ 12\nTax\n$ 3 $ 4\n2023 2024 Fees\n$ 4 $ 5\n",
    ],
)
def test_no_pdf_title_when_none_stands_above_the_header(text: str) -> None:
    last = text.rindex("$ ")
    start = text.rfind("\n", 0, last) + 1
    assert pdf_table_title(text, start) is None


def test_column_header_lines_are_not_titles() -> None:
    for line in (
        "Year Ended December 31,",
        "2020 to 2021 %",
        "Change",
        "(In thousands)",
        "Three Months Ended",
    ):
        assert is_header_line(line)
    for line in ("Net sales", "Segment operating income", "Storage add-ons"):
        assert not is_header_line(line)


def test_rows_of_two_titled_tables_with_one_label_are_not_compared(make_hits) -> None:
    figures = [f for f in extract_figures(REPORT) if f.subject == "retail"]
    assert [(f.amount, f.table) for f in figures] == [
        (2.41e9, "Net sales"),
        (2.905e9, "Net sales"),
        (3.88e8, "Segment operating income"),
        (4.71e8, "Segment operating income"),
    ]
    lens = money_lens(make_hits({"annual-report.pdf.md": REPORT}))
    retail = {c.amounts for c in lens.conflicts if c.subject == "retail"}
    assert retail == {(2.41e9, 2.905e9), (3.88e8, 4.71e8)}  # each table's years, never across
    assert all(c.relation == "change" for c in lens.conflicts)


MARKDOWN = (
    "# Pricing\n\n"
    "**Seats**\n"
    "| Plan | Monthly price |\n|---|---|\n| [**Team**](/team) | $12 |\n| Business | $30 |\n\n"
    "Add-ons are billed with the plan.\n\n"
    "| Plan | Monthly price |\n|---|---|\n| Team | $4 |\n\n"
    "## Priority support\n\n"
    "| Plan | Monthly price |\n|---|---|\n| Team | $9 |\n"
)


def test_a_markdown_table_is_titled_by_the_short_line_or_heading_right_above_it() -> None:
    titles = markdown_table_titles(MARKDOWN, "pricing.md > Pricing")
    by_row = {MARKDOWN[k : MARKDOWN.index("\n", k)]: v for k, v in titles.items()}
    assert by_row["| [**Team**](/team) | $12 |"] == "Seats"
    # a sentence right above is no title: the nearest heading is
    assert by_row["| Team | $4 |"] == "Pricing"
    assert by_row["| Team | $9 |"] == "Priority support"


def test_a_markdown_table_without_a_heading_in_its_text_takes_the_passage_heading() -> None:
    text = "| Plan | Price |\n|---|---|\n| Team | $4 |\n"
    assert set(markdown_table_titles(text, "pricing.md > Pricing > Storage").values()) == {"Storage"}
    assert markdown_table_titles(text) == {}


def test_markdown_rows_of_differently_titled_tables_are_not_compared(make_hits) -> None:
    lens = money_lens(make_hits({"pricing.md": MARKDOWN}))
    team = [c for c in lens.conflicts if c.subject.startswith("team")]
    # Seats $12 against Priority support $9 are different things; "Pricing" names nothing apart
    assert {tuple(sorted(c.amounts)) for c in team} == {(4.0, 12.0), (4.0, 9.0)}


@pytest.mark.parametrize(
    ("a", "b", "differ"),
    [
        ("Revenue", "Segment Adjusted EBITDA", True),
        ("Prices from March 2024", "Prices until March 2, 2024", False),  # time words only
        ("Pricing", "Storage", False),  # a title of money words alone names nothing apart
        ("Storage", "Storage and bandwidth", False),  # one contains the other
        ("Net sales", None, False),  # an untitled table is compared as before
    ],
)
def test_titles_differ_only_when_both_name_different_things(a: str, b: str | None, differ: bool) -> None:
    assert titles_differ(a, b) is differ


def test_a_title_key_drops_time_and_money_words() -> None:
    assert title_key("Our prices from 1 March 2024") == frozenset()
    assert title_key("Segment operating income") == title_key("segment operating incomes")
