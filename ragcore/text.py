"""Normalising, tokenising, stemming and sentence splitting.

One tokeniser serves BM25, the lenses and the groundedness checks, so a word
means the same thing everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Money and percentages stay whole tokens ("$999", "99.99%", "€49") because
# users search for exact figures; plain words are Unicode letters/digits.
_TOKEN = re.compile(
    r"[$€£¥]\d[\d,]*(?:\.\d+)?"  # currency amounts
    r"|\d[\d,]*(?:\.\d+)?%"  # percentages
    r"|\d+(?:[.,]\d+)*"  # numbers, 1,299.00 kept whole
    r"|[^\W\d_]+(?:['’][^\W\d_]+)?",  # words, with one inner apostrophe
    re.UNICODE,
)

# A small stop list: function words only, so "not", "no", "never", "all"
# stay searchable (the risk lens and users care about them).
STOP_WORDS = frozenset(
    """a an and are as at be by for from has have in into is it its of on or
    that the their this to was were which with""".split()
)


def normalise(text: str) -> str:
    """Unicode NFKC and lower case; curly quotes become straight ones."""
    text = unicodedata.normalize("NFKC", text)
    return text.replace("\u2019", "'").replace("\u2018", "'").lower()


@lru_cache(maxsize=1)
def _snowball():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Snowball (Porter2) English stem of one lower-case word; numbers and
    money are returned unchanged."""
    if not word[:1].isalpha():
        return word
    return _snowball().stemWord(word)


def _strip_number(token: str) -> str:
    # "1,299.00" and "1299" should meet; keep "$" and "%" markers.
    if token[:1].isdigit() or token[:1] in "$€£¥":
        token = token.replace(",", "")
        if "." in token and not token.endswith("%"):
            whole, _, frac = token.partition(".")
            if set(frac) <= {"0"}:
                token = whole
    return token


def words(text: str) -> list[str]:
    """Lower-case word, number and money tokens, no stop-word removal."""
    return [_strip_number(t.replace("’", "'")) for t in _TOKEN.findall(normalise(text))]


def tokenize(text: str, *, stemming: bool = True, stop_words: frozenset[str] = STOP_WORDS) -> list[str]:
    """Tokens for BM25: lower case, stop words removed, optionally stemmed."""
    out = []
    for token in words(text):
        if token in stop_words:
            continue
        out.append(stem(token) if stemming else token)
    return out


def content_words(text: str) -> set[str]:
    """Stemmed content words (for overlap checks between texts)."""
    return {t for t in tokenize(text) if len(t) > 1 or t.isdigit()}


# Sentence ends: . ! ? (optionally followed by closing quotes/brackets) then
# white space; a line break followed by a blank line; or a list item start.
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs mr mrs ms dr inc ltd co corp no fig approx art sec st jr sr u.s".split()
)
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s)|\n(?=\s*\n)|\n(?=\s*(?:[-*+]|\d+[.)])\s)|\n(?=#)")


_SPACES = re.compile(r"[ \t\r\n]*")
_WORD_WINDOW = 64  # characters looked back for the word before a full stop


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Character spans (start, end) of the sentences in ``text[start:end]``.

    Spans cover the range without gaps (trailing white space belongs to the
    sentence before it), so packing sentences never loses characters.
    """
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in _SENTENCE_END.finditer(text, start, end):
        stop = m.end()
        if text[m.start()] == ".":
            # "e.g." or "U.S." or "3." in "Section 3. " are not sentence ends.
            # Looked for within a short window: an abbreviation or number is a
            # short word, and an unbounded look-back makes a run of "x." lines quadratic.
            floor = max(cursor, m.start() - _WORD_WINDOW)
            word_start = max(
                floor, text.rfind(" ", floor, m.start()) + 1, text.rfind("\n", floor, m.start()) + 1
            )
            prev = text[word_start : m.start()].lower().lstrip("(\"'")
            if prev in _ABBREVIATIONS or (len(prev) == 1 and prev.isalpha()) or prev.isdigit():
                continue
        # swallow following white space into this sentence
        stop = min(_SPACES.match(text, stop, end).end(), end) if stop < end else stop
        if stop > cursor:
            spans.append((cursor, stop))
            cursor = stop
    if cursor < end:
        spans.append((cursor, end))
    return spans
