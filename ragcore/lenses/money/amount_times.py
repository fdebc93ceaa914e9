"""The time each currency amount of a text holds for (``amount_times``):
read from the words around it (``dates.time_mark``), then from the lists a
sentence pairs with years ("$8 million and $12 million in 2022 and 2023,
respectively"; a PDF table's columns when it names none), and from the dated
total whose components follow it."""

from __future__ import annotations

import itertools
import re
from datetime import date

from ragcore.lenses.money.amounts import _Amount
from ragcore.lenses.money.dates import TimeMark, time_mark, year_mark
from ragcore.lenses.money.rows import column_years_above


def amount_times(text: str, amounts: list[_Amount], context: date | None, above: str = "") -> list[TimeMark]:
    """The time mark of each of ``amounts`` (found in ``text``, in order);
    ``context`` dates a date without a year, ``above`` is the text right up
    to ``text`` (a table's column years)."""
    marks = [_time_of(text, amounts, k, context) for k in range(len(amounts))]
    marks = _paired_years(_respectively(marks, text, amounts, above), text, amounts)
    return _components(marks, text, amounts)


_YEAR = re.compile(r"(?<![\d,.$])(?:19|20)\d\d(?!\d|[,.]\d|\s?%)")


def _respectively(
    marks: list[TimeMark], text: str, amounts: list[_Amount], above: str = ""
) -> list[TimeMark]:
    """ "$8 million and $12 million in 2022 and 2023, respectively": the
    amounts listed just before the years take them in order, when the counts
    agree and only "and" or a comma joins the amounts. With no years written
    ("net of reserves of $12 and $9, respectively" in a row of a PDF table),
    the years are the table's columns, in their order."""
    out = list(marks)
    for word in re.finditer(r"respectiv\s*ely", text, re.IGNORECASE):  # PDF text may break the word
        before = [k for k, a in enumerate(amounts) if a.stop <= word.start()]
        if not before:
            continue
        years = [int(y) for y in _YEAR.findall(text[amounts[before[-1]].stop : word.start()])]
        if not years and re.fullmatch(r"\s*,?\s*", text[amounts[before[-1]].stop : word.start()]):
            line = amounts[before[-1]].line
            years = column_years_above(above + text, len(above) + line[0])
        listed = before[-len(years) :] if len(years) > 1 else []
        _give_years(out, marks, text, amounts, listed, years)
    return out


def _give_years(
    out: list[TimeMark],
    marks: list[TimeMark],
    text: str,
    amounts: list[_Amount],
    listed: list[int],
    years: list[int],
) -> None:
    """Mark the listed amounts with the years, in order, when the counts
    agree, only "and" or a comma joins the amounts, and each holds one value."""
    joined = all(
        re.fullmatch(r"\s*(?:,|and|,\s*and)\s*", text[amounts[i].stop : amounts[j].start])
        for i, j in itertools.pairwise(listed)
    )
    if len(listed) == len(years) and joined and all(len(amounts[k].values) == 1 for k in listed):
        for k, year in zip(listed, years, strict=True):
            out[k] = year_mark(year, marks[k].tense)


# "... in the year ended June 30, 2024 and 2023" after "$2.5 million and $3.1 million": years listed as amounts are
_YEAR_LIST = re.compile(
    r"(?<![\d$,.])(?:19|20)\d\d(?:\s*,\s*(?:19|20)\d\d)*\s*,?\s+and\s+(?:19|20)\d\d(?![\d%])"
)


def _paired_years(marks: list[TimeMark], text: str, amounts: list[_Amount]) -> list[TimeMark]:
    """ "$2.5 million and $3.1 million ... in the year ended <date>, 2021 and
    2020": "respectively" left unwritten; amounts listed with "and" take the
    years listed later in their sentence, in order, when the counts agree."""
    out = list(marks)
    for m in _YEAR_LIST.finditer(text):
        if re.match(r"\s*,?\s*respectiv", text[m.end() : m.end() + 20], re.IGNORECASE):
            continue  # read by _respectively
        years = [int(y) for y in _YEAR.findall(m.group())]
        before = [
            k
            for k, a in enumerate(amounts)
            if a.stop <= m.start() and a.sentence[0] <= m.start() < a.sentence[1]
        ]
        _give_years(out, marks, text, amounts, before[-len(years) :], years)
    return out


# A total followed by what it is made of: "..., which mainly consisted of", "comprising".
_COMPONENTS = re.compile(
    r"\b(?:consist(?:ed|ing|s)?|compris(?:ed|ing|es?)|made\s+up)\s+(?:\w+\s+)?of\b|\bcompris(?:ed|ing|es?)\b",
    re.IGNORECASE,
)


def _components(marks: list[TimeMark], text: str, amounts: list[_Amount]) -> list[TimeMark]:
    """ "$210 million for the year ended <date>, which mainly consisted of
    loans of $1.4 billion and ... $0.9 billion": the parts listed after a
    dated total in its sentence are of the total's time, unless dated themselves."""
    out = list(marks)
    for k, amt in enumerate(amounts):
        nxt = k + 1
        if out[k].when is None or nxt >= len(amounts) or amounts[nxt].sentence != amt.sentence:
            continue
        if not _COMPONENTS.search(text, amt.stop, amounts[nxt].start):
            continue
        for j in range(nxt, len(amounts)):
            if amounts[j].sentence != amt.sentence or out[j].when not in (None, out[k].when):
                break  # a part dated otherwise ends the list
            if out[j] == TimeMark():
                out[j] = out[k]
    return out


def _time_of(text: str, amounts: list[_Amount], k: int, context: date | None) -> TimeMark:
    amt = amounts[k]
    prev = amounts[k - 1] if k and amounts[k - 1].sentence == amt.sentence else None
    nxt = amounts[k + 1] if k + 1 < len(amounts) and amounts[k + 1].sentence == amt.sentence else None
    lo = prev.stop if prev else amt.sentence[0]
    hi = nxt.start if nxt else amt.sentence[1]
    if amt.line != amt.sentence and text[amt.line[0] : amt.line[1]].lstrip().startswith("|"):
        lo, hi = max(lo, amt.line[0]), min(hi, amt.line[1])  # a table cell's text stays in its row
    return time_mark(text, (lo, amt.start), (amt.stop, hi), context, follows_amount=prev is not None)
