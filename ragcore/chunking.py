"""Cutting Documents into Passages: heading, sentence-packer, whole-document.

Every passage's text is exactly ``document.text[start:end]`` and knows its
first and last source line, so citations point at the original lines. Lines
of a document control block are never indexed.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from .pdf_headings import pdf_headings, pdf_label
from .records import Document, Passage
from .text import sentence_spans

STRATEGIES = ("heading", "sentence", "whole")
HEADING_LIMIT = 780  # characters; flush a section's passage near this size
SENTENCE_LIMIT = 900
SENTENCE_CARRY = 180  # trailing whole sentences carried into the next passage


@dataclass(frozen=True)
class Heading:
    line: int  # 1-based line of the heading text
    level: int  # 1 = top
    text: str
    last_line: int  # the underline for setext headings, else == line


def resolve_strategy(doc: Document, strategy: str = "auto") -> str:
    """ "auto" means heading chunks for Markdown/text and sentence packing for
    PDFs, whose extracted text has no reliable headings."""
    if strategy == "auto":
        return "sentence" if doc.kind == "pdf" else "heading"
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown chunking {strategy!r}; choose one of auto, {', '.join(STRATEGIES)}")
    return strategy


def chunk_document(doc: Document, strategy: str = "auto") -> list[Passage]:
    """Cut ``doc`` into passages with the named strategy."""
    strategy = resolve_strategy(doc, strategy)
    if strategy == "whole":
        return _whole(doc)
    if strategy == "sentence":
        return _sentence_packer(doc)
    return _heading_chunker(doc)


# ------------------------------------------------------------------ headings

_NON_SPACE = re.compile(r"\S")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_NUMBERED = re.compile(r"^\s*((?:\d+\.)*\d+)\.?\s+([A-Z][^\n]{1,78})$")
# Legal and policy text: PART/CHAPTER > ARTICLE > SECTION, each followed by
# a numeral and optionally a short capitalised title ("Section 8. Powers").
_MARKERS = (
    (re.compile(r"^\s*(?:PART|Part|CHAPTER|Chapter|TITLE)\s+(?:[IVXLCDM]+|\d+[A-Z]?)\b"), 1),
    (re.compile(r"^\s*(?:ARTICLE|Article)\s+(?:[IVXLCDM]+|\d+[A-Z]?)\b"), 2),
    (re.compile(r"^\s*(?:SECTION|Section|Sec\.|§)\s*(?:\d+[A-Z]?(?:\.\d+)*|[IVXLCDM]+)\b"), 3),
)
_NUMBERED_BASE = 3  # numbered headings ("1.2 Fees") sit below sections


def find_headings(doc: Document) -> list[Heading]:
    """Headings of a Markdown or text document, outside control blocks and
    code fences. PDFs have none (their text carries no reliable markup)."""
    if doc.kind == "pdf":
        return []
    lines = doc.lines
    found: list[Heading] = []
    in_fence = False
    for i, line in enumerate(lines):
        number = i + 1
        if doc.is_control_line(number):
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or not line.strip():
            continue
        m = _ATX.match(line)
        if m and doc.kind == "md":
            found.append(Heading(number, len(m.group(1)), _clean(m.group(2)), number))
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        prev = lines[i - 1] if i > 0 else ""
        underline = _SETEXT.match(nxt)
        if (
            underline
            and len(underline.group(1)) >= 3
            and not prev.strip()
            and len(line.strip()) <= 100
            and not line.lstrip().startswith(("|", "-", "*", "+"))
            and not doc.is_control_line(number + 1)
        ):
            level = 1 if underline.group(1)[0] == "=" else 2
            found.append(Heading(number, level, _clean(line), number + 1))
            continue
        if doc.kind == "txt" and not prev.strip():
            h = _text_heading(line)
            if h:
                found.append(Heading(number, h[0], h[1], number))
    return found


def _text_heading(line: str) -> tuple[int, str] | None:
    """(level, text) when a plain-text line reads as a heading: a PART /
    ARTICLE / SECTION marker, a numbered title, or an ALL-CAPS line."""
    stripped = line.strip()
    if len(stripped) > 80:
        return None
    for pattern, level in _MARKERS:
        m = pattern.match(line)
        if m:
            rest = line[m.end() :].strip(" \t.:-\u2013\u2014")
            # "Section 3 of this Agreement applies" is a sentence, not a heading.
            if not rest or ((rest[0].isupper() or rest[0] in "(\"'\u201c") and len(rest.split()) <= 10):
                return level, _clean(stripped)
            return None
    if stripped.endswith((".", ",", ";")):
        return None
    m = _NUMBERED.match(line)
    if m:
        return _NUMBERED_BASE + m.group(1).count(".") + 1, _clean(stripped)
    letters = [ch for ch in stripped if ch.isalpha()]
    if len(letters) >= 3 and all(ch.isupper() for ch in letters):
        return 1, _clean(stripped)
    return None


def _clean(text: str) -> str:
    text = re.sub(r"[*_`]+", "", text).strip()
    return text.rstrip(":").strip()


def _labels(doc: Document, headings: list[Heading]) -> tuple[str | None, list[tuple[Heading, str]]]:
    """The title heading (if the document opens with one) and each heading's
    path label, title excluded: "Pricing > Enterprise".

    A title is the document's first content line, a heading alone at the
    top level of the document's headings.
    """
    title = None
    stack: list[Heading] = []
    labelled: list[tuple[Heading, str]] = []
    top_level = min((h.level for h in headings), default=1)
    first_content = _first_content_line(doc)
    for k, h in enumerate(headings):
        if (
            k == 0
            and h.line == first_content
            and h.level == top_level
            and sum(1 for g in headings if g.level == top_level) == 1
        ):
            title = h.text
            labelled.append((h, h.text))
            continue
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        labelled.append((h, " > ".join(s.text for s in stack)))
    return title, labelled


def _first_content_line(doc: Document) -> int | None:
    for number, line in enumerate(doc.lines, start=1):
        if line.strip() and not doc.is_control_line(number):
            return number
    return None


# ------------------------------------------------------------------ packing


def _body_start(doc: Document) -> int:
    """First character offset after the control block (0 when none)."""
    if doc.control_lines is None:
        return 0
    last = doc.control_lines[1]
    return doc.line_starts[last] if last < doc.line_count else len(doc.text)


def _control_span(doc: Document) -> tuple[int, int] | None:
    """Character offsets (start, end) of the control block's lines."""
    if doc.control_lines is None:
        return None
    return doc.line_starts[doc.control_lines[0] - 1], _body_start(doc)


