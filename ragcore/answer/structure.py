"""Which lines of a document are its structure rather than its sentences.

An answer quotes sentences; a heading is not one, even when the sentence
splitter reads it as one. Two kinds are found from the document's own
layout, with the rules the chunker labels passages by, never from words:

- **heading lines**: the lines ``chunking.find_headings`` (Markdown, text)
  or ``pdf_headings`` (PDF) read as headings. A PDF's heading line has no
  full stop, so the splitter glues it to the sentence below ("Financial
  results Fourth-quarter revenue was ..."); the heading line is cut off.
- **run-in titles**: a numbered clause whose short title ends with a full
  stop and runs into the clause's text on the same line ("7.4 Statements
  outside this Agreement. Customer acknowledges ..."), the layout of
  contracts and policies. A dotted clause number opening a line with a
  short sentence is a title only in a document where most dotted clauses
  open that way: where clauses open with a full sentence ("4.2 Fees are
  due in 30 days."), a short one is a sentence too.
- **running lines**: a PDF's running header or footer ("Master Services
  Agreement v4.1 - Page 3 of 4"), the same line but for its numbers on at
  least half of the document's pages (and on two at least), once a page.
  Without a full stop it too is glued to the sentence below it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from markdown_it import MarkdownIt

from ragcore.chunking import find_headings
from ragcore.pdf_headings import pdf_headings
from ragcore.records import Document
from ragcore.text import sentence_spans

# "7.4 ", "10.1.2 ": a clause number of at least two levels opening a line.
_CLAUSE = re.compile(r"^[ \t]*\d+(?:\.\d+)+\.?[ \t]+(?=\S)", re.MULTILINE)
TITLE_WORDS = 6  # a run-in title's words, its clause number included
TITLE_SHARE = 0.5  # share of a document's dotted clauses that must open with a title


_CACHE: dict[tuple[str, str, str, int], object] = {}
_CACHE_SIZE = 512
T = TypeVar("T")


def _cached(what: str, doc: Document, make: Callable[[Document], T]) -> T:
    # keyed on the document's identity, not the whole record (hashing its line pages is slow)
    key = (what, doc.name, doc.content_hash, len(doc.text))
    if key not in _CACHE:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = make(doc)
    return _CACHE[key]  # type: ignore[return-value]


def heading_lines(doc: Document) -> frozenset[int]:
    """The 1-based numbers of the document's heading lines."""
    return _cached("headings", doc, _heading_lines)


def _heading_lines(doc: Document) -> frozenset[int]:
    if doc.kind == "pdf":
        return frozenset(number for number, _ in pdf_headings(doc))
    return frozenset(h.line for h in find_headings(doc))


_DIGITS = re.compile(r"\d+")
RUNNING_SHARE = 0.5  # share of a PDF's pages a running header or footer stands on
RUNNING_CHARS = 120  # a running line is short: longer repeated lines are text


def running_lines(doc: Document) -> frozenset[int]:
    """The 1-based numbers of a PDF's running header and footer lines."""
    return _cached("running", doc, _running_lines)


def _running_lines(doc: Document) -> frozenset[int]:
    pages = set(doc.line_pages)
    if doc.kind != "pdf" or len(pages) < 2:
        return frozenset()
    by_shape: dict[str, list[int]] = {}
    for number, line in enumerate(doc.lines, start=1):
        shape = _DIGITS.sub("#", " ".join(line.split()))
        if shape and len(shape) <= RUNNING_CHARS:
            by_shape.setdefault(shape, []).append(number)
    out: set[int] = set()
    for numbers in by_shape.values():
        on = {doc.line_pages[n - 1] for n in numbers if n <= len(doc.line_pages)}
        if len(on) == len(numbers) >= max(2, RUNNING_SHARE * len(pages)):
            out.update(numbers)
    return frozenset(out)


def run_in_titles(doc: Document) -> frozenset[int]:
    """The character offsets at which a run-in clause title starts."""
    return _cached("titles", doc, _run_in_titles)


