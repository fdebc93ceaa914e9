"""Which lens a question asks for: money, risk, or none (the plain answer).

A keyword router: the question's words are stemmed with the same stemmer the
index uses (``ragcore.text``), so "priced", "prices" and "pricing" all meet
"price", and matching is on whole words, so "prices" triggers but "caprice"
does not. Multi-word triggers ("per seat", "how much") match consecutive words.
The words that made the choice are returned so the page can show them, and a
user override always wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragcore.text import stem, words

KINDS = ("money", "risk", "none")
OVERRIDES = ("auto", *KINDS)

MONEY_TRIGGERS = (
    "price",
    "prices",
    "pricing",
    "priced",
    "cost",
    "costs",
    "costly",
    "fee",
    "fees",
    "charge",
    "charges",
    "charged",
    "discount",
    "discounts",
    "budget",
    "budgets",
    "per seat",
    "per user",
    "per month",
    "per year",
    "how much",
    "pay",
    "paid",
    "payment",
    "billing",
    "billed",
    "invoice",
    "expensive",
    "cheap",
    "cheaper",
    "afford",
    "affordable",
    "spend",
    "spending",
    "money",
    "dollar",
    "dollars",
    "euro",
    "euros",
    "usd",
    "eur",
    "gbp",
    "tariff",
    "rate card",
    "quote",
    "quoted",
    "revenue",
    "salary",
)

RISK_TRIGGERS = (
    "risk",
    "risks",
    "risky",
    "guarantee",
    "guaranteed",
    "guarantees",
    "liability",
    "liable",
    "promise",
    "promises",
    "promised",
    "always",
    "never",
    "sla",
    "commitment",
    "commitments",
    "committed",
    "warranty",
    "warranties",
    "uptime",
    "unlimited",
    "forever",
    "indemnify",
    "indemnification",
    "obligation",
    "obligations",
    "penalty",
    "penalties",
    "breach",
    "absolute",
    "absolutes",
    "assurance",
)

# Currency symbols in a question ("is $999 right?") are money triggers; the
# tokeniser drops a bare symbol, so look at the raw text.
_CURRENCY_SYMBOL = re.compile(r"[$€£¥₹]")


def _stemmed_phrases(triggers: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    return {tuple(stem(w) for w in words(t)): t for t in triggers}


_MONEY = _stemmed_phrases(MONEY_TRIGGERS)
_RISK = _stemmed_phrases(RISK_TRIGGERS)


@dataclass(frozen=True)
class LensChoice:
    """The lens for a question and the question words that chose it."""

    kind: str  # "money" | "risk" | "none"
    triggers: tuple[str, ...] = ()
    chosen_by: str = "question"  # "question" | "user"
    # Words of the lens that was not chosen, so the page can explain a tie.
    other_triggers: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"kind": self.kind, "triggers": list(self.triggers), "chosen_by": self.chosen_by}


def _matches(
    surface: list[str], stems: list[str], table: dict[tuple[str, ...], str]
) -> list[tuple[int, str]]:
    """(position, surface words) of every trigger phrase found in the question."""
    found = []
    for i in range(len(stems)):
        for phrase in table:
            n = len(phrase)
            if tuple(stems[i : i + n]) == phrase:
                found.append((i, " ".join(surface[i : i + n])))
    return found


def _dedupe(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def choose_lens(question: str, override: str = "auto") -> LensChoice:
    """Pick the lens for ``question``.

    Money words choose the money lens and risk words the risk lens; when a
    question has both, the kind with more trigger words wins and a tie goes to
    the kind named first. ``override`` ("money", "risk", "none") replaces the
    automatic choice; the trigger words found are still reported.
    """
    override = (override or "auto").strip().lower()
    if override not in OVERRIDES:
        raise ValueError(f"lens override must be one of {', '.join(OVERRIDES)}, not {override!r}")
    surface = words(question)
    stems = [stem(w) for w in surface]
    money = _matches(surface, stems, _MONEY)
    for m in _CURRENCY_SYMBOL.finditer(question):
        # position ~ count of words before the symbol, enough to order ties
        money.append((len(words(question[: m.start()])), m.group()))
    risk = _matches(surface, stems, _RISK)
    money.sort()
    risk.sort()
    found = {"money": _dedupe([w for _, w in money]), "risk": _dedupe([w for _, w in risk])}

    if override != "auto":
        return LensChoice(
            override,
            found.get(override, ()),
            "user",
            {k: v for k, v in found.items() if k != override and v},
        )
    if not money and not risk:
        return LensChoice("none")
    if len(found["money"]) != len(found["risk"]):
        kind = "money" if len(found["money"]) > len(found["risk"]) else "risk"
    elif money and risk:
        kind = "money" if money[0][0] <= risk[0][0] else "risk"
    else:
        kind = "money" if money else "risk"
    other = "risk" if kind == "money" else "money"
    return LensChoice(kind, found[kind], "question", {other: found[other]} if found[other] else {})
