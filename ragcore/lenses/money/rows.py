"""Table rows as PDF text extraction writes them.

pypdf gives a financial table's row as one line of cells ("$ 2,406 $ 2,311
4 %"), with the row's label at the end of the line before it (or split
across the two: "... net of amort" / "ization of discount$ 3,072
..."), and the column years on a header line above ("2020 2021"). A line
that keeps its leading space continues after a space; one that does not
continues the word the line before broke, so the two are joined as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CELL = re.compile(r"(?:\$\s?)?\(?\d[\d,]*(?:\.\d+)?\)?(?:\s?%)?|—")
_RUN = re.compile(rf"(?:{_CELL.pattern})(?:[ \t]+(?:{_CELL.pattern}))*")
_YEARS = re.compile(r"(?<![\d,.$])(?:19|20)\d\d(?:[ \t]+(?:19|20)\d\d)+(?!\d|[,.]\d|\s?%)")
HEADER_LINES = 12  # how far above a row its column years may stand (as for a scale header)
_LABEL_WORDS = 12  # a longer tail is running text, not a row label


@dataclass(frozen=True)
class PdfRow:
    """The label and column of one amount cell; the column's year, if a header gives one."""

    label: str
    column: int
    year: int | None
    quarter: int | None = None  # 1-4 when the column is a fiscal quarter ("Q3 2021")
    per_share: bool = (
        False  # "Net loss per share ...", or a sub-row ("Basic") of a "... per share ...:" group
    )


def _lines_before(text: str, start: int, count: int) -> list[str]:
    """Up to ``count`` lines before the line that starts at ``start``, nearest first."""
    out: list[str] = []
    end = start - 1
    while end >= 0 and len(out) < count:
        begin = text.rfind("\n", 0, end) + 1
        out.append(text[begin:end])
        end = begin - 1
    return out


def holds_cells(line: str) -> bool:
    """Whether a line holds a run of two or more table cells ("$ 2,406 $ 2,311 4 %")."""
    return any(len(_CELL.findall(r.group())) >= 2 for r in _RUN.finditer(line))


def is_table_line(line: str) -> bool:
    """A line of a PDF table: a run of two or more cells, or a short label
    (a row's name, a column header) without a sentence in it."""
    if holds_cells(line):
        return True
    return 0 < len(line.split()) <= _LABEL_WORDS // 2 and not re.search(r"[.;:]\s+\S", line)


def table_lines_before(
    text: str, start: int, limit: int = HEADER_LINES, cap: int = 4 * HEADER_LINES
) -> list[str]:
    """The lines above the line starting at ``start``, nearest first, in which its
    header may stand: ``limit`` lines, or more while every line passed is a
    table line (a table taller than ``limit``), up to ``cap``."""
    keep: list[str] = []
    all_table = True
    lines = [line for line in _lines_before(text, start, cap) if line.strip()]  # a blank line is no row
    for k, line in enumerate(lines):
        if k >= limit and not all_table:
            break
        keep.append(line)
        all_table = all_table and (is_table_line(line) or _wrapped_label(lines, k))
    return keep


_SENTENCE_BREAK = re.compile(r"[a-z)][.!?]\s+[A-Z]")
_WRAPPED_LABEL_LINES = (
    3  # a row label pypdf wrapped over lines ("Preferred stock, $0.0001 par value; ... shares")
)


def _wrapped_label(lines: list[str], k: int) -> bool:
    """Whether line ``k`` (nearest first) of a run of non-table lines is a long
    row label wrapped over lines inside a table: the run is short and holds
    table rows on both sides (a line with cells right above it, a table line
    below it)."""
    first = k
    while first > 0 and not is_table_line(lines[first - 1]):
        first -= 1
    last = k
    while last + 1 < len(lines) and not is_table_line(lines[last + 1]):
        last += 1
    if first == 0 or last + 1 - first > _WRAPPED_LABEL_LINES or last + 1 >= len(lines):
        return False
    if any(_SENTENCE_BREAK.search(line) for line in lines[first : last + 1]):
        return False  # running text ("... goes on. It is not a row"), not a label
    return holds_cells(lines[last + 1])


def _raw_tail(line: str) -> str:
    runs = list(_RUN.finditer(line))
    return line[runs[-1].end() :] if runs else line


def _tail(line: str) -> str:
    """The text after a line's last run of cells (the start of the next row's
    label); after a group's label and its colon, the sub-row's own label
    ("... common stockholders:Basic" gives "Basic")."""
    tail = _raw_tail(line)
    _group, colon, sub = tail.rpartition(":")
    if colon and sub.strip() and not re.search(r"[.:;]\s*\S", sub):
        tail = sub
    return tail if len(tail.split()) <= _LABEL_WORDS and not re.search(r"[.:;]\s*\S", tail) else ""


_PER_SHARE = re.compile(r"\bper\s+(?:(?:common|diluted|basic|ordinary)\s+)?share\b", re.IGNORECASE)
_GROUP_LINES = (
    3  # lines above a sub-row in which its group's label may start (label, "Basic" row, "Diluted" row)
)


