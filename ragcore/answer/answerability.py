"""Whether the loaded documents can answer a question at all.

A question about a named thing the collection never mentions ("What does
the Enterprise plan cost in Japan?", "Is there a Salesforce integration?")
cannot be answered from it, however well its other words match: the
retrieved sentences are about the plan or about integrations, not about
Japan or Salesforce. So a name in the question (a capitalised word that
does not open the question, or an acronym) that occurs in no document of
the collection makes the part that holds it unanswerable. This is the
out-of-vocabulary signal of query performance prediction (Cronen-Townsend
et al., "Predicting Query Performance", SIGIR 2002: a query whose terms the
collection lacks is a query it cannot serve), applied only to names, since
an ordinary word the documents lack is often a paraphrase ("penalty" for
"late fee") that the sentence similarity still bridges.

Beside the names, ``KindCheck`` asks whether a retrieved unit carries both
the question's subject (its topic words) and the kind of thing it asks for
(a figure, a date, a person or role, ...): measured as a way to answer
below the score threshold, or to decline at it (docs/decisions.md
section 7 says what the study chose).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Protocol

from ragcore.records import Document
from ragcore.text import content_words

from .name_forms import is_short_form, other_forms
from .relevance import Cue, states_cue


class HasText(Protocol):
    @property
    def text(self) -> str: ...


class HasCue(Protocol):
    @property
    def cue(self) -> Cue: ...


class HasUnitDoc(Protocol):
    @property
    def doc(self) -> str: ...


# A capitalised word or acronym that is not the question's first word nor a
# sentence's first word: "Japan", "FedRAMP", "QuickBooks", "SOC"; never the
# pronoun "I" with its contractions ("I'm", "I’ve").
_NAME = re.compile(r"(?<!^)(?<![.?!:]\s)(?<![\"“(])\b(?!I(?:['’](?:m|ve|d|ll))?\b)([A-Z][\w'’-]*)")


@lru_cache(maxsize=4096)
def _vocabulary(text: str) -> frozenset[str]:
    return frozenset(content_words(text))


def names(question: str) -> list[str]:
    """The names a question mentions (capitalised words after its first word)."""
    return [m.group(1) for m in _NAME.finditer(question.strip())]


def _spelled_out(acronym: str) -> re.Pattern[str] | None:
    """ "SLA" written out: words whose initials spell it ("Service Level Agreement")."""
    letters = acronym.rstrip("s") if acronym[:-1].isupper() else acronym
    if not (2 <= len(letters) <= 6 and letters.isupper() and letters.isalpha()):
        return None
    words = r"\W+(?:(?:of|and|the|for|&)\W+)?".join(rf"{c}\w*" for c in letters)
    return re.compile(rf"\b{words}\b", re.IGNORECASE)


def unknown_names(question: str, texts: Iterable[str]) -> list[str]:
    """The question's names that none of ``texts`` mentions (compared as
    stemmed words, case-folded: "QuickBooks" meets "Quickbooks"; an acronym
    is also mentioned by the words it stands for: "SLA" by "Service Level
    Agreement"; a place or period by any of its forms: "European" by "EU",
    "Q3" by "third quarter", ``name_forms``)."""
    forms = other_forms(question)
    # a place's short form is read only with its capitals: case-folded, "US" is the word "us"
    wanted = {
        name: frozenset() if name in forms and is_short_form(name) else content_words(name)
        for name in names(question)
    }
    wanted = {name: words for name, words in wanted.items() if words or name in forms}
    if not wanted:
        return []
    # other ways a text may mention each name: its spelled-out words, its other forms
    others = {name: [*filter(None, [_spelled_out(name)]), *forms.get(name, ())] for name in wanted}
    missing = dict(wanted)
    for text in texts:
        vocabulary = _vocabulary(text)
        missing = {
            name: words
            for name, words in missing.items()
            if not (words and words <= vocabulary) and not any(p.search(text) for p in others[name])
        }
        if not missing:
            return []
    return list(missing)


def collection_texts(documents: Mapping[str, Document] | None, fallback: Iterable[str]) -> Iterable[str]:
    """The texts a name is looked for in: every document of the collection,
    or (without documents) what was retrieved."""
    if documents:
        return (doc.text for doc in documents.values())
    return fallback


def anchor(part: HasText, documents: Mapping[str, Document] | None) -> Callable[[HasUnitDoc], bool] | None:
    """Whether a unit's document mentions every name ``part`` mentions, or None
    when the part names nothing (or there are no documents to look in).

    A question about a named thing ("Does Plausible give a discount for
    paying two years in advance?") is not answered by a sentence of a
    document that never names it, however well its other words match (a
    10-K's "two years"): the name anchors the question to the documents
    about it. Checked only for the decision to answer; the name may be
    missing from the one sentence that answers, when its document names it.
    """
    if not documents or not names(part.text):
        return None
    text = part.text

    def mentions(unit: HasUnitDoc) -> bool:
        doc = documents.get(unit.doc)
        return doc is None or not unknown_names(text, [doc.text])

    return mentions


KindRule = Literal["off", "answer", "decline"]


@dataclass(frozen=True)
class KindCheck:
    """Whether a retrieved unit carries the question's subject *and* the kind
    of thing it asks for, beside the sentence-score threshold.

    A unit carries the subject when it states at least ``coverage`` of the
    part's topic words (idf-weighted, its heading path counted as in the
    selection score); it carries the kind when it states what the part's cue
    asks for (a figure for "how much", a date for "when", a person or role
    for "who", ...; a part without a cue needs the subject only). With
    ``rule`` "answer", a part below the threshold is still answered at
    ``min_score`` when such a unit exists; with "decline", a part at the
    threshold is declined when none does; "off" is the threshold alone.
    Chosen by ``scripts/answer_study.py`` (docs/decisions.md section 7).
    """

    rule: KindRule = "off"
    coverage: float = 0.5
    min_score: float = 0.8


# The rule the answer ships with (chosen by the study; docs/decisions.md section 7).
SHIPPED_KIND_CHECK = KindCheck()


def carries_kind(
    part: HasCue, units: Sequence[HasText], coverage: Callable[[HasText], float], share: float
) -> bool:
    """Whether some unit states ``share`` of the part's subject and, when the
    part asks for a kind of answer, an answer of that kind."""
    return any(coverage(u) >= share and (part.cue == "none" or states_cue(u.text, part.cue)) for u in units)


def part_threshold(
    part: HasCue,
    units: Sequence[HasText],
    coverage: Callable[[HasText], float],
    min_score: float,
    check: KindCheck,
) -> float:
    """The score a part's best unit must reach to answer it (infinite: declined)."""
    if check.rule == "off":
        return min_score
    evidence = carries_kind(part, units, coverage, check.coverage)
    if check.rule == "answer":
        return min(min_score, check.min_score) if evidence else min_score
    return min_score if evidence else math.inf
