"""Annual-report prose: fiscal years, "from $A in 2020 to $B in 2021",
"compared to", line items as 10-K text writes them (issue #15, held-out Lyft)."""

from __future__ import annotations

from datetime import date

import pytest

from ragcore.lenses.money import extract_figures, money_lens
from ragcore.lenses.money.dates import document_date


def _one(text: str):
    (figure,) = extract_figures(text)
    return figure


def _relations(make_hits, docs: dict[str, str]) -> list[tuple[str, tuple[float, ...], str]]:
    return [(c.relation, c.amounts, c.subject) for c in money_lens(make_hits(docs)).conflicts]


# ---------------------------------------------------------------- a bare year after or before an amount


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("Revenue was $5 million in 2023.", 2023),
        ("Revenue was $5 million for fiscal 2023.", 2023),
        ("Revenue was $5 million in fiscal year 2023.", 2023),
        ("Revenue for fiscal 2021 was $4.2 billion.", 2021),
        ("In 2021, revenue was $4.2 billion.", 2021),
        ("Gross margin in2021 was $61.4 million.", 2021),  # run-together PDF text
    ],
)
def test_a_year_phrase_beside_an_amount_dates_it_to_that_year(text: str, year: int) -> None:
    f = _one(text)
    assert (f.mark.when, f.mark.edge, f.mark.precision) == (date(year, 12, 31), "as-of", "year")
    assert f.amount not in (2021, 2023)  # the year is never an amount


@pytest.mark.parametrize(
    "text",
    [
        "It cost $5 million in 2021 dollars.",  # a price level, not a date
        "Prices in 2021 dollars were $5 million.",
        "Operating loss was $0.7 billion, a drop of 18% compared to 2020.",  # the comparator's year
        "The fee is $5 per 2023 units.",
        "We charged $5 million, in 2,023 instalments.",
    ],
)
def test_a_year_that_does_not_date_the_amount_is_no_date(text: str) -> None:
    f = _one(text)
    assert f.mark.when is None and f.mark.precision == "day"


def test_after_another_amount_a_year_before_belongs_to_that_amount() -> None:
    a, b = extract_figures("Revenue rose from $3.1 billion in 2020 to $4.2 billion.")
    assert a.mark.when == date(2020, 12, 31)
    assert b.mark.when is None


def test_a_year_mark_shows_its_precision_in_the_lens_json(make_hits) -> None:
    lens = money_lens(make_hits({"r.md": "Revenue was $5 million in 2023.\n"}))
    (mention,) = lens.figures[0].mentions
    js = mention.to_json()
    assert (js["effective"], js["effective_edge"], js["effective_precision"]) == (
        "2023-12-31",
        "as-of",
        "year",
    )
    undated = money_lens(make_hits({"r.md": "Revenue was $5 million.\n"})).figures[0].mentions[0]
    assert undated.to_json()["effective_precision"] is None


def test_a_total_dated_only_by_a_year_takes_no_unit_from_a_rate_beside_it() -> None:
    arr, burn = extract_figures(
        "Our plan for 2026 is ARR of $26M at year end, with net burn below $0.4M a month."
    )
    assert arr.period is None and burn.period == "month"


# ---------------------------------------------------------------- changes in annual-report sentences


def test_a_decrease_from_a_in_one_year_to_b_in_the_next_is_one_change(make_hits) -> None:
    text = "Operating loss decreased $212.5 million, or 23%, from $0.9 billion in 2020 to $0.7 billion in 2021.\n"
    figures = extract_figures(text)
    assert [f.subject for f in figures] == ["operating loss"] * 3
    assert [f.stance for f in figures] == ["difference", "stated", "stated"]
    assert _relations(make_hits, {"10k_2021.md": text}) == [("change", (0.9e9, 0.7e9), "operating loss")]


def test_increased_from_to_with_years_is_a_change_oldest_first(make_hits) -> None:
    text = "Revenue increased from $3.1 billion in 2020 to $4.2 billion in 2021.\n"
    assert _relations(make_hits, {"report.md": text}) == [("change", (3.1e9, 4.2e9), "revenue")]


def test_compared_to_an_amount_of_an_earlier_year_is_a_change(make_hits) -> None:
    text = "Revenue was $4.2 billion, compared to $3.1 billion in 2020.\n"
    assert _relations(make_hits, {"annual_2021.md": text}) == [("change", (3.1e9, 4.2e9), "revenue")]


