"""Money lens: every price in the retrieved passages, keyed and compared.

Method (rule-based information extraction, in the spirit of the pattern
matchers of Hearst 1992 and of named-entity rules for MONEY in MUC-7,
Chinchor 1998):

1. Find currency amounts in their common written forms: a symbol before the
   number (``$999``, ``€49``, ``US$5``), an ISO code before or after it
   (``USD 999``, ``49 EUR``), or a currency word after it (``999 dollars``),
   with thousands separators, decimals and k/M/bn multipliers. A figure must
   carry a currency: percentages and plain numbers are never prices, and
   shapes that only look like amounts (dates, phone numbers, version numbers,
   "in 2021 dollars") are rejected.
2. Read the unit and period written after the amount (``/month``,
   ``per user per month``, ``/GB``, ``for the full year``, ``billed
   annually``) or just before it (``a one-time fee of``), normalised to
   "month", "year", "user/month", "GB", ...
3. Give each amount a subject, what it prices: in a Markdown table the row
   label and column header, otherwise the nearest noun phrase before the
   amount in its sentence (a pronoun or a bare quantity falls back to the
   plan or tier the sentence names). The billing term stated in the sentence
   ("if you pay monthly", "annual billing") is part of the subject, so a
   monthly and an annual price of one tier are two subjects, not a conflict.
4. Key figures on (currency, amount): "$999" and "$999/month" are one figure
   with two mentions. A conflict is two or more amounts for one subject and
   billing term (same currency), stated in different sentences, whose periods
   agree where both are stated. A price without a billing term takes the term
   its period implies (per year: annual; otherwise monthly); a change within
   one sentence ("from $999 to $1,199") is not a conflict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragcore.lenses.spans import collapse, line_bounds, passage_lines, phrase_bounds, sentence_at
from ragcore.records import Hit
from ragcore.text import sentence_spans, stem


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --------------------------------------------------------------------------
# 1. Amounts

_SYMBOLS = {
    "US$": "USD",
    "U.S.$": "USD",
    "CA$": "CAD",
    "C$": "CAD",
    "AU$": "AUD",
    "A$": "AUD",
    "NZ$": "NZD",
    "HK$": "HKD",
    "S$": "SGD",
    "R$": "BRL",
    "$": "USD",  # a bare dollar sign is read as US dollars
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "₩": "KRW",
    "₽": "RUB",
    "₺": "TRY",
}
_ISO = tuple(
    sorted(
        _wordset(
            "USD EUR GBP JPY CAD AUD CHF CNY INR SEK NOK DKK NZD HKD SGD BRL MXN PLN ZAR KRW RUB TRY CZK HUF ILS"
        )
    )
)
_WORDS = {
    "us dollars": "USD",
    "us dollar": "USD",
    "dollars": "USD",
    "dollar": "USD",
    "euros": "EUR",
    "euro": "EUR",
    "pounds sterling": "GBP",
    "british pounds": "GBP",
    "yen": "JPY",
    "swiss francs": "CHF",
    "rupees": "INR",
    "cents": "USD",  # scaled by 1/100 below
    "cent": "USD",
}
_MULTIPLIERS = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "t": 1e12,
    "trillion": 1e12,
}

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# A one-letter multiplier must touch the number ("$5M"); a word may follow a space.
_MULT = r"(?:(?P<{g}s>[kKmMbBtT]|mm|MM|mn|bn|BN)(?![\w])|\s(?P<{g}w>thousand|million|billion|trillion)\b)?"


def _sym_alt() -> str:
    return "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True))


_AMOUNT = re.compile(
    # symbol before: $999, US$ 5, €49
    rf"(?<![\w$])(?P<sym>{_sym_alt()})\s?(?P<n1>{_NUM}){_MULT.format(g='m1')}"
    # ISO code before: USD 999
    rf"|\b(?P<iso1>{'|'.join(_ISO)})\s?(?P<n2>{_NUM}){_MULT.format(g='m2')}"
    # number then ISO code, symbol or currency word: 49 EUR, 49€, 999 dollars
    rf"|(?<![\w.,$€£¥-])(?P<n3>{_NUM}){_MULT.format(g='m3')}\s?"
    rf"(?:(?P<iso2>{'|'.join(_ISO)})\b|(?P<sym2>[€£¥₹$])|(?P<word>{'|'.join(sorted(_WORDS, key=len, reverse=True))})\b)",
    re.IGNORECASE,
)
# Only upper-case ISO codes count ("usd" in prose is rare; "eur" in a word is not a currency).
_ISO_SET = frozenset(_ISO)

# A range written "$10-20" or "$10–20": the second number shares the currency.
_RANGE_TAIL = re.compile(rf"\s?[-–—]\s?(?P<n>{_NUM})(?P<ms>[kKmMbB]|bn)?(?![\w])")
# Shapes that are not amounts once we see what follows the number.
_NOT_AMOUNT_AFTER = re.compile(r"%|\s?percent\b|\.\d|[-–:]\d|\s?(?:am|pm)\b", re.IGNORECASE)
# "in 2021 dollars": a year naming a price level, not an amount.
_PRICE_LEVEL = re.compile(r"\b(?:in|constant|real|nominal|current|today's)\s+$", re.IGNORECASE)


# --------------------------------------------------------------------------
# 2. Units and periods

_PERIOD_WORDS = {
    "hour": "hour",
    "hr": "hour",
    "day": "day",
    "week": "week",
    "wk": "week",
    "month": "month",
    "mo": "month",
    "mth": "month",
    "mon": "month",
    "quarter": "quarter",
    "qtr": "quarter",
    "year": "year",
    "yr": "year",
    "annum": "year",
}
_ADVERBS = {
    "hourly": "hour",
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annually": "year",
    "annual": "year",
    "p.a.": "year",
}
_UNIT_WORDS = {
    "seat": "user",
    "user": "user",
    "member": "user",
    "team member": "user",
    "person": "user",
    "head": "user",
    "agent": "user",
    "license": "user",
    "licence": "user",
    "employee": "user",
    "editor": "user",
    "gb": "GB",
    "gigabyte": "GB",
    "tb": "TB",
    "terabyte": "TB",
    "mb": "MB",
    "megabyte": "MB",
}
_PERIOD_ORDER = ("hour", "day", "week", "month", "quarter", "year")

_SEGMENT = re.compile(
    r"\s*(?P<sep>/|\bper\b|\ba\b|\ban\b|\beach\b|\bevery\b)\s*"
    r"(?P<count>\d[\d,]*(?:\.\d+)?\s*)?(?P<word>team\s+members?|[A-Za-z]+)(?P<dot>\.)?",
    re.IGNORECASE,
)
_ADVERB_AFTER = re.compile(
    r"\s*,?\s*(?:(?:paid|billed|charged|payable)\s+)?(?P<adv>hourly|daily|weekly|monthly|quarterly|yearly|annually|p\.a\.)",
    re.IGNORECASE,
)
_FOR_PERIOD = re.compile(
    r"\s*,?\s*for\s+(?:the|a|one|1)?\s*(?:full|whole|entire|first|single)?\s*"
    r"(?P<p>year|month|week|day|12\s+months|twelve\s+months)\b",
    re.IGNORECASE,
)
_ONE_TIME_AFTER = re.compile(r"\s*(?:one[- ]time|one[- ]off)\b", re.IGNORECASE)
# Period written before the amount: "a one-time fee of $25", "monthly price: $20",
# "price per user is $5".
_PERIOD_BEFORE = re.compile(
    r"\b(?P<adv>hourly|daily|weekly|monthly|quarterly|yearly|annual|one[- ]time|one[- ]off)\s+"
    r"(?:[\w-]+\s+){0,2}?(?:of|is|was|at|for|:|=|-)?\s*$"
    r"|\bper[- ](?P<unit>seat|user|month|year|hour|day|week)\b\s*(?:[\w-]+\s+){0,1}?(?:of|is|was|at|:|=|-)?\s*$",
    re.IGNORECASE,
)


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _unit_name(word: str) -> tuple[str, str] | None:
    """("period"|"unit", normalised name) for a word after "per" or "/"."""
    w = re.sub(r"\s+", " ", word.lower())
    w1 = _singular(w) if not w.startswith("team member") else "team member"
    if w1 in _PERIOD_WORDS:
        return "period", _PERIOD_WORDS[w1]
    if w in _ADVERBS:
        return "period", _ADVERBS[w]
    if w1 in _UNIT_WORDS:
        return "unit", _UNIT_WORDS[w1]
    return None


def _format_period(units: list[str], periods: list[str]) -> str | None:
    parts = list(dict.fromkeys(units)) + sorted(set(periods), key=_PERIOD_ORDER.index)
    return "/".join(parts) if parts else None


def _read_period(text: str, end: int, line_end: int) -> tuple[str | None, int]:
    """Unit and period written right after an amount; returns (period, end offset)."""
    units: list[str] = []
    periods: list[str] = []
    pos = end
    while True:
        m = _SEGMENT.match(text, pos, line_end)
        if not m:
            break
        sep = m.group("sep").lower()
        named = _unit_name(m.group("word"))
        count = (m.group("count") or "").strip()
        if named is None:
            if sep not in ("/", "per") or m.group("word").lower() in (
                "the",
                "and",
                "or",
                "if",
                "for",
            ):
                break
            # any other unit after "per"/"/": "per 1,000 requests", "/GB", "per site"
            word = m.group("word")
            name = word.upper() if word.isupper() else _singular(word.lower())
            named = ("unit", name)
        kind, name = named
        if kind == "unit" and count:
            name = f"{count.replace(',', '')} {name}"
        (units if kind == "unit" else periods).append(name)
        pos = (
            m.end()
            if m.group("dot") and m.group("word").lower() in ("mo", "yr", "hr", "mth")
            else m.end("word")
        )
    if not periods:
        m = _ADVERB_AFTER.match(text, pos, line_end) or _FOR_PERIOD.match(text, pos, line_end)
        if m is not None:
            word = (m.groupdict().get("adv") or m.groupdict().get("p") or "").lower()
            periods.append(
                "year" if "12" in word or "twelve" in word else _ADVERBS.get(word, _PERIOD_WORDS.get(word))
            )
            pos = m.end()
        elif not units and (m := _ONE_TIME_AFTER.match(text, pos, line_end)):
            periods.append("one-time")
            pos = m.end()
    if "one-time" in periods:
        return "one-time", pos
    return _format_period(units, periods), pos


def _period_before(prefix: str) -> str | None:
    m = _PERIOD_BEFORE.search(prefix[-60:])
    if not m:
        return None
    if m.group("unit"):
        named = _unit_name(m.group("unit"))
        return named[1] if named else None
    adv = m.group("adv").lower().replace(" ", "-")
    if adv in ("one-time", "one-off"):
        return "one-time"
    return _ADVERBS.get(adv)


# --------------------------------------------------------------------------
# 3. Subjects

_DETERMINERS = _wordset(
    "a an the our your their its his her my this that these those each every any some all no"
)
_PRONOUNS = _wordset("it this that these those they them which what one everything something")
# Words between a subject and its price ("the Pro plan is priced at $49").
_LINKS = _wordset(
    """is are was were be been being will would shall should can could may might
    now currently still only just also then already even
    cost costs costing priced price prices pricing charged charge charges billed bill bills
    at of for to from about around approximately roughly nearly almost over under up
    starts start starting begins begin beginning runs run comes come makes make made
    sets set goes go sells sell sold pay pays paid quoted quote quotes offered offer offers
    listed list totals totalled amounts equals earn earns earned spend spends spent
    receive receives received get gets got save saves raise raised generate generates
    stays stay remain remains remained moves moved rises rose increases increased
    drops dropped falls fell changes changed becomes became lowered cut
    extra additional mere whopping flat fixed low lower higher just only
    we you they i us them he she
    = : - – — ( ~ ≈ ' “ ” ‘ ’"""
) | {'"'}
_STOP = (
    _LINKS
    | _DETERMINERS
    | _wordset("""and or but if when while because so than as with without by into on in per
    not no nor both either neither which who whom whose where there here
    plus minus including includes include excluding annually dollars dollar euros euro cents""")
)
# A phrase made only of these says nothing about what is priced ("the correct
# list price is $999"), nor does one ending in a word for money itself.
_ADJECTIVES = _wordset(
    """correct current new old official actual final effective right wrong best usual normal
    full real true exact same standard regular special introductory discounted net gross
    base average typical quoted agreed approved proposed draft corrected revised updated
    original initial written"""
)
_JUNK_HEADS = _wordset("period figure figures amount amounts number numbers example total value sum money")
# Head nouns that name what a customer buys; a sentence's plan wins over a
# bare quantity ("5 users for $20") or a pronoun ("it is priced at $6").
_PLAN_NOUNS = _wordset("plan plans tier tiers package packages edition editions subscription bundle license")
# Dropped from the comparison key: "lowest subscription tier" == "lowest tier",
# "Pro" == "Pro plan".
_FILLER = _wordset(
    "plan plans tier tiers subscription package edition level option price pricing cost fee rate"
)
_GENERIC_HEADERS = _wordset(
    "price prices pricing cost costs fee fees amount rate rates total usd eur gbp $ € £ value charge"
)

