"""What an extractive answer may quote: whole sentences and table rows.

A retrieved passage is cut for retrieval, not for reading: it can begin in
the middle of a sentence (PDF passages carry their neighbour's last lines)
and a table's rows can sit in a different passage from the table's header.
So the units are taken from the *document* around each passage:

- a sentence is quoted whole, from its start to its end in the document,
  even where the passage cut it;
- a Markdown table row is quoted with its header ("Severity: Severity 2;
  Business: 4 business hours"), and its citation spans the header line and
  the row's line. Tables are found with markdown-it-py, so what counts as a
  table is what Markdown renders as one.

A passage whose last line is a lead-in ("... in one section:") is read on
to the paragraph or list it announces, which the passage's cut left out.
Units that repeat one another (the same sentence in two overlapping
passages) are kept once, compared on normalised text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from markdown_it import MarkdownIt

from ragcore.lenses.spans import collapse
from ragcore.records import Document, Hit
from ragcore.text import sentence_spans, tokenize

from .structure import component_lines, component_spans, heading_lines, run_in_titles, running_lines

UnitKind = Literal["sentence", "table-row"]
MIN_WORDS = 4  # shorter "sentences" are headings, labels or fragments
CONTEXT_CHARS = 600  # document text read around a passage to finish its sentences
CONTEXT_READS = (CONTEXT_CHARS, 4 * CONTEXT_CHARS)  # wider while a sentence runs on; longer ones are left out
# an inline link or image; a reference link ("[uptime public here][uptime]")
# only when the document defines its label: brackets in a formula ("[Σx][Σy]") are text
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REFERENCE = re.compile(r"\[([^\]]*)\]\[([^\]]*)\]")
_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:\s", re.MULTILINE)
# Emphasis marks around words ("***You expressly agree ...***", "will *not*"),
# never a star or underscore inside a word or between spaces ("2*3", "a * b").
_EMPHASIS = re.compile(r"(?<![\w*])[*_]{1,3}(?=[^\s*_])|(?<=[^\s*_])[*_]{1,3}(?![\w*])")
_MARKUP = re.compile(r"\*\*|__|`|<[^>]+>|^\s*(?:[-*+]|\d+[.)]|#+)\s+|^\s*[•●▪◦■]\s*", re.MULTILINE)
# Lines that are structure, not prose: front matter, link definitions, code, tables, headings.
_NOT_PROSE = re.compile(
    r"^\s*(?:---|[a-z_][\w-]*:\s|\[[^\]]+\]:\s|import\s|<|\||```|#|=+\s*$|-{3,}\s*$"
    # a line that is only a link, as a list item or not: a table of contents, a list of pages
    r"|(?:(?:[-*+]|\d+[.)])\s+)?\[[^\]]*\]\([^)]*\)\s*$)"
)
# Sentence starts: a capital, a digit, a currency sign, a quote or a bracket.
_STARTS = re.compile(r"[\"'“‘(\[]*[A-Z0-9$€£]")
# A list item is whole from its marker, whatever its first letter ("- scheduled
# maintenance announced ...;"): lists often continue a lead-in in lower case.
_ITEM = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+\S")
# A bullet glyph starts a list item wherever it stands: a PDF's text often
# puts it at the end of the line before its item ("... providers;•").
BULLETS = "•●▪◦■"
_BULLET = re.compile(rf"[{BULLETS}]")
_BULLET_ITEM = re.compile(rf"[{BULLETS}]\s*\S")
# A displayed formula on a line of its own ("ŷ = a + bx,"): read as an item of
# the sentence that announces it, never as prose of its own.
_DISPLAY = re.compile(r"\s*[^\s=]{1,12}\s*=\s*\S[^\n]{0,80}$")


@dataclass(frozen=True)
class Unit:
    """A quotable piece of a retrieved passage, with the lines it cites."""

    kind: UnitKind
    text: str  # as the answer quotes it
    doc: str
    first_line: int
    last_line: int
    label: str  # the passage's heading path
    pages: tuple[int, ...]
    hit_rank: int
    dense: float | None  # the passage's dense score, when dense ran
    position: int  # order of the unit in its document
    table: str | None = None  # "doc:header line" for a row, to keep rows of one table together
    list_item: bool = False  # a sentence that is an item of a Markdown or text list

    @property
    def key(self) -> str:
        """Normalised text: two units with one key say the same thing."""
        return " ".join(tokenize(self.text, stemming=False, stop_words=frozenset()))


def clean(text: str, labels: frozenset[str] = frozenset()) -> str:
    """Source text as prose: links to their text (a reference link's when its
    label is among the document's ``labels``), markup dropped, white space
    collapsed."""
    text = _LINK.sub(lambda m: m.group(1), text)
    if labels:
        text = _REFERENCE.sub(lambda m: m.group(1) if _label(m) in labels else m.group(0), text)
    return collapse(_EMPHASIS.sub("", _MARKUP.sub("", text)))


def _dense(hit: Hit) -> float | None:
    trace = hit.trace.get("dense") if hit.trace else None
    return None if trace is None else float(trace.score)


# ---------------------------------------------------------------- tables


@dataclass(frozen=True)
class TableRow:
    header_line: int  # 1-based
    line: int
    header: tuple[str, ...]
    cells: tuple[str, ...]


@lru_cache(maxsize=64)
def table_rows(text: str) -> tuple[TableRow, ...]:
    """Every body row of every Markdown table in ``text``, with its header."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    rows: list[TableRow] = []
    header: tuple[str, ...] = ()
    header_line = 0
    current: list[str] = []
    row_line = 0
    in_head = False
    for tok in tokens:
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            current, row_line = [], (tok.map[0] + 1 if tok.map else 0)
        elif tok.type == "inline" and current is not None and tok.level >= 4:
            current.append(clean(tok.content))
        elif tok.type == "tr_close":
            if in_head:
                header, header_line = tuple(current), row_line
            elif header:
                rows.append(TableRow(header_line, row_line, header, tuple(current)))
    return tuple(rows)


def row_text(row: TableRow) -> str:
    """A row read with its header: "Header: cell; Header: cell"."""
    parts = [f"{h}: {c}" if h else c for h, c in zip(row.header, row.cells, strict=False) if c]
    return "; ".join(parts)


def _row_units(hit: Hit, doc: Document | None) -> list[Unit]:
    p = hit.passage
    text = doc.text if doc is not None else p.text
    offset = 0 if doc is not None else p.first_line - 1
    out = []
    for row in table_rows(text):
        line = row.line + offset
        if not p.first_line <= line <= p.last_line:
            continue
        first = row.header_line + offset
        pages = doc.pages_for(first, line) if doc is not None and doc.line_pages else p.pages
        out.append(
            Unit(
                "table-row",
                row_text(row),
                p.doc,
                first,
                line,
                p.label,
                tuple(pages),
                hit.rank,
                _dense(hit),
                line * 1000,
                f"{p.doc}:{first}",
            )
        )
    return out


# ---------------------------------------------------------------- sentences


def _window(hit: Hit, doc: Document | None, context: int = CONTEXT_CHARS) -> tuple[str, int, int, int]:
    """(text, base offset, start, end): the text the sentences are cut from,
    its document offset, and the passage's range inside it."""
    p = hit.passage
    if doc is None or doc.text[p.start : p.end] != p.text:
        return p.text, p.start, 0, len(p.text)
    lo = max(0, p.start - context)
    hi = min(len(doc.text), p.end + context)
    return doc.text[lo:hi], lo, p.start - lo, p.end - lo


def _read_around(hit: Hit, doc: Document | None) -> tuple[str, int, int, int, list[tuple[int, int]]]:
    """``_window`` and its sentence spans, read wider while a sentence of the
    passage runs past the window's edge (a long clause of a filing); a
    sentence longer than the widest read stays cut, and is left out."""
    for context in CONTEXT_READS:
        text, base, start, end = _window(hit, doc, context)
        spans = _spans(doc, base, text)
        if not any(_cut_by_window(doc, base, text, a, b) for a, b in spans if not (b <= start or a >= end)):
            break
    return text, base, start, end, spans


# A component's string attribute: headline="30-day free trial, no credit card required";
# one named as a label of something else (linkText="Start free trial",
# secondaryText="View plans and pricing") is a button's words, not prose
_STRING_ATTRIBUTE = re.compile(r'\b([A-Za-z][\w-]*)="([^"]*)"')
_LABEL_ATTRIBUTE = re.compile(r"[a-z](?:Text|Label)$")


def _component_units(hit: Hit, doc: Document | None) -> list[Unit]:
    """The sentences of the prose attributes (not links, not button labels)
    of the passage's MDX/JSX component tags, each cited at its own lines."""
    if doc is None:
        return []
    p = hit.passage
    out = []
    for start, end in component_spans(doc):
        if end <= p.start or start >= p.end:
            continue
        for m in _STRING_ATTRIBUTE.finditer(doc.text, start, end):
            if (
                _LABEL_ATTRIBUTE.search(m.group(1))
                or "://" in m.group(2)
                or len(m.group(2).split()) < MIN_WORDS
            ):
                continue
            for a, b in sentence_spans(doc.text, m.start(2), m.end(2)):
                raw = doc.text[a:b].rstrip()
                sentence = clean(raw)
                if len(sentence.split()) < MIN_WORDS or not _STARTS.match(sentence):
                    continue
                first, last = doc.line_at(a), doc.line_at(a + len(raw) - 1)
                out.append(_sentence_unit(hit, doc, sentence, (first, last), a))
    return out


def _sentence_unit(
    hit: Hit, doc: Document | None, sentence: str, lines: tuple[int, int], offset: int, item: bool = False
) -> Unit:
    """A quotable sentence of ``hit`` at document ``lines`` and character ``offset``."""
    p = hit.passage
    pages = doc.pages_for(*lines) if doc is not None and doc.line_pages else p.pages
    return Unit(
        "sentence",
        sentence,
        p.doc,
        *lines,
        p.label,
        tuple(pages),
        hit.rank,
        _dense(hit),
        offset,
        list_item=item,
    )


def _in_component(doc: Document | None, start: int, end: int) -> bool:
    """Whether document text ``[start, end)`` touches an MDX/JSX component tag."""
    if doc is None:
        return False
    tags = component_lines(doc)
    return bool(tags) and any(n in tags for n in range(doc.line_at(start), doc.line_at(end - 1) + 1))


def _cut_by_window(doc: Document | None, base: int, text: str, a: int, b: int) -> bool:
    """Whether the sentence ``text[a:b]`` starts or ends where the window read
    around the passage does, inside the document: its words run on past it."""
    if doc is None:
        return False
    cut_start = base > 0 and not text[:a].strip()
    cut_end = base + len(text) < len(doc.text) and not text[b:].strip()
    return cut_start or cut_end


def _label(m: re.Match[str]) -> str:
    """A reference link's label, case-folded ("[here][]" is labelled by its text)."""
    return " ".join((m.group(2) or m.group(1)).split()).casefold()


@lru_cache(maxsize=256)
def reference_labels(text: str) -> frozenset[str]:
    """The link labels a Markdown document defines ("[uptime]: https://...")."""
    return frozenset(" ".join(m.group(1).split()).casefold() for m in _DEFINITION.finditer(text))


def _sentence_units(hit: Hit, doc: Document | None) -> list[Unit]:
    p = hit.passage
    text, base, start, end, spans = _read_around(hit, doc)
    out = []
    for a, b in spans:
        if b <= start or a >= end:
            continue  # outside the passage
        if _cut_by_window(doc, base, text, a, b):
            continue  # longer than the widest read around the passage: a fragment
        a, raw = _without_structure(doc, base, text, a, text[a:b].rstrip())
        if not raw:
            continue  # a heading or a run-in title, not a sentence
        if _in_component(doc, base + a, base + a + len(raw)):
            continue  # a page component's attributes, not prose
        bullet = _BULLET_ITEM.match(text, a)
        if bullet:  # the item starts at its first word, on its own line
            shift = bullet.end() - 1 - a
            a, raw = a + shift, raw[shift:]
        line_start = text.rfind("\n", 0, a) + 1
        lines = [ln for ln in (text[line_start:a] + raw).split("\n") if ln.strip()]
        if not lines or any(_NOT_PROSE.match(ln) for ln in lines):
            continue
        sentence = clean(raw, reference_labels(doc.text) if doc is not None else frozenset())
        item = bullet is not None or (not text[line_start:a].strip() and _ITEM.match(text, a) is not None)
        item = item or (not text[line_start:a].strip() and _DISPLAY.match(raw) is not None)
        if len(sentence.split()) < MIN_WORDS or not (_STARTS.match(sentence) or item):
            continue
        if doc is None and (a < start or b > end):
            continue
        lines = _lines(doc, p, base, a, a + len(raw))
        out.append(_sentence_unit(hit, doc, sentence, lines, base + a, item))
    return out


# A sentence end whose space the PDF's text lost ("... of our common
# stock.Further, we are ...", "... as of December 31, 2021.The following
# ..."): a word of lower-case letters or digits, its stop, and a capitalised word. Split here only for quoting (the chunker and the lenses
# read sentences as before); "e.g.", "U.S." and "Node.JS" do not match.
_JOINED_END = re.compile(r"(?<=[a-z0-9]{2}[.!?])(?=[A-Z][a-z])")
JOINED_ENDS = True  # measured on/off (docs/decisions.md section 7, session 15)


def _unjoined(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    if not JOINED_ENDS:
        return spans
    out: list[tuple[int, int]] = []
    for a, b in spans:
        for cut in (m.start() for m in _JOINED_END.finditer(text, a, b)):
            out.append((a, cut))
            a = cut
        out.append((a, b))
    return out


def _at_bullets(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans cut where a bullet glyph starts a list item: a PDF's bulleted
    list has no sentence ends, so without the cuts it reads as one sentence
    hundreds of words long (a filing's risk factor summary)."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        for cut in (m.start() for m in _BULLET.finditer(text, a + 1, b)):
            if text[a:cut].strip():
                out.append((a, cut))
                a = cut
        out.append((a, b))
    return out


# A clause number the splitter read as a sentence of its own ("2.7." before
# "Certification of Deletion."), a PDF's page number before it or not ("10 2.6.")
_BARE_NUMBER = re.compile(r"\s*\d+(?:\.\d+)*\.?\s*|\s*\d+\s+\d+(?:\.\d+)*\.\s*")


def _numbers_joined(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans with a bare clause number joined to the sentence it numbers."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and _BARE_NUMBER.fullmatch(text, *out[-1]):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _spans(doc: Document | None, base: int, text: str) -> list[tuple[int, int]]:
    """``text``'s sentences, a run-in clause title joined to the sentence it
    runs into ("5.4 Termination for repeated unavailability. If the Service
    ..."): alone it is a heading, and it carries the clause's number."""
    spans = _numbers_joined(text, _at_bullets(text, _unjoined(text, sentence_spans(text))))
    titles = sorted(run_in_titles(doc)) if doc is not None else []
    if not titles:
        return spans
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        a, b = spans[i]
        k = bisect.bisect_left(titles, base + a)
        if k < len(titles) and titles[k] < base + b:
            if i + 1 == len(spans):
                break  # a title whose clause lies outside the text read
            b = spans[i + 1][1]
            i += 1
        out.append((a, b))
        i += 1
    return out


def _without_structure(doc: Document | None, base: int, text: str, a: int, raw: str) -> tuple[int, str]:
    """The sentence ``raw`` at ``text[a:]`` without the document's heading lines
    (cut off its start, or its end at one; empty when it is one) and without
    running headers or footers at its start (one inside it, where a sentence
    runs on to the next page, stays: a quote is the cited lines' words in
    order); ``base`` is ``text``'s offset in the document."""
    if doc is None or not raw:
        return a, raw
    heads, running = heading_lines(doc), running_lines(doc)
    first, last = doc.line_at(base + a), doc.line_at(base + a + len(raw) - 1)
    stop = a + len(raw)
    line = first
    while line <= last and (line in heads or line in running):
        line += 1
    if line > last:
        return a, ""
    if line > first:
        a = doc.line_starts[line - 1] - base
        a += len(text[a:stop]) - len(text[a:stop].lstrip())
    inside = [n for n in heads if line < n <= last]
    if inside:
        stop = doc.line_starts[min(inside) - 1] - base
    return a, text[a:stop].rstrip()


def _lines(doc: Document | None, p, base: int, a: int, b: int) -> tuple[int, int]:
    if doc is None:
        first = p.first_line + p.text.count("\n", 0, a)
        return first, p.first_line + p.text.count("\n", 0, max(a, b - 1))
    return doc.line_at(base + a), doc.line_at(base + max(a, b - 1))


# What a passage ending in a lead-in announces: the next block of the
# document (a paragraph, or a list with its items), within one blank line,
# when the passage's cut fell between them.
_NEXT_BLOCK = re.compile(r"[ \t]*\n(?:[ \t]*\n)?(?![ \t]*(?:#|\n))")
_LIST_LINE = re.compile(rf"[ \t]*(?:[-*+]|\d+[.)]|[{BULLETS}])\s")
MAX_ANNOUNCED_CHARS = CONTEXT_READS[-1]


def _block_end(text: str, start: int) -> int:
    """Where the block starting at ``start`` ends: a paragraph at its blank
    line; a list after its last item (one blank line may stand between items,
    an item's own lines follow it without one)."""
    if not _LIST_LINE.match(text, start):
        end = text.find("\n\n", start)
        return len(text) if end < 0 else end
    end, blanks, at = start, 0, start
    while at < len(text):
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        if not text[at:stop].strip():
            blanks += 1
            if blanks > 1:
                break
        elif blanks == 0 or _LIST_LINE.match(text, at):
            end, blanks = stop, 0
        else:
            break
        at = stop + 1
    return end


def _with_what_it_announces(hit: Hit, doc: Document | None) -> Hit:
    """``hit`` with its passage read on to the block its last line announces
    ("... to put it all in one section:" and the paragraph after it)."""
    p = hit.passage
    if doc is None or doc.text[p.start : p.end] != p.text or not p.text.rstrip().endswith(":"):
        return hit
    m = _NEXT_BLOCK.match(doc.text, p.end)
    if m is None or m.end() >= len(doc.text):
        return hit
    end = _block_end(doc.text, m.end())
    if end - p.end > MAX_ANNOUNCED_CHARS:
        return hit
    wider = replace(p, end=end, last_line=doc.line_at(end - 1), text=doc.text[p.start : end])
    return replace(hit, passage=wider)


def answer_units(hits: Sequence[Hit], documents: Mapping[str, Document] | None = None) -> list[Unit]:
    """The sentences and table rows of ``hits``, in retrieval order, each once."""
    seen: set[str] = set()
    spans: set[tuple[str, int, int]] = set()
    out: list[Unit] = []
    for hit in sorted(hits, key=lambda h: h.rank):
        doc = (documents or {}).get(hit.passage.doc)
        hit = _with_what_it_announces(hit, doc)
        for unit in _row_units(hit, doc) + _sentence_units(hit, doc) + _component_units(hit, doc):
            where = (unit.doc, unit.first_line, unit.position)
            if unit.key in seen or where in spans:
                continue
            seen.add(unit.key)
            spans.add(where)
            out.append(unit)
    return out
