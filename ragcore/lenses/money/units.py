"""Units and periods written beside an amount: ``/month``, ``per seat``,
``per 1,000 requests``, ``billed annually``, ``a one-time fee of``."""

from __future__ import annotations

import re

_PERIOD_WORDS = {
    "second": "second",
    "sec": "second",
    "minute": "minute",
    "min": "minute",
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
_PERIOD_ORDER = ("second", "minute", "hour", "day", "week", "month", "quarter", "year")
PERIODS = frozenset(_PERIOD_ORDER) | {"one-time"}

_SEGMENT = re.compile(
    # "for each hour", "for every 1,000 requests": "per" written out
    r"[*_`]*\s*(?P<sep>/|\bper\b|\ba\b|\ban\b|(?:\bfor\s+)?\beach\b|(?:\bfor\s+)?\bevery\b)\s*"
    # "per additional 10,000 events", "per 100k pageviews", "per million requests"
    r"(?:(?:additional|extra|further)\s+)?"
    r"(?P<count>(?:\d[\d,]*(?:\.\d+)?\s*(?P<mult>[kmb](?![a-z])|thousand|million|billion)?"
    r"|(?P<multword>thousand|million|billion)(?=\s+[a-z]))\s*)?"
    r"(?P<word>team\s+members?|[A-Za-z]+)(?P<dot>\.)?"
    # "GB-month": a unit per period in one word
    r"(?:-(?P<hyphen>second|minute|hour|day|week|month|year)\b)?",
    re.IGNORECASE,
)
# "a year earlier", "a month ago": a time reference, not a period of the price
_RELATIVE_TIME = re.compile(
    r"\s+(?:earlier|ago|later|prior|previously)\b|\s+(?:before|after)(?=\s*(?:[,.;)]|$))", re.IGNORECASE
)
_ADVERB_AFTER = re.compile(
    r"\s*,?\s*(?:(?:paid|billed|charged|payable)\s+)?(?P<adv>hourly|daily|weekly|monthly|quarterly|yearly|annually|p\.a\.)",
    re.IGNORECASE,
)
_FOR_PERIOD = re.compile(
    r"\s*,?\s*for\s+(?:the|a|one|1)?\s*(?:full|whole|entire|first|single)?\s*"
    r"(?P<p>year|month|week|day|12\s+months|twelve\s+months)\b"
    # "for the year ended June 30, 2024" names the period reported, not a rate
    r"(?!\s*(?:then\s+)?end(?:ed|ing)(?-i:(?![a-z])))",
    re.IGNORECASE,
)
_ONE_TIME_AFTER = re.compile(r"\s*(?:one[- ]time|one[- ]off)\b", re.IGNORECASE)
# Period written before the amount: "a one-time fee of $25", "monthly price: $20",
# "price per user is $5".
_PERIOD_BEFORE = re.compile(
    r"\b(?P<adv>hourly|daily|weekly|monthly|quarterly|yearly|annual|one[- ]time|one[- ]off)\s+"
    r"(?:[\w-]+\s+){0,4}?(?:of|is|was|at|for|to|about|around|:|=|-)?\s*$"
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


_CODE_BEFORE_UNIT = re.compile(r"\s?(?-i:[A-Z]{3})(?=\s?(?:/|per\b))")
_NOT_UNITS = frozenset({"the", "and", "or", "if", "for"})


def _segment_name(m: re.Match) -> tuple[str, str] | None:
    """("unit"|"period", name) of one "/ GB" or "per 1,000 requests" segment,
    or None when the segment is not a unit."""
    sep = " ".join(m.group("sep").lower().split())
    named = _unit_name(m.group("word"))
    counted = sep in ("each", "every", "for each", "for every") and bool(m.group("count"))
    if named is None:
        # any word after "/" or "per", or after a count: "for every 1,000 requests"
        if (sep not in ("/", "per") and not counted) or m.group("word").lower() in _NOT_UNITS:
            return None
        word = m.group("word")
        named = ("unit", word.upper() if word.isupper() else _singular(word.lower()))
    kind, name = named
    count = _count(m)
    if kind == "unit" and count:
        name = f"{count} {name}"
    return kind, name


_COUNT_SCALE = {"k": 1000, "thousand": 1000, "m": 10**6, "million": 10**6, "b": 10**9, "billion": 10**9}


def _count(m: re.Match) -> str:
    """The count of a unit as digits: "1,000" -> "1000", "100k" -> "100000", "million" -> "1000000"."""
    if m.group("multword"):
        return str(_COUNT_SCALE[m.group("multword").lower()])
    digits = (m.group("count") or "").strip().replace(",", "")
    mult = m.group("mult")
    if not digits or not mult:
        return digits
    number = digits[: -len(mult)].strip()
    value = float(number) * _COUNT_SCALE[mult.lower()]
    return str(int(value)) if value == int(value) else f"{value:g}"


def read_per(text: str, end: int, bound: int) -> tuple[str | None, int]:
    """Unit and period written right after an amount ending at ``end``, read
    no further than ``bound``: ("GB/month", end offset), ("one-time", ...) or
    (None, end)."""
    units: list[str] = []
    periods: list[str] = []
    pos = end
    if (code := _CODE_BEFORE_UNIT.match(text, pos, bound)) is not None:
        pos = code.end()  # "$99 USD/month": the currency restated before the unit
    while (m := _SEGMENT.match(text, pos, bound)) is not None:
        if m.group("sep").lower() in ("a", "an") and _RELATIVE_TIME.match(text, m.end("word"), bound):
            break  # "up from $12.9M a year earlier"
        named = _segment_name(m)
        if named is None:
            break
        (units if named[0] == "unit" else periods).append(named[1])
        if m.group("hyphen"):
            periods.append(_PERIOD_WORDS[m.group("hyphen").lower()])
        abbreviated = m.group("dot") and m.group("word").lower() in ("mo", "yr", "hr", "mth")
        pos = m.end() if abbreviated or m.group("hyphen") else m.end("word")
    if not periods:
        m = _ADVERB_AFTER.match(text, pos, bound) or _FOR_PERIOD.match(text, pos, bound)
        if m is not None:
            word = (m.groupdict().get("adv") or m.groupdict().get("p") or "").lower()
            periods.append(
                "year" if "12" in word or "twelve" in word else _ADVERBS.get(word, _PERIOD_WORDS.get(word))
            )
            pos = m.end()
        elif not units and (m := _ONE_TIME_AFTER.match(text, pos, bound)):
            periods.append("one-time")
            pos = m.end()
    if "one-time" in periods:
        return "one-time", pos
    return _format_period(units, periods), pos


def split_per(per: str | None) -> tuple[str | None, str | None]:
    """("GB", "month") for "GB/month": the unit and the period of a rate."""
    if per is None:
        return None, None
    parts = per.split("/")
    unit = "/".join(p for p in parts if p not in PERIODS) or None
    period = "/".join(p for p in parts if p in PERIODS) or None
    return unit, period


def per_before(prefix: str) -> str | None:
    """The unit or period written just before an amount: "a one-time fee of",
    "hourly rate of", "monthly net burn fell to about"."""
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
