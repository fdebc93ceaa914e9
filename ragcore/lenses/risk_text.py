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

A negator may stand at the end of the line above: a line that continues the
sentence of the line above (it starts with a lower-case word, and that line
ends in a word or a comma) reads its clause from there ("we cannot" / "
guarantee that ..."). A listed noun that is an item of a comma list takes the
negator before the list's first item ("do not provide support, warranties, or
..."), within the same look-back window. A listed noun that modifies a
product or book-keeping noun ("warranty insurance", "warranty reserves")
names a thing, not a promise; a sentence that goes on listing what a denial
just before it covers ("This covers warranties of fitness ...") is denied too.

A word inside a condition makes no claim: "unless and until a rule change
finds the service fully lawful", "If any of the suits are settled badly for
us, we may ...". The condition runs from
"if", "unless" or "whether" to the next clause mark: after the main clause
("..., unless and until X") the term is inside it; a sentence that opens on
the condition ("If X, we ...") holds the term inside it only when a comma
after the term ends the condition (without one, where the condition ends
cannot be told, and the term counts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ragcore.lenses.spans import line_bounds

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
_CLAUSE_END = re.compile(r"[,;:!?()\n]|\.(?!\d)|\s[-–—]\s|\bbut\b", re.IGNORECASE)
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


# A listed noun that names a product or a book-keeping item, not a promise:
# "warranty insurance" (a policy a buyer takes out), "warranty reserves", "guarantee fees".
_ITEM_AFTER = re.compile(r"\s+(?:insurance|reserves?|costs?|expenses?|fees?)\b", re.IGNORECASE)
_NOUN_FORM = re.compile(r"(?:warrant(?:y|ies)|guarantees?|promises?)", re.IGNORECASE)
# A sentence that lists what the denial before it takes in: "This covers, among others,
# warranties of fitness ...", "These include ...".
_CONTINUED_DENIAL = re.compile(
    r"\s*(?:this|these|that|which|it)\s+(?:also\s+)?(?:includes?|covers?|extends?\s+to|applies\s+to)\b",
    re.IGNORECASE,
)


_SEGMENT_END = re.compile(r"[,;:!?()]|\.(?!\d)")


def names_an_item(text: str, start: int, end: int) -> bool:
    """Whether the listed noun at [start, end) modifies a product or
    book-keeping noun after it ("representation and warranty insurance")."""
    return bool(_NOUN_FORM.fullmatch(text, start, end) and _ITEM_AFTER.match(text, end))


def continues_denial(text: str, sentence: tuple[int, int], denied: tuple[int, int] | None) -> bool:
    """Whether ``sentence`` lists what the denied sentence ``denied``, right
    before it, denies ("... gives no warranties. This covers warranties of fitness")."""
    if denied is None or denied[1] > sentence[0] or text[denied[1] : sentence[0]].strip():
        return False
    return bool(_CONTINUED_DENIAL.match(text, sentence[0]))


def list_item_start(text: str, lo: int, start: int, end: int, line_start: int) -> int:
    """Where the look-back for a negator of an item of a comma list starts:
    the segment before the item ("do not provide support, warranties, or
    indemnities" denies the warranties too); ``lo`` when the term is no item
    (not between a comma right before it and a comma, "and" or "or" after it)."""
    if lo <= line_start or text[lo - 1] != "," or text[lo:start].strip():
        return lo
    if not re.match(r"\s*(?:,|and\b|or\b)", text[end : end + 6]):
        return lo
    return max((m.end() for m in _SEGMENT_END.finditer(text, line_start, lo - 1)), default=line_start)


def continues_line(text: str, at: int) -> bool:
    """Whether a lower-case word at ``at`` starts a line that continues the
    sentence of the line above (PDF text wraps anywhere: "... exclusive forum
    for" / "any action")."""
    line = line_bounds(text, at)
    if line[0] == 0 or text[line[0] : at].strip():
        return False
    above = text[line_bounds(text, line[0] - 1)[0] : line[0] - 1].rstrip()
    if not above or above.lstrip().startswith(("#", "|")) or text[at].isupper():
        return False  # a capital starts a sentence, after a line with no stop too (a URL, a title)
    return above[-1].isalnum() or above[-1] == ","


def clause_around(text: str, start: int, end: int, line: tuple[int, int]) -> tuple[int, int]:
    """The clause around [start, end) within its line; it starts on the line
    above when its line continues that line's sentence (PDF text wraps
    anywhere: "... we cannot" / " guarantee that ...")."""
    first = line[0]
    at = first + len(text[first:start]) - len(text[first:start].lstrip())  # the line's first word
    if at <= start and text[at : at + 1].islower() and continues_line(text, at):
        first = line_bounds(text, first - 1)[0]  # not a list mark, a quote or a digit: a lower-case word
    lo = first
    for m in _CLAUSE_END.finditer(text, first, start):
        if not (m.group() == "\n" and first < line[0] and m.start() == line[0] - 1):
            lo = m.end()
    lo = list_item_start(text, lo, start, end, first)
    m = _CLAUSE_END.search(text, end, line[1])
    return lo, (m.start() if m else line[1])
