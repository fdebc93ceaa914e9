"""Two amounts for one thing: a change over time, or a conflict.

Mentions are compared when they price the same subject (same comparison
key and billing term), in the same currency, per the same unit and period
where both state one, and both are *stated* (not a threshold, a forecast, a
proposed change or a quoted example). A pair with different amounts is

- a **change** when the text places each in its own period: both carry a
  date and the dates differ; or one is marked past ("previous rate", "was",
  "until March 2") and the other current or starting ("now", "from March
  3"); or they come from dated versions of one document; within one
  sentence, when either is marked in time ("up from $12.9M a year earlier");
- otherwise a **conflict**: both presented as current at the same time, or no
  dates to tell, and the reason says which (a document quoting the old
  figure after the change took effect is a conflict, too).

Two amounts in one sentence with no time marks (a range, alternatives) are
neither, and nor are two amounts that are one figure rounded ("$12.8 billion"
and "$ 12,791" in millions): equal to within half the step of the less
precise one as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from itertools import combinations

from ragcore.lenses.money.amounts import NUMBER, decimal_places, exact_amount
from ragcore.lenses.money.dates import document_family, is_newest_version
from ragcore.lenses.money.entities import entities_differ
from ragcore.lenses.money.records import Conflict, Mention, Relation, format_amount
from ragcore.lenses.money.subjects import subject_key
from ragcore.lenses.money.titles import titles_differ

Judgement = tuple[Relation, str, bool]  # relation, reason, whether a comes first


def _base_and_billing(subject: str) -> tuple[str, str]:
    base, _, billing = subject.partition(" / billed ")
    return base, billing


def _implied_billing(m: Mention) -> str:
    """The billing term of a mention: as stated, else the one its period
    implies (a yearly price is billed annually, anything else monthly)."""
    _, billing = _base_and_billing(m.subject)
    if billing:
        return billing
    return "annually" if m.per and "year" in m.per.split("/") else "monthly"


def _when_text(m: Mention) -> str:
    edge = {"start": "from", "end": "until", "as-of": "as of"}.get(m.mark.edge or "", "")
    if m.mark.when is not None:
        return f"{edge} {m.mark.when.isoformat()}".strip()
    if m.mark.tense == "past":
        return "as the previous figure"
    if m.mark.tense == "current":
        return "as the current figure"
    return ""


def _said(m: Mention) -> str:
    when = _when_text(m)
    return f"{format_amount(m.amount, m.currency)} ({m.doc}:{m.first_line}{', ' + when if when else ''})"


def _time(m: Mention) -> date | None:
    return m.mark.when


def _version_order(a: Mention, b: Mention) -> bool | None:
    """Whether ``a`` is the older of two dated versions of one document
    (None when they are not versions of one document)."""
    if a.doc == b.doc or document_family(a.doc) != document_family(b.doc):
        return None
    if a.doc_date and b.doc_date and a.doc_date != b.doc_date:
        return a.doc_date < b.doc_date
    newest_a, newest_b = is_newest_version(a.doc), is_newest_version(b.doc)
    if newest_a != newest_b and (a.doc_date or b.doc_date or newest_a or newest_b):
        return newest_b
    return None


def written_step(m: Mention) -> float:
    """The precision of an amount as written: 1e8 for "$17.5 billion", 1e6 for
    "$ 12,791" under "(in millions)", 0.01 for "$4.99"."""
    number = NUMBER.search(m.raw)
    if number is None:
        return 0.0
    written = exact_amount(number.group())
    scale = m.amount / written if written else 1.0
    return scale * 10.0 ** -decimal_places(number.group())


def same_when_rounded(a: Mention, b: Mention) -> bool:
    """Whether two amounts are one figure written at two precisions."""
    step = max(written_step(a), written_step(b))
    return abs(a.amount - b.amount) <= step / 2 * (1 + 1e-9)


def document_year(m: Mention) -> int | None:
    """The year a document is of: its date, else a year in its file name ("report_2021.pdf")."""
    if m.doc_date is not None:
        return m.doc_date.year
    years = re.findall(r"(?<!\d)((?:19|20)\d\d)(?!\d)", m.doc.rsplit("/", 1)[-1])
    return int(years[0]) if len(years) == 1 else None


def _same_document_years(a: Mention, b: Mention) -> bool | None:
    """In one document, an undated figure is of the document's year: whether
    ``a`` is the older when the other's date is of another year (else None)."""
    if a.doc != b.doc or (a.mark.when is None) == (b.mark.when is None):
        return None
    undated, dated = (a, b) if a.mark.when is None else (b, a)
    year = document_year(undated)
    when = dated.mark.when
    if year is None or when is None or when.year == year:
        return None
    return (when.year < year) == (dated is a)