def _per_share(above: list[str], label: str) -> bool:
    """Whether a row states an amount per share: its label says so, or it is a
    sub-row ("Basic", "Diluted") under a group label that does and ends in a colon."""
    if _PER_SHARE.search(label):
        return True
    joined = ""
    for k, line in enumerate(above[:_GROUP_LINES]):
        joined = _raw_tail(line) + joined
        group = joined.rpartition(":")[0]
        if group and _PER_SHARE.search(group):
            return True
        if k and holds_cells(line):
            return False  # the group label starts after the cells of the row above it
    return False


# A line of column years only, as pypdf writes it: spaced ("2020 2021"), glued
# ("20212020 2019"), or with the table's scale after them ("2020 2019 (in thousands)").
_YEAR_LINE = re.compile(r"\s*((?:(?:19|20)\d\d\s*)+)(?:\([^)]*\)?)?\s*")


def _header_years(line: str) -> list[int]:
    """The column years of a line that holds nothing else (else [])."""
    m = _YEAR_LINE.fullmatch(line)
    if m is None:
        return []
    digits = re.sub(r"\s+", "", m.group(1))
    return [int(digits[i : i + 4]) for i in range(0, len(digits), 4)]


_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# One column's header line: a year, or "As of June 30, 2024" (after a header's closing
# parenthesis: "... per share as stated)As of June 30, 2023"), maybe with the first row's
# label glued on ("2023 Assets", "As of June 30, 2024 Assets").
_ONE_COLUMN = re.compile(
    rf"(?:\s*|.*\)\s*)(?:(?:As\s+of\s+)?(?:{_MONTHS})\s+\d{{1,2}},\s*)?((?:19|20)\d\d)(?:\s+(?P<rest>[A-Z][^\d.,;:]*))?\s*",
    re.IGNORECASE,
)


def _one_column_year(line: str) -> int | None:
    """The year of a header line that names one column (see _ONE_COLUMN), else None."""
    m = _ONE_COLUMN.fullmatch(line)
    if m is None or (m.group("rest") and len(m.group("rest").split()) > _LABEL_WORDS // 2):
        return None
    return int(m.group(1))


def _column_years(above: list[str]) -> list[int]:
    """The nearest header's column years: a line of years (or of two or more
    years among other words), joined with year-only lines right above it (a
    header pypdf split over lines: "2021" / "2020 2019 (in thousands)"); or
    two or more one-column header lines, one year each ("As of June 30,
    2023" / "As of June 30, 2024 Assets", "2024" / "2023 Assets")."""
    for k, line in enumerate(above):
        years = _header_years(line)
        if not years:
            m = _YEARS.search(line)
            if m is None:
                years = _stacked_years(above[k:])
                if len(years) >= 2:
                    return years
                continue
            years = [int(y) for y in m.group().split()]
        for higher in above[k + 1 :]:
            more = _header_years(higher)
            if not more:
                break
            years = more + years
        return years
    return []


def _stacked_years(lines: list[str]) -> list[int]:
    """Years of consecutive one-column header lines from ``lines[0]`` upwards, top first."""
    years: list[int] = []
    for line in lines:
        year = _one_column_year(line)
        if year is None:
            break
        years.insert(0, year)
    return years


# A column of a quarterly table: "Q1 2020 Q2 2020 ... Q4 2021" (the header may end with the first row's label).
_QUARTER = re.compile(r"(?<![A-Za-z0-9])Q([1-4])\s?((?:19|20)\d\d)(?!\d)")


def _column_period(above: list[str], column: int) -> tuple[int | None, int | None]:
    """(year, quarter) of a column: from the nearest header of years, or of
    quarters when a line of two or more "Q<n> <year>" stands nearer."""
    quarter_line = next((k for k, line in enumerate(above) if len(_QUARTER.findall(line)) >= 2), None)
    year_line = next((k for k, line in enumerate(above) if _header_years(line) or _YEARS.search(line)), None)
    if quarter_line is not None and (year_line is None or quarter_line < year_line):
        quarters = _QUARTER.findall(above[quarter_line])
        if column < len(quarters):
            q, y = quarters[column]
            return int(y), int(q)
        return None, None
    years = _column_years(above)
    return (years[column] if column < len(years) else None), None


def column_years_above(text: str, start: int) -> list[int]:
    """The column years of the PDF table header above the line starting at ``start`` ([] when none)."""
    return _column_years(table_lines_before(text, start))


def pdf_row(text: str, line: tuple[int, int], start: int, prior: str = "") -> PdfRow | None:
    """The row of the symbol amount at ``start`` when its line (``line``, offsets
    into ``text``) holds it in a run of two or more currency cells; else None.
    ``prior`` is the document's text right before ``text`` (a header above the passage)."""
    row = text[line[0] : line[1]]
    at = start - line[0]
    run = next((r for r in _RUN.finditer(row) if r.start() <= at < r.end()), None)
    if run is None:
        return None
    cells = list(_CELL.finditer(run.group()))
    if sum(c.group().startswith("$") for c in cells) < 2:
        return None
    column = sum(run.start() + c.start() < at for c in cells)
    above = table_lines_before(prior + text, len(prior) + line[0])
    label = (_tail(above[0]) if above else "") + row[: run.start()]
    year, quarter = _column_period(above, column)
    return PdfRow(" ".join(label.split()), column, year, quarter, _per_share(above, label))
