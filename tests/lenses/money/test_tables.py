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


def test_link_and_emphasis_markup_leave_the_row_label() -> None:
    text = (
        "| Service | Rate |\n| --- | --- |\n"
        "| [**Managed Postgres**](/docs/postgres) | $0.25 / GB / month |\n"
        "| *Log retention* | `$0.50` per GB |\n"
    )
    found = [(f.amount, f.subject, f.period) for f in extract_figures(text)]
    assert found == [(0.25, "managed postgres", "GB/month"), (0.5, "log retention", "GB")]


def test_a_table_after_a_paragraph_is_read_by_the_markdown_parser() -> None:
    text = "Current list prices.\n\n| Tier | Yearly |\n|:--|--:|\n| Studio \\| Teams | $1,200 |\n"
    ((amount, subject, period),) = [(f.amount, f.subject, f.period) for f in extract_figures(text)]
    assert (amount, period) == (1200, "year")
    assert "studio" in subject and "teams" in subject  # an escaped pipe stays inside its cell
