"""Phrase windows and passage line arithmetic shared by the lenses."""

from __future__ import annotations

from ragcore.lenses.spans import collapse, line_bounds, passage_lines, phrase_bounds
from ragcore.records import Passage


def test_line_bounds() -> None:
    text = "one\ntwo three\nfour"
    assert line_bounds(text, 5) == (4, 13)
    assert line_bounds(text, 0) == (0, 3)
    assert line_bounds(text, 16) == (14, 18)


def test_phrase_bounds_trims_white_space() -> None:
    text = "  A short sentence.  "
    a, b = phrase_bounds(text, (0, len(text)), 5)
    assert text[a:b] == "A short sentence."


def test_long_phrase_is_cut_around_the_offset_at_word_boundaries() -> None:
    words = [f"w{i}" for i in range(200)]
    text = " ".join(words)
    offset = text.index("w100")
    a, b = phrase_bounds(text, (0, len(text)), offset, limit=60)
    window = text[a:b]
    assert "w100" in window
    assert len(window) <= 60
    assert window.split()[0] in words and window.split()[-1] in words  # whole words only


def test_passage_lines() -> None:
    text = "alpha\nbeta\ngamma"
    p = Passage("d.md", 0, 10, 12, 100, 100 + len(text), "", text)
    assert passage_lines(p, 0, 5) == (10, 10)
    assert passage_lines(p, 6, 16) == (11, 12)
    assert passage_lines(p, 6, 11) == (11, 11)  # the span's closing line break stays on line 11


def test_collapse() -> None:
    assert collapse(" a\n  b\tc ") == "a b c"
