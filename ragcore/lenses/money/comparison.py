"""Mentions keyed on the amount, and the conflicts between them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from ragcore.lenses.money.dates import document_date
from ragcore.lenses.money.extraction import extract_figures
from ragcore.lenses.money.records import Figure, Mention, MoneyLens
from ragcore.lenses.money.relations import compare
from ragcore.lenses.money.subjects import subject_key
from ragcore.lenses.spans import collapse, passage_lines
from ragcore.records import Hit, Passage


def _base_and_billing(subject: str) -> tuple[str, str]:
    base, _, billing = subject.partition(" / billed ")
    return base, billing


def _amount_key(amount: float) -> float:
    """Amounts equal as written are one key, however small ("$0.000005787")."""
    return float(f"{amount:.12g}")


def _document_dates(hits: Sequence[Hit]) -> dict[str, date | None]:
    heads: dict[str, str] = {}
    for hit in hits:
        p = hit.passage
        if p.index == 0 or p.first_line <= 3:
            heads.setdefault(p.doc, p.text[:2000])
        heads.setdefault(p.doc, "")
    return {doc: document_date(doc, head) for doc, head in heads.items()}


_BLANK_GAP = 2  # characters between two passages that still touch (a blank line)


def _text_before(passages: Sequence[Passage], p: Passage, size: int = 2000) -> tuple[str, bool]:
    """The document's text before passage ``p`` from the passages read, and
    whether it runs right up to ``p`` (a passage overlapping or touching it)."""
    earlier = [q for q in passages if q.start < p.start]
    if not earlier:
        return "", False
    q = max(earlier, key=lambda q: min(q.end, p.start))
    gap = p.start - q.end  # a chunker drops at most the blank line between two passages
    text = q.text[: max(0, p.start - q.start)] + "\n" * max(0, gap)
    return text[-size:], gap <= _BLANK_GAP


_ABOVE_CHARS = 6000  # as far back as a table's scale header is looked for (amounts.table_scale)


def _text_above(passages: Sequence[Passage], p: Passage, size: int = _ABOVE_CHARS) -> str:
    """The document's text right up to passage ``p``, joined from the chain of
    earlier passages that overlap or touch one another (a tall table's header
    may stand two passages up); "" when no passage touches ``p``."""
    parts: list[str] = []
    start, have = p.start, 0
    for q in sorted(passages, key=lambda q: q.start, reverse=True):
        if q.start >= start:
            continue  # p itself, or text the chain already holds
        if q.end < start - _BLANK_GAP or have >= size:
            break  # a gap: the text above is not all read
        parts.append(q.text[: start - q.start] + "\n" * max(0, start - q.end))
        have += len(parts[-1])
        start = q.start
    return "".join(reversed(parts))[-size:]


def _mentions(hits: Sequence[Hit]) -> list[Mention]:
    dates = _document_dates(hits)
    mentions: list[Mention] = []
    seen: set[tuple[str, int, float]] = set()
    by_doc: dict[str, list] = {}
    for hit in hits:
        by_doc.setdefault(hit.passage.doc, []).append(hit.passage)
    for hit in sorted(hits, key=lambda h: h.rank):
        p = hit.passage
        prior, _ = _text_before(by_doc[p.doc], p)
        above = _text_above(by_doc[p.doc], p)
        for fm in extract_figures(p.text, p.label, dates.get(p.doc), prior, above):
            key = (p.doc, p.start + fm.start, fm.amount)
            if key in seen:
                continue  # overlapping passages show one amount once
            seen.add(key)
            first, last = passage_lines(p, fm.phrase_start, fm.phrase_end)
            text = collapse(p.text[fm.phrase_start : fm.phrase_end])
            mentions.append(
                Mention(
                    fm.amount, fm.currency, p.doc, first, last, text, fm.subject, fm.period, fm.raw, p.label,
                    p.pages, p.start + fm.start, hit.rank, fm.mark, fm.stance, dates.get(p.doc), fm.table, fm.entity,
                )
            )  # fmt: skip
    return mentions


def _unify_subjects(mentions: list[Mention]) -> list[Mention]:
    """One display name per subject: the shortest wording seen for its key
    ("lowest tier" rather than "lowest subscription tier")."""
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
            m = replace(m, subject=f"{base} / billed {billing}" if billing else base)
        renamed.append(m)
    return renamed


def money_lens(hits: Sequence[Hit]) -> MoneyLens:
    """Figures, conflicts and changes in the given passages, with source lines.

    A mention's lines are those of its surrounding phrase; each passage's text
    starts at line ``passage.first_line``.
    """
    mentions = _unify_subjects(_mentions(hits))
    conflicts = compare(mentions)
    in_conflict = {
        (c.currency, _amount_key(a)) for c in conflicts if c.relation == "conflict" for a in c.amounts
    }
    groups: dict[tuple[str, float], list[Mention]] = {}
    for m in mentions:
        groups.setdefault((m.currency, _amount_key(m.amount)), []).append(m)
    figures = [
        Figure(ms[0].amount, cur, (cur, amt) in in_conflict, tuple(ms)) for (cur, amt), ms in groups.items()
    ]
    figures.sort(key=lambda f: not f.conflict)  # stable: first appearance within each part
    return MoneyLens(tuple(figures), tuple(conflicts))
