"""Primary financial statements as PDF text extraction writes them (session 6):
stacked one-column headers, scale headers that wrap, wrapped row labels,
per-share rows and par values, "respectively" inside a row, the reporting
entity above the title, and tables read across several passages.

Every table here is written for the test in the shape pypdf gives a 10-K
statement (labels glued to the end of the line above); none is copied."""

from __future__ import annotations

from ragcore.lenses.money import extract_figures, money_lens
from ragcore.lenses.money.entities import entities_differ, entity_line
from ragcore.lenses.money.subjects import subject_key
from ragcore.records import Passage

BALANCE = (
    "Northwind Outfitters, Inc.\n"
    "Consolidated Balance Sheets\n"
    "(In millions, but counts of shares in thousa\n"
    "nds and amounts per share as stated)As of June 30, 2023\n"
    "As of June 30, 2024 Assets\n"
    "Cash on hand and in banks\n"
    "$ 1,210 $ 1,480 Trade receivables, less a reserve fo\n"
    "r bad debts of $14 and $19, respectively640 702 Goods held for sale\n"
    "311 298 Total assets\n"
    "$ 9,804 $ 10,377 Ordinary shares, $0.0001 par value; 900,000 shares ma\n"
    "y be issued in either year, with 412,000 and 418,500 shares held by investors, r\n"
    "espectively— — Earnings kept in the business\n"
    "2,118 2,640 Total liabilities and equity\n"
    "$ 9,804 $ 10,377 Read with the notes that follow, which belong to this statement.\n"
)

OPERATIONS = (
    "Harbor Freight Lines, Inc.\n"
    "Consolidated Statements of Operations\n"
    "(in thousands, with amounts per share unscal\n"
    "ed) Year Ended December 31,\n"
    "2024\n"
    "2023 2022 Revenue\n"
    "$ 812,400 $ 733,950 $ 690,125 Net loss\n"
    "$ (41,300) $ (88,020) $ (120,555) Loss per share, both classes, basic and dil\n"
    "uted$ (0.52) $ (1.13) $ (1.61) Loss per share owed to holders of ordinary sh\n"
    "ares:Basic\n"
    "$ (0.52) $ (1.13) $ (1.61) Diluted\n"
    "$ (0.55) $ (1.13) $ (1.70) Read with the notes that follow, which belong to this statement.\n"
)


def _by_amount(text: str) -> dict[float, object]:
    return {f.amount: f for f in extract_figures(text)}


def test_stacked_one_column_headers_date_the_columns_in_their_order() -> None:
    found = _by_amount(BALANCE)
    assert found[1.21e9].mark.when.isoformat() == "2023-12-31"
    assert found[1.48e9].mark.when.isoformat() == "2024-12-31"
    # a year line with the first row's label glued on: "2024" / "2023 Assets"
    text = "Consolidated Balance Sheets\n(in thousands)\n2024\n2023 Assets\nCash\n$ 4,100 $ 3,900 Total\n"
    years = [f.mark.when.year for f in extract_figures(text)]
    assert years == [2024, 2023]


def test_a_year_led_label_is_no_header_on_its_own() -> None:
    # "2027 Notes" is a row label that starts with a year: one year alone dates nothing
    text = "(in millions)\n2027 Notes\n$ 500 $ 500 Term loan\n$ 300 $ 250\n"
    assert all(f.mark.when is None for f in extract_figures(text))


def test_a_wrapped_scale_header_and_a_wrapped_row_label_keep_the_table_scaled() -> None:
    found = _by_amount(BALANCE)
    # the bottom row stands under a three-line description of the common stock
    assert 9.804e9 in found and 1.0377e10 in found
    total = [f for f in extract_figures(BALANCE) if f.subject.startswith("total liabilities")]
    assert [f.amount for f in total] == [9.804e9, 1.0377e10]
    assert [f.mark.when.year for f in total] == [2023, 2024]


def test_a_par_value_is_never_scaled() -> None:
    found = _by_amount(BALANCE)
    assert 0.0001 in found and 100.0 not in found


def test_respectively_in_a_row_takes_the_column_years() -> None:
    allowance = [f for f in extract_figures(BALANCE) if f.amount in (14e6, 19e6)]
    assert [(f.amount, f.mark.when.year) for f in allowance] == [(14e6, 2023), (19e6, 2024)]


def test_per_share_rows_are_not_scaled_and_are_per_share() -> None:
    figures = extract_figures(OPERATIONS)
    per_share = [f for f in figures if f.amount < 10]
    assert [f.amount for f in per_share] == [0.52, 1.13, 1.61, 0.52, 1.13, 1.61, 0.55, 1.13, 1.70]
    assert {f.period for f in per_share} == {"share"}
    # the sub-rows of a "... per share ...:" group are named by their own label
    assert [f.subject for f in per_share[3:6]] == ["basic"] * 3
    assert [f.subject for f in per_share[6:]] == ["diluted"] * 3
    revenue = [f.amount for f in figures if f.subject == "revenue"]
    assert revenue == [812_400_000, 733_950_000, 690_125_000]
    assert all(f.period is None for f in figures if f.amount > 10)


