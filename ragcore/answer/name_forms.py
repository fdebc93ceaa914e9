"""The other ways a document writes a name a question uses: places, periods, levels.

The name check (``answerability``) declines a question about a name no
document mentions. Some names are written in more ways than one: a
question's "European data centre" is the documents' "EU region", "American
customers" their "US customers", "Britain" their "UK", and "Q3" their
"third quarter". Without these equivalences the check would say "No loaded
document mentions European" of a collection that answers the question. The
lists hold countries and regions with their adjective, short and long
forms, the quarters and halves of a year, and incident levels ("Sev 1" /
"Severity 1", "P2" / "Priority 2"), as written in English business
documents; they are general language, not read from any gold set.
A short form is matched with its capitals ("US", "U.S."), never as the word
"us".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

# Each group: every way of naming one place.
PLACES: tuple[tuple[str, ...], ...] = (
    ("Europe", "European", "EU", "E.U.", "European Union"),
    ("America", "American", "US", "U.S.", "USA", "U.S.A.", "United States"),
    ("Britain", "British", "UK", "U.K.", "United Kingdom", "Great Britain"),
    ("Canada", "Canadian"),
    ("Mexico", "Mexican"),
    ("Brazil", "Brazilian"),
    ("Latin America", "Latin American", "LatAm", "LATAM"),
    ("Germany", "German"),
    ("France", "French"),
    ("Ireland", "Irish"),
    ("Netherlands", "Dutch", "Holland"),
    ("Spain", "Spanish"),
    ("Italy", "Italian"),
    ("Switzerland", "Swiss"),
    ("Sweden", "Swedish"),
    ("Norway", "Norwegian"),
    ("Denmark", "Danish"),
    ("Finland", "Finnish"),
    ("Poland", "Polish"),
    ("Japan", "Japanese"),
    ("China", "Chinese", "PRC"),
    ("India", "Indian"),
    ("Korea", "Korean"),
    ("Singapore", "Singaporean"),
    ("Australia", "Australian"),
    ("New Zealand", "New Zealander"),
    ("Israel", "Israeli"),
    ("Asia", "Asian"),
    ("Asia-Pacific", "Asia Pacific", "APAC"),
    ("Africa", "African"),
    ("Middle East", "Middle Eastern"),
)


# Each group: every way of writing one period of a year.
PERIODS: tuple[tuple[str, ...], ...] = (
    ("Q1", "1Q", "first quarter"),
    ("Q2", "2Q", "second quarter"),
    ("Q3", "3Q", "third quarter"),
    ("Q4", "4Q", "fourth quarter"),
    ("H1", "1H", "first half"),
    ("H2", "2H", "second half"),
)
# Each group: every way of writing one incident level (support and SLA documents).
LEVELS: tuple[tuple[str, ...], ...] = tuple(
    group
    for n in range(1, 5)
    for group in ((f"Sev {n}", f"Sev{n}", f"Severity {n}"), (f"P{n}", f"Priority {n}"))
)
FORMS = PLACES + PERIODS + LEVELS


def is_short_form(name: str) -> bool:
    """A name written in capitals ("US", "U.S.", "APAC"): matched with its capitals only."""
    letters = name.replace(".", "")
    return letters.isupper() and letters.isalpha()


@lru_cache(maxsize=256)
def _pattern(name: str) -> re.Pattern[str]:
    """How ``name`` is found in a text: a short form by its capitals, dots
    optional ("US", "U.S."); a word or phrase in any case, with a plural or
    possessive ending ("Europeans", "Canada's")."""
    if is_short_form(name):
        letters = name.replace(".", "")
        body = r"\.?".join(letters) + r"\.?"
        return re.compile(rf"(?<![\w.]){body}(?!\w)")
    words = r"[\s-]+".join(re.escape(w) for w in re.split(r"[\s-]+", name))
    return re.compile(rf"(?<![\w-]){words}(?:'s|’s|s)?(?![\w-])", re.IGNORECASE)


@lru_cache(maxsize=1024)
def other_forms(question: str) -> Mapping[str, tuple[re.Pattern[str], ...]]:
    """For each word of a place or period ``question`` names ("European",
    "United", "States", "Q3"), the patterns of every way of writing it (read
    once per question: the name anchor asks again for every retrieved unit)."""
    out: dict[str, tuple[re.Pattern[str], ...]] = {}
    for group in FORMS:
        patterns = tuple(_pattern(name) for name in group)
        for pattern in patterns:
            for found in pattern.finditer(question):
                # the form as the question writes it ("SEV-1"), and each of its words ("United", "States")
                for word in (found.group(0), *re.split(r"[\s-]+", found.group(0))):
                    out[word] = patterns
                    out[word.replace(".", "")] = patterns
    return MappingProxyType(out)
