"""Currency amounts in their written forms: symbols, ISO codes and currency
words, separators, multipliers and ranges; percentages and look-alikes are
not amounts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ragcore.lenses.money.rows import holds_cells, table_lines_before
from ragcore.lenses.money.units import per_before, read_per
from ragcore.lenses.spans import line_bounds, sentence_at


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


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

# European forms first: a decimal comma after dot or no-break-space thousands
# ("1.299,00 €", "9,99 €", "1\u00a0299 €"); then "1,299.00" and "0.000005787".
_NUM = (
    r"\d{1,3}(?:\.\d{3})+,\d{1,2}(?![\d,])|\d{1,3}(?:[\u00a0\u202f]\d{3})+(?:,\d{1,2})?(?![\d,])"
    r"|\d+,\d{1,2}(?![\d,])|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
)
NUMBER = re.compile(_NUM)
_DECIMAL_COMMA = re.compile(r",\d{1,2}$")
# A one-letter multiplier must touch the number ("$5M"); a word may follow
# spaces or touch it ("$873million" in run-together PDF text), and may be
# broken at a line end after any of its letters ("$4.3 bil\nlion", "$165 mill\nion"),
# or glued to the next word.


def _broken_word(word: str) -> str:
    """A pattern for ``word`` with at most one line break between two of its letters."""
    return "|".join(word[:i] + r"\n" + word[i:] for i in range(1, len(word))) + "|" + word


_MULT_WORDS = "|".join(_broken_word(w) for w in ("thousand", "million", "billion", "trillion"))
_MULT = (
    r"(?:(?P<{g}s>[kKmMbBtT]|mm|MM|mn|bn|BN)(?![\w])"
    # run-together PDF text may glue the next word on ("$7.4 millionrise"), not "millionaire"
    r"|[ \t]{{0,3}}\n?[ \t]{{0,2}}(?P<{g}w>" + _MULT_WORDS.replace("{", "{{").replace("}", "}}") + r")"
    r"(?:\b|(?=[a-z])(?!aire|th)))?"
)
# "(in millions)", "(In thousands, except percentages)": a table's or
# section's scale for the bare amounts under it.
_SCALE_HEADER = re.compile(r"\(\s*in\s+(thousands|millions|billions)\b", re.IGNORECASE)
_SCALE_LINES = 12  # how far under its header a scale holds (a table's height)
# "$0.0001 par value": a per-share amount, which a statement's "(in thousands ..." header leaves unscaled.
_PAR_VALUE = re.compile(r"\s?par\s+valu", re.IGNORECASE)


def _sym_alt() -> str:
    return "|".join(re.escape(s) for s in sorted(_SYMBOLS, key=len, reverse=True))


_AMOUNT = re.compile(
    # symbol before: $999, US$ 5, €49
    # (case-sensitive: "a$240" in run-together PDF text is "a $240", not A$)
    rf"(?<![\d$])(?-i:(?P<sym>{_sym_alt()}))\s?(?P<paren>\()?(?P<n1>{_NUM}){_MULT.format(g='m1')}"
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
_RANGE_TAIL = re.compile(rf"\s?[-–—]\s?[$€£¥]?(?P<n>{_NUM})(?P<ms>[kKmMbB]|bn)?(?![\w])")
# Shapes that are not amounts once we see what follows the number.
_NOT_AMOUNT_AFTER = re.compile(r"%|\s?percent\b|\.\d|[-–:]\d|\s?(?:am|pm)\b", re.IGNORECASE)
# "in 2021 dollars": a year naming a price level, not an amount.
_PRICE_LEVEL = re.compile(r"\b(?:in|constant|real|nominal|current|today's)\s+$", re.IGNORECASE)


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
    scale = Decimal(1) / 100 if form == "word" and m.group("word").lower().startswith("cent") else Decimal(1)
    return exact_amount(number, mult) * float(scale), currency, num_end, form


def exact_amount(number: str, multiplier: str | None = None) -> float:
    """The written number as a float, read as a decimal first so that
    "0.000005787037037", "1,199.00" and "1.199,00" come out exactly as written."""
    number = re.sub(r"[\u00a0\u202f]", "", number)
    if _DECIMAL_COMMA.search(number):  # "1.299,00", "9,99": the comma is the decimal point
        number = number.replace(".", "").replace(",", ".")
    value = Decimal(number.replace(",", ""))
    if multiplier:
        value *= Decimal(str(_MULTIPLIERS[multiplier.lower().replace("\n", "")]))
    return float(value)


def decimal_places(number: str) -> int:
    """Digits after the decimal point as written ("9,99" and "4.99": 2; "1,299": 0)."""
    if _DECIMAL_COMMA.search(number):
        return len(number) - number.rindex(",") - 1
    return len(number) - number.rindex(".") - 1 if "." in number else 0


def per_bound(text: str, line: tuple[int, int], sentence: tuple[int, int]) -> int:
    """How far a unit may be read after an amount: its line, or the next line
    too when the sentence goes on there (hard-wrapped text: "per\\nhour")."""
    if line[1] >= len(text) or text[line[0] : line[1]].lstrip().startswith("|") or sentence[1] <= line[1]:
        return line[1]
    next_end = text.find("\n", line[1] + 1)
    return min(sentence[1], len(text) if next_end < 0 else next_end)


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
    scale: float = 1.0  # the "(in millions)" header's scale applied to the written number


def table_scale(text: str, at: int) -> float:
    """The scale a "(in millions)" header sets for a bare amount at ``at``:
    the last such header before it, within a table's height of lines (more
    when the amount stands in a row of cells and every line between is a
    table line: a taller table)."""
    scale = 1.0
    begin = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    lines_above = 0
    if holds_cells(text[begin : end if end >= 0 else len(text)]):
        lines_above = len(table_lines_before(text, begin, _SCALE_LINES, 4 * _SCALE_LINES))
    for h in _SCALE_HEADER.finditer(text, max(0, at - 6000), at):
        # the header's line is where its parenthesis closes ("(In millions, but ... thousa" / "nds ...)")
        close = text.find(")", h.end(), at)
        if text.count("\n", h.start() if close < 0 else close, at) <= max(_SCALE_LINES, lines_above):
            scale = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}[h.group(1).lower()]
    return scale


def _find_amounts(text: str, spans: list[tuple[int, int]], prior: str = "") -> list[_Amount]:
    """Every amount of ``text``; ``prior`` is the document's text right before it
    (where a "(in millions)" header of a table crossing into ``text`` stands)."""
    out: list[_Amount] = []
    for m in _AMOUNT.finditer(text):
        if out and m.start() < out[-1].end:
            continue  # the second end of a range already read ("$8-$12")
        parsed = _parse_amount(m)
        if parsed is None:
            continue
        amount, currency, num_end, form = parsed
        scale = 1.0
        if (
            form == "symbol"
            and not (m.group("m1s") or m.group("m1w"))
            and not _PAR_VALUE.match(text, num_end)
        ):
            scale = table_scale(prior + text, len(prior) + m.start())
            amount *= scale
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
            second = exact_amount(rng.group("n"), rng.group("ms"))
            values.append((second, rng.start("n"), rng.end()))
            end = rng.end()
        line = line_bounds(text, m.start())
        sentence = sentence_at(spans, m.start(), line)
        period, period_end = read_per(text, end, per_bound(text, line, sentence))
        if period is None:
            period = per_before(text[max(sentence[0], line[0]) : m.start()])
        out.append(
            _Amount(
                values, currency.upper(), m.start(), end, max(period_end, end), period, line, sentence, scale
            )
        )
    return out
