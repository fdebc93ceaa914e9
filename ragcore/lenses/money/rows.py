"""Table rows as PDF text extraction writes them.

pypdf gives a financial table's row as one line of cells ("$ 1,819 $ 1,877
3 %"), with the row's label at the end of the line before it (or split
across the two: "... exclusive of dep" / "reciation and amortization$ 5,154
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


def _lines_before(text: str, start: int, count: int) -> list[str]:
    """Up to ``count`` lines before the line that starts at ``start``, nearest first."""
    out: list[str] = []
    end = start - 1
    while end >= 0 and len(out) < count:
        begin = text.rfind("\n", 0, end) + 1
        out.append(text[begin:end])
        end = begin - 1
    return out


def _tail(line: str) -> str:
    """The text after a line's last run of cells (the start of the next row's label)."""
    runs = list(_RUN.finditer(line))
    tail = line[runs[-1].end() :] if runs else line
    return tail if len(tail.split()) <= _LABEL_WORDS and not re.search(r"[.:;]\s*\S", tail) else ""


def _column_year(above: list[str], column: int) -> int | None:
    for line in above:
        m = _YEARS.search(line)
        if m is not None:
            years = [int(y) for y in m.group().split()]
            return years[column] if column < len(years) else None
    return None


def pdf_row(text: str, line: tuple[int, int], start: int) -> PdfRow | None:
    """The row of the symbol amount at ``start`` when its line (``line``, offsets
    into ``text``) holds it in a run of two or more currency cells; else None."""
    row = text[line[0] : line[1]]
    at = start - line[0]
    run = next((r for r in _RUN.finditer(row) if r.start() <= at < r.end()), None)
    if run is None:
        return None
    cells = list(_CELL.finditer(run.group()))
    if sum(c.group().startswith("$") for c in cells) < 2:
        return None
    column = sum(run.start() + c.start() < at for c in cells)
    above = _lines_before(text, line[0], HEADER_LINES)
    label = (_tail(above[0]) if above else "") + row[: run.start()]
    return PdfRow(" ".join(label.split()), column, _column_year(above, column))
