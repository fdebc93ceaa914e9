"""Loading files into Documents with exact line provenance.

Every loader returns the text as numbered lines exactly as in the source
(line breaks normalised, nothing else moved), so a citation "lines 12-18"
can be checked against the file. Bad input raises a typed
:class:`ragcore.errors.DocumentError` with a message a person can act on.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path, PurePath

from . import errors
from .pdf_text import PdfPages, assemble_pdf_text, looks_garbled, pdf_page_texts
from .records import Document, sha256_hex

__all__ = ["PdfPages", "load_bytes", "load_path", "looks_garbled", "pdf_document", "pdf_page_texts"]

SUPPORTED_SUFFIXES = {".md": "md", ".markdown": "md", ".txt": "txt", ".text": "txt", ".pdf": "pdf"}


def kind_of(name: str) -> str:
    suffix = PurePath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise errors.UnsupportedFileType(
            name, f"unsupported file type {suffix or '(none)'!r}; supported: {supported}"
        )
    return SUPPORTED_SUFFIXES[suffix]


def load_path(path: Path | str, name: str | None = None, *, max_bytes: int | None = None) -> Document:
    """Load a file from disk. ``name`` defaults to the file's base name."""
    path = Path(path)
    name = name or path.name
    kind_of(name)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise errors.DocumentError(name, f"cannot read the file ({exc.strerror or exc})") from exc
    if max_bytes is not None and size > max_bytes:
        raise errors.FileTooLarge(name, _too_large(size, max_bytes))
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise errors.DocumentError(name, f"cannot read the file ({exc.strerror or exc})") from exc
    return load_bytes(data, name, max_bytes=max_bytes)


def load_bytes(data: bytes, name: str, *, max_bytes: int | None = None) -> Document:
    """Load a file's bytes. ``name`` decides the type by its suffix."""
    kind = kind_of(name)
    if max_bytes is not None and len(data) > max_bytes:
        raise errors.FileTooLarge(name, _too_large(len(data), max_bytes))
    if not data.strip():
        raise errors.EmptyDocument(name, "the file is empty")
    if kind == "pdf":
        text, line_pages, meta_title = _pdf_text(data, name)
    else:
        text = normalise_line_breaks(decode_text(data, name))
        if not text.strip():
            raise errors.EmptyDocument(name, "the file has no text, only white space")
        line_pages, meta_title = (), None
    return _document(data, name, kind, text, line_pages, meta_title)


def _pdf_text(data: bytes, name: str) -> tuple[str, tuple[int, ...], str | None]:
    return assemble_pdf_text(name, [pdf_page_texts(data, name)])


def pdf_document(data: bytes, name: str, parts: list[PdfPages]) -> Document:
    """The Document of a PDF whose pages were extracted in parts (by workers)."""
    text, line_pages, meta_title = assemble_pdf_text(name, parts)
    return _document(data, name, "pdf", text, line_pages, meta_title)


def _document(
    data: bytes, name: str, kind: str, text: str, line_pages: tuple[int, ...], meta_title: str | None
) -> Document:
    control = find_control_block(text.split("\n"), kind)
    title = meta_title or _title(text, kind, name, control)
    return Document(
        name=name,
        title=title,
        kind=kind,
        text=text,
        content_hash=sha256_hex(data),
        size_bytes=len(data),
        line_pages=line_pages,
        control_lines=control,
    )


def _too_large(size: int, limit: int) -> str:
    return (
        f"the file is {size / 1_048_576:.1f} MB, over the {limit / 1_048_576:.0f} MB limit "
        "(RAGCORE_MAX_UPLOAD_MB sets it)"
    )


# ---------------------------------------------------------------- text files


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 (with or without BOM), UTF-16 (with a BOM, or without one when
    its NUL pattern shows it), then Windows-1252.

    Raises BinaryContent for bytes that are not text at all (a binary file
    renamed ``.txt``), judged by NUL bytes and control characters.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return _check_text(data.decode("utf-16"), name)
        except UnicodeDecodeError as exc:
            raise errors.BinaryContent(name, "starts with a UTF-16 mark but is not valid UTF-16") from exc
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\x00" in data[:8192]:
        encoding = utf16_without_bom(data)
        if encoding is None:
            raise errors.BinaryContent(
                name, "this looks like a binary file, not text (it contains NUL bytes)"
            )
        try:
            return _check_text(data.decode(encoding), name)
        except (UnicodeDecodeError, errors.BinaryContent) as exc:
            raise errors.BinaryContent(
                name, "this looks like UTF-16 without a byte-order mark, but it does not decode as UTF-16"
            ) from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = _fallback_decode(data)
    return _check_text(text, name)