def test_an_undated_summary_figure_is_of_the_report_year_against_an_earlier_year(make_hits) -> None:
    # the year's summary states the figure bare; a later sentence gives the prior year's
    text = (
        "Operating loss was $0.7 billion.\n\n"
        "Operating loss decreased $212.5 million, or 23%, from $0.9 billion in 2020 to $0.7 billion in 2021.\n"
    )
    rels = _relations(make_hits, {"acme_2021_10k.pdf.md": text})
    assert rels == [("change", (0.9e9, 0.7e9), "operating loss")]
    (change,) = money_lens(make_hits({"acme_2021_10k.pdf.md": text})).conflicts
    assert len(change.pairs) == 2  # 2020 -> the summary's figure, and 2020 -> 2021 in the sentence


def test_a_report_name_with_a_year_and_a_form_number_holds_no_month() -> None:
    assert document_date("lyft_2021_10k.pdf") is None
    assert document_date("report-2021-10.pdf") == date(2021, 10, 1)
    assert document_date("minutes-2026-02-24-leadership-team.txt") == date(2026, 2, 24)


# ---------------------------------------------------------------- line items as 10-K text writes them


def test_a_multiplier_word_may_break_after_any_letter_at_a_line_end() -> None:
    figures = extract_figures(
        "with $165 mill\nion paid upfront and $2 thou\nsand later, $4.3 bi\nllion in all"
    )
    assert [f.amount for f in figures] == pytest.approx([165e6, 2e3, 4.3e9])


def test_a_line_item_attributable_to_a_company_keeps_its_owner() -> None:
    f = _one("Net loss attributable to Northwind Holdings, Inc. was $212 million, a 31% improvement.")
    assert f.subject == "net loss attributable to northwind holdings inc"


def test_an_included_amount_is_named_by_its_of_phrase() -> None:
    f = _one("Net loss attributable to the group also included $0.4 billion of restructuring expense.")
    assert f.subject == "restructuring expense"
    g = _one("Operating costs recorded $20 million.")
    assert g.subject == ""  # a verb names nothing, and no "of" phrase follows


def test_glued_words_of_pdf_text_are_split_at_the_capital() -> None:
    f, diff = extract_figures("Moreover, FreightAdjusted\nEBITDA loss of $117 million, improved $86 million.")
    assert f.subject == "freight adjusted ebitda loss" and diff.stance == "difference"


# ---------------------------------------------------------------- tables as pypdf writes a 10-K's


def _years(text: str, above: str = "") -> list[tuple[float, int | None]]:
    return [(f.amount, f.mark.when.year if f.mark.when else None) for f in extract_figures(text, above=above)]


def test_glued_column_years_with_the_scale_after_them_date_each_column() -> None:
    text = (
        "Year Ended December 31,\n2020 to 2021 % Change\n2019 to 2020 %\nChange\n"
        "20212020 2019 (in thousands, and percentages as stated)\n"
        "Cost of revenue\n"
        "$ 1,733,901 $ 1,520,388 $ 2,098,114 14 % (28) % Cost\n"
    )
    assert _years(text) == [(1733901e3, 2021), (1520388e3, 2020), (2098114e3, 2019)]


def test_column_years_split_over_two_lines_are_one_header() -> None:
    text = "data:Year Ended December 31,\n2021\n2020 2019 (in thousands)\nRevenue\n$ 4,105,212 $ 2,970,804 $ 3,512,477 Costs\n"
    assert _years(text) == [(4105212e3, 2021), (2970804e3, 2020), (3512477e3, 2019)]


def _tall_table(between: str) -> str:
    rows = "".join(f"Line item {k}\n{k},100 {k},200 {k},300 Next item\n" for k in range(7))
    return (
        "Year Ended December 31,\n2021\n2020 2019 (in thousands)\n"
        + rows
        + between
        + "Net loss\n$ (1,118) $ (1,604) $ (2,377) The\n"
    )


def test_a_header_holds_down_a_table_taller_than_twelve_lines_only_through_table_lines() -> None:
    assert _years(_tall_table("")) == [(1118e3, 2021), (1604e3, 2020), (2377e3, 2019)]
    prose = "This line is running text, and it goes on. It is not a row of any table at all.\n"
    assert _years(_tall_table(prose)) == [(1118, None), (1604, None), (2377, None)]