_BILLING_MONTHLY = re.compile(
    r"\b(?:pa(?:y|id|ying)|bill(?:ed|ing)?|charged|invoiced)\s+(?:\w+\s+)?monthly\b"
    r"|\bmonthly\s+(?:billing|plans?|subscriptions?|payments?|terms?|contracts?|discounts?)\b"
    r"|\bmonth[- ]to[- ]month\b|\bon\s+a\s+monthly\s+basis\b|^\s*monthly\s*$",
    re.IGNORECASE,
)
_BILLING_ANNUAL = re.compile(
    r"\b(?:pa(?:y|id|ying)|bill(?:ed|ing)?|charged|invoiced)\s+(?:\w+\s+)?(?:annually|yearly|once\s+a\s+year)\b"
    r"|\b(?:annual|yearly)\s+(?:billing|plans?|subscriptions?|payments?|terms?|contracts?|commitments?|prepay\w*|discounts?)\b"
    r"|\bon\s+an?\s+(?:annual|yearly)\s+basis\b|^\s*(?:annual(?:ly)?|yearly)\s*$",
    re.IGNORECASE,
)

_WORD_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’&+.-]*[A-Za-z0-9+]|[A-Za-z]|\d[\d,.]*|[^\sA-Za-z0-9]")
_MARKUP = re.compile(r"\*\*|__|`|\[|\]\([^)]*\)|[*_#>|]")


