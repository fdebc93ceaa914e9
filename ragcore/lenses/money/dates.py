"""Time around an amount: dates, "from"/"until", "previous"/"now", dated documents.

A figure is placed in time by what its own stretch of text says: a date
after it ("$0.15 / GB / month from March 3, 2024", "$18.4M at 31 December
2025") or before it ("Cash at the end of January was $21.0M"), with the
preposition deciding whether the date starts, ends or dates the figure; and
by words just before it that mark it as past ("previous rate:", "was", "up
from") or current ("now", "new"). A document is dated by its file name
("minutes-2026-02-24", "_v202212") or a "Last updated" line; a month without
a year takes the latest such month not after the document's date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

Edge = Literal["start", "end", "as-of"]
Tense = Literal["past", "current"]
Precision = Literal["day", "month", "quarter", "year"]

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            "jan january",
            "feb february",
            "mar march",
            "apr april",
            "may",
            "jun june",
            "jul july",
            "aug august",
            "sep sept september",
            "oct october",
            "nov november",
            "dec december",
        ),
        start=1,
    )
    for m in names.split()
}
_MONTH = r"(?P<{g}>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_DATE = re.compile(
    r"\b(?P<iy>(?:19|20)\d\d)-(?P<im>[01]\d)-(?P<id>[0-3]\d)\b"
    rf"|\b{_MONTH.format(g='m1')}\s+(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?(?:,\s*|\s+)(?P<y1>(?:19|20)\d\d)\b"
    rf"|\b(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH.format(g='m2')}(?:,?\s+(?P<y2>(?:19|20)\d\d))?\b"
    rf"|\b{_MONTH.format(g='m3')}(?:\s+(?P<y3>(?:19|20)\d\d))?\b",
    re.IGNORECASE,
)
# The word before a date that says what the date does to the figure.
_EDGE_BEFORE = re.compile(
    r"(?P<start>\b(?:from|since|effective(?:\s+(?:from|on|as\s+of))?|starting(?:\s+on)?|beginning(?:\s+on)?|as\s+of|after))"
    r"|(?P<end>\b(?:until|till|through|to|ending(?:\s+on)?|expir(?:es|ing)(?:\s+on)?|before|up\s+to))"
    r"\s*(?:the\s+)?(?:(?:end|start|beginning)\s+of\s+)?$",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:previous(?:ly)?|prior|old|former(?:ly)?|earlier|was|were|used\s+to\s+be|up\s+from|down\s+from|"
    r"compared\s+(?:to|with)|"  # "$3.3 billion compared to $2.9 billion a year before": the comparator is past
    r"(?:rose|grew|increased|fell|dropped|decreased|went|changed|moved|raised|cut|lowered)\s+from)\b[^$€£¥\d]{0,24}$",
    re.IGNORECASE,
)
_CURRENT = re.compile(r"\b(?:now|currently|current|new|today)\b[^$€£¥\d]{0,24}$", re.IGNORECASE)
_DOC_DATE_LINE = re.compile(
    r"\b(?:last\s+updated|updated|effective(?:\s+date)?|dated?|as\s+of)\b\s*:?\s*", re.I
)
# a date in a file name stands apart from letters and digits after it: "lyft_2021_10k" holds no month
_NAME_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_]?([01]\d)(?:[-_]?([0-3]\d))?(?![A-Za-z0-9])")
_NAME_NEWEST = re.compile(r"(?:^|[-_.\s])(?:head|current|latest)(?:[-_.\s]|$)", re.IGNORECASE)


@dataclass(frozen=True)
class DateMatch:
    start: int
    end: int
    year: int | None
    month: int
    day: int | None

    def resolve(self, context: date | None) -> date | None:
        """The date, a missing year taken from ``context`` (the latest such
        month not after it); None when no year can be found."""
        year = self.year
        if year is None:
            if context is None:
                return None
            year = (
                context.year
                if (self.month, self.day or 1) <= (context.month, context.day)
                else context.year - 1
            )
        try:
            return date(year, self.month, self.day or 1)
        except ValueError:
            return None


def find_dates(text: str) -> list[DateMatch]:
    """Dates written in ``text``: ISO, "March 3, 2024", "3 March 2024", "December 2025", "11 February"."""
    out: list[DateMatch] = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        if g["iy"]:
            out.append(DateMatch(m.start(), m.end(), int(g["iy"]), int(g["im"]), int(g["id"])))
            continue
        month_word = (g["m1"] or g["m2"] or g["m3"]).lower().rstrip(".")
        if g["m3"] and month_word == "may" and not g["y3"]:
            continue  # the verb "may"
        year = g["y1"] or g["y2"] or g["y3"]
        day = g["d1"] or g["d2"]
        if not (1 <= int(day or 1) <= 31):
            continue
        out.append(
            DateMatch(
                m.start(),
                m.end(),
                int(year) if year else None,
                _MONTHS[month_word],
                int(day) if day else None,
            )
        )
    return out


@dataclass(frozen=True)
class TimeMark:
    """What a figure's own text says about when it holds. A year alone
    ("in 2020", a table's year column) is dated to its last day with
    ``precision`` "year": the figure is of that (fiscal) year."""

    when: date | None = None
    edge: Edge | None = None
    tense: Tense | None = None
    precision: Precision = "day"


def year_mark(year: int, tense: Tense | None = None) -> TimeMark:
    """The mark of a figure of one (fiscal) year."""
    return TimeMark(date(year, 12, 31), "as-of", tense, "year")


def quarter_mark(year: int, quarter: int) -> TimeMark:
    """The mark of a figure of one quarter ("Q3 2021"): dated to the quarter's last day."""
    last = date(year + 1, 1, 1) if quarter == 4 else date(year, 3 * quarter + 1, 1)
    return TimeMark(date.fromordinal(last.toordinal() - 1), "as-of", None, "quarter")


# A bare year that dates the figure beside it: "$1.8 billion in 2020", "for
# fiscal 2021", "in fiscal year 2020", "FY2021", run-together "in2021". Not a
# year in "2021 dollars" (a price level), nor one that is part of a number.
_YEAR_PHRASE = re.compile(
    r"(?:\b(?:in|for|during)\s*(?:(?:the\s+)?(?:fiscal|financial)\s+(?:year\s+)?)?"
    r"|\b(?:fiscal|financial)\s+(?:year\s+)?|\bFY\s?)"
    r"(?P<y>(?:19|20)\d\d)(?![\d%]|[,.]\d|\s?%|\s*[-–]\s*\d|\s+(?:dollars?|levels?|prices?|terms)\b)",
    re.IGNORECASE,
)


def _year_right_after(tail: str) -> int | None:
    """The year of a year phrase that directly follows an amount ("$X in 2020")."""
    m = _YEAR_PHRASE.search(tail)
    return int(m.group("y")) if m is not None and not tail[: m.start()].strip(" \t\n,") else None


def _edge(prefix: str) -> Edge:
    m = _EDGE_BEFORE.search(prefix[-40:])
    if m is None:
        return "as-of"
    return "start" if m.group("start") else "end"


def time_mark(
    text: str,
    before: tuple[int, int],
    after: tuple[int, int],
    context: date | None,
    follows_amount: bool = False,
) -> TimeMark:
    """The time of an amount from its stretch of text: ``before`` is the text
    from the stretch start to the amount, ``after`` from the amount's end to
    the stretch end. A date after the amount wins over one before it; when the
    stretch starts at another amount (``follows_amount``), a date before a
    past marker belongs to that other amount."""
    head = text[before[0] : before[1]]
    past = _PAST.search(head[-60:])
    tense: Tense | None = "past" if past else "current" if _CURRENT.search(head[-40:]) else None
    if past is not None and follows_amount:
        # "$18.4M at 31 December 2025, up from $12.9M": the date before the marker is the other amount's
        before = (before[1] - len(head[-60:]) + past.start(), before[1])
    # the clause after the amount, up to a semicolon or a dash that starts another clause
    tail_end = after[1]
    cut = re.search(r";|\s[―—]\s", text[after[0] : after[1]])
    if cut is not None and cut.start() > 0:
        tail_end = after[0] + cut.start()
    tail = text[after[0] : tail_end]
    year = _year_right_after(tail)
    if year is not None:
        return year_mark(year, tense)  # "$1.8 billion in 2020": nearer than any date after it
    dates = find_dates(tail)
    if dates:
        return _date_mark(dates[0], text[after[0] : after[0] + dates[0].start], context, tense)
    lead = text[before[0] : before[1]]
    dates = find_dates(lead)
    years = [] if follows_amount else list(_YEAR_PHRASE.finditer(lead))  # else the other amount's
    if years and (not dates or years[-1].start() >= dates[-1].end):
        return year_mark(int(years[-1].group("y")), tense)
    if dates:
        return _date_mark(dates[-1], lead[: dates[-1].start], context, tense)
    return TimeMark(None, None, tense)


def _date_mark(d: DateMatch, before_date: str, context: date | None, tense: Tense | None) -> TimeMark:
    edge = _edge(before_date)
    if edge == "end" and tense is None:
        tense = "past"
    return TimeMark(d.resolve(context), edge, tense, "day" if d.day is not None else "month")


def document_date(name: str, head: str = "") -> date | None:
    """The date of a document: in its file name, else a "Last updated" line
    in ``head`` (its first lines)."""
    stem = name.rsplit("/", 1)[-1]
    m = _NAME_DATE.search(stem)
    if m is not None:
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
        try:
            return date(year, month, day)
        except ValueError:
            pass
    for line in head.split("\n")[:40]:
        label = _DOC_DATE_LINE.search(line)
        if label is None:
            continue
        found = [d for d in find_dates(line[label.end() :]) if d.year is not None]
        if found:
            return found[0].resolve(None)
    return None


def document_family(name: str) -> str:
    """A document's name without dates, versions or "HEAD"/"current": dated
    versions of one document share it."""
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    stem = _NAME_DATE.sub("", stem)
    stem = re.sub(
        r"(?:^|[-_.\s])(?:v\d+(?:\.\d+)*|head|current|latest|[0-9a-f]{7,40})(?=[-_.\s]|$)", "", stem
    )
    return re.sub(r"[-_.\s]+", "-", stem).strip("-")


def is_newest_version(name: str) -> bool:
    """Whether a file name marks the newest version ("HEAD", "current", "latest")."""
    return _NAME_NEWEST.search(name.rsplit("/", 1)[-1].rsplit(".", 1)[0]) is not None