def _run_in_titles(doc: Document) -> frozenset[int]:
    openers: list[tuple[int, bool, bool]] = []
    for m in _CLAUSE.finditer(doc.text):
        start = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
        line_end = doc.text.find("\n", start)
        line_end = len(doc.text) if line_end < 0 else line_end
        # the first sentence after the number ("2.7. " is no sentence of its own)
        spans = sentence_spans(doc.text, m.end(), line_end)
        first = doc.text[spans[0][0] : spans[0][1]].strip() if spans else ""
        short = first.endswith(".") and len(f"{m.group(0)} {first}".split()) <= TITLE_WORDS
        openers.append((start, short, short and _title_case(first)))
    titles = [start for start, short, _ in openers if short]
    bold = _bold_titles(doc) if doc.kind == "md" else frozenset()
    cased = frozenset(start for start, _, title_cased in openers if title_cased)
    if not openers or len(titles) < TITLE_SHARE * len(openers):
        return bold | cased
    return frozenset(titles) | bold


# Words a title leaves in lower case ("Certification of Deletion").
_SMALL_WORDS = frozenset("a an and as at by for from in into of on or the to with".split())


def _title_case(text: str) -> bool:
    """Whether a clause's opening sentence is written as a title after its
    number ("2.7. Certification of Deletion."): every word capitalised but
    the small ones, so it is a title wherever it stands."""
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", text)]
    return bool(words) and all(w[0].isupper() or w.lower() in _SMALL_WORDS for w in words)


# An MDX/JSX component's opening tag (a capitalised name), attributes and all, across lines.
_COMPONENT = re.compile(
    r"""^[ \t]*<[A-Z][\w.]*(?=[\s/>])(?:[^<>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*>""", re.MULTILINE
)


def component_spans(doc: Document) -> tuple[tuple[int, int], ...]:
    """Character spans of the document's MDX/JSX component tags (Markdown only)."""
    return _cached("component spans", doc, _component_spans)


def _component_spans(doc: Document) -> tuple[tuple[int, int], ...]:
    if doc.kind != "md" or "<" not in doc.text:
        return ()
    return tuple((m.start(), m.end()) for m in _COMPONENT.finditer(doc.text))


def component_lines(doc: Document) -> frozenset[int]:
    """The 1-based numbers of the lines an MDX/JSX component tag spans (Markdown only)."""
    return _cached("components", doc, _component_lines)


def _component_lines(doc: Document) -> frozenset[int]:
    out: set[int] = set()
    for start, end in component_spans(doc):
        out.update(range(doc.line_at(start), doc.line_at(max(start, end - 1)) + 1))
    return frozenset(out)


_STRONG = re.compile(r"\*\*|__")


def _bold_titles(doc: Document) -> frozenset[int]:
    """Offsets of bold run-in titles: a paragraph (or list item) whose inline
    text opens with a bold span of at most ``TITLE_WORDS`` words followed by
    a full stop and more text."""
    out: set[int] = set()
    for tok in MarkdownIt("commonmark").parse(doc.text):
        kids = [k for k in tok.children or [] if k.type != "text" or k.content]
        if tok.type != "inline" or tok.map is None or len(kids) < 4 or kids[0].type != "strong_open":
            continue
        close = next((i for i, k in enumerate(kids) if k.type == "strong_close"), None)
        if close is None or close + 1 >= len(kids):
            continue
        title = "".join(k.content for k in kids[1:close]).strip()
        after = "".join(k.content for k in kids[close + 1 :])
        # the full stop after the bold ("**Title**. Text") is where the splitter
        # cuts; inside it ("**Title.** Text") the title already runs into its sentence
        rest = after.removeprefix(".").strip()
        if not (after.startswith(".") and rest and len(title.split()) <= TITLE_WORDS):
            continue
        line_start = doc.line_starts[tok.map[0]]
        found = _STRONG.search(doc.text, line_start, line_start + len(doc.lines[tok.map[0]]) + 1)
        if found:
            out.add(found.start())
    return frozenset(out)