def _tokens(text: str) -> list[str]:
    return _WORD_TOKEN.findall(_MARKUP.sub(" ", text))


def _clean_word(w: str) -> str:
    w = w.lower().replace("’", "'")
    return w[:-2] if w.endswith("'s") else w.rstrip(".")


def _noun_phrase_before(prefix: str) -> tuple[list[str], bool, bool]:
    """The noun phrase nearest the end of ``prefix``; whether a number directly
    precedes it (then it is a quantity, not what is priced); and whether it is
    a proper name (every word capitalised, e.g. a customer)."""
    toks = _tokens(prefix)
    i = len(toks) - 1
    while i >= 0 and (_clean_word(toks[i]) in _LINKS or _clean_word(toks[i]) in _DETERMINERS):
        i -= 1
    phrase: list[str] = []
    original: list[str] = []
    while i >= 0 and len(phrase) < 5:
        w = _clean_word(toks[i])
        if w in _STOP or not w[:1].isalpha():
            break
        phrase.insert(0, w)
        original.insert(0, toks[i])
        i -= 1
    quantity = i >= 0 and toks[i][:1].isdigit()
    if all(w in _ADJECTIVES for w in phrase) or (phrase and phrase[-1] in _JUNK_HEADS):
        return [], quantity, False
    proper = bool(original) and i >= 0 and all(t[:1].isupper() for t in original)
    return phrase, quantity, proper