def indexable_ranges(doc: Document) -> list[tuple[int, int]]:
    """Character ranges of ``doc.text`` that are indexed: everything but the
    control block (a title above the block is indexed; it is content), and
    within the block the values of front-matter prose keys ("description:")."""
    span = _control_span(doc)
    if span is None:
        return [(0, len(doc.text))]
    pieces = ((0, span[0]), *doc.prose_spans, (span[1], len(doc.text)))
    return [(a, b) for a, b in pieces if doc.text[a:b].strip()]


def _has_text(doc: Document, start: int, end: int, ranges: list[tuple[int, int]]) -> bool:
    """Whether text[start:end] has content outside the control block
    (``ranges`` is :func:`indexable_ranges`, computed once per document)."""
    return any(_NON_SPACE.search(doc.text, max(start, a), min(end, b)) for a, b in ranges)


def _units(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Sentence spans of text[start:end], any longer than ``limit`` split at
    line breaks, then between words, and only as a last resort mid-word."""
    out: list[tuple[int, int]] = []
    for s, e in sentence_spans(text, start, end):
        if e - s <= limit:
            out.append((s, e))
            continue
        for ls, le in _split_at(text, s, e, "\n"):
            if le - ls <= limit:
                out.append((ls, le))
            else:
                out.extend(_split_words(text, ls, le, limit))
    return out


def _split_at(text: str, start: int, end: int, sep: str) -> list[tuple[int, int]]:
    pieces = []
    cursor = start
    while cursor < end:
        k = text.find(sep, cursor, end)
        stop = end if k < 0 else k + 1
        pieces.append((cursor, stop))
        cursor = stop
    return pieces


def _split_words(text: str, start: int, end: int, limit: int) -> list[tuple[int, int]]:
    """Pieces of at most ``limit`` characters cut after white space; a run
    without white space longer than the limit (a data blob, unspaced
    script) is not a word and is cut at the limit."""
    pieces = []
    cursor = start
    while end - cursor > limit:
        cut = cursor + limit - 1
        while cut > cursor and not text[cut].isspace():
            cut -= 1
        stop = cut + 1 if cut > cursor else cursor + limit
        pieces.append((cursor, stop))
        cursor = stop
    if cursor < end:
        pieces.append((cursor, end))
    return pieces


def _make(doc: Document, index: int, start: int, end: int, label: str, chunking: str) -> Passage | None:
    """A passage over text[start:end] trimmed of surrounding white space."""
    text = doc.text
    # Regex and rstrip run in C: a span of thousands of spaces (deeply indented
    # text) must not be walked one character at a time.
    m = _NON_SPACE.search(text, start, end)
    if m is None:
        return None
    start = m.start()
    end = start + len(text[start:end].rstrip())
    first = doc.line_at(start)
    last = doc.line_at(end - 1)
    return Passage(
        doc=doc.name,
        index=index,
        first_line=first,
        last_line=last,
        start=start,
        end=end,
        label=label,
        text=text[start:end],
        pages=doc.pages_for(first, last),
        chunking=chunking,
    )


class _Units:
    """Consecutive units with their first and last non-space offsets, so the
    trimmed length of any run of units is found in constant time: packing
    never re-reads the text it has already packed (linear in the input)."""

    def __init__(self, text: str, units: list[tuple[int, int]]) -> None:
        self.spans = units
        self.first: list[int | None] = []
        self.last: list[int | None] = []
        for s, e in units:
            m = _NON_SPACE.search(text, s, e)
            self.first.append(None if m is None else m.start())
            self.last.append(None if m is None else s + len(text[s:e].rstrip()))
        # For each unit, the nearest non-blank unit at or after / at or before it.
        n = len(units)
        self._next = [n] * (n + 1)
        for k in range(n - 1, -1, -1):
            self._next[k] = k if self.first[k] is not None else self._next[k + 1]
        self._prev = [-1] * n
        for k in range(n):
            self._prev[k] = k if self.first[k] is not None else (self._prev[k - 1] if k else -1)

    def __len__(self) -> int:
        return len(self.spans)

    def trimmed(self, i: int, j: int) -> int:
        """Length of the text of units i..j (inclusive) once stripped."""
        a, b = self._next[i], self._prev[j]
        if a > j or b < i:
            return 0
        return self.last[b] - self.first[a]

    def blank(self, i: int, j: int) -> bool:
        return self._next[i] > j


def _pack(text: str, units: list[tuple[int, int]], limit: int) -> list[tuple[int, int]]:
    """Greedy packing of consecutive units into spans of at most ``limit``
    characters once trimmed."""
    info = _Units(text, units)
    spans: list[tuple[int, int]] = []
    first = 0  # index of the current span's first unit
    for k in range(1, len(info)):
        if info.trimmed(first, k) > limit and not info.blank(first, k - 1):
            spans.append((units[first][0], units[k - 1][1]))
            first = k
    if units:
        spans.append((units[first][0], units[-1][1]))
    return spans


# --------------------------------------------------------------- strategies


def _heading_chunker(doc: Document) -> list[Passage]:
    headings = find_headings(doc)
    title, labelled = _labels(doc, headings)
    default_label = title or doc.title
    ranges = indexable_ranges(doc)
    # Section boundaries: each heading starts a section running to the next.
    bounds: list[tuple[int, str, int]] = []  # (start offset, label, heading end offset)
    if not labelled or doc.line_starts[labelled[0][0].line - 1] > 0:
        bounds.append((0, default_label, 0))
    for h, label in labelled:
        start = doc.line_starts[h.line - 1]
        head_end = doc.line_span(h.line, h.last_line)[1]
        bounds.append((start, label, head_end))
    control = _control_span(doc)
    passages: list[Passage] = []
    carry_from: int | None = None
    for k, (start, label, head_end) in enumerate(bounds):
        end = bounds[k + 1][0] if k + 1 < len(bounds) else len(doc.text)
        if carry_from is not None:
            start = carry_from
            carry_from = None
        # A heading with no text of its own travels with the next section,
        # unless the control block lies between them (a passage is one span).
        crosses_control = control is not None and start <= control[0] < end
        if not _has_text(doc, head_end, end, ranges) and k + 1 < len(bounds) and not crosses_control:
            # Searched, not stripped: a carried run of empty headings is not re-read.
            if _NON_SPACE.search(doc.text, start, end):
                carry_from = start
            continue
        for a, b in ranges:
            s, e = max(start, a), min(end, b)
            if s >= e:
                continue
            for ps, pe in _pack(doc.text, _units(doc.text, s, e, HEADING_LIMIT), HEADING_LIMIT):
                p = _make(doc, len(passages), ps, pe, label, "heading")
                if p is not None:
                    passages.append(p)
    return passages


def _label_finder(doc: Document, labelled: list[tuple[Heading, str]], fallback: str) -> Callable[[int], str]:
    """The label of the last heading at or before a character offset (bisected)."""
    starts = [doc.line_starts[h.line - 1] for h, _ in labelled]
    texts = [fallback] + [text for _, text in labelled]
    return lambda offset: texts[bisect.bisect_right(starts, offset)]


def _sentence_packer(doc: Document) -> list[Passage]:
    headings = find_headings(doc)
    title, labelled = _labels(doc, headings)
    label_at = _label_finder(doc, labelled, title or doc.title)
    pdf_lines = pdf_headings(doc)
    passages: list[Passage] = []
    for a, b in indexable_ranges(doc):
        units = _units(doc.text, a, b, SENTENCE_LIMIT)
        info = _Units(doc.text, units)
        i = 0
        while i < len(units):
            j = i
            start = units[i][0]
            # Take whole sentences while the trimmed passage stays within the limit.
            while j + 1 < len(units) and info.trimmed(i, j + 1) <= SENTENCE_LIMIT:
                j += 1
            end = units[j][1]
            p = _make(doc, len(passages), start, end, "", "sentence")
            if p is not None:
                if doc.kind == "pdf":
                    label = pdf_label(doc, pdf_lines, p.first_line, p.last_line)
                else:
                    label = label_at(p.start)
                passages.append(replace(p, label=label))
            if j + 1 >= len(units):
                break
            # Carry trailing whole sentences (<= SENTENCE_CARRY chars) forward,
            # always advancing at least one sentence.
            nxt = j + 1
            while nxt - 1 > i and units[j][1] - units[nxt - 1][0] <= SENTENCE_CARRY:
                if info.trimmed(nxt - 1, j + 1) > SENTENCE_LIMIT:
                    break
                nxt -= 1
            i = nxt
    return passages


def _whole(doc: Document) -> list[Passage]:
    """The whole document as one passage (two when a title sits above a
    control block, which is not indexed)."""
    passages: list[Passage] = []
    for a, b in indexable_ranges(doc):
        p = _make(doc, len(passages), a, b, doc.title, "whole")
        if p is not None:
            passages.append(p)
    return passages
