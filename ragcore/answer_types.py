"""The kind of answer a question asks for, and whether a text states one.

A question's wording names the kind of thing that answers it ("how much" an
amount, "how long" a duration, "what uptime" a percentage, "which code" an
identifier, "who" a person or role, "why" a reason); a sentence that states
something of that kind is a candidate answer. Typing the expected answer is
what made early question answering precise (Hovy et al., "Toward
Semantics-Based Answer Pinpointing", HLT 2001; Prager et al., "Question-
Answering by Predictive Annotation", SIGIR 2000). One table of patterns
serves the extractive answer (``answer.relevance``: which sentence answers)
and retrieval (``retrieval.bm25_answer_type``: which passage holds an answer
of the asked kind near the question's words), so both read a question alike.
"""

from __future__ import annotations

import re
from typing import Literal

Cue = Literal[
    "amount", "percent", "duration", "date", "count", "identifier", "person", "place", "reason", "none"
]

# The cues whose answer is a stated value (a figure, a span of time, a date, a
# count): what the value lift of BM25 reads (retrieval.bm25_answer_type).
ValueCue = Literal["amount", "percent", "duration", "date", "count"]
VALUE_CUES: tuple[ValueCue, ...] = ("amount", "percent", "duration", "date", "count")

CUE_PATTERNS: tuple[tuple[Cue, re.Pattern[str]], ...] = (
    # "why" asks for a reason whatever else the question names ("Why does it cost more?")
    ("reason", re.compile(r"\bwhy\b|\bfor what reason\b|\bwhat (?:is|was|were) the reasons?\b", re.I)),
    (
        "identifier",
        re.compile(
            r"\b(?:which|what)\b.{0,40}\b(?:code|version|release|section|clause|number|id|identifier|advisory|reference|cipher|standard)\b",
            re.I,
        ),
    ),
    (
        "percent",
        re.compile(
            r"\b(?:what|which)\b.{0,30}\b(?:percent(?:age)?|share|uptime|margin|rate of|discount|surcharge)\b|\bhow much\b.{0,20}\b(?:off|discount)\b",
            re.I,
        ),
    ),
    # "how much notice / time / warning" asks for a duration, not an amount
    ("duration", re.compile(r"\bhow much (?:notice|time|warning|advance notice|lead time)\b", re.I)),
    (
        "amount",
        re.compile(
            r"\bhow much\b|\b(?:cost|costs|price|prices|priced|fee|fees|charge|charges|pay|owe|expensive|cheaper|save|money|rate)\b",
            re.I,
        ),
    ),
    ("duration", re.compile(r"\bhow (?:long|soon|quickly|fast|often)\b|\bwithin\b", re.I)),
    ("date", re.compile(r"\bwhen\b|\bwhat date\b|\bby when\b", re.I)),
    ("count", re.compile(r"\bhow many\b|\bhow big\b|\bnumber of\b", re.I)),
    ("person", re.compile(r"\bwho\b|\bwhose\b", re.I)),
    ("place", re.compile(r"\bwhere\b|\bwhich (?:city|country|region)\b", re.I)),
)
NUMBER = r"\d[\d,]*(?:\.\d+)?"
ANSWER_PATTERNS: dict[Cue, re.Pattern[str]] = {
    "amount": re.compile(rf"[$€£]\s?{NUMBER}|{NUMBER}\s?%|\b{NUMBER}\s+(?:dollars|euros|per)\b", re.I),
    "percent": re.compile(rf"{NUMBER}\s?%|\b{NUMBER}\s+percent\b", re.I),
    "duration": re.compile(
        rf"\b(?:{NUMBER}|one|two|three|four|five|six|seven|eight|nine|ten|twelve|thirty|sixty)[\s-]+(?:business\s+)?"
        r"(?:minutes?|hours?|days?|weeks?|months?|years?|quarters?)\b|\b(?:once|twice|every)\b.{0,12}\b(?:year|month|week|day|hour)\b",
        re.I,
    ),
    "date": re.compile(
        r"\b\d{1,2}\s+(?:january|february|march|april|may|june|july|august|september|october|november|december)\b"
        r"|\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b"
        r"|\b(?:first|second|third|fourth)\s+quarter\b|\bq[1-4]\b|\b20\d\d-\d\d-\d\d\b|\b(?:this|next)\s+week\b",
        re.I,
    ),
    "count": re.compile(
        rf"\b{NUMBER}\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve)\b", re.I
    ),
    "identifier": re.compile(
        r"\b[A-Z]{2,}[-_]?\d[\w.-]*\b|\b\d+\.\d+(?:\.\d+)*\b|\b[A-Z]{2,}-[A-Z0-9]+\b|\b[A-Z]{3,}\b-?\d*"
    ),
    "person": re.compile(
        r"\b[A-Z][a-z]+\s+[A-Z][a-z]+\b|\b(?:officer|director|manager|head|vp|president|team|sales|support|legal|finance|admin)\b",
        re.I,
    ),
    "place": re.compile(r"\b(?:in|at)\s+[A-Z][a-z]+"),
    # a reason is given by its connective (Halliday and Hasan's causal conjunctions)
    "reason": re.compile(
        r"\b(?:because|so that|in order to|due to|owing to|as a result|the reason|reasons? (?:is|was|for))\b",
        re.I,
    ),
}