def _plan_phrase(text: str) -> list[str]:
    """The last noun phrase in ``text`` whose head is a plan word ("lowest subscription tier")."""
    toks = _tokens(text)
    for j in range(len(toks) - 1, -1, -1):
        if _clean_word(toks[j]) in _PLAN_NOUNS:
            phrase = [_clean_word(toks[j])]
            i = j - 1
            while i >= 0 and len(phrase) < 5:
                w = _clean_word(toks[i])
                if w in _STOP or not w[:1].isalpha():
                    break
                phrase.insert(0, w)
                i -= 1
            return phrase
    return []


def _plan_phrase_after(text: str, window: int = 8) -> list[str]:
    """The first plan noun phrase in the next few words ("$999 for the Business plan")."""
    toks = _tokens(text)[:window]
    for j, tok in enumerate(toks):
        w = _clean_word(tok)
        if w in (".", ";", "!", "?"):
            break
        if w in _PLAN_NOUNS:
            return _plan_phrase(" ".join(toks[: j + 1]))
    return []


def subject_key(subject: str) -> str:
    """Comparison key of a subject: stemmed content words without plan filler,
    so "Pro plan" and "pro" meet, and "lowest subscription tier" meets "lowest tier"."""
    base, _, billing = subject.partition(" / billed ")
    base_words = [w for w in re.split(r"[\s/]+", base) if w]
    kept = [stem(w) for w in base_words if w not in _FILLER] or [stem(w) for w in base_words]
    key = " ".join(kept)
    return f"{key} | {billing}" if billing else key


