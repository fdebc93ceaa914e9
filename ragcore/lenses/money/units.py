"""Units and periods written beside an amount: ``/month``, ``per seat``,
``per 1,000 requests``, ``billed annually``, ``a one-time fee of``."""

from __future__ import annotations

import re

_PERIOD_WORDS = {
    "hour": "hour",
    "hr": "hour",
    "day": "day",
    "week": "week",
    "wk": "week",
    "month": "month",
    "mo": "month",
    "mth": "month",
    "mon": "month",
    "quarter": "quarter",
    "qtr": "quarter",
    "year": "year",
    "yr": "year",
    "annum": "year",
}
_ADVERBS = {
    "hourly": "hour",
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annually": "year",
    "annual": "year",
    "p.a.": "year",
}
_UNIT_WORDS = {
    "seat": "user",
    "user": "user",
    "member": "user",
    "team member": "user",
    "person": "user",
    "head": "user",
    "agent": "user",
    "license": "user",
    "licence": "user",
    "employee": "user",
    "editor": "user",
    "gb": "GB",
    "gigabyte": "GB",
    "tb": "TB",
    "terabyte": "TB",
    "mb": "MB",
    "megabyte": "MB",
}
_PERIOD_ORDER = ("hour", "day", "week", "month", "quarter", "year")

_SEGMENT = re.compile(
    r"\s*(?P<sep>/|\bper\b|\ba\b|\ban\b|\beach\b|\bevery\b)\s*"
    r"(?P<count>\d[\d,]*(?:\.\d+)?\s*)?(?P<word>team\s+members?|[A-Za-z]+)(?P<dot>\.)?",
    re.IGNORECASE,
)
_ADVERB_AFTER = re.compile(
    r"\s*,?\s*(?:(?:paid|billed|charged|payable)\s+)?(?P<adv>hourly|daily|weekly|monthly|quarterly|yearly|annually|p\.a\.)",
    re.IGNORECASE,
)
_FOR_PERIOD = re.compile(
    r"\s*,?\s*for\s+(?:the|a|one|1)?\s*(?:full|whole|entire|first|single)?\s*"
    r"(?P<p>year|month|week|day|12\s+months|twelve\s+months)\b",
    re.IGNORECASE,
)
_ONE_TIME_AFTER = re.compile(r"\s*(?:one[- ]time|one[- ]off)\b", re.IGNORECASE)
# Period written before the amount: "a one-time fee of $25", "monthly price: $20",
# "price per user is $5".
_PERIOD_BEFORE = re.compile(
    r"\b(?P<adv>hourly|daily|weekly|monthly|quarterly|yearly|annual|one[- ]time|one[- ]off)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:of|is|was|at|for|:|=|-)?\s*$"
    r"|\bper[- ](?P<unit>seat|user|month|year|hour|day|week)\b\s*(?:[\w-]+\s+){0,1}?(?:of|is|was|at|:|=|-)?\s*$",
    re.IGNORECASE,
)


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _unit_name(word: str) -> tuple[str, str] | None:
    """("period"|"unit", normalised name) for a word after "per" or "/"."""
    w = re.sub(r"\s+", " ", word.lower())
    w1 = _singular(w) if not w.startswith("team member") else "team member"
    if w1 in _PERIOD_WORDS:
        return "period", _PERIOD_WORDS[w1]
    if w in _ADVERBS:
        return "period", _ADVERBS[w]
    if w1 in _UNIT_WORDS:
        return "unit", _UNIT_WORDS[w1]
    return None


def _format_period(units: list[str], periods: list[str]) -> str | None:
    parts = list(dict.fromkeys(units)) + sorted(set(periods), key=_PERIOD_ORDER.index)
    return "/".join(parts) if parts else None


def _read_period(text: str, end: int, line_end: int) -> tuple[str | None, int]:
    """Unit and period written right after an amount; returns (period, end offset)."""
    units: list[str] = []
    periods: list[str] = []
    pos = end
    while True:
        m = _SEGMENT.match(text, pos, line_end)
        if not m:
            break
        sep = m.group("sep").lower()
        named = _unit_name(m.group("word"))
        count = (m.group("count") or "").strip()
        if named is None:
            if sep not in ("/", "per") or m.group("word").lower() in (
                "the",
                "and",
                "or",
                "if",
                "for",
            ):
                break
            # any other unit after "per"/"/": "per 1,000 requests", "/GB", "per site"
            word = m.group("word")
            name = word.upper() if word.isupper() else _singular(word.lower())
            named = ("unit", name)
        kind, name = named
        if kind == "unit" and count:
            name = f"{count.replace(',', '')} {name}"
        (units if kind == "unit" else periods).append(name)
        pos = (
            m.end()
            if m.group("dot") and m.group("word").lower() in ("mo", "yr", "hr", "mth")
            else m.end("word")
        )
    if not periods:
        m = _ADVERB_AFTER.match(text, pos, line_end) or _FOR_PERIOD.match(text, pos, line_end)
        if m is not None:
            word = (m.groupdict().get("adv") or m.groupdict().get("p") or "").lower()
            periods.append(
                "year" if "12" in word or "twelve" in word else _ADVERBS.get(word, _PERIOD_WORDS.get(word))
            )
            pos = m.end()
        elif not units and (m := _ONE_TIME_AFTER.match(text, pos, line_end)):
            periods.append("one-time")
            pos = m.end()
    if "one-time" in periods:
        return "one-time", pos
    return _format_period(units, periods), pos


def _period_before(prefix: str) -> str | None:
    m = _PERIOD_BEFORE.search(prefix[-60:])
    if not m:
        return None
    if m.group("unit"):
        named = _unit_name(m.group("unit"))
        return named[1] if named else None
    adv = m.group("adv").lower().replace(" ", "-")
    if adv in ("one-time", "one-off"):
        return "one-time"
    return _ADVERBS.get(adv)
