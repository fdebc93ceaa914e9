"""Locating a verbatim quote in a document's text.

Gold sets and curated files name passages by quote rather than by line, so
they survive re-chunking and small edits elsewhere in the file. White space
is the only thing allowed to differ (PDF extraction and re-wrapping move it),
including where one side has none: a PDF's extraction can run two words
together ("checkdriving") or break one at a line end ("promo" / "te"), and a
quote typed from the page has the space the text lacks, or the reverse.
"""

from __future__ import annotations

import re


def quote_pattern(quote: str) -> re.Pattern[str]:
    """A pattern for ``quote`` in which each run of white space matches any
    run of white space; everything else, case included, must match exactly."""
    return re.compile(r"\s+".join(re.escape(part) for part in quote.split()))


def spacing_free_pattern(quote: str) -> re.Pattern[str]:
    """A pattern for ``quote`` with any white space, or none, between any two
    of its characters; everything else must match exactly."""
    return re.compile(r"\s*".join(re.escape(ch) for ch in "".join(quote.split())))


def find_quote(quote: str, text: str) -> list[tuple[int, int]]:
    """Every (start, end) where ``quote`` occurs in ``text``, overlapping
    occurrences included (they make a quote just as ambiguous); white space
    runs matched first, and only when that finds nothing, white space
    ignored (``spacing_free_pattern``)."""
    found = _all_matches(quote_pattern(quote), text)
    if found or not quote.strip():
        return found
    return _all_matches(spacing_free_pattern(quote), text)


def _all_matches(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    found = []
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return found
        found.append((m.start(), m.end()))
        pos = m.start() + 1
