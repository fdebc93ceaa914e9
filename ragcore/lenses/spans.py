"""Offsets to phrases and source lines, shared by the lenses.

A passage's text is ``document.text[passage.start:passage.end]`` and begins
at line ``passage.first_line``, so the line of offset ``i`` in the passage
text is ``first_line`` plus the line breaks before ``i``.
"""

from __future__ import annotations

import bisect

from ragcore.records import Passage

# Long sentences are cut to a window around the match so a phrase stays readable.
MAX_PHRASE = 240


def line_bounds(text: str, offset: int) -> tuple[int, int]:
    """(start, end) offsets of the line holding ``offset``, without its line break."""
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, len(text) if end < 0 else end


def sentence_at(spans: list[tuple[int, int]], offset: int, fallback: tuple[int, int]) -> tuple[int, int]:
    """The span holding ``offset`` (spans sorted and disjoint), or ``fallback``."""
    i = bisect.bisect_right(spans, offset, key=lambda span: span[0]) - 1
    if i >= 0 and spans[i][0] <= offset < spans[i][1]:
        return spans[i]
    return fallback


def phrase_bounds(text: str, span: tuple[int, int], offset: int, limit: int = MAX_PHRASE) -> tuple[int, int]:
    """``span`` without outer white space; when longer than ``limit``, a window
    around ``offset`` cut at word boundaries."""
    a, b = span
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    if b - a > limit:
        lo, hi = max(a, offset - limit * 45 // 100), min(b, offset + limit * 55 // 100)
        if lo > a:
            space = text.find(" ", lo, offset)
            lo = space + 1 if space >= 0 else lo
        if hi < b:
            space = text.rfind(" ", offset, hi)
            hi = space if space > offset else hi
        a, b = lo, hi
    return a, b


def passage_lines(passage: Passage, start: int, end: int) -> tuple[int, int]:
    """Document lines (first, last) of ``passage.text[start:end]``."""
    first = passage.first_line + passage.text.count("\n", 0, start)
    last = passage.first_line + passage.text.count("\n", 0, max(start, end - 1))
    return first, last


def collapse(text: str) -> str:
    """White space runs as single spaces (a phrase shown on one line)."""
    return " ".join(text.split())
