"""The title of a table: what its rows measure.

Two tables of one report may both label a row "Mobility" (one of segment
revenue, one of segment profit); the row label alone cannot tell them apart,
the table's title can. The title is the heading or short line right above a
table, written the way a reader would look for it:

- in Markdown, the line right above the table when it is a short line of its
  own ("**Storage add-ons**", "Table 2: Overage rates"), else the nearest
  heading above it in the text, else the passage's last heading;
- in PDF text, above the table's header (its column years and the header
  words around them: "Year Ended December 31,", "% Change", "(In
  millions)"), the nearest short fragment that stands as a heading: a line of
  its own, or the words after the last sentence end of a line ("... this
  report.Revenue"), with the next line starting fresh (a next line that keeps
  its leading space continues a sentence: "report.Deferred" / " revenue ...").
  The search stops at another table's row.
"""

from __future__ import annotations

import re

from ragcore.lenses.money.rows import HEADER_LINES, _header_years, _lines_before, holds_cells
from ragcore.lenses.money.subjects import _DETERMINERS, _FILLER, _GENERIC_HEADERS, _STOP, _clean_word, _tokens
from ragcore.lenses.money.tables import _PARSER, _inline_text
from ragcore.text import stem

TITLE_WORDS = 10  # a longer fragment is a sentence, not a title
# Words of a financial table's column header (besides years, dates and "%").
_HEADER_WORDS = frozenset(
    """year years ended ending months month quarter quarters change changes fiscal as of to in and
    except per share amounts unaudited millions thousands billions percentages percent period
    three six nine twelve increase decrease""".split()
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_MONTH = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
# The end of a sentence, glued to the next words or not ("10-K.Revenue", "assets. Interest").
_SENTENCE_END = re.compile(r"[A-Za-z0-9)\]”\"'][.!?][\"”’)]*\s*(?=[A-Z])")
_TIME_WORDS = frozenset(
    "previous current new old former latest updated revised from until since as of".split()
)


def is_header_line(line: str) -> bool:
    """A line of a table's column header: years, a date, "%" or header words only."""
    if _YEAR.search(line) or _MONTH.search(line) or "%" in line:
        return True
    words = [w for w in re.findall(r"[A-Za-z]+", line.lower())]
    return bool(words) and all(w in _HEADER_WORDS for w in words)


def _fragment(line: str, below: str | None) -> str | None:
    """The title a line ends with, or None: the words after its last sentence
    end (or the whole line, when it starts fresh), short, starting with a
    capital, without digits or sentence punctuation, and not continued by
    the line below (which then starts with a space)."""
    if below is not None and below[:1].isspace():
        return None
    ends = list(_SENTENCE_END.finditer(line))
    if ends:
        text = line[ends[-1].end() :]
    elif line[:1].isspace():
        return None  # the rest of a sentence begun on the line before
    else:
        text = line
    text = " ".join(text.split()).rstrip(":")
    words = text.split()
    if not words or len(words) > TITLE_WORDS or not text[0].isupper():
        return None
    if re.search(r"\d|[.;,]$|[.;:]\s", text) or is_header_line(text):
        return None
    return text


def pdf_table_title(text: str, start: int) -> str | None:
    """The title of the PDF table whose row is the line starting at ``start``
    in ``text`` (the document's text up to and with that row), or None."""
    lines = _lines_before(text, start, 4 * HEADER_LINES)
    row = text[start : text.find("\n", start) % (len(text) + 1)]
    below: list[str | None] = [row, *lines[:-1]]  # the line under each, nearest first
    anchor = next((k for k, line in enumerate(lines) if _header_years(line) or _column_line(line)), None)
    if anchor is None:
        return None
    k = anchor + 1
    while k < len(lines) and k <= anchor + 4 and is_header_line(lines[k]) and not holds_cells(lines[k]):
        k += 1
    seen = 0
    for j in range(k, len(lines)):
        line = lines[j]
        if not line.strip():
            continue
        if holds_cells(line) or seen >= HEADER_LINES:
            return None  # another table's row, or too far above
        found = _fragment(line, below[j])
        if found is not None:
            return found
        seen += 1
    return None


def _column_line(line: str) -> bool:
    """A line holding two or more column years among other words ("... 2020 2021 Mobility")."""
    return bool(re.search(r"(?<![\d,.$])(?:19|20)\d\d(?:[ \t]+(?:19|20)\d\d)+(?!\d|[,.]\d|\s?%)", line))


_NAMELESS = (
    _TIME_WORDS
    | _FILLER
    | _GENERIC_HEADERS
    | _DETERMINERS
    | _STOP
    | frozenset("plans prices rates fees costs tiers packages our".split())
)


def title_key(title: str) -> frozenset[str]:
    """The words a title names, stemmed, without time words and money words
    ("Prices from March 2024" and "Prices" name nothing apart; "Plans and
    pricing" names nothing a row label does not)."""
    words = [_clean_word(t) for t in _tokens(title) if t[:1].isalpha()]
    return frozenset(stem(w) for w in words if w and w not in _NAMELESS and not _MONTH.fullmatch(w))


def titles_differ(a: str | None, b: str | None) -> bool:
    """Whether two rows stand in tables titled for different things: both
    titled, and neither title's words contain the other's."""
    if not a or not b:
        return False
    ka, kb = title_key(a), title_key(b)
    return bool(ka) and bool(kb) and not (ka <= kb or kb <= ka)


def _short_line(paragraph: str) -> str | None:
    """A paragraph's last line as a title, without its Markdown: short and
    without a final period ("**Storage add-ons**", "Overage rates:")."""
    lines = paragraph.strip().splitlines()
    if not lines:
        return None
    line = _inline_text(_PARSER.parseInline(lines[-1])[0]).rstrip(":").strip()
    if not line or len(line.split()) > TITLE_WORDS or line.endswith((".", "!", "?", ",")):
        return None
    return line


def markdown_table_titles(text: str, label: str = "") -> dict[int, str]:
    """The title of every Markdown table in ``text``, keyed by the start
    offset of each of its lines: the heading or short line right above it
    (at most one blank line between), else the nearest heading above it,
    else the last heading of ``label`` (the passage's heading path)."""
    if "|" not in text:
        return {}
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    heading = label.rsplit(">", 1)[-1].strip() or None
    titles: dict[int, str] = {}
    tokens = _PARSER.parse(text)
    above: str | None = None  # the title the block right before offers
    above_end = -2
    for k, token in enumerate(tokens):
        if token.map is None:
            continue
        if token.type == "heading_open":
            heading = _inline_text(tokens[k + 1]) or heading
            above, above_end = heading, token.map[1]
        elif token.type == "paragraph_open":
            above, above_end = _short_line(tokens[k + 1].content), token.map[1]
        elif token.type == "table_open":
            title = (above if token.map[0] - above_end <= 1 else None) or heading
            if title:
                titles.update((starts[n], title) for n in range(token.map[0], min(token.map[1], len(starts))))
        elif token.nesting == 1 and token.level == 0:
            above = None  # a list or quote between: nothing right above
    return titles
