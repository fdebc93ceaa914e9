"""Loading files into Documents with exact line provenance.

Every loader returns the text as numbered lines exactly as in the source
(line breaks normalised, nothing else moved), so a citation "lines 12-18"
can be checked against the file. Bad input raises a typed
:class:`ragcore.errors.DocumentError` with a message a person can act on.
"""

from __future__ import annotations

import io
import re
from pathlib import Path, PurePath

from . import errors
from .records import Document, sha256_hex

SUPPORTED_SUFFIXES = {".md": "md", ".markdown": "md", ".txt": "txt", ".text": "txt", ".pdf": "pdf"}

# Share of non-space characters that must be letters for PDF text to count as
# language; shifted-glyph garbage ("%$6(&$03'$7") falls far below it.
_MIN_LETTER_SHARE = 0.55
_MIN_VOWEL_SHARE = 0.18


def kind_of(name: str) -> str:
    suffix = PurePath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise errors.UnsupportedFileType(name, f"unsupported file type {suffix or '(none)'!r}; supported: {supported}")
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
    content_hash = sha256_hex(data)
    if kind == "pdf":
        text, line_pages, meta_title = _pdf_text(data, name)
    else:
        text = normalise_line_breaks(decode_text(data, name))
        if not text.strip():
            raise errors.EmptyDocument(name, "the file has no text, only white space")
        line_pages, meta_title = (), None
    control = find_control_block(text.split("\n"), kind)
    title = meta_title or _title(text, kind, name, control)
    return Document(
        name=name,
        title=title,
        kind=kind,
        text=text,
        content_hash=content_hash,
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
    """UTF-8 (with or without BOM), UTF-16 with BOM, then Windows-1252.

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
        raise errors.BinaryContent(name, "this looks like a binary file, not text (it contains NUL bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # Legacy Windows text is the common case; cp1252 leaves five bytes
        # undefined, which latin-1 then takes so decoding never fails.
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    return _check_text(text, name)


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


# ---------------------------------------------------------------------- PDFs


def _pdf_text(data: bytes, name: str) -> tuple[str, tuple[int, ...], str | None]:
    import logging

    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError, PdfStreamError

    if not data.lstrip()[:1024].startswith(b"%PDF") and b"%PDF" not in data[:1024]:
        raise errors.CorruptPdf(name, "this is not a PDF (no %PDF header)")
    # pypdf logs cross-reference repairs loudly; a parse that works is enough.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                ok = reader.decrypt("")
            except Exception as exc:  # noqa: BLE001 - unknown crypto also means "encrypted"
                raise errors.EncryptedPdf(name, "the PDF is encrypted; remove the password and upload it again") from exc
            if not ok:
                raise errors.EncryptedPdf(name, "the PDF is password-protected; remove the password and upload it again")
        page_texts = []
        for page in reader.pages:
            page_texts.append(page.extract_text() or "")
        meta_title = None
        try:
            meta = reader.metadata
            if meta and meta.title and str(meta.title).strip():
                meta_title = str(meta.title).strip()
        except Exception:  # noqa: BLE001 - metadata is optional
            meta_title = None
    except errors.DocumentError:
        raise
    except FileNotDecryptedError as exc:
        raise errors.EncryptedPdf(name, "the PDF is encrypted; remove the password and upload it again") from exc
    except (PdfReadError, PdfStreamError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise errors.CorruptPdf(name, f"the PDF is damaged or truncated and cannot be read ({type(exc).__name__})") from exc
    except RecursionError as exc:
        raise errors.CorruptPdf(name, "the PDF's structure is nested too deeply to read") from exc
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on broken files
        raise errors.CorruptPdf(name, f"the PDF cannot be read ({type(exc).__name__}: {exc})") from exc

    lines: list[str] = []
    line_pages: list[int] = []
    for number, page_text in enumerate(page_texts, start=1):
        page_lines = normalise_line_breaks(page_text).split("\n")
        # Drop the empty tail a page's text often ends with, keep inner lines.
        while page_lines and not page_lines[-1].strip():
            page_lines.pop()
        lines.extend(page_lines)
        line_pages.extend([number] * len(page_lines))
    text = "\n".join(lines)
    if not text.strip():
        raise errors.EmptyDocument(
            name, "the PDF has no extractable text (a scanned image?); run OCR on it first and upload the result"
        )
    if looks_garbled(text):
        raise errors.GarbledText(
            name,
            "the PDF's text comes out as symbol garbage (its fonts lack a Unicode map), so it cannot be "
            "searched; export it again as PDF with embedded Unicode fonts or upload a text version",
        )
    return text, tuple(line_pages), meta_title


def looks_garbled(text: str) -> bool:
    """True when extracted text is not language: few letters, or letters
    without vowels (shifted glyph codes)."""
    sample = re.sub(r"\s+", "", text[:50000])
    if len(sample) < 40:
        return False
    letters = [ch for ch in sample if ch.isalpha()]
    if len(letters) / len(sample) < _MIN_LETTER_SHARE:
        return True
    latin = [ch.lower() for ch in letters if ch.isascii()]
    if len(latin) > 0.8 * len(letters) and latin:
        vowels = sum(1 for ch in latin if ch in "aeiouy")
        return vowels / len(latin) < _MIN_VOWEL_SHARE
    return False


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
_KEY_VALUE = re.compile(rf"^\s*(?:[-*+]\s+)?(?:\*\*)?({_CONTROL_KEYS})(?:\*\*)?\s*(?::|\||-\s)", re.IGNORECASE)
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_HEAD = re.compile(rf"^\s*\|\s*(?:\*\*)?({_CONTROL_KEYS})(?:\*\*)?\s*\|", re.IGNORECASE)
_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+\S")


def find_control_block(lines: list[str], kind: str) -> tuple[int, int] | None:
    """Lines (first, last), 1-based, of a metadata block at the top, or None.

    Recognised: YAML front matter (``---`` ... ``---``), and a "Document
    control" / version / owner / classification / revision-history table or
    key-value list that comes before the first real section. The block's
    lines keep their numbers; chunkers skip them for indexing.
    """
    n = len(lines)
    first = 0
    while first < n and not lines[first].strip():
        first += 1
    if first >= n:
        return None
    if lines[first].strip() == "---":
        for j in range(first + 1, min(n, first + 200)):
            if lines[j].strip() in ("---", "..."):
                # A control table may follow the front matter directly.
                table = _control_table(lines, j + 1)
                if table and _only_blank(lines, j + 1, table[0] - 1):
                    return (first + 1, table[1])
                return (first + 1, j + 1)
        return None
    return _control_table(lines, first)


def _control_table(lines: list[str], start: int) -> tuple[int, int] | None:
    """A control heading, table or key-value list in the preamble from
    ``start`` (0-based): before the second heading, within 40 lines."""
    n = len(lines)
    block_start = None
    seen_title = False
    for i in range(start, min(n, start + 40)):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            continue
        if _CONTROL_HEADING.match(stripped) or _TABLE_HEAD.match(line) or _KEY_VALUE.match(line):
            block_start = i
            break
        is_heading = bool(_MD_HEADING.match(line))
        if is_heading and seen_title:
            return None  # a real section began: no control block
        if is_heading or not seen_title:
            seen_title = True  # the title may sit above the block
            continue
        if len(stripped) >= 120:
            return None  # prose: the preamble is over
    if block_start is None:
        return None
    last = block_start
    for j in range(block_start, n):
        line = lines[j]
        stripped = line.strip()
        if not stripped:
            continue
        if (
            _CONTROL_HEADING.match(stripped)
            or _TABLE_ROW.match(line)
            or _KEY_VALUE.match(line)
            or re.match(r"^\s*[-=]{3,}\s*$", line)
        ):
            last = j
            continue
        break
    return (block_start + 1, last + 1)


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
        return line.strip()[:120]
    return PurePath(name).stem
