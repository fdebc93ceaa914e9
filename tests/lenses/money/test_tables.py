"""Markdown tables: the row label and the column header name what a cell prices."""

from __future__ import annotations

from ragcore.lenses.money import extract_figures


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