def answer_cue(question: str) -> Cue:
    """The kind of answer ``question`` asks for (the first pattern that matches), or "none"."""
    for cue, pattern in CUE_PATTERNS:
        if pattern.search(question):
            return cue
    return "none"


def states_cue(text: str, cue: Cue) -> bool:
    """Whether ``text`` states an answer of kind ``cue``."""
    pattern = ANSWER_PATTERNS.get(cue)
    return pattern is not None and pattern.search(text) is not None


_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
# For each value cue, a necessary condition of its answer pattern, cheap to
# test: a literal its every match holds, looked for in the lowercased text
# (re.I's folding and str.lower agree but for Unicode's odd pairs, such as
# the long s), so an index build runs the pattern only where it can match.
_HINTS: dict[ValueCue, re.Pattern[str]] = {
    "amount": re.compile(r"[$€£%]|dollars|euros|per"),
    "percent": re.compile(r"%|percent"),
    "duration": re.compile(r"minute|hour|day|week|month|year|quarter"),
    "date": re.compile(rf"\d|{_MONTHS}|quarter|week"),
    "count": re.compile(r"\d|one|two|three|four|five|six|seven|eight|nine|ten|twelve"),
}


def value_kinds(text: str, lower: str | None = None) -> int:
    """The value cues ``text`` states, as bits (bit i for ``VALUE_CUES[i]``);
    ``lower`` is ``text.lower()`` when the caller has it."""
    lower = text.lower() if lower is None else lower
    return sum(
        1 << i for i, cue in enumerate(VALUE_CUES) if _HINTS[cue].search(lower) and states_cue(text, cue)
    )


def asked_value(question: str) -> ValueCue | None:
    """The value cue ``question`` asks for when it does not state such a value
    itself ("What uptime does the SLA promise?" -> "percent"; "Is 99.9% the
    uptime?" -> None: the question holds its own answer)."""
    cue = answer_cue(question)
    if cue not in VALUE_CUES or states_cue(question, cue):
        return None
    return cue  # type: ignore[return-value]


# ------------------------------------------------------------------ labels
# The parts of a document that are named by a label ("Clause 7", "Exhibit
# 23.1", "Item 7A", "Schedule B", "Module Two"): a question asking "which
# clause ..." is answered by the label. Fixed before the cross-validation that
# decides whether the label lift ships (docs/decisions.md, "Value and label lifts"), as
# the document-part nouns of text._LABEL_NOUNS, not from any gold set's questions.
DOCUMENT_PARTS: tuple[str, ...] = (
    "section",
    "clause",
    "article",
    "exhibit",
    "schedule",
    "annex",
    "appendix",
    "item",
    "chapter",
    "module",
    "form",
    "rule",
)
_PLURALS = {"appendices": "appendix", "annexes": "annex"}
_NUMBER_LABEL = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
# The part's noun, then a label: a number (7, 4.2, 23.1, 7A), a Roman numeral
# (IV) or a capital letter (B), or a number word ("Module Two").
_LABEL = re.compile(
    r"\b(?i:(" + "|".join(DOCUMENT_PARTS) + r"))s?\.?\s+"
    r"(?:\d+(?:\.\d+)*[A-Za-z]?\b|[IVXLC]+\b|[A-Z]\b|(?i:" + _NUMBER_LABEL + r")\b)"
)

_PART_NOUN = re.compile("|".join(DOCUMENT_PARTS))


def asked_label(question: str) -> str | None:
    """The document part ``question`` asks for by its label ("Which clause
    of the lease covers subletting?" -> "clause"), or None."""
    from .text import identifier_answer_words

    for word in identifier_answer_words(question, "extended"):
        noun = _PLURALS.get(word, word.removesuffix("s"))
        if noun in DOCUMENT_PARTS:
            return noun
    return None


def label_kinds(text: str, lower: str | None = None) -> int:
    """The document parts ``text`` names by a label, as bits (bit i for
    ``DOCUMENT_PARTS[i]``); ``lower`` is ``text.lower()`` when the caller has it."""
    if not _PART_NOUN.search(text.lower() if lower is None else lower):
        return 0  # the cheap test first: most text names no document part
    named = {m.group(1).lower() for m in _LABEL.finditer(text)}
    return sum(1 << DOCUMENT_PARTS.index(noun) for noun in named)
