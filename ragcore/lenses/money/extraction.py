"""Every currency amount of a text with its unit, period, subject and phrase."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragcore.lenses.money.amounts import _Amount, _find_amounts
from ragcore.lenses.money.subjects import (
    _PRONOUNS,
    _billing_term,
    _normalise_phrase,
    _noun_phrase_before,
    _plan_phrase,
    _plan_phrase_after,
)
from ragcore.lenses.money.tables import _table_context, _table_headers, _table_subject
from ragcore.lenses.spans import phrase_bounds
from ragcore.text import sentence_spans


@dataclass(frozen=True)
class FigureMatch:
    """One currency amount found in a text (offsets into that text)."""

    amount: float
    currency: str  # ISO 4217 code
    period: str | None  # "month", "year", "user/month", "GB", "one-time", ...
    raw: str  # the amount as written, with its unit/period
    start: int  # offsets of the amount in the text
    end: int
    subject: str  # normalised, e.g. "lowest tier / billed annually"; "" when none found
    billing: str | None  # "monthly" | "annually" when the text states a billing term
    phrase_start: int  # the surrounding phrase (sentence or table row)
    phrase_end: int


_CONTINUATION = re.compile(
    r"(?:\s*(?:,|;|or|and|/|vs\.?|versus|to|-|–|—|\(|then|just|only)\s*)*", re.IGNORECASE
)


def _prose_subject(text: str, amt: _Amount, segment_start: int) -> str:
    """What an amount in running text prices: the noun phrase before it, or
    the sentence's plan when that phrase is a pronoun, a quantity or a name."""
    np_words, quantity, proper = _noun_phrase_before(text[segment_start : amt.start])
    before = text[amt.sentence[0] : amt.start]
    if not np_words or quantity or proper or np_words[-1] in _PRONOUNS:
        kept = np_words if np_words and np_words[-1] not in _PRONOUNS else []
        np_words = _plan_phrase(before) or _plan_phrase_after(text[amt.end : amt.sentence[1]]) or kept
    return _normalise_phrase([w for w in np_words if w not in _PRONOUNS])


def extract_figures(text: str) -> list[FigureMatch]:
    """Every currency amount in ``text`` with its period, subject and phrase.

    Percentages, plain numbers, dates, phone and version numbers are not
    figures. Offsets are into ``text``.
    """
    spans = sentence_spans(text)
    amounts = _find_amounts(text, spans)
    headers = _table_headers(text) if amounts else {}
    found: list[FigureMatch] = []
    prev_base, prev_billing = "", None
    for k, amt in enumerate(amounts):
        prev = amounts[k - 1] if k and amounts[k - 1].sentence == amt.sentence else None
        nxt = amounts[k + 1] if k + 1 < len(amounts) and amounts[k + 1].sentence == amt.sentence else None
        table = _table_context(text, amt.line, amt.start, headers)
        period = amt.period
        if table is not None:
            base, billing, table_period = _table_subject(*table)
            period = period or table_period
            start = amt.line[0]
            while start < amt.line[1] and text[start].isspace():
                start += 1
            phrase = (start, amt.line[1])
        else:
            # the amount's own stretch of the sentence: from the previous amount to the next
            seg_start = prev.stop if prev else amt.sentence[0]
            seg_end = nxt.start if nxt else amt.sentence[1]
            continuation = prev is not None and _CONTINUATION.fullmatch(text[seg_start : amt.start])
            # "$48 for the full year or $4 per month": one subject for both
            base = prev_base if continuation else _prose_subject(text, amt, seg_start)
            billing = _billing_term(text, seg_start, seg_end, amt.start, amt.stop)
            if billing is None and continuation:
                billing = prev_billing
            phrase = phrase_bounds(text, amt.sentence, amt.start)
        subject = f"{base} / billed {billing}" if billing and base else base
        raw = text[amt.start : amt.stop].strip()
        for value, a, b in amt.values:
            found.append(
                FigureMatch(value, amt.currency, period, raw, a, b, subject, billing, phrase[0], phrase[1])
            )
        prev_base, prev_billing = base, billing
    return found