def judge(a: Mention, b: Mention) -> Judgement | None:
    """The relation of two mentions with different amounts, or None (a range
    or alternatives within one sentence)."""
    same_phrase = (a.doc, a.first_line, a.text) == (b.doc, b.first_line, b.text)
    ta, tb = _time(a), _time(b)
    if ta is not None and tb is not None and ta != tb:
        return "change", f"{_said(a if ta < tb else b)}, then {_said(b if ta < tb else a)}", ta < tb
    in_doc = _same_document_years(a, b)
    if in_doc is not None:
        older, newer = (a, b) if in_doc else (b, a)
        return "change", f"{_said(older)}, then {_said(newer)} (the year of the document)", in_doc
    past_a, past_b = a.mark.tense == "past", b.mark.tense == "past"
    other = b if past_a else a
    if past_a != past_b and (same_phrase or a.doc == b.doc or other.mark.edge == "start" or other.mark.when):
        older, newer = (a, b) if past_a else (b, a)
        return "change", f"{_said(older)}, then {_said(newer)}", past_a
    if same_phrase:
        if a.mark.edge or b.mark.edge:
            first = (a.mark.edge == "end") or (b.mark.edge == "start")
            return "change", f"{_said(a if first else b)}, then {_said(b if first else a)}", first
        return None
    order = _version_order(a, b)
    if order is not None:
        older, newer = (a, b) if order else (b, a)
        return "change", f"{_said(older)} in the older version, {_said(newer)} in the newer", order
    return "conflict", _conflict_reason(a, b), True


def _conflict_reason(a: Mention, b: Mention) -> str:
    for new, old in ((a, b), (b, a)):
        start = new.mark.when if new.mark.edge == "start" else None
        if start is not None and old.doc_date is not None and old.doc_date >= start:
            return f"{_said(old)} is stated as current after {_said(new)} took effect"
    if a.mark.when or b.mark.when:
        return f"{_said(a)} and {_said(b)} are both stated as current; the dates do not separate them"
    return f"{_said(a)} and {_said(b)} are both stated as current, with no dates to tell which holds"


def _spans_differ(a: Mention, b: Mention) -> bool:
    """A quarter's figure and a year's cover different spans of time: no relation."""
    return {a.mark.precision, b.mark.precision} == {"quarter", "year"} and bool(a.mark.when and b.mark.when)


def _groups(mentions: Sequence[Mention]) -> dict[tuple[str, str, str], list[Mention]]:
    by_subject: dict[tuple[str, str, str], list[Mention]] = {}
    for m in mentions:
        base, _ = _base_and_billing(m.subject)
        if base and m.stance == "stated":
            by_subject.setdefault((m.currency, subject_key(base), _implied_billing(m)), []).append(m)
    return by_subject


def compare(mentions: Sequence[Mention]) -> list[Conflict]:
    """Conflicts and changes among ``mentions``: one entry per subject, pair
    of amounts and relation, conflicts first."""
    entries: dict[tuple, tuple[list[Mention], list[tuple[Mention, Mention]], str, bool]] = {}
    for (currency, key, billing), group in _groups(mentions).items():
        for a, b in combinations(group, 2):
            if round(a.amount, 12) == round(b.amount, 12) or (a.per and b.per and a.per != b.per):
                continue
            if same_when_rounded(a, b) or titles_differ(a.table, b.table) or _spans_differ(a, b):
                continue  # one figure rounded two ways; rows of differently titled tables; a quarter and a year
            if entities_differ(a.entity, b.entity):
                continue  # rows of two companies' statements
            judged = judge(a, b)
            if judged is None:
                continue
            relation, reason, a_first = judged
            older, newer = (a, b) if a_first else (b, a)
            amounts = (
                (older.amount, newer.amount) if relation == "change" else tuple(sorted((a.amount, b.amount)))
            )
            sig = (currency, key, billing, a.per or b.per, relation, *amounts)
            members, pairs, _reason, _ = entries.setdefault(sig, ([], [], reason, a_first))
            for m in (older, newer):
                if m not in members:
                    members.append(m)
            pairs.append((older, newer))
    out: list[Conflict] = []
    for (currency, _key, billing, per, relation, first, second), (
        members,
        pairs,
        reason,
        _,
    ) in entries.items():
        stated = any(_base_and_billing(m.subject)[1] for m in members)
        subject = _base_and_billing(members[0].subject)[0] + (f" / billed {billing}" if stated else "")
        ordered = (
            sorted(members, key=lambda m: m.hit_rank * 10**9 + m.offset)
            if relation == "conflict"
            else members
        )
        index = {id(m): i for i, m in enumerate(ordered)}
        amounts = (
            tuple(dict.fromkeys(m.amount for m in ordered)) if relation == "conflict" else (first, second)
        )
        out.append(
            Conflict(
                subject, currency, per, amounts, tuple(ordered), relation, reason,
                tuple(sorted((index[id(x)], index[id(y)]) for x, y in pairs)),
            )
        )  # fmt: skip
    out.sort(key=lambda c: c.relation != "conflict")
    return out