def test_a_table_header_in_the_text_right_above_the_passage_still_applies() -> None:
    above = "Year Ended December 31,\n2021\n2020 2019 (in thousands)\nRevenue\n"
    row = "$ 4,105,212 $ 2,970,804 $ 3,512,477 Costs and expenses\n"
    assert _years(row, above=above) == [(4105212e3, 2021), (2970804e3, 2020), (3512477e3, 2019)]
    assert _years(row) == [(4105212, None), (2970804, None), (3512477, None)]


def test_the_lens_reads_a_header_from_the_passage_before(make_hits) -> None:
    text = "Results (in thousands)\n2020 2021\nRevenue\n\n$ 2,970 $ 4,105 Costs\n"
    (change,) = money_lens(make_hits({"report.pdf.md": text})).conflicts
    assert change.relation == "change" and change.amounts == (2970e3, 4105e3)


def test_a_table_row_takes_neither_stance_nor_date_from_the_sentence_around_it() -> None:
    text = (
        "We expect to keep this allowance until December 31, 2023.62\nResults\n"
        "Revenue\n$ 4,105 $ 2,970 Costs and expenses\n"
    )
    figures = extract_figures(text)
    assert [(f.stance, f.mark.when) for f in figures] == [("stated", None), ("stated", None)]


def test_a_multiplier_word_glued_to_the_next_word_still_scales() -> None:
    figures = extract_figures("a $17.4 milliondecrease in costs and a $12.0 millionin fees; a $2 millionaire")
    assert [f.amount for f in figures] == pytest.approx([17.4e6, 12e6, 2])


# ---------------------------------------------------------------- session 5: cash-flow prose and footnotes


@pytest.mark.parametrize(
    "text",
    [
        "$41.7 million of hosting expense recorded during the year ended June 30, 2024 reflects new capacity.",
        "(2)\n$41.7 millionof hosting expense recorded during the year ended June 30, 2024 reflects new capacity.",
    ],
)
def test_a_sentence_opening_on_the_amount_is_named_by_its_of_phrase(text: str) -> None:
    figure = _one(text)
    assert (figure.amount, figure.subject) == (41.7e6, "hosting expense")
    assert figure.mark.when == date(2024, 6, 30) and figure.period is None


def test_the_year_a_figure_is_reported_for_is_no_rate() -> None:
    figure = _one("Cash used in operating activities was $88.2 million for the year ended June 30, 2024.")
    assert figure.period is None and figure.mark.when == date(2024, 6, 30)


def test_reserve_estimates_as_a_noun_are_no_forecast() -> None:
    assert _one("$12.5 million of claims expense reflects changes to reserve estimates.").stance == "stated"
    assert _one("We estimate the charge at $12.5 million.").stance == "forecast"


def test_a_part_introduced_by_with_is_not_the_total_again() -> None:
    total, part = extract_figures(
        "The total impact of the settlement was $30.4 million, with $28.1 million in cost of revenue."
    )
    assert total.subject == "settlement" and part.subject != total.subject


def test_parts_listed_after_a_dated_total_share_its_date(make_hits) -> None:
    docs = {
        "annual-report.pdf.md": (
            "Cash provided by investing activities was $310.0 million for the year ended June 30, 2024, "
            "which primarily consisted of maturities of term deposits of $512.4 million, partially offset by "
            "purchases of equipment of $0.2 billion.\n\n"
            "Cash provided by investing activities was $95.5 million for the year ended June 30, 2023, "
            "which primarily consisted of maturities of term deposits of $488.0 million, partially offset by "
            "purchases of equipment of $0.4 billion.\n"
        )
    }
    figures = extract_figures(docs["annual-report.pdf.md"].split("\n\n")[0])
    assert [f.mark.when for f in figures] == [date(2024, 6, 30)] * 3
    relations = _relations(make_hits, docs)
    # each part is compared with its own part of the other year, as a change (not a conflict)
    assert set(relations) == {
        ("change", (4e8, 2e8), "equipment"),
        ("change", (9.55e7, 3.1e8), "cash provided by investing activities"),
        ("change", (4.88e8, 5.124e8), "term deposits"),
    }


def test_parts_after_consisting_of_are_named_by_their_of_phrase() -> None:
    figures = extract_figures(
        "Net cash used in operating activities was $88 million for the year ended June 30, 2024, "
        "primarily consisting of $140 million of net loss and $30 million in hosting costs."
    )
    assert [(f.amount, f.subject) for f in figures] == [
        (88e6, "net cash used in operating activities"),  # session 6: "used in" ties the head noun in
        (140e6, "net loss"),
        (30e6, "hosting"),  # session 6: a listed part is named by its "in" phrase too ("costs" is filler)
    ]
