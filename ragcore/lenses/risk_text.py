"""How text is written around a risk term: words that PDF text breaks or
glues, and conditions that make no claim.

Text extracted from a PDF loses the space at each visual line end and may
break a word over two lines, so a listed word can stand

- broken by a line break with no space on either side ("may nev" / "er
  realize"): the word is read across the break;
- glued to the negator before it ("notalways", "cannotguarantee"): the
  negator still denies it;
- after a negator glued to the word before ("wecannot guarantee",
  "doesnot warrant"): that token is a negator.

A word inside a condition makes no claim: "unless and until the laws are
reformed to say that our operations are fully compliant", "If any of these
matters are resolved adversely to us, we may ...". The condition runs from
"if", "unless" or "whether" to the next clause mark: after the main clause
("..., unless and until X") the term is inside it; a sentence that opens on
the condition ("If X, we ...") holds the term inside it only when a comma
after the term ends the condition (without one, where the condition ends
cannot be told, and the term counts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A line break between two letters, no space on either side: one word broken over two lines.
BROKEN_WORD = re.compile(r"(?<=[A-Za-z])\n(?=[A-Za-z])")
_AUXILIARIES = r"do|does|did|is|are|was|were|could|would|should|will|may|might|must|has|have|had"
# A negator glued to the word after it ("notalways", "cannotguarantee", "wecannotguarantee").
GLUED_NEGATOR = re.compile(
    rf"(?<![A-Za-z0-9-])(?:[a-z]*cannot|(?:{_AUXILIARIES})?not|no|never)(?=[a-z])", re.IGNORECASE
)
# A token that is a negator glued to the word before it: "wecannot", "doesnot".
_NEGATOR_TOKEN = re.compile(rf"[a-z]+cannot|(?:{_AUXILIARIES})not", re.IGNORECASE)
_CONDITION = re.compile(r"\b(?:if|unless|whether)\b", re.IGNORECASE)
_CLAUSE_MARK = re.compile(r"[,;:]")
_OPENING = re.compile(r"[\s\"“'(•*\-–—]*")


def unbreak(text: str) -> str:
    """``text`` with words broken over lines joined ("nev\\ner" -> "never")."""
    return BROKEN_WORD.sub("", text)


def unbroken(text: str) -> tuple[str, list[int]]:
    """``text`` with words broken over lines joined, and for each character of
    it (and one past its end) its offset in ``text``."""
    index = [i for i, c in enumerate(text) if not (c == "\n" and BROKEN_WORD.match(text, i))]
    joined = "".join(text[i] for i in index)
    return joined, [*index, len(text)]


def broken_spans(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[re.Match[str], int, int]]:
    """Matches of ``pattern`` that run across a broken word's line break,
    each with its (start, end) in ``text``."""
    if not BROKEN_WORD.search(text):
        return
    joined, index = unbroken(text)
    for m in pattern.finditer(joined):
        start, end = index[m.start()], index[m.end() - 1] + 1
        if end - start != m.end() - m.start():
            yield m, start, end


def is_glued_negator(word: str) -> bool:
    """Whether a token is a negator glued to the word before it ("wecannot")."""
    return bool(_NEGATOR_TOKEN.fullmatch(word))


def in_condition(text: str, sentence: tuple[int, int], start: int, end: int) -> bool:
    """Whether the term at [start, end) stands inside an if/unless/whether
    condition of its sentence (see the module docstring)."""
    before = text[sentence[0] : start]
    conditions = list(_CONDITION.finditer(before))
    if not conditions:
        return False
    c = conditions[-1]
    if _CLAUSE_MARK.search(before, c.end()):
        return False  # the condition ended before the term
    if before[: c.start()].rstrip().endswith("(") and ")" in before[c.end() :]:
        return False  # "(if applicable)" closed before the term
    if _OPENING.fullmatch(before, 0, c.start()) is None:
        return True  # after the main clause: "..., unless and until X"
    return _CLAUSE_MARK.search(text, end, sentence[1]) is not None