def _billing_term(text: str, seg_start: int, seg_end: int, start: int, stop: int) -> str | None:
    """The billing term stated in ``text[seg_start:seg_end]`` nearest the
    amount at ``start``-``stop`` (measured from the amount's near edge)."""
    best: tuple[int, str] | None = None
    segment = text[seg_start:seg_end]
    for pattern, term in ((_BILLING_MONTHLY, "monthly"), (_BILLING_ANNUAL, "annually")):
        for m in pattern.finditer(segment):
            a, b = seg_start + m.start(), seg_start + m.end()
            dist = a - stop if a >= stop else start - b if b <= start else 0
            if best is None or dist < best[0]:
                best = (max(dist, 0), term)
    return best[1] if best else None


# --------------------------------------------------------------------------
# Tables

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


def _is_table_row(line: str) -> bool:
    s = line.strip()
    return s.startswith("|") and s.count("|") >= 2


def _cells(line: str) -> list[str]:
    s = line.strip()
    s = s.removeprefix("|").removesuffix("|")
    return [_MARKUP.sub(" ", c).strip() for c in s.split("|")]


def _table_headers(text: str) -> dict[int, list[str]]:
    """Header cells of every Markdown table row below a separator row, keyed
    by the row's line start (one pass, so long tables stay linear)."""
    headers: dict[int, list[str]] = {}
    if "|" not in text:
        return headers
    header: list[str] | None = None
    previous: str | None = None  # the line before, when it is a table row
    pos = 0
    for line in text.split("\n"):
        if _SEPARATOR.match(line) and "-" in line:
            header = _cells(previous) if previous is not None else None
            previous = None
        elif _is_table_row(line):
            if header is not None:
                headers[pos] = header
            previous = line
        else:
            header, previous = None, None
        pos += len(line) + 1
    return headers


def _table_context(
    text: str, line: tuple[int, int], offset: int, headers: dict[int, list[str]]
) -> tuple[str | None, str | None, str | None] | None:
    """(row label, column header, first header cell) for an offset in a table
    row, or None when the line is not a table row."""
    row_text = text[line[0] : line[1]]
    if not _is_table_row(row_text):
        return None
    header = headers.get(line[0], [])
    row = _cells(row_text)
    stripped_lead = len(row_text) - len(row_text.lstrip())
    col = row_text.count("|", 0, offset - line[0]) - (1 if row_text[stripped_lead:].startswith("|") else 0)
    row_label = row[0] if col > 0 and row and row[0] else None
    col_header = header[col] if 0 <= col < len(header) and header[col] else None
    first_header = header[0] if header else None
    return row_label, col_header, first_header


def _normalise_phrase(words_: list[str]) -> str:
    while words_ and words_[0] in _DETERMINERS:
        words_ = words_[1:]
    return " ".join(words_)


def _table_subject(
    row_label: str | None, col_header: str | None, first_header: str | None
) -> tuple[str, str | None, str | None]:
    """(subject, billing term, period) from a table cell's labels."""
    billing = None
    period = None
    parts: list[str] = []
    for label in (row_label, col_header):
        if not label:
            continue
        low = label.lower()
        if _BILLING_MONTHLY.search(low) or re.search(r"\b(?:monthly|per\s+month|/\s*mo(?:nth)?)\b", low):
            billing, period = "monthly", "month"
        elif _BILLING_ANNUAL.search(low) or re.search(
            r"\b(?:annual(?:ly)?|yearly|per\s+year|/\s*y(?:ea)?r)\b", low
        ):
            billing, period = "annually", "year"
        words_ = [_clean_word(t) for t in _tokens(label) if t[:1].isalnum()]
        words_ = [
            w
            for w in words_
            if w not in _GENERIC_HEADERS
            and w
            not in (
                "monthly",
                "annual",
                "annually",
                "yearly",
                "per",
                "month",
                "year",
                "billed",
                "billing",
            )
        ]
        if words_:
            parts.append(_normalise_phrase(words_))
    if parts and row_label and first_header:
        head = _clean_word(first_header)
        row_words = _normalise_phrase([_clean_word(t) for t in _tokens(row_label)])
        if head in _PLAN_NOUNS and parts[0] == row_words and not parts[0].endswith(head):
            parts[0] = f"{parts[0]} {head}"
    return " / ".join(p for p in parts if p), billing, period