# UTF-16 text of mostly Latin script has a NUL in every other byte (the high
# byte of each code unit) and almost none in the other half; binary data has
# NULs scattered over both. The shares are structural, not tuned on a corpus.
_UTF16_NUL_SHARE = 0.5  # at least this share of one half's bytes are NUL
_UTF16_OTHER_SHARE = 0.05  # and at most this share of the other half's


def utf16_without_bom(data: bytes) -> str | None:
    """ "utf-16-le" or "utf-16-be" when ``data`` (no BOM) has UTF-16's NUL pattern."""
    sample = data[:8192]
    sample = sample[: len(sample) - len(sample) % 2]
    if len(sample) < 4:
        return None
    half = len(sample) // 2
    even, odd = sample[0::2].count(0) / half, sample[1::2].count(0) / half
    if odd >= _UTF16_NUL_SHARE and even <= _UTF16_OTHER_SHARE:
        return "utf-16-le"
    if even >= _UTF16_NUL_SHARE and odd <= _UTF16_OTHER_SHARE:
        return "utf-16-be"
    return None


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _fallback_decode(data: bytes) -> str:
    """Bytes that are not valid UTF-8: UTF-8 with a few stray bytes stays
    UTF-8 (bad bytes become U+FFFD); anything else is read as Windows-1252,
    the usual legacy encoding, with latin-1 taking its five undefined bytes."""
    lenient = data.decode("utf-8", errors="replace")
    sample = lenient[:1_000_000]
    bad = sample.count("\ufffd")
    good_multibyte = len(_NON_ASCII.findall(sample)) - bad
    if good_multibyte > bad:
        return lenient
    return data.decode("cp1252", errors="ragcore-latin1")


def _latin1_for_undefined(exc: UnicodeDecodeError) -> tuple[str, int]:
    return exc.object[exc.start : exc.end].decode("latin-1"), exc.end


codecs.register_error("ragcore-latin1", _latin1_for_undefined)


def _check_text(text: str, name: str) -> str:
    sample = text[:20000]
    if not sample:
        return text
    controls = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t\f\v") + sample.count("\ufffd")
    if "\x00" in sample or controls / len(sample) > 0.05:
        raise errors.BinaryContent(name, "this looks like a binary file, not text (control characters)")
    return text


