"""Locating a verbatim quote in a document's text.

Gold sets and curated files name passages by quote rather than by line, so
they survive re-chunking and small edits elsewhere in the file. White space
is the only thing allowed to differ (PDF extraction and re-wrapping move it).
"""

from __future__ import annotations

import re


def quote_pattern(quote: str) -> re.Pattern[str]:
    """A pattern for ``quote`` in which each run of white space matches any
    run of white space; everything else, case included, must match exactly."""
    return re.compile(r"\s+".join(re.escape(part) for part in quote.split()))


def find_quote(quote: str, text: str) -> list[tuple[int, int]]:
    """Every (start, end) where ``quote`` occurs in ``text``, overlapping
    occurrences included (they make a quote just as ambiguous)."""
    pattern = quote_pattern(quote)
    found = []
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return found
        found.append((m.start(), m.end()))
        pos = m.start() + 1