# --------------------------------------------------------------------------
# Records


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


# --------------------------------------------------------------------------
# Extraction

_CONTINUATION = re.compile(
    r"(?:\s*(?:,|;|or|and|/|vs\.?|versus|to|-|–|—|\(|then|just|only)\s*)*", re.IGNORECASE
)


def _parse_amount(m: re.Match) -> tuple[float, str, int, str] | None:
    """(amount, currency, end of number, form) for a match, or None when the
    match is not an amount after all."""
    if m.group("sym") is not None:
        num, group, currency, form = "n1", "m1", _SYMBOLS[m.group("sym")], "symbol"
    elif m.group("iso1"):
        if m.group("iso1") not in _ISO_SET:
            return None
        num, group, currency, form = "n2", "m2", m.group("iso1"), "code"
    else:
        num, group, form = "n3", "m3", "after"
        if m.group("iso2"):
            if m.group("iso2") not in _ISO_SET:
                return None
            currency = m.group("iso2")
        elif m.group("sym2"):
            currency = _SYMBOLS[m.group("sym2")]
        else:
            currency = _WORDS[m.group("word").lower()]
            form = "word"
    number = m.group(num)
    mult = m.group(f"{group}s") or m.group(f"{group}w")
    num_end = (
        m.end(f"{group}s")
        if m.group(f"{group}s")
        else m.end(f"{group}w")
        if m.group(f"{group}w")
        else m.end(num)
    )
    amount = float(number.replace(",", "")) * (_MULTIPLIERS[mult.lower()] if mult else 1.0)
    if form == "word" and m.group("word").lower().startswith("cent"):
        amount /= 100
    return amount, currency, num_end, form


@dataclass
class _Amount:
    """Pass one: an amount, its range partner, its period and where it stops."""

    values: list[tuple[float, int, int]]  # (amount, start, end); two for "$10-20"
    currency: str
    start: int
    end: int  # end of the amount (and range)
    stop: int  # end of the amount with its unit/period
    period: str | None
    line: tuple[int, int]
    sentence: tuple[int, int]


def _find_amounts(text: str, spans: list[tuple[int, int]]) -> list[_Amount]:
    out: list[_Amount] = []
    for m in _AMOUNT.finditer(text):
        parsed = _parse_amount(m)
        if parsed is None:
            continue
        amount, currency, num_end, form = parsed
        rng = _RANGE_TAIL.match(text, num_end) if form in ("symbol", "code") else None
        if rng is None and _NOT_AMOUNT_AFTER.match(text, num_end):
            continue  # 5%, a version 1.2.3, a time 5:30, a date 2021-01
        year_like = form in ("word", "after") and re.fullmatch(r"(?:1[89]|20)\d\d", m.group("n3"))
        if year_like and _PRICE_LEVEL.search(text[max(0, m.start() - 20) : m.start()]):
            continue  # "in 2021 dollars" names a price level, not an amount
        values = [(amount, m.start(), m.end())]
        end = m.end()
        if rng is not None:
            if re.match(r"[-–/.:]\d", text[rng.end() : rng.end() + 2]):
                continue  # 2021-01-08, 555-123-4567
            mult = rng.group("ms")
            second = float(rng.group("n").replace(",", "")) * (_MULTIPLIERS[mult.lower()] if mult else 1.0)
            values.append((second, rng.start("n"), rng.end()))
            end = rng.end()
        line = line_bounds(text, m.start())
        period, period_end = _read_period(text, end, line[1])
        sentence = sentence_at(spans, m.start(), line)
        if period is None:
            period = _period_before(text[max(sentence[0], line[0]) : m.start()])
        out.append(
            _Amount(values, currency.upper(), m.start(), end, max(period_end, end), period, line, sentence)
        )
    return out


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