def normalise_line_breaks(text: str) -> str:
    """Windows (CRLF) and old-Mac (CR) line endings become ``\\n``; nothing else moves."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# ------------------------------------------------------------ control blocks

_CONTROL_KEYS = (
    "document control|document information|document details|revision history|version history|change history|"
    "change log|changelog|version|revision|rev|owner|document owner|author|authors|approved by|approver|approval|"
    "classification|confidentiality|status|effective date|effective|last reviewed|last updated|review date|"
    "next review|document id|doc id|reference|distribution|date|changes|change|summary of changes|reviewer|reviewers"
)
_CONTROL_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s*)?(?:\*\*)?(document control|document information|document details|revision history|"
    r"version history|change history)(?:\*\*)?\s*:?\s*$",
    re.IGNORECASE,
)
_KEY_VALUE = re.compile(
    rf"^\s*(?:[-*+]\s+)?(?:\*\*)?({_CONTROL_KEYS})(?:\*\*)?\s*(?::|\||-\s)", re.IGNORECASE
)
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_HEAD = re.compile(rf"^\s*\|\s*(?:\*\*)?({_CONTROL_KEYS})(?:\*\*)?\s*\|", re.IGNORECASE)
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+\S")


# A revision-history entry: a version then a date ("1.2  2025-08-11  ..."), or a
# date first; "1.1 Scope" is a numbered heading, not an entry.
_REVISION_ENTRY = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:v?\d+(?:\.\d+)*\s+[-|,]?\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{4}-\d{2}-\d{2})\s"
)
_YAML_KEY = re.compile(r"^[A-Za-z_][\w -]*:(?:\s|$)")
_SETEXT_UNDERLINE = re.compile(r"^\s*(?:=+|-+)\s*$")
# Lines a title area may have above a control block: short, not a sentence.
_PREAMBLE_MAX_LINES = 3


def find_control_block(lines: list[str], kind: str) -> tuple[int, int] | None:
    """Lines (first, last), 1-based, of a metadata block at the top, or None.

    Recognised: YAML front matter (``---`` ... ``---`` holding ``key:``
    lines), and a "Document control" / version / owner / classification /
    revision-history heading, table or key-value list that comes before the
    first real section, under at most a short title. A key-value list needs
    two or more entries: one "Date: ..." line is too weak a sign. The
    block's lines keep their numbers; chunkers skip them for indexing. A
    document that holds nothing after the block has none: it is read whole.
    """
    block = _top_block(lines)
    if block is None or _next_nonblank(lines, block[1]) is None:
        return None  # nothing follows: the block is all there is to read, so it is read
    return block


def _top_block(lines: list[str]) -> tuple[int, int] | None:
    n = len(lines)
    first = 0
    while first < n and not lines[first].strip():
        first += 1
    if first >= n:
        return None
    if lines[first].strip() == "---":
        for j in range(first + 1, min(n, first + 200)):
            if lines[j].strip() in ("---", "..."):
                if not any(_YAML_KEY.match(lines[k]) for k in range(first + 1, j)):
                    return None  # a horizontal rule, not front matter
                # A control table may follow the front matter directly.
                table = _control_table(lines, j + 1)
                if table and _only_blank(lines, j + 1, table[0] - 1):
                    return (first + 1, table[1])
                return (first + 1, j + 1)
        return None
    return _control_table(lines, first)


def _is_control_line(line: str) -> bool:
    return bool(
        _CONTROL_HEADING.match(line.strip()) or _TABLE_ROW.match(line) or _KEY_VALUE.match(line)
    ) or bool(re.match(r"^\s*[-=]{3,}\s*$", line))


def _control_table(lines: list[str], start: int) -> tuple[int, int] | None:
    """A control heading, table or key-value list in the preamble from
    ``start`` (0-based): after at most a short title, before any prose or
    second heading, within 40 lines."""
    n = len(lines)
    block_start = None
    preamble = 0
    for i in range(start, min(n, start + 40)):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            continue
        if _CONTROL_HEADING.match(stripped) or _TABLE_HEAD.match(line):
            block_start = i
            break
        if _KEY_VALUE.match(line):
            nxt = _next_nonblank(lines, i + 1)
            if nxt is not None and _KEY_VALUE.match(lines[nxt]):
                block_start = i
                break
            return None  # a lone "Date: ..." line: not enough to skip
        if _SETEXT_UNDERLINE.match(line) and preamble:
            continue  # the underline of a setext title
        if _TABLE_ROW.match(line):
            continue  # the header row and rule of a table whose rows are keys
        preamble += 1
        if preamble > 1 and _MD_HEADING.match(line):
            return None  # a real section began: no control block
        if preamble > _PREAMBLE_MAX_LINES or len(stripped) > 100 or re.search(r"[.!?;,]$", stripped):
            return None  # prose: the preamble is over
    if block_start is None:
        return None
    # A table whose header row is not itself a key ("| Field | Value |").
    while block_start > start and _TABLE_ROW.match(lines[block_start - 1]):
        block_start -= 1
    last = block_start
    listing = False  # after "Revision history:" its entries follow
    under_heading = False  # the last control line was the block's heading
    for j in range(block_start, n):
        line = lines[j]
        stripped = line.strip()
        if not stripped:
            continue
        if j > last + 1 and _new_table(line, under_heading):
            break  # after a blank line, a table that is not the block's own
        if _is_control_line(line):
            last = j
            under_heading = bool(_CONTROL_HEADING.match(stripped))
            listing = under_heading or stripped.endswith(":")
            continue
        if listing and (line[:1] in " \t" or _REVISION_ENTRY.match(line)):
            last = j  # an indented entry, its wrapped tail, or "1.2  2025-08-11  ..."
            under_heading = False
            continue
        break
    return (block_start + 1, last + 1)


def _new_table(line: str, under_heading: bool) -> bool:
    """A table row past a blank line starts another table, unless it is the
    table under the block's heading or its header names a control key."""
    return bool(_TABLE_ROW.match(line)) and not under_heading and not _TABLE_HEAD.match(line)


def _next_nonblank(lines: list[str], k: int) -> int | None:
    while k < len(lines):
        if lines[k].strip():
            return k
        k += 1
    return None


def _only_blank(lines: list[str], a: int, b: int) -> bool:
    """True when 0-based lines a..b-1 are all blank."""
    return all(not lines[k].strip() for k in range(a, b))


def _title(text: str, kind: str, name: str, control: tuple[int, int] | None) -> str:
    lines = text.split("\n")
    if control and lines[control[0] - 1].strip() == "---":
        for k in range(control[0], control[1] - 1):
            m = re.match(r"^\s*title\s*:\s*(.+?)\s*$", lines[k], re.IGNORECASE)
            if m:
                return m.group(1).strip("\"'")
    for number, line in enumerate(lines, start=1):
        if control and control[0] <= number <= control[1]:
            continue
        if not line.strip():
            continue
        if kind == "md":
            m = _MD_HEADING.match(line)
            if m:
                return line.strip().lstrip("#").strip()
            continue
        if sum(ch.isalpha() for ch in line) >= 3:  # not a page number or a rule
            return line.strip()[:120]
    return PurePath(name).stem
