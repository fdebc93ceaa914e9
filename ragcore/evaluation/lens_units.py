"""Units of lens gold figures in one written form, so a gold file's "per GB
per month" and the lens's "GB/month" compare equal (the normalisation rule
of ``docs/lens-gold-format.md``)."""

from __future__ import annotations

import re

_UNIT_SYNONYMS = {
    "mo": "month",
    "mth": "month",
    "monthly": "month",
    "yr": "year",
    "annum": "year",
    "annual": "year",
    "annually": "year",
    "yearly": "year",
    "hr": "hour",
    "hourly": "hour",
    "daily": "day",
    "weekly": "week",
    "seat": "user",
    "member": "user",
    "team member": "user",
    "person": "user",
    "people": "user",
    "license": "user",
    "licence": "user",
    "editor": "user",
    "agent": "user",
}
_DROPPED = frozenset({"a", "an", "each", "every"})


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


_COUNT_SCALES = {"k": 10**3, "thousand": 10**3, "m": 10**6, "million": 10**6, "b": 10**9, "billion": 10**9}
_SCALED_COUNT = re.compile(r"(\d+(?:\.\d+)?)(k|m|b)")


def _expanded_count(words: list[str]) -> list[str]:
    """A unit's count in digits: "100k pageviews", "1 million requests" and
    "million requests" all count as digits ("100000", "1000000")."""
    if len(words) < 2:
        return words
    first, scale = words[0], 1
    if (m := _SCALED_COUNT.fullmatch(first)) is not None:
        first, scale = m.group(1), _COUNT_SCALES[m.group(2)]
    elif first in _COUNT_SCALES and len(first) > 1:
        first, scale = "1", _COUNT_SCALES[first]
    rest = words[1:]
    if rest[0] in _COUNT_SCALES and len(rest[0]) > 1 and len(rest) > 1:
        scale, rest = scale * _COUNT_SCALES[rest[0]], rest[1:]
    if scale == 1 or not re.fullmatch(r"\d+(?:\.\d+)?", first):
        return words
    value = float(first) * scale
    return [str(int(value)) if value == int(value) else f"{value:g}", *rest]


def normalise_unit(unit: str | None) -> str | None:
    """The comparison form of a unit: "per GB per month" and "GB/mo" are both "gb/month"."""
    if unit is None:
        return None
    parts: list[str] = []
    for raw in re.split(r"/|\bper\b", unit.lower()):
        words = _expanded_count([w for w in raw.replace(",", "").split() if w not in _DROPPED])
        if not words:
            continue
        words[-1] = _singular(words[-1])
        part = " ".join(words)
        parts.append(_UNIT_SYNONYMS.get(part, part))
    if not parts or parts == ["one-time"]:
        return None
    return "/".join(parts)
