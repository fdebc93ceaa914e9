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

Units that repeat one another (the same sentence in two overlapping
passages) are kept once, compared on normalised text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from markdown_it import MarkdownIt

from ragcore.lenses.spans import collapse
from ragcore.records import Document, Hit
from ragcore.text import sentence_spans, tokenize

from .structure import component_lines, component_spans, heading_lines, run_in_titles

UnitKind = Literal["sentence", "table-row"]
MIN_WORDS = 4  # shorter "sentences" are headings, labels or fragments
CONTEXT_CHARS = 600  # document text read around a passage to finish its sentences
CONTEXT_READS = (CONTEXT_CHARS, 4 * CONTEXT_CHARS)  # wider while a sentence runs on; longer ones are left out
# an inline link or image; a reference link ("[uptime public here][uptime]")
# only when the document defines its label: brackets in a formula ("[Σx][Σy]") are text
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REFERENCE = re.compile(r"\[([^\]]*)\]\[([^\]]*)\]")
_DEFINITION = re.compile(r"^ {0,3}\[([^\]]+)\]:\s", re.MULTILINE)
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
    return collapse(_MARKUP.sub("", text))


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


# A clause number the splitter read as a sentence of its own ("2.7." before "Certification of Deletion.")
_BARE_NUMBER = re.compile(r"\s*\d+(?:\.\d+)*\.?\s*")


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
    (cut off its start, or its end at one; empty when it is one); ``base`` is
    ``text``'s offset in the document."""
    if doc is None or not raw:
        return a, raw
    heads = heading_lines(doc)
    first, last = doc.line_at(base + a), doc.line_at(base + a + len(raw) - 1)
    stop = a + len(raw)
    line = first
    while line <= last and line in heads:
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


def answer_units(hits: Sequence[Hit], documents: Mapping[str, Document] | None = None) -> list[Unit]:
    """The sentences and table rows of ``hits``, in retrieval order, each once."""
    seen: set[str] = set()
    spans: set[tuple[str, int, int]] = set()
    out: list[Unit] = []
    for hit in sorted(hits, key=lambda h: h.rank):
        doc = (documents or {}).get(hit.passage.doc)
        for unit in _row_units(hit, doc) + _sentence_units(hit, doc) + _component_units(hit, doc):
            where = (unit.doc, unit.first_line, unit.position)
            if unit.key in seen or where in spans:
                continue
            seen.add(unit.key)
            spans.add(where)
            out.append(unit)
    return out


# ---------------------------------------------------------------- continuations

# A sentence that leans on the one before it: an enumeration step ("Second,
# concentration of knowledge ...") or a back-reference in its first words
# ("We plan to offer them ...", "During that time ..."). Quoted without its
# predecessor it loses its subject; a chosen sentence followed by one loses
# what it goes on to say (Halliday and Hasan, "Cohesion in English", 1976:
# reference and conjunction are what tie a sentence to the one before).
_FOLLOWS = re.compile(
    r"^\W*(?:(?:first|second|third|fourth|fifth)(?:ly\b|\s*[,:])|(?:finally|also|in addition|otherwise)\b)"
    r"|^(?:\W*\w+\W+){0,4}?(?:it|its|they|them|their|this|that|these|those|such)\b(?!-)",
    re.IGNORECASE,
)
MAX_FOLLOWING = 3  # sentences one chosen sentence may bring after it
FOLLOW_GAP = 1  # lines allowed between a sentence and the one it leans on
# An enumeration's steps ("First, ...", "Second, ...") come after the sentence
# that announces them, each step possibly with sentences of its own between.
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")
# an ordinal as an adverb ("Third, ...", "Secondly"), not as an adjective ("Third parties may not ...")
_STEP = re.compile(r"^\W*(first|second|third|fourth|fifth|sixth)(?:ly\b|\s*[,:])", re.IGNORECASE)
STEP_WINDOW = (
    12  # sentences after the announcing one within which its steps are read (three steps of up to four)
)
MAX_STEPS = len(_ORDINALS)
ANNOUNCED_LISTS = True  # a sentence announcing a list brings its items (_announced_items); measured on/off


def follows(text: str) -> bool:
    """Whether a sentence leans on the sentence before it."""
    return _FOLLOWS.match(text) is not None


def _step(text: str) -> int | None:
    """0 for "First, ...", 1 for "Second, ...", ...; None for other sentences."""
    m = _STEP.match(text)
    return None if m is None else _ORDINALS.index(m.group(1).lower())


def _steps(seq: Sequence[Unit], i: int) -> list[Unit]:
    """The numbered steps that follow ``seq[i]`` ("First, ..." within the next two
    sentences, then "Second, ...", ... in order), or none."""
    window = seq[i + 1 : i + 1 + STEP_WINDOW]
    if not any(_step(u.text) == 0 for u in window[:2]):
        return []
    out: list[Unit] = []
    for u in window:
        if _step(u.text) == len(out):
            out.append(u)
        if len(out) == MAX_STEPS:
            break
    return out


