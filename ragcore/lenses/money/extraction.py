"""Every currency amount of a text with its unit, period, subject and phrase."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from decimal import Decimal
from typing import Literal

from ragcore.lenses.money.amount_times import amount_times
from ragcore.lenses.money.amounts import _Amount, _find_amounts
from ragcore.lenses.money.dates import TimeMark, find_dates, quarter_mark, year_mark
from ragcore.lenses.money.entities import table_entity
from ragcore.lenses.money.rows import PdfRow, pdf_row
from ragcore.lenses.money.subjects import (
    _DETERMINERS,
    _FILLER,
    _GENERIC_HEADERS,
    _PRONOUNS,
    _STOP,
    _billing_term,
    _clean_word,
    _normalise_phrase,
    _noun_phrase_before,
    _plan_phrase,
    _plan_phrase_after,
    _tokens,
)
from ragcore.lenses.money.tables import _table_context, _table_headers, _table_subject
from ragcore.lenses.money.titles import markdown_table_titles, pdf_table_title
from ragcore.lenses.spans import phrase_bounds
from ragcore.text import sentence_spans

Stance = Literal["stated", "threshold", "forecast", "proposal", "example", "difference"]


@dataclass(frozen=True)
class FigureMatch:
    """One currency amount found in a text (offsets into that text)."""

    amount: float
    currency: str  # ISO 4217 code
    period: str | None  # what it is per: "month", "year", "user/month", "GB/month", "one-time", ...
    raw: str  # the amount as written, with its unit/period
    start: int  # offsets of the amount in the text
    end: int
    subject: str  # normalised, e.g. "lowest tier / billed annually"; "" when none found
    billing: str | None  # "monthly" | "annually" when the text states a billing term
    phrase_start: int  # the surrounding phrase (sentence or table row)
    phrase_end: int
    mark: TimeMark = field(default_factory=TimeMark)  # when the text says the amount holds
    stance: Stance = "stated"  # only stated amounts are compared
    table: str | None = None  # the title of the table the amount stands in, when one is found
    entity: str | None = None  # the company heading the statement the amount stands in, when one is named


_CONTINUATION = re.compile(
    # what may stand between two amounts of one subject: "$60 for the whole year or $5 per month",
    # "$18.4M at <date>, up from $12.9M", "$0.02 from <date>; it was $0.03"
    r"(?:\s*(?:,|;|:|or|and|/|vs\.?|versus|to|-|–|—|―|\(|then|just|only|at|on|in|up|down|from|was|were|is|now|"
    r"it|this|that|which|previous(?:ly)?|formerly|earlier|old|new|rate|price|compared|against|§|"
    # "fell $120.4 million, or 15%, from $0.8 billion": a percentage of the same change
    r"\d+(?:\.\d+)?\s?%)\s*)*",
    re.IGNORECASE,
)
# An amount as a limit, not a price: "claims over $5,000", "invoices of $10,000 or more".
_THRESHOLD_BEFORE = re.compile(
    r"\b(?:above|over|under|below|exceeding|exceeds?|more\s+than|less\s+than|at\s+least|at\s+most|up\s+to|"
    r"beyond|greater\s+than|in\s+excess\s+of)\s*$",
    re.IGNORECASE,
)
_THRESHOLD_AFTER = re.compile(
    r"^\s*(?:or\s+(?:more|less|above|below|over|under|higher|lower)|and\s+(?:above|over|up))\b", re.I
)
_FORECAST = re.compile(
    r"\b(?:expect(?:s|ed)?|forecast(?:s|ed)?|target(?:s|ed)?|projected|projection|budget(?:ed)?|goal|"
    r"estimated?|(?:we|they|management)\s+estimates|aim(?:s)?\s+(?:to|for)|(?:we|i|they|you)\s+plan(?:s|ned)?\s+(?:for|to)|our\s+plan\s+for)\b",
    re.IGNORECASE,
)
_PROPOSAL = re.compile(
    r"\b(?:propos(?:al|ed|es?|ing)|draft|suggest(?:ed|s|ion)?|consider(?:ed|s)?)\b[^.;]{0,60}?"
    r"\b(?:rais(?:e|ing)|increas(?:e|ing)|lower(?:ing)?|cut(?:ting)?|reduc(?:e|ing)|chang(?:e|ing)|mov(?:e|ing))\b",
    re.IGNORECASE,
)
# An amount that states a difference, not a level: "increased $3.8 billion",
# "improved by $2 million", "a $25 million decrease in" ("up from $X" and
# "rose to $X" name levels and are not matched).
_DIFFERENCE_BEFORE = re.compile(
    r"(?:\b(?:increased|decreased|improved|improving|grew|rose|fell|declined|dropped|up|down|higher|lower)\s+"
    r"(?:by\s+)?"
    # "an increase in consumer credits of $384 million", "a reduction of $5"
    # (no word boundary before the noun: run-together PDF text writes "anincrease")
    r"|(?:increase|decrease|reduction|improvement|decline|rise|drop|growth)\s+(?:in\s+[^$.;]{0,100}?\s+)?"
    r"(?:of|by)\s+)(?:(?:approximately|about|roughly|nearly|almost|some)\s+)?$",
    re.IGNORECASE,
)
_DIFFERENCE_AFTER = re.compile(
    r"\s*(?:net\s+)?(?:increase|decrease|reduction|improvement|decline|rise|drop|growth)s?\b", re.IGNORECASE
)
_FEE_HEADS = frozenset("fee fees charge surcharge deposit credit payment discount rebate penalty".split())
# An amount that names its charge after it: "a $250 reinstatement fee", "a $40 late-payment charge".
_FEE_AFTER = re.compile(
    r"[ \t]+((?:[A-Za-z][\w-]*[ \t]+){0,3}(?:" + "|".join(sorted(_FEE_HEADS)) + r"))\b", re.IGNORECASE
)
_ABBREVIATION = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,5})\(([A-Z]{2,6})\)")
# A time phrase between a subject and its verb: "Cash at <date> was", "New ARR added in the fourth quarter was".
_TIME_PHRASE = re.compile(
    r"\b(?:at|on|in|by|as\s+of|for|during|from|since|until)\s+(?:the\s+)?"
    r"(?:(?:end|start|beginning|close|middle)\s+of\s+(?:the\s+)?)?"
    r"(?:§|(?:[\w-]+\s+){0,2}?(?:quarter|year|month|week|day|period|half)\b)"
    # a year phrase: "Revenue for fiscal 2021 was", "Gross margin in2022 was", "$0.8 billion in 2021 to"
    r"|\b(?:(?:in|for|during)\s*(?:(?:the\s+)?fiscal\s+(?:year\s+)?)?|fiscal\s+(?:year\s+)?)(?:19|20)\d\d\b(?!\s*%)",
    re.IGNORECASE,
)


def _mask_time(text: str) -> str:
    """``text`` with dates and time phrases blanked (same length), and
    "Annual recurring revenue (ARR)" read as "ARR"."""
    chars = list(text)
    for d in find_dates(text):
        chars[d.start : d.end] = "§" + " " * (d.end - d.start - 1)
    masked = "".join(chars)
    masked = _TIME_PHRASE.sub(lambda m: " " * len(m.group()), masked)

    def abbreviate(m: re.Match) -> str:
        words, abbr = m.group(1).split(), m.group(2)
        initials = "".join(w[0] for w in words[-len(abbr) :]).upper()
        return (" " * (len(m.group()) - len(abbr)) + abbr) if initials == abbr else m.group()

    return _ABBREVIATION.sub(abbreviate, masked).replace("§", " ")


def _prose_subject(text: str, amt: _Amount, segment_start: int, fallback: str) -> str:
    """What an amount in running text prices: the noun phrase before it, or
    the sentence's plan when that phrase is a pronoun, a quantity or a name,
    else ``fallback`` (the plan named last before the sentence, or the heading)."""
    np_words, quantity, proper = _noun_phrase_before(_mask_time(text[segment_start : amt.start]))
    named_after = _FEE_AFTER.match(text, amt.stop, amt.sentence[1])
    if named_after is not None and not (np_words and np_words[-1] in _FEE_HEADS):
        # "is subject to a $250 reinstatement fee": the fee named after the amount
        return _normalise_phrase([_clean_word(t) for t in _tokens(named_after.group(1))])
    listed = _LISTED_PARTS.search(text, amt.sentence[0], amt.start) is not None
    if np_words and np_words[-1] in _OBJECT_VERBS:
        # "... also included $0.4 billion of severance expense": the object names it
        return _of_phrase_after(text, amt) or (_in_phrase_after(text, amt) if listed else "")
    if not np_words and not quantity and (named_of := _of_phrase_after(text, amt)):
        return named_of  # a sentence that opens on the amount: "$250 million of insurance expense was ..."
    if not np_words and not quantity and listed and (named_in := _in_phrase_after(text, amt)):
        return named_in  # a listed part: "consisting of $0.9 billion in purchases of equipment, $0.2 billion in ..."
    before = text[amt.sentence[0] : amt.start]
    if not np_words or quantity or proper or np_words[-1] in _PRONOUNS:
        kept = np_words if np_words and np_words[-1] not in _PRONOUNS else []
        plans = [_plan_phrase(before), _plan_phrase_after(text[amt.end : amt.sentence[1]])]
        # "every plan: Starter $490/year": a plan word without a name names nothing
        named = [p for p in plans if _names_something(p)]
        np_words = named[0] if named else kept
        if not np_words:
            return fallback if not (quantity or proper) else ""
    words = [w for w in np_words if w not in _PRONOUNS]
    return _normalise_phrase(words) if _names_something(words) else ""


# Verbs whose object is the amount, named by an "of" phrase after it ("recorded $20 million of impairment").
_OBJECT_VERBS = frozenset(
    "include includes included including record records recorded recognize recognizes recognized "
    "recognise recognises recognised incur incurs incurred report reports reported "
    # a total's parts: "primarily consisting of $310 million of operating loss"
    "consist consists consisting consisted comprise comprises comprising comprised".split()
)
# "of" may touch the amount: PDF text glues it to a multiplier ("$88.1 millionof freight expense")
_OF_AFTER = re.compile(r"[ \t\n]*of[ \t\n]+((?:[A-Za-z][\w-]*[ \t\n]+){0,4}[A-Za-z][\w-]*)")


def _of_phrase_after(text: str, amt: _Amount) -> str:
    """The noun phrase of an "of" phrase right after the amount, up to its first
    function word; "" when there is none."""
    m = _OF_AFTER.match(text, amt.stop, amt.sentence[1])
    if m is None:
        return ""
    words: list[str] = []
    for w in (_clean_word(t) for t in _tokens(m.group(1))):
        # the phrase ends at a function word, or a participle after its noun ("of costs related to")
        if w in _STOP or (words and w.endswith("ed")):
            break
        words.append(w)
    return _normalise_phrase(words) if _names_something(words) else ""


# A list of a total's parts: "primarily consisting of", "comprising", "which included".
_LISTED_PARTS = re.compile(
    r"\b(?:consist(?:ed|ing|s)?\s+(?:\w+\s+)?of|compris(?:ed|ing|es?)|includ(?:ed|ing|es?))\b", re.IGNORECASE
)
_IN_LINKS = frozenset({"of", "on", "from", "for"})  # one such phrase belongs to the part's name
# "in" may touch the amount or the next word in PDF text ("$2.3billion in acquisition")
_IN_AFTER = re.compile(r"[ \t\n]*in[ \t\n]+((?:[A-Za-z][\w-]*[ \t\n]+){0,5}[A-Za-z][\w-]*)")


def _in_phrase_after(text: str, amt: _Amount) -> str:
    """The noun phrase of an "in" phrase right after a listed part ("$2.3
    billion in purchases of equipment"): up to its first function word, one
    "of"/"on"/"from"/"for" phrase included ("impairment of goodwill" is not
    "impairment of equity securities", "gain on disposals" not "gain from
    sale"); "" for a time ("in 2021", "in the year ended")."""
    m = _IN_AFTER.match(text, amt.stop, amt.sentence[1])
    if m is None or _TIME_PHRASE.match(text, m.start(0) + m.group(0).index("in")):
        return ""
    words: list[str] = []
    for w in (_clean_word(t) for t in _tokens(m.group(1))):
        if w in _IN_LINKS and words and not set(words) & _IN_LINKS:
            words.append(w)  # "impairment of goodwill", "gain on asset disposals"
            continue
        if w in _STOP or (words and w.endswith("ed")):
            break
        words.append(w)
    while words and words[-1] in _IN_LINKS:
        words.pop()
    return _normalise_phrase(words) if _names_something(words) else ""


def _names_something(words: list[str]) -> bool:
    """Whether a phrase has a word besides determiners and plan filler ("plan", "tier")."""
    return any(w not in _FILLER and w not in _DETERMINERS for w in words)


def _stance(text: str, amt: _Amount) -> Stance:
    sentence = text[amt.sentence[0] : amt.sentence[1]]
    if amt.start > 0 and text[amt.start - 1] in '"“':
        return "example"  # a figure in quotation marks is shown, not stated
    if _DIFFERENCE_BEFORE.search(
        text[max(amt.sentence[0], amt.start - 140) : amt.start]
    ) or _DIFFERENCE_AFTER.match(text, amt.stop, amt.sentence[1]):
        return "difference"  # "rose $400 million", "a $25 million increase in": by how much, not a level
    if _THRESHOLD_BEFORE.search(
        text[max(amt.sentence[0], amt.start - 30) : amt.start]
    ) or _THRESHOLD_AFTER.match(text, amt.stop, amt.sentence[1]):
        return "threshold"
    if _PROPOSAL.search(sentence):
        return "proposal"
    if _FORECAST.search(sentence):
        return "forecast"
    return "stated"


def _fallback_subject(text: str, before: int, label: str, prior: str) -> str:
    """The plan named last in the text before a sentence (``prior`` is the
    document's text before this passage), else the last heading of the
    passage label, for a sentence that names neither."""
    plan = _plan_phrase((prior + "\n" + text[:before])[-800:])
    if _names_something(plan):
        return _normalise_phrase(plan)
    heading = label.rsplit(">", 1)[-1]
    if re.fullmatch(r"\s*(?:pages?|pp?\.)\s*\d+(?:\s*[-–]\s*\d+)?\s*", heading, re.IGNORECASE):
        return ""  # a PDF passage labelled by its page number names nothing
    words = [
        _clean_word(t) for t in _tokens(re.sub(r"^\W*\d+(?:\.\d+)*\.?\s*", "", heading)) if t[:1].isalpha()
    ]
    return _normalise_phrase([w for w in words if w not in _GENERIC_HEADERS])


def _table_figure(
    text: str, amt: _Amount, table: tuple
) -> tuple[str, str | None, str | None, tuple[int, int]]:
    """(subject, billing, period, phrase) of an amount in a table row."""
    base, billing, table_period = _table_subject(*table)
    start = amt.line[0]
    while start < amt.line[1] and text[start].isspace():
        start += 1
    return base, billing, amt.period or table_period, (start, amt.line[1])


def _column_mark(row: PdfRow) -> TimeMark:
    """The time of a table cell: its column's quarter or year, else none."""
    if row.year is not None and row.quarter is not None:
        return quarter_mark(row.year, row.quarter)
    return year_mark(row.year) if row.year is not None else TimeMark()


def _row_subject(label: str) -> str:
    """The subject a PDF table row's label names."""
    words = [_clean_word(t) for t in _tokens(label) if t[:1].isalpha()]
    return _normalise_phrase([w for w in words if w])


def _inherit_unit(amounts: list[_Amount], k: int, marks: list[TimeMark]) -> str | None:
    """An amount written without a unit next to a dated or past one in the
    same sentence or cell ("$0.15 / GB / month from March 3; previous rate:
    $0.25 until March 2") is per the same unit; one dated only by a year
    ("ARR of $26M for 2026, ... $0.4M a month") is a total of that year."""
    amt = amounts[k]
    dated = marks[k].edge is not None and marks[k].precision not in ("year", "quarter")
    if amt.period is not None or (not dated and marks[k].tense != "past"):
        return amt.period
    same = [a for a in amounts if a.sentence == amt.sentence and a is not amt and a.period]
    return same[0].period if same else None


def _prose_figure(
    text: str,
    amt: _Amount,
    around: tuple[_Amount | None, _Amount | None],
    where: tuple[str, str],
    before: tuple[str, str | None],
) -> tuple[str, str | None, str | None, tuple[int, int]]:
    """(subject, billing, period, phrase) of an amount in running text, between
    the amounts ``around`` it; ``where`` is (label, prior text), ``before`` the
    subject and billing of the amount before (which a continuation takes)."""
    prev, nxt = around
    prev_base, prev_billing = before
    label, prior = where
    # the amount's own stretch of the sentence: from the previous amount to the next
    seg_start = prev.stop if prev else amt.sentence[0]
    seg_end = nxt.start if nxt else amt.sentence[1]
    continuation = prev is not None and _CONTINUATION.fullmatch(_mask_time(text[seg_start : amt.start]))
    if (
        continuation
        and _LISTED_PARTS.search(text, amt.sentence[0], amt.start)
        and _in_phrase_after(text, amt)
    ):
        continuation = (
            False  # "... expense of $215 million, $96 million in write-down of inventory": its own part
        )
    # "$60 for the whole year or $5 per month": one subject for both
    # a heading names the price under it ("## Starter" / "$49 a month"), not
    # every total in its prose: only an amount with a unit falls back to it
    fallback = _fallback_subject(text, amt.sentence[0], label if amt.period else "", prior)
    base = prev_base if continuation else _prose_subject(text, amt, seg_start, fallback)
    billing = _billing_term(text, seg_start, seg_end, amt.start, amt.stop)
    if billing is None and continuation:
        billing = prev_billing
    return base, billing, amt.period, phrase_bounds(text, amt.sentence, amt.start)


def extract_figures(
    text: str, label: str = "", context: date | None = None, prior: str = "", above: str = ""
) -> list[FigureMatch]:
    """Every currency amount in ``text`` with its unit and period, subject,
    phrase, time mark and stance. ``label`` is the heading path (a last-resort
    subject); ``context`` the document's date (for dates without a year);
    ``prior`` the document's text before ``text`` (its last plan name);
    ``above`` the text right up to ``text``, when known (a table header above
    the passage: its scale and column years).

    Percentages, plain numbers, dates, phone and version numbers are not
    figures. Offsets are into ``text``.
    """
    spans = sentence_spans(text)
    amounts = _find_amounts(text, spans, above)
    headers = _table_headers(text) if amounts else {}
    titles = markdown_table_titles(text, label) if amounts else {}
    found: list[FigureMatch] = []
    prev_base, prev_billing = "", None
    marks = amount_times(text, amounts, context, above)
    for k, amt in enumerate(amounts):
        prev = amounts[k - 1] if k and amounts[k - 1].sentence == amt.sentence else None
        nxt = amounts[k + 1] if k + 1 < len(amounts) and amounts[k + 1].sentence == amt.sentence else None
        table = _table_context(text, amt.line, amt.start, headers)
        row = pdf_row(text, amt.line, amt.start, above) if table is None else None
        title = titles.get(amt.line[0]) if table is not None else None
        entity = table_entity(above + text, len(above) + amt.line[0])
        if table is not None:
            base, billing, period, phrase = _table_figure(text, amt, table)
        elif row is not None and row.label:
            base, billing, period, phrase = _row_subject(row.label), None, amt.period, amt.line
            if row.per_share:  # a statement's "(in thousands ..." scale leaves its per-share cells unscaled
                amt = _per_share_amount(amt)
                period = period or "share"
            title = pdf_table_title(above + text, len(above) + amt.line[0])
            # a cell is dated by its column, never by running text around the table
            marks[k] = _column_mark(row)
        else:
            before = (prev_base, prev_billing)
            base, billing, period, phrase = _prose_figure(text, amt, (prev, nxt), (label, prior), before)
        period = period or _inherit_unit(amounts, k, marks)
        subject = f"{base} / billed {billing}" if billing and base else base
        raw = text[amt.start : amt.stop].strip()
        # a table row's stance is its own ("We expect ..." before the table is not the row's)
        stance = _stance(text, amt if table is None and row is None else replace(amt, sentence=amt.line))
        # one match per value the amount states ("$8 and $12"), each at its own offsets
        like = FigureMatch(
            0.0, amt.currency, period, raw, 0, 0, subject, billing, *phrase[:2], marks[k], stance
        )
        found.extend(
            replace(like, amount=v, start=a, end=b, table=title, entity=entity) for v, a, b in amt.values
        )
        prev_base, prev_billing = base, billing
    return found


def _per_share_amount(amt: _Amount) -> _Amount:
    """A per-share cell as written: a table's "(in thousands)" scale excepts
    per-share amounts (a statement's header says so beside its scale)."""
    values = [(float(Decimal(str(v)) / Decimal(str(amt.scale))), a, b) for v, a, b in amt.values]
    return replace(amt, values=values, scale=1.0)
