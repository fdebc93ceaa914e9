"""Records of the money lens: mentions, figures keyed on the amount, conflicts and changes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from ragcore.lenses.money.dates import TimeMark
from ragcore.lenses.money.extraction import Stance
from ragcore.lenses.money.units import split_per

Relation = Literal["conflict", "change"]


def item_name(subject: str) -> str:
    """ "business / billed monthly" as "business (billed monthly)"."""
    base, _, billing = subject.partition(" / billed ")
    return f"{base} (billed {billing})" if billing and base else base


@dataclass(frozen=True)
class Mention:
    """A figure at one place in one document."""

    amount: float
    currency: str
    doc: str
    first_line: int  # lines of the surrounding phrase
    last_line: int
    text: str  # the surrounding phrase, white space collapsed
    subject: str
    per: str | None  # what the amount is per: "GB/month", "user/month", "one-time", None
    raw: str
    label: str  # heading path of the passage
    pages: tuple[int, ...]
    offset: int  # document offset of the amount (dedupes overlapping passages)
    hit_rank: int
    mark: TimeMark = field(default_factory=TimeMark)
    stance: Stance = "stated"
    doc_date: date | None = None
    table: str | None = None  # the title of the table the amount stands in, when one is found
    entity: str | None = None  # the company heading the statement the amount stands in ("lyft"), when named

    @property
    def item(self) -> str:
        """The subject as a reader names the item: "business (billed monthly)"
        for the key form "business / billed monthly"; "" when none was found."""
        return item_name(self.subject)

    @property
    def unit(self) -> str | None:
        """What the amount is per, besides time: "GB", "user", "1000 request"."""
        return split_per(self.per)[0]

    @property
    def period(self) -> str | None:
        """The time period of the amount: "month", "year", "one-time"."""
        return split_per(self.per)[1]

    @property
    def effective(self) -> str | None:
        """The date the text gives the amount (ISO), whether it starts, ends or dates it."""
        return self.mark.when.isoformat() if self.mark.when else None

    def to_json(self) -> dict:
        return {
            "doc": self.doc,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "text": self.text,
            "subject": self.subject,
            "item": self.item,
            "unit": self.unit,
            "period": self.period,
            "per": self.per,
            "effective": self.effective,
            "effective_edge": self.mark.edge,
            "effective_precision": self.mark.precision if self.mark.when else None,
            "raw": self.raw,
            "label": self.label,
            "table": self.table,
            "entity": self.entity,
        }


def _json_amount(amount: float) -> int | float:
    return int(amount) if float(amount).is_integer() else amount


def format_amount(amount: float, currency: str) -> str:
    """ "$1,299", "€49.50", "1,000 CHF"."""
    text = f"{amount:,.0f}" if float(amount).is_integer() else f"{amount:,.2f}"
    symbol = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹"}.get(currency)
    return f"{symbol}{text}" if symbol else f"{text} {currency}"


@dataclass(frozen=True)
class Figure:
    """All mentions of one amount in one currency."""

    amount: float
    currency: str
    conflict: bool
    mentions: tuple[Mention, ...]

    def to_json(self) -> dict:
        return {
            "amount": _json_amount(self.amount),
            "currency": self.currency,
            "conflict": self.conflict,
            "mentions": [m.to_json() for m in self.mentions],
        }


@dataclass(frozen=True)
class Conflict:
    """Two or more amounts for one subject, currency and period: a
    ``conflict`` (both presented as current, or nothing dates them) or a
    ``change`` (each current in its own period), with the reason."""

    subject: str
    currency: str
    period: str | None  # what the amounts are per, as Mention.per
    amounts: tuple[float, ...]  # distinct, in order of first appearance (of a change: oldest first)
    mentions: tuple[Mention, ...]  # every mention involved, in order of appearance
    relation: Relation = "conflict"
    reason: str = ""
    pairs: tuple[tuple[int, int], ...] = ()  # indexes into mentions: the pairs judged

    @property
    def item(self) -> str:
        """The subject as a reader names the item (see ``Mention.item``)."""
        return item_name(self.subject)

    @property
    def docs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.doc for m in self.mentions))

    def to_json(self) -> dict:
        return {
            "subject": self.subject,
            "item": self.item,
            "currency": self.currency,
            "period": self.period,
            "amounts": [_json_amount(a) for a in self.amounts],
            "docs": list(self.docs),
            "relation": self.relation,
            "reason": self.reason,
            "pairs": [list(p) for p in self.pairs],
            "sources": [
                {
                    "amount": _json_amount(m.amount),
                    "doc": m.doc,
                    "first_line": m.first_line,
                    "last_line": m.last_line,
                    "label": m.label,
                    "effective": m.effective,
                }
                for m in self.mentions
            ],
        }


@dataclass(frozen=True)
class MoneyLens:
    figures: tuple[Figure, ...]  # figures in a conflict first, then by first appearance
    conflicts: tuple[Conflict, ...]
