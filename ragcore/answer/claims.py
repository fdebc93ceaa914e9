"""Disagreements the question itself points at.

Some questions name what the sources might disagree on, and then the pair
to look for is given by the question rather than by the two sentences:

- **alternatives**: "within 1 hour or 4 hours?", "30 or 60 days?", "minutes,
  as marketing says, or weeks?": one document stating the first
  alternative and another stating the second disagree (when the
  alternatives are the kind of answer asked for: "How much do we save by
  paying two or three years up front?" asks an amount, so its years are a
  condition, not the question);
- **an absolute claim** in a yes/no question ("Do we guarantee 99.99%
  uptime?", "Are documents encrypted at all times?", "Does Starter really
  include unlimited workflows?"): a document affirming the absolute and
  another denying it contradict each other by the shared rule
  (``ragcore.lenses.contradiction``); "unlimited X" is also denied by a
  document stating a number of X ("up to 10 active workflows"). A
  wh-question using the word ("What uptime does the SLA guarantee?") asks
  for the value, not whether the claim holds, and is left alone;
- **a figure the question quotes** and asks about ("quoted $1,199 a month -
  is that the right price?"): a chosen sentence stating that figure and
  one from another document stating a different figure of the same kind.

Each side must share at least one of the question's topic words beyond the
alternatives and the absolute itself, so the pair is about what was asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ragcore.lenses.contradiction import contradicts, statement
from ragcore.text import NUMBER_WORD_PATTERN, NUMBER_WORDS, content_words

from .disagreement import Disagreement, asks_agreement, figure_conflict, figures
from .relevance import topic_words
from .units import Unit

_DURATION = r"(?:minutes?|hours?|days?|weeks?|months?|years?)"
_NUM = r"\d+(?:\.\d+)?|" + NUMBER_WORD_PATTERN
# "1 hour or 4 hours", "30 or 60 days"
_VALUE_OR = re.compile(rf"\b({_NUM})(?:[\s-]+({_DURATION}))?\s+or\s+({_NUM})[\s-]+({_DURATION})\b", re.I)
# "minutes, as marketing says, or weeks"
_UNIT_OR = re.compile(rf"\b({_DURATION})\b[^?]{{0,40}}?\bor\s+(?:in\s+)?({_DURATION})\b", re.I)
_YES_NO = re.compile(
    r"^(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|may|must)\b"
    r"|[-–—,;]\s*(?:is|are|does|do|can|will)\s+(?:that|it|this|they)\b",
    re.I,
)


def is_yes_no(question: str) -> bool:
    """Whether the question asks yes or no ("Do we guarantee ...?", "..., is that right?")."""
    return _YES_NO.search(question.strip()) is not None


# Absolute wording a yes/no question may ask about, and the plain form of each.
CLAIM_TERMS = (
    r"guarantee[sd]?|guaranteeing",
    r"at all times|always|never",
    r"unlimited",
)
# Share of the question's topic words (idf-weighted) each side of a figure
# pair must state (chosen in scripts/answer_study.py; docs/decisions.md).
SUBJECT_COVERAGE = 0.3
_DENIED_BEFORE = re.compile(r"\b(?:not|no|never)\s+(?:\w+\s+)?$", re.I)


@dataclass(frozen=True)
class Alternative:
    value: float | None  # None: the unit alone ("minutes")
    unit: str  # singular: "hour", "day", "week"


def _value(raw: str) -> float:
    word = raw.lower()
    return float(NUMBER_WORDS[word]) if word in NUMBER_WORDS else float(raw)


def _unit(raw: str) -> str:
    return raw.lower().rstrip("s")


def alternatives(question: str) -> tuple[Alternative, Alternative] | None:
    """The two alternatives a question offers ("1 hour or 4 hours"), if any."""
    m = _VALUE_OR.search(question)
    if m:
        second = _unit(m.group(4))
        first = _unit(m.group(2)) if m.group(2) else second
        return Alternative(_value(m.group(1)), first), Alternative(_value(m.group(3)), second)
    m = _UNIT_OR.search(question)
    if m and _unit(m.group(1)) != _unit(m.group(2)):
        return Alternative(None, _unit(m.group(1))), Alternative(None, _unit(m.group(2)))
    return None


def states(text: str, alt: Alternative) -> bool:
    """Whether ``text`` states the alternative (and does not deny it: "not weeks")."""
    unit = rf"(?:business\s+)?{alt.unit}s?\b"
    if alt.value is None:
        pattern = re.compile(rf"(?:\b(?:{_NUM})[\s-]+)?{unit}", re.I)
    else:
        pattern = re.compile(rf"\b({_NUM})[\s-]+{unit}", re.I)
    for m in pattern.finditer(text):
        if _DENIED_BEFORE.search(text[max(0, m.start() - 16) : m.start()]):
            continue
        if alt.value is None or _value(m.group(1)) == alt.value:
            return True
    return False


def _about(unit: Unit, wanted: frozenset[str]) -> bool:
    return bool(content_words(unit.text) & wanted)


def _alternative_pair(question: str, units: Sequence[Unit], cue: str) -> Disagreement | None:
    alts = alternatives(question)
    if alts is None or cue not in {"none", "duration"}:
        return None
    own = content_words(" ".join(f"{a.unit}s {a.unit}" for a in alts))
    wanted = topic_words(question) - own - {w for w in topic_words(question) if w[:1].isdigit()}
    first = [
        u for u in units if states(u.text, alts[0]) and not states(u.text, alts[1]) and _about(u, wanted)
    ]
    second = [
        u for u in units if states(u.text, alts[1]) and not states(u.text, alts[0]) and _about(u, wanted)
    ]
    for a in first:
        for b in second:
            if a.doc != b.doc:
                return Disagreement("conflict", a, b)
    return None


def _count_denies_unlimited(noun: str, text: str) -> bool:
    """ "up to 10 active workflows" against "unlimited workflows"."""
    if re.search(r"\bno limit\b|\bunlimited\b", text, re.I):
        return False
    return re.search(rf"\b(?:{_NUM})\s+(?:[a-z]+\s+)?{noun}", text, re.I) is not None


def _absolute_pair(question: str, units: Sequence[Unit]) -> Disagreement | None:
    if not _YES_NO.search(question.strip()):
        return None
    for term in CLAIM_TERMS:
        anchor = re.compile(rf"(?<![\w-])(?:{term})(?![\w-])", re.I)
        if not anchor.search(question):
            continue
        wanted = topic_words(question) - topic_words(" ".join(anchor.findall(question)))
        affirming = [
            u
            for u in units
            if anchor.search(u.text)
            and _about(u, wanted)
            and (s := statement(u.text, term)).asserted
            and not s.denies
        ]
        noun = re.search(r"\bunlimited\s+(\w+?)s?\b", question, re.I) if term == "unlimited" else None
        for a in affirming:
            for b in units:
                if b.doc == a.doc or not _about(b, wanted):
                    continue
                if anchor.search(b.text) and contradicts(a.text, b.text, term):
                    return Disagreement("contradiction", a, b)
                if noun and _count_denies_unlimited(noun.group(1), b.text):
                    return Disagreement("contradiction", a, b)
    return None


def _figure_pair(question: str, chosen: Sequence[Unit]) -> Disagreement | None:
    asked = figures(question, by_word=False)
    if not asked or not asks_agreement(question):
        return None
    for kind, values in asked.items():
        stating = [u for u in chosen if values & figures(u.text, by_word=False).get(kind, set())]
        other = [u for u in chosen if figures(u.text, by_word=False).get(kind, set()) - values]
        for a in stating:
            for b in other:
                if a.doc != b.doc and not values & figures(b.text, by_word=False).get(kind, set()):
                    return Disagreement("conflict", a, b)
    return None


def _subject_pair(
    question: str, units: Sequence[Unit], coverage: Callable[[Unit], float], min_coverage: float
) -> Disagreement | None:
    """A yes/no question asking whether sources agree ("Are backups deleted
    at the same time as the workspace?"): two documents stating different
    figures of one kind (the relaxed rule of ``disagreement``), each stating
    at least ``min_coverage`` of the question's topic words (idf-weighted)."""
    if not (_YES_NO.search(question.strip()) and asks_agreement(question)):
        return None
    pool = [u for u in units if coverage(u) >= min_coverage]
    for i, a in enumerate(pool):
        for b in pool[i + 1 :]:
            if figure_conflict(a, b, relaxed=True):
                return Disagreement("conflict", a, b)
    return None


def question_disagreements(
    question: str,
    units: Sequence[Unit],
    chosen: Sequence[Unit],
    cue: str,
    coverage: Callable[[Unit], float],
    min_coverage: float = SUBJECT_COVERAGE,
) -> list[Disagreement]:
    """The disagreement the question points at, if the documents hold one
    (``units`` in order of relevance; ``chosen``: the units the answer
    quotes; ``coverage``: the share of the question's topic words a unit states)."""
    for found in (
        _alternative_pair(question, units, cue),
        _absolute_pair(question, units),
        _figure_pair(question, chosen),
        _subject_pair(question, units, coverage, min_coverage),
    ):
        if found is not None:
            return [found]
    return []
