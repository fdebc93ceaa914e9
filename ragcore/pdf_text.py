"""Text of PDFs with each line's page, read leniently with pypdf but refused
when content was dropped, when there is no text, or when the text is glyph
garbage. Pages can be extracted in parts (every n-th page) so that workers
share one file (:mod:`ragcore.guard`), then assembled in page order.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import threading
from dataclasses import dataclass

from . import errors

# Shares of non-space characters for PDF text to count as language: letters
# or digits (symbol soup falls below), and vowels among Latin letters (prose
# in Latin-script languages has 30-45%; shifted glyph codes about 15%).
_MIN_ALNUM_SHARE = 0.5
_MIN_VOWEL_SHARE = 0.2


# ---------------------------------------------------------------------- PDFs


# pypdf reads damaged files leniently (strict=False) and reports what it had
# to drop through its logger. Repairs it can make without losing anything
# (wrong xref offsets, a bad startxref) are fine; these phrases mean content
# was dropped, so the document would be stored with pages or text missing.
_PDF_DAMAGE = re.compile(
    r"not defined|Invalid Elementary Object|Ignoring page tree entry|Unable to find 'endstream'|"
    r"Expecting a NameObject|Cannot find page in pages|IndirectObject is not referencing a page|"
    r"Detected loop|Could not find object",
    re.IGNORECASE,
)


class _PypdfLog(logging.Handler):
    """Collects pypdf's warnings for the thread that is reading a PDF.

    Installed once on the ``pypdf`` logger, which stops propagating: its
    repair notes are not for the app's log, and damage becomes a CorruptPdf.
    """

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        messages = getattr(self.local, "messages", None)
        if messages is not None:
            try:
                messages.append(record.getMessage())
            except Exception:  # a malformed record must not break loading
                messages.append(str(record.msg))

    def __enter__(self) -> list[str]:
        self.local.messages = []
        return self.local.messages

    def __exit__(self, *exc: object) -> None:
        self.local.messages = None


_PYPDF_LOG: _PypdfLog | None = None
_PYPDF_LOG_LOCK = threading.Lock()


def _pypdf_log() -> _PypdfLog:
    global _PYPDF_LOG
    with _PYPDF_LOG_LOCK:
        if _PYPDF_LOG is None:
            logger = logging.getLogger("pypdf")
            _PYPDF_LOG = _PypdfLog()
            logger.addHandler(_PYPDF_LOG)
            logger.setLevel(logging.WARNING)
            logger.propagate = False
        return _PYPDF_LOG


@dataclass(frozen=True)
class PdfPages:
    """Text of some pages of a PDF (every ``parts``-th page from ``part``),
    as one worker of a parallel parse extracts it."""

    texts: dict[int, str]  # 0-based page index -> extracted text
    page_count: int
    meta_title: str | None
    damage: int  # warnings that mean content was dropped


def pdf_page_texts(data: bytes, name: str, part: int = 0, parts: int = 1) -> PdfPages:
    """Extract pages ``part, part + parts, ...`` of a PDF (all of them by default)."""
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError, PdfStreamError

    from .pdf_speed import install, text_only

    # pypdf's content readers, faster (same text); text_only: no visitors here
    fast = text_only() if install() else contextlib.nullcontext()
    if b"%PDF" not in data[:1024]:
        raise errors.CorruptPdf(name, "this is not a PDF (no %PDF header)")
    with _pypdf_log() as warnings, fast:
        try:
            reader = PdfReader(io.BytesIO(data), strict=False)
            _decrypt(reader, name)
            count = len(reader.pages)
            texts = {i: reader.pages[i].extract_text() or "" for i in range(part, count, parts)}
            meta_title = _pdf_meta_title(reader) if part == 0 else None
        except errors.DocumentError:
            raise
        except FileNotDecryptedError as exc:
            raise errors.EncryptedPdf(
                name, "the PDF is encrypted; remove the password and upload it again"
            ) from exc
        except (
            PdfReadError,
            PdfStreamError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            IndexError,
        ) as exc:
            raise errors.CorruptPdf(
                name, f"the PDF is damaged or truncated and cannot be read ({type(exc).__name__})"
            ) from exc
        except RecursionError as exc:
            raise errors.CorruptPdf(name, "the PDF's structure is nested too deeply to read") from exc
        except MemoryError:
            raise  # a resource limit, not damage: the guard reports it (ragcore.guard)
        except Exception as exc:  # pypdf raises many types on broken files
            raise errors.CorruptPdf(name, f"the PDF cannot be read ({type(exc).__name__}: {exc})") from exc
        damage = sum(1 for m in warnings if _PDF_DAMAGE.search(m))
    return PdfPages(texts, count, meta_title, damage)


def _decrypt(reader, name: str) -> None:
    if not reader.is_encrypted:
        return
    try:
        ok = reader.decrypt("")
    except Exception as exc:  # unknown crypto also means "encrypted"
        raise errors.EncryptedPdf(
            name, "the PDF is encrypted; remove the password and upload it again"
        ) from exc
    if not ok:
        raise errors.EncryptedPdf(
            name, "the PDF is password-protected; remove the password and upload it again"
        )


def assemble_pdf_text(name: str, parts: list[PdfPages]) -> tuple[str, tuple[int, ...], str | None]:
    """The document text, each line's page and the metadata title, from the
    page texts of one or more workers (checked for damage, emptiness, garble)."""
    count = parts[0].page_count
    texts: dict[int, str] = {}
    for part in parts:
        texts.update(part.texts)
    page_texts = [texts.get(i, "") for i in range(count)]
    damage = sum(p.damage for p in parts)
    if damage:
        raise errors.CorruptPdf(
            name,
            f"the PDF is damaged: parts of it cannot be read ({damage} broken object(s), "
            f"{sum(1 for t in page_texts if not t.strip())} of {len(page_texts)} pages without text); "
            "storing it would leave text out, so it was not added",
        )
    meta_title = next((p.meta_title for p in parts if p.meta_title), None)
    lines: list[str] = []
    line_pages: list[int] = []
    for number, page_text in enumerate(page_texts, start=1):
        page_lines = page_text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        # Drop the empty tail a page's text often ends with, keep inner lines.
        while page_lines and not page_lines[-1].strip():
            page_lines.pop()
        lines.extend(page_lines)
        line_pages.extend([number] * len(page_lines))
    text = "\n".join(lines)
    if not text.strip():
        raise errors.EmptyDocument(
            name,
            "the PDF has no extractable text (a scanned image?); run OCR on it first and upload the result",
        )
    if looks_garbled(text):
        raise errors.GarbledText(
            name,
            "the PDF's text comes out as symbol garbage (its fonts lack a Unicode map), so it cannot be "
            "searched; export it again as PDF with embedded Unicode fonts or upload a text version",
        )
    return text, tuple(line_pages), meta_title


def _pdf_meta_title(reader) -> str | None:
    """The PDF's metadata title when it reads like a title: producers often
    leave a file name or a filing number there ("0001759509-22-000016")."""
    try:
        meta = reader.metadata
        title = str(meta.title).strip() if meta and meta.title else ""
    except Exception:  # metadata is optional
        return None
    if not title or re.search(r"\.(?:docx?|pdf|odt|rtf|pages|txt|indd)$", title, re.IGNORECASE):
        return None
    letters = sum(ch.isalpha() for ch in title)
    if letters < 3 or letters < 0.5 * len(title.replace(" ", "")) or " " not in title.strip():
        return None
    return title


def looks_garbled(text: str) -> bool:
    """True when extracted text is not language.

    Fonts without a Unicode map give glyph codes, often shifted by a constant
    (the 2018 Basecamp addendum reads "%$6(&$03'$7" for "BASECAMP DAT"): a
    space then comes out as a control character, upper-case letters as
    symbols and digits, lower-case letters as mostly consonants. So: control
    characters, few letters or digits, or Latin letters with few vowels.
    """
    sample = re.sub(r"[ \t\n\r\f\v]+", "", text[:50000])
    if len(sample) < 40:
        return False
    controls = sum(1 for ch in sample if ord(ch) < 32 or 127 <= ord(ch) < 160)
    if controls / len(sample) > 0.02:
        return True
    letters = [ch for ch in sample if ch.isalpha()]
    alnum = len(letters) + sum(1 for ch in sample if ch.isdigit())
    if alnum / len(sample) < _MIN_ALNUM_SHARE:
        return True
    latin = [ch.lower() for ch in letters if ch.isascii()]
    if len(latin) >= 40 and len(latin) > 0.8 * len(letters):
        vowels = sum(1 for ch in latin if ch in "aeiouy")
        return vowels / len(latin) < _MIN_VOWEL_SHARE
    return False