def test_the_entity_line_is_read_as_a_legal_name() -> None:
    assert entity_line("Northwind Outfitters, Inc.") == "northwind outfitters"
    assert entity_line("ACME HOLDINGS CORP.") == "acme holdings"
    assert entity_line("We sell outdoor gear to retailers.") is None
    assert entities_differ("northwind outfitters", "harbor freight lines")
    assert not entities_differ("uber", "uber technologies") and not entities_differ(None, "acme")


def test_rows_of_two_companies_statements_are_never_compared(make_hits) -> None:
    other = BALANCE.replace("Northwind Outfitters, Inc.", "Copperline Foods, Inc.").replace("1,210", "2,050")
    lens = money_lens(make_hits({"northwind-10k.pdf": BALANCE, "copperline-10k.pdf": other}))
    # both 2023 cash cells: a conflict if the two companies' rows were one item
    assert not any(set(c.amounts) == {1.21e9, 2.05e9} for c in lens.conflicts)
    assert any(set(c.amounts) == {2.05e9, 1.48e9} for c in lens.conflicts)  # within one statement
    # the same company's two reports are compared as before
    later = BALANCE.replace("1,210", "1,333")
    lens = money_lens(make_hits({"northwind-10k.pdf": BALANCE, "northwind-10k-amended.pdf": later}))
    assert any(set(c.amounts) == {1.21e9, 1.333e9} for c in lens.conflicts)


def test_a_table_read_in_overlapping_passages_keeps_its_header(hits_from) -> None:
    # three overlapping passages; the last one starts well below the header
    text = OPERATIONS
    cuts = [(0, 150), (120, 330), (300, len(text))]
    passages = [
        Passage(
            "harbor-10k.pdf", k, text.count("\n", 0, a) + 1, text.count("\n", 0, b) + 1, a, b, "", text[a:b]
        )
        for k, (a, b) in enumerate(cuts)
    ]
    lens = money_lens(hits_from(passages))
    amounts = {m.amount for f in lens.figures for m in f.mentions}
    assert 1.7 in amounts and 0.55 in amounts  # the per-share rows, from the last passage
    assert 41_300_000 in amounts and 41_300 not in amounts
    loss = next(f for f in lens.figures if f.amount == 120_555_000)
    assert {m.effective for m in loss.mentions} == {"2022-12-31"}


def test_a_participle_ties_the_head_noun_to_its_phrase() -> None:
    text = (
        "Operating Activities\nNet\n cash provided by operating activities came to $812 million over the year ended "
        "June 30, 2024. Cash used in investing activities came to $96 million over that year."
    )
    assert [f.subject for f in extract_figures(text)] == [
        "net cash provided by operating activities",  # the heading line above is not taken in
        "cash used in investing activities",
    ]
    assert subject_key("net cash used in investing activities") == subject_key(
        "cash used in investing activities"
    )
    assert subject_key("net loss") != subject_key("loss")
    # the cash flow of an activity is one signed line item, used or provided
    key = subject_key("cash provided by financing activities")
    assert key == subject_key("cash used in financing activities")
    assert key == subject_key("net cash provided by used in financing activities")
    assert key != subject_key("cash used in investing activities")


def test_listed_parts_are_named_by_their_in_phrase() -> None:
    text = (
        "Net cash used in financing activities came to $640 million over the year ended June 30, 2024, mostly "
        "consisting of $310 million in buybacks of shares, $95 million in dividend payouts, "
        "upkeep and repair expense of $75 million, $12 million in write-downs of goodwill, and "
        "$8 million in profit on van sales."
    )
    subjects = [f.subject for f in extract_figures(text)]
    assert subjects == [
        "net cash used in financing activities",
        "buybacks of shares",
        "dividend payouts",
        "repair expense",
        "write-downs of goodwill",  # its own part, not a continuation of the expense before it
        "profit on van sales",
    ]
    # outside a list of parts, or naming a time, an "in" phrase names nothing
    assert [f.subject for f in extract_figures("We raised $5 million in new funding.")] != ["new funding"]
    timed = extract_figures("The total included $4 million in 2023 and $6 million in 2024, respectively.")
    assert all(f.subject != "2023" for f in timed)


def test_amounts_listed_with_and_take_the_years_listed_after_them() -> None:
    text = (
        "Van rentals carry interest. $2.4 million and $3.0 million went on that interest "
        "in the year ended June 30, 2024 and 2023. Note 4 has more."
    )
    assert [(f.amount, f.mark.when.year) for f in extract_figures(text)] == [(2.4e6, 2024), (3.0e6, 2023)]
    # a count that does not agree dates nothing new
    text = "Fees were $2.4 million, up from 2022 and 2023 levels of about half."
    assert [f.mark.when for f in extract_figures(text)] == [None]
