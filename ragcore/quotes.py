"""Locating a verbatim quote in a document's text.

Gold sets and curated files name passages by quote rather than by line, so
they survive re-chunking and small edits elsewhere in the file. A quote is
matched as written, except that any run of white space matches any run of
white space (PDF extraction and re-wrapping move it). Only when that finds
nothing is the quote read as typed from the page: white space ignored
altogether (a PDF's extraction can run two words together, "checkdriving",
or break one at a line end, "promo" / "te"), and characters compared in
their compatibility form with straight quotation marks (the page's "fi"
against the extraction's ligature "ﬁ", a typed "we've" against the text's
"we’ve"). Case and every other character still count.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from functools import lru_cache

# Typographic quotation marks and apostrophes, read as the straight ones a keyboard types.
_STRAIGHT = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
)


def quote_pattern(quote: str) -> re.Pattern[str]:
    """A pattern for ``quote`` in which each run of white space matches any
    run of white space; everything else, case included, must match exactly."""
    return re.compile(r"\s+".join(re.escape(part) for part in quote.split()))


def find_quote(quote: str, text: str) -> list[tuple[int, int]]:
    """Every (start, end) where ``quote`` occurs in ``text``, overlapping
    occurrences included (they make a quote just as ambiguous): as written
    (white-space runs alike) first, and only when that finds nothing, as
    typed from the page (``typed_form``)."""
    found = _all_matches(quote_pattern(quote), text)
    if found or not quote.strip():
        return found
    return _typed_matches(quote, text)


def _all_matches(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    found = []
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return found
        found.append((m.start(), m.end()))
        pos = m.start() + 1


def _fold(ch: str) -> str:
    return ch if ch.isascii() else unicodedata.normalize("NFKC", ch).translate(_STRAIGHT)


def typed_form(text: str) -> tuple[str, array]:
    """``text`` without white space, each character in its compatibility
    form with straight quotation marks, and for each character of that form
    the index in ``text`` of the character it comes from (a compact array:
    a filing's form is kept in the cache below)."""
    chars: list[str] = []
    origins = array("q")
    for i, ch in enumerate(text):
        for c in _fold(ch):
            if not c.isspace():
                chars.append(c)
                origins.append(i)
    return "".join(chars), origins


# a gold set resolves many quotes against one document: its form is made once
_document_form = lru_cache(maxsize=4)(typed_form)


def _typed_matches(quote: str, text: str) -> list[tuple[int, int]]:
    needle, _ = typed_form(quote)
    if not needle:
        return []
    haystack, origins = _document_form(text)
    found = []
    at = haystack.find(needle)
    while at >= 0:
        found.append((origins[at], origins[at + len(needle) - 1] + 1))
        at = haystack.find(needle, at + 1)
    return found