# A sentence that points forward to a list ("The features below are ...", "...
# as follows:", a lead-in ending in a colon) says what the list is about, and
# the list says what it announces: quoted alone, it names neither ("cataphora",
# Halliday and Hasan 1976, the forward counterpart of the ties above). Its
# retrieved items are quoted after it when the list starts right after its
# paragraph.
# A lead-in that stops without a full stop ("... has the equation") runs on
# into what is displayed below it.
_ANNOUNCES = re.compile(r":\s*$|[^\W\d_]\s*$|\b(?:below|the following|as follows)\b", re.IGNORECASE)
LIST_GAP = 2  # lines between the announcing paragraph (or one item) and the next item: a blank line
MAX_BETWEEN = 2  # sentences of the announcing paragraph that may stand between it and its list
MAX_ITEMS = 6  # items one announcing sentence brings (as many as an enumeration's steps)


def announces(text: str) -> bool:
    """Whether a sentence points forward to what follows it."""
    return _ANNOUNCES.search(text) is not None


def _announced_items(seq: Sequence[Unit], i: int) -> list[Unit]:
    """The list items that follow ``seq[i]`` when it announces a list: the first
    item within ``LIST_GAP`` lines of its paragraph's last retrieved sentence,
    then each next item within ``LIST_GAP`` lines of the one before."""
    u = seq[i]
    if u.list_item or not announces(u.text):
        return []
    last, out = u.last_line, list[Unit]()
    for between, v in enumerate(seq[i + 1 :]):
        if v.first_line > last + LIST_GAP or (not v.list_item and (out or between >= MAX_BETWEEN)):
            break
        if v.list_item:
            out.append(v)
            if len(out) == MAX_ITEMS:
                break
        last = v.last_line
    return out


def _documents(units: Sequence[Unit]) -> dict[str, list[Unit]]:
    by_doc: dict[str, list[Unit]] = {}
    for u in units:
        if u.kind == "sentence":
            by_doc.setdefault(u.doc, []).append(u)
    for seq in by_doc.values():
        seq.sort(key=lambda u: u.position)
    return by_doc


# A sentence that states what holds outside a condition another sentence
# sets ("Outside the money-back window, an annual subscription runs to the end
# of its term"): the other half of a conditional answer, read wherever it
# stands in the document, when the condition it names is the quoted
# sentence's own (its words are in that sentence or its heading path). Not
# "After the X,": that is a sequence in time ("After the November outage,
# three customers' lawyers asked ..." was brought to an uptime answer).
_COMPLEMENT = re.compile(
    r"^\W*(?:outside|beyond)\s+(?:of\s+)?"
    r"(?:the|this|that|these|those|such|its|their|a|an)\s+(?P<condition>[^,;:]{3,60}),",
    re.IGNORECASE,
)


def complement(u: Unit, seq: Sequence[Unit], used: set[int]) -> Unit | None:
    """The sentence of ``u``'s document after ``u`` that says what holds
    outside the condition ``u`` states, if one was retrieved."""
    own = set(tokenize(f"{u.text} {u.label}"))
    for v in seq:
        if v.position <= u.position or id(v) in used:
            continue
        m = _COMPLEMENT.match(v.text)
        words = set(tokenize(m.group("condition"))) if m else set()
        if words and words <= own:
            return v
    return None


def _around(u: Unit, seq: Sequence[Unit], used: set[int], placed: set[int]) -> tuple[list[Unit], list[Unit]]:
    """What ``u`` needs to be read alone: the sentence before it when it leans on
    that one, and after it the sentences leaning on it or the steps it announces
    (a step chosen on its own moves up beside its announcement; ``placed``: units
    already in the answer)."""
    i = next(k for k, v in enumerate(seq) if v is u)
    before: list[Unit] = []
    if i > 0 and follows(u.text) and _step(u.text) is None:
        prev = seq[i - 1]
        if prev.last_line + FOLLOW_GAP >= u.first_line and id(prev) not in used:
            before.append(prev)
    after = [v for v in _steps(seq, i) if id(v) not in placed]
    if not after and ANNOUNCED_LISTS:
        after = [v for v in _announced_items(seq, i) if id(v) not in placed]
    if not after:
        last = u
        for nxt in seq[i + 1 : i + 1 + MAX_FOLLOWING]:
            if nxt.first_line > last.last_line + FOLLOW_GAP or not follows(nxt.text) or id(nxt) in used:
                break
            after.append(nxt)
            last = nxt
        if after and ANNOUNCED_LISTS:  # "It has an interpretation ...:" continuing u announces a list
            j = next(k for k, v in enumerate(seq) if v is last)
            after += [v for v in _announced_items(seq, j) if id(v) not in placed and id(v) not in used]
    other = complement(u, seq, used | placed | {id(v) for v in after})
    return before, after + ([other] if other is not None else [])


def with_continuations(chosen: Sequence[Unit], units: Sequence[Unit], taken: set[int]) -> list[Unit]:
    """``chosen`` with what each sentence needs to be read alone (``_around``):
    the sentence it leans on before it, and the retrieved sentences of the same
    document that continue it after it (up to ``MAX_FOLLOWING``, or the steps
    of an enumeration it announces)."""
    by_doc = _documents(units)
    used = set(taken) | {id(u) for u in chosen}
    placed = set(taken)
    out: list[Unit] = []
    for u in chosen:
        if id(u) in placed:
            continue  # a step placed beside its announcement
        if u.kind != "sentence":
            out.append(u)
            placed.add(id(u))
            continue
        before, after = _around(u, by_doc.get(u.doc, []), used, placed | {id(u)})
        group = [*before, u, *after]
        out += group
        used.update(id(v) for v in group)
        placed.update(id(v) for v in group)
    return out
