"""Disagreements an extractive answer points out, with both sides cited.

Two kinds, each claimed only between units that answer the question:

- a **conflict**: two documents state different figures of one kind (money,
  percentages, durations with one time unit, counts of one thing) for the
  same subject: "within 1 hour" against "within 4 hours" for a first
  response on Business;
- a **contradiction**: by the project's one rule
  (``ragcore.lenses.contradiction``): same subject, one affirms what the
  other denies; two denials, or a claim and its restatement, never count.

The same subject is judged on the units' topic words once their figures are
set aside (``same_subject``): a large share must be shared, because two
sentences about different plans or different dates also differ in figures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ragcore.lenses.contradiction import contradicts, precedence_conflict
from ragcore.text import NUMBER_WORD_PATTERN, NUMBER_WORDS, content_words

from .units import Unit, clean

DisagreementKind = Literal["conflict", "contradiction", "change"]
# Share of the smaller unit's topic words that both must state (chosen on the
# demo conflict questions' dev folds; docs/decisions.md).
SUBJECT_OVERLAP = 0.6
MIN_SHARED = 3  # topic words both must state
RELAXED_SHARED = 2  # ... when the question itself asks whether the sources agree
# Commitments whose plain and denied forms contradict on their own term, as
# the risk lens compares them (``lenses.risk._CLAIM_PATTERN``). Other absolutes
# ("always", "never", "unlimited") are compared, as the lens compares them, on
# what they state: "never lose data" says nothing of what is "always better".
ABSOLUTES = (
    r"guarantee[sd]?|guaranteeing",
    r"warrant(?:y|ies)",
    r"promise[sd]?",
)
_FIGURE = re.compile(
    r"(?P<threshold>\b(?:above|over|below|under|more than|less than|at least|up to)\s+)?"
    r"(?P<money>[$€£]\s?\d[\d,]*(?:\.\d+)?[MKmk]?)(?P<period>\s*(?:/|per|a|an|each)\s*(?:month|year|hour|seat|user)\b)?"
    r"|(?P<percent>\d[\d,]*(?:\.\d+)?\s?%)"
    r"|(?P<num>\d[\d,]*(?:\.\d+)?|" + NUMBER_WORD_PATTERN + ")"
    r"[\s-]+(?P<unit>(?:business\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)|seats?|users?|workflows?|files?)\b",
    re.I,
)
_DATE = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december|q[1-4]|20\d\d)\b",
    re.I,
)


@dataclass(frozen=True)
class Disagreement:
    kind: DisagreementKind
    first: Unit
    second: Unit


def figures(text: str, by_word: bool = True) -> dict[str, set[float]]:
    """Figures by kind: "money", "percent", or a unit ("hour", "day", "seat")."""
    out: dict[str, set[float]] = {}
    for m in _FIGURE.finditer(text):
        if m.group("threshold"):
            continue  # "waived above $60,000": a condition, not the figure itself
        if m.group("money"):
            period = (m.group("period") or "").split()[-1:] or [""]
            kind, raw = f"money/{period[0].strip('/')}", m.group("money").lstrip("$€£ ")
        elif m.group("percent"):
            kind, raw = "percent", m.group("percent").rstrip("% ")
        else:
            kind, raw = m.group("unit").lower().removeprefix("business ").rstrip("s"), m.group("num").lower()
        scale = {"m": 1e6, "k": 1e3}.get(raw[-1:].lower(), 1.0) if kind.startswith("money") else 1.0
        raw = raw.rstrip("MKmk")
        value = NUMBER_WORDS.get(raw) or _number(raw)
        if value is not None:
            # the word before a figure says what it measures ("within 4 hours",
            # "credit of 25%"); figures compare only when it is the same word
            before = re.findall(r"[A-Za-z]+", text[max(0, m.start() - 24) : m.start()])
            key = f"{kind}@{before[-1].lower() if before and by_word else ''}"
            out.setdefault(key, set()).add(value * scale)
    return out


def _number(raw: str) -> float | None:
    try:
        return float(raw.replace(",", ""))
    except ValueError:
        return None


def _topic(text: str) -> set[str]:
    return {w for w in content_words(_FIGURE.sub(" ", text)) if not w[:1].isdigit()}


def same_subject(a: Unit, b: Unit, relaxed: bool = False) -> bool:
    wa, wb = _topic(a.text), _topic(b.text)
    smaller = min(len(wa), len(wb))
    shared = len(wa & wb)
    if relaxed:
        return shared >= RELAXED_SHARED
    return smaller > 0 and shared >= MIN_SHARED and shared >= SUBJECT_OVERLAP * smaller


def figure_conflict(a: Unit, b: Unit, relaxed: bool = False) -> bool:
    """Different figures of one kind for the same subject, in different
    documents, neither sentence dated differently from the other. ``relaxed``
    (the question asks whether sources agree): two shared topic words are
    the same subject, and figures compare whatever word precedes them."""
    if a.doc == b.doc or not same_subject(a, b, relaxed):
        return False
    if not relaxed and (a.kind != "sentence" or b.kind != "sentence"):
        return False
    if a.kind != b.kind:
        return False  # a row's figure is one cell of a case; a sentence's is a claim
    if {d.lower() for d in _DATE.findall(a.text)} != {d.lower() for d in _DATE.findall(b.text)}:
        return False  # figures at different dates are a change, not a disagreement
    fa, fb = figures(a.text, not relaxed), figures(b.text, not relaxed)
    shared = set(fa) & set(fb)
    return any(fa[k].isdisjoint(fb[k]) for k in shared)


def contradiction(a: Unit, b: Unit) -> bool:
    """The one contradiction rule, anchored on a commitment both state, or
    on the predicate one denies and the other states; or two documents
    ranked in opposite orders of precedence."""
    if precedence_conflict(a.text, a.doc, b.text, b.doc):
        return True
    for term in ABSOLUTES:
        pattern = re.compile(rf"(?<![\w-])(?:{term})(?![\w-])", re.I)
        if pattern.search(a.text) and pattern.search(b.text):
            return contradicts(a.text, b.text, term)
    return same_subject(a, b) and contradicts(a.text, b.text)


def disagreements(
    units: Sequence[Unit], relaxed: bool = False, contradictions: bool = True
) -> list[Disagreement]:
    """Disagreeing pairs among ``units`` (each unit in one pair at most);
    without ``contradictions``, figure conflicts only."""
    out: list[Disagreement] = []
    used: set[int] = set()
    for i, a in enumerate(units):
        for j in range(i + 1, len(units)):
            b = units[j]
            if i in used or j in used or a.doc == b.doc:
                continue
            if figure_conflict(a, b, relaxed):
                out.append(Disagreement("conflict", a, b))
            elif contradictions and contradiction(a, b):
                out.append(Disagreement("contradiction", a, b))
            else:
                continue
            used.update((i, j))
    return out


# A question about agreement: "Is our pricing consistent?", "is that the right price?"
_ASKS_AGREEMENT = re.compile(
    r"\b(?:consistent|inconsistent|agree|agrees|disagree\w*|same|match(?:es)?|conflict\w*|contradict\w*|"
    # "right" judges a claim ("is that the right price?"), not "the right to terminate"
    r"differ\w*|right(?!\s+(?:to|of)\b)|correct|accurate|true|really|claims?|says)\b"
    r"|\b\d[\w%$.,-]*(?:\s+\w+)?\s+or\s+\d",  # "1 hour or 4 hours?", "30 or 60 days?"
    re.I,
)


def agreement_words(question: str) -> str:
    """The words of ``question`` that ask whether sources agree ("consistent", "same", ...)."""
    return " ".join(_ASKS_AGREEMENT.findall(question))


def asks_agreement(question: str) -> bool:
    """Whether the question asks if sources agree (then the lens's own
    conflicts answer it, even where no chosen sentence states them)."""
    return _ASKS_AGREEMENT.search(question) is not None


def lens_conflicts(lens, limit: int = 2) -> list[Disagreement]:
    """The money lens's conflicts (one subject and period, different amounts
    in different documents) and changes (each amount current in its own
    period), as pairs of units quoting one mention of each side."""
    out: list[Disagreement] = []
    for conflict in getattr(lens, "conflicts", ())[:limit]:
        sides = []
        for amount in conflict.amounts[:2]:
            # each side's first mention, from another document than the first side's when one exists
            of_amount = [m for m in conflict.mentions if round(m.amount, 4) == amount]
            other = [m for m in of_amount if not sides or m.doc != sides[0].doc]
            m = (other or of_amount)[0]
            sides.append(
                Unit(
                    "sentence",
                    clean(m.text),
                    m.doc,
                    m.first_line,
                    m.last_line,
                    m.label,
                    m.pages,
                    m.hit_rank,
                    None,
                    m.offset,
                )
            )
        kind: DisagreementKind = (
            "change" if getattr(conflict, "relation", "conflict") == "change" else "conflict"
        )
        if len(sides) == 2 and sides[0].doc != sides[1].doc:
            out.append(Disagreement(kind, sides[0], sides[1]))
    return out
