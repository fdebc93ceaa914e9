"""Mentions keyed on the amount, and the conflicts between them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragcore.lenses.money.extraction import extract_figures
from ragcore.lenses.money.subjects import subject_key
from ragcore.lenses.spans import collapse, passage_lines
from ragcore.records import Hit


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
    period: str | None
    raw: str
    label: str  # heading path of the passage
    pages: tuple[int, ...]
    offset: int  # document offset of the amount (dedupes overlapping passages)
    hit_rank: int

    def to_json(self) -> dict:
        return {
            "doc": self.doc,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "text": self.text,
            "subject": self.subject,
            "period": self.period,
            "raw": self.raw,
            "label": self.label,
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
    """Two or more amounts for one subject, currency and period."""

    subject: str
    currency: str
    period: str | None
    amounts: tuple[float, ...]  # distinct, in order of first appearance
    mentions: tuple[Mention, ...]  # every mention involved, in order of appearance

    @property
    def docs(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.doc for m in self.mentions))

    def to_json(self) -> dict:
        return {
            "subject": self.subject,
            "currency": self.currency,
            "period": self.period,
            "amounts": [_json_amount(a) for a in self.amounts],
            "docs": list(self.docs),
            "sources": [
                {
                    "amount": _json_amount(m.amount),
                    "doc": m.doc,
                    "first_line": m.first_line,
                    "last_line": m.last_line,
                    "label": m.label,
                }
                for m in self.mentions
            ],
        }


@dataclass(frozen=True)
class MoneyLens:
    figures: tuple[Figure, ...]  # figures in a conflict first, then by first appearance
    conflicts: tuple[Conflict, ...]


def _base_and_billing(subject: str) -> tuple[str, str]:
    base, _, billing = subject.partition(" / billed ")
    return base, billing


def money_lens(hits: Sequence[Hit]) -> MoneyLens:
    """Figures and conflicts in the retrieved passages, with source lines.

    A mention's lines are those of its surrounding phrase; each passage's text
    starts at line ``passage.first_line``.
    """
    mentions: list[Mention] = []
    seen: set[tuple[str, int, float]] = set()
    for hit in sorted(hits, key=lambda h: h.rank):
        p = hit.passage
        for fm in extract_figures(p.text):
            key = (p.doc, p.start + fm.start, fm.amount)
            if key in seen:
                continue  # overlapping passages show one amount once
            seen.add(key)
            first, last = passage_lines(p, fm.phrase_start, fm.phrase_end)
            mentions.append(
                Mention(
                    amount=fm.amount,
                    currency=fm.currency,
                    doc=p.doc,
                    first_line=first,
                    last_line=last,
                    text=collapse(p.text[fm.phrase_start : fm.phrase_end]),
                    subject=fm.subject,
                    period=fm.period,
                    raw=fm.raw,
                    label=p.label,
                    pages=p.pages,
                    offset=p.start + fm.start,
                    hit_rank=hit.rank,
                )
            )

    # One display name per subject: the shortest wording seen for its key
    # ("lowest tier" rather than "lowest subscription tier").
    display: dict[str, str] = {}
    for m in mentions:
        base, _ = _base_and_billing(m.subject)
        if base:
            k = subject_key(base)
            if k not in display or len(base) < len(display[k]):
                display[k] = base
    renamed = []
    for m in mentions:
        base, billing = _base_and_billing(m.subject)
        if base:
            base = display[subject_key(base)]
            subject = f"{base} / billed {billing}" if billing else base
            m = Mention(**{**m.__dict__, "subject": subject})
        renamed.append(m)
    mentions = renamed

    conflicts = _conflicts(mentions)
    in_conflict = {(c.currency, round(a, 4)) for c in conflicts for a in c.amounts}
    groups: dict[tuple[str, float], list[Mention]] = {}
    for m in mentions:
        groups.setdefault((m.currency, round(m.amount, 4)), []).append(m)
    figures = [
        Figure(ms[0].amount, cur, (cur, amt) in in_conflict, tuple(ms)) for (cur, amt), ms in groups.items()
    ]
    figures.sort(key=lambda f: not f.conflict)  # stable: first appearance within each part
    return MoneyLens(tuple(figures), tuple(conflicts))


def _disagree(mentions: list[Mention]) -> bool:
    """Two different amounts stated in different places. Two amounts in one
    sentence ("raised from $999 to $1,199", "$10-20") are a change or a
    range, not sources disagreeing."""
    seen: dict[tuple[str, int, str], set[float]] = {}
    for m in mentions:
        seen.setdefault((m.doc, m.first_line, m.text), set()).add(round(m.amount, 4))
    places = list(seen.values())
    return any(a != b for i, p in enumerate(places) for q in places[i + 1 :] for a in p for b in q)


def _implied_billing(m: Mention) -> str:
    """The billing term of a mention: as stated, else the one its period
    implies (a yearly price is billed annually, anything else monthly)."""
    _, billing = _base_and_billing(m.subject)
    if billing:
        return billing
    return "annually" if m.period and "year" in m.period.split("/") else "monthly"


def _conflicts(mentions: list[Mention]) -> list[Conflict]:
    """Two or more amounts for one subject, billing term and currency whose
    periods agree where stated; a mention without a period is compared with
    every period, one without a billing term takes the term its period
    implies. The two amounts must be stated in different sentences."""
    by_subject: dict[tuple[str, str, str], list[Mention]] = {}
    for m in mentions:
        base, _ = _base_and_billing(m.subject)
        if base:
            by_subject.setdefault((m.currency, subject_key(base), _implied_billing(m)), []).append(m)
    out: list[Conflict] = []
    seen: set[tuple] = set()
    for (currency, key, billing), group in by_subject.items():
        periods = list(dict.fromkeys(m.period for m in group if m.period))
        parts = (
            [(p, [m for m in group if m.period in (p, None)]) for p in periods]
            if periods
            else [(None, group)]
        )
        stated = any(_base_and_billing(m.subject)[1] for m in group)
        subject = _base_and_billing(group[0].subject)[0] + (f" / billed {billing}" if stated else "")
        for period, part in parts:
            amounts = tuple(dict.fromkeys(round(m.amount, 4) for m in part))
            if len(amounts) < 2 or not _disagree(part):
                continue
            sig = (currency, key, billing, amounts, tuple(m.offset for m in part))
            if sig in seen:
                continue
            seen.add(sig)
            out.append(Conflict(subject, currency, period, amounts, tuple(part)))
    return out
