"""Financial tables and prose as PDF text extraction writes them: row labels,
column years, scale headers, differences, rounding, "respectively"."""

from __future__ import annotations

from ragcore.lenses.money import extract_figures, money_lens
from ragcore.lenses.money.rows import pdf_row

# A two-year table as pypdf lays it out: the label of each row ends the line
# before it, the years head the columns, amounts are in millions.
TABLE = (
    "Segment summary\n"
    "Fiscal year (In millions, except percentages)\n"
    "2023 2024 2023 to 2024 %\n"
    "Change\n"
    "Active accounts 41 55 34 % Subscription rev\n"
    "enue $ 4,120 $ 5,310 29 % Hardware sales\n"
    "$ 880 $ 735 (16) % Operating loss\n"
    "$ (1,240) $ (610) 51 %\n"
)


def _row_figures() -> list:
    return [f for f in extract_figures(TABLE) if f.amount >= 1e6]


def test_a_pdf_row_takes_its_label_from_the_line_before_and_its_year_from_the_header() -> None:
    figures = _row_figures()
    assert [f.amount for f in figures] == [4.12e9, 5.31e9, 8.8e8, 7.35e8, 1.24e9, 6.1e8]
    # the label broken across lines ("Subscription rev" / "enue") is joined as written
    assert figures[0].subject == figures[1].subject == "subscription revenue"
    assert figures[2].subject == "hardware sales" and figures[4].subject == "operating loss"
    assert [f.mark.when.year for f in figures if f.mark.when] == [2023, 2024] * 3


def test_pdf_row_needs_two_currency_cells_on_the_line() -> None:
    text = "Revenue was $5 million in 2024, up 3 %\n"
    line = (0, len(text) - 1)
    assert pdf_row(text, line, text.index("$")) is None
    row_text = "Net fees\n$ 12 $ 15 25 %\n"
    row = pdf_row(row_text, (9, len(row_text) - 1), row_text.index("$ 15"))
    assert row is not None and (row.label, row.column, row.year) == ("Net fees", 1, None)


def test_columns_of_one_row_are_a_change_and_rows_are_not_compared(make_hits) -> None:
    lens = money_lens(make_hits({"annual-report.md": TABLE.replace("\n\n", "\n")}))
    pairs = {(c.subject, c.amounts, c.relation) for c in lens.conflicts}
    assert ("hardware sales", (8.8e8, 7.35e8), "change") in pairs
    assert ("operating loss", (1.24e9, 6.1e8), "change") in pairs
    assert all(c.relation == "change" for c in lens.conflicts)
    assert len(lens.conflicts) == 3


def test_an_amount_stating_a_difference_is_never_compared() -> None:
    text = (
        "Hosting costs increased $12 million, or 9%, mainly due to a $7 million increase in storage fees "
        "and an increase in network charges of $3 million. Hosting costs were $145 million."
    )
    stances = [(f.amount, f.stance) for f in extract_figures(text)]
    assert stances == [(12e6, "difference"), (7e6, "difference"), (3e6, "difference"), (145e6, "stated")]
    # levels stay levels: "up from", "rose to"
    levels = "Revenue rose to $40 million, up from $31 million."
    assert [f.stance for f in extract_figures(levels)] == ["stated", "stated"]


def test_one_figure_rounded_two_ways_is_not_a_relation(make_hits) -> None:
    docs = {
        "results-2024.md": (
            "Fiscal (In millions)\n2023 2024\nLicence revenue\n$ 3,960 $ 4,118 4 %\n\n"
            "Licence revenue was $4.1 billion for the year.\n"
        )
    }
    lens = money_lens(make_hits(docs))
    amounts = {c.amounts for c in lens.conflicts}
    assert (3.96e9, 4.118e9) in amounts
    assert all(4.1e9 not in a or 3.96e9 in a for a in amounts)  # $4.1 billion only against 2023


def test_respectively_gives_each_listed_amount_its_year() -> None:
    text = (
        "Share-based pay was $310 million and $420 million during the years ended June 30, 2023 and 2024, "
        "respectiv\nely."
    )
    years = [f.mark.when.year for f in extract_figures(text)]
    assert years == [2023, 2024]


def test_compared_to_marks_the_comparator_as_the_earlier_figure(make_hits) -> None:
    docs = {"review.md": "Marketing credits rose to $2.2 billion compared to $1.9 billion in 2023.\n"}
    (c,) = money_lens(make_hits(docs)).conflicts
    assert c.relation == "change" and c.amounts == (1.9e9, 2.2e9)


def test_an_undated_figure_is_of_its_documents_year_against_a_dated_one_in_that_document(make_hits) -> None:
    docs = {
        "acme_2024_annual.md": (
            "Fiscal (In millions)\n2023 2024\nGross margin\n$ 700 $ 820 17 %\n\n"
            "Gross margin was $0.8 billion, a record.\n"
        )
    }
    relations = {(c.amounts, c.relation) for c in money_lens(make_hits(docs)).conflicts}
    assert ((7e8, 8e8), "change") in relations


def test_run_together_sentences_and_signed_line_items() -> None:
    (figure,) = extract_figures("Costs were high this year.Operating EBITDA loss was $90 million.")
    assert figure.subject == "operating ebitda loss"
    from ragcore.lenses.money import subject_key

    assert subject_key("operating ebitda loss") == subject_key("operating ebitda")
    assert subject_key("loss") == "loss"


# A quarterly table as pypdf writes it: the quarter header ends with the first row's label.
QUARTERS = (
    "(In millions)\n"
    " Q1 2023 Q2 2023 Q3 2023 Q4 2023 Subscriptions\n"
    "$ 410 $ 455 $ 498 $ 530 Services\n"
    "120 131 140 152\n"
)


def test_a_quarter_column_dates_its_cell_to_the_quarter_end() -> None:
    figures = extract_figures(QUARTERS)
    assert [f.amount for f in figures] == [4.1e8, 4.55e8, 4.98e8, 5.3e8]
    assert {f.subject for f in figures} == {"subscriptions"}
    assert [(f.mark.when.isoformat(), f.mark.precision) for f in figures if f.mark.when] == [
        ("2023-03-31", "quarter"),
        ("2023-06-30", "quarter"),
        ("2023-09-30", "quarter"),
        ("2023-12-31", "quarter"),
    ]


def test_quarters_of_one_row_are_changes_and_a_quarter_never_meets_a_year(make_hits) -> None:
    annual = "Subscriptions (In millions)\n2022 2023\nSubscriptions\n$ 1,600 $ 1,893\n"
    lens = money_lens(make_hits({"q.pdf.md": QUARTERS, "y.pdf.md": annual}))
    pairs = {(c.relation, c.amounts) for c in lens.conflicts}
    assert ("change", (4.1e8, 5.3e8)) in pairs and ("change", (1.6e9, 1.893e9)) in pairs
    assert len(pairs) == 6 + 1  # four quarters pairwise, the two years; Q4 2023 and 2023 are not compared
