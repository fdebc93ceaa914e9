"""Loading files into Documents: loaders, encodings, line endings, control
blocks and every kind of bad input (generated here, plus real files from
../shared when present)."""

from __future__ import annotations

import hashlib
import io
import os
import random
import re

import pytest

from ragcore import errors, guard
from ragcore.chunking import chunk_document
from ragcore.documents import find_control_block, load_bytes, load_path, looks_garbled
from tests.conftest import missing_shared, require_shared

MARKDOWN = """# Pricing guide

Our plans are billed monthly.
Annual billing saves two months.

## Enterprise

Enterprise plans start at $1,200 per month.
"""

PROSE = (
    "Refunds are paid within thirty days of a written request. The customer keeps access until the end of "
    "the period already paid for. Support answers billing questions on working days, and every answer names "
    "the person who handled the case. "
)


def _source_lines(text: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", text)


# ------------------------------------------------------------------ loaders


def test_markdown_loads_as_numbered_lines_with_name_hash_and_title():
    data = MARKDOWN.encode("utf-8")
    doc = load_bytes(data, "guide.md")
    assert doc.name == "guide.md"
    assert doc.kind == "md"
    assert doc.content_hash == hashlib.sha256(data).hexdigest()
    assert doc.size_bytes == len(data)
    assert doc.title == "Pricing guide"
    assert doc.line_pages == ()
    expected = MARKDOWN.split("\n")
    assert doc.line_count == len(expected)
    for number, line in enumerate(expected, start=1):
        assert doc.line(number) == line
    assert doc.line(8) == "Enterprise plans start at $1,200 per month."
    with pytest.raises(IndexError):
        doc.line(len(expected) + 1)


def test_text_file_title_is_its_first_line_with_words():
    doc = load_bytes(b"  \n7\nQuarterly billing notes\nInvoices go out on the first.\n", "notes.txt")
    assert doc.kind == "txt"
    assert doc.title == "Quarterly billing notes"
    assert doc.line(4) == "Invoices go out on the first."


def test_load_path_names_a_file_by_its_base_name_unless_told(tmp_path):
    folder = tmp_path / "policies"
    folder.mkdir()
    path = folder / "refunds.md"
    path.write_bytes(MARKDOWN.encode())
    assert load_path(path).name == "refunds.md"
    assert load_path(path, "policies/refunds.md").name == "policies/refunds.md"
    assert load_path(str(path)).size_bytes == len(MARKDOWN.encode())


def test_pdf_lines_are_the_extracted_text_and_each_knows_its_page(make_pdf):
    pages = [
        ["Service levels", "Uptime is measured monthly.", "Credits are paid on request."],
        ["Exclusions", "Planned maintenance is announced a week ahead."],
        ["Contact", "Write to the support desk."],
    ]
    doc = load_bytes(make_pdf(pages, title="Service level summary"), "sla.pdf")
    assert doc.kind == "pdf"
    assert doc.title == "Service level summary"
    assert doc.lines == [line for page in pages for line in page]
    assert doc.line_pages == (1, 1, 1, 2, 2, 3, 3)
    assert doc.pages_for(3, 5) == (1, 2)
    assert doc.line(4) == "Exclusions"


def test_pdf_metadata_title_that_is_a_file_name_gives_way_to_the_first_line(make_pdf):
    doc = load_bytes(
        make_pdf([["12", "Partner agreement", "Terms for resellers."]], title="draft_v3.docx"), "p.pdf"
    )
    assert doc.title == "Partner agreement"


def test_pdf_encrypted_without_a_user_password_opens_like_any_pdf(make_pdf):
    # Owner-only encryption restricts editing; anyone may read it, so we do.
    doc = load_bytes(make_pdf([["Readable text on page one."]], owner_password="owner"), "owner.pdf")
    assert doc.lines == ["Readable text on page one."]


def _aes_pdf(make_pdf, algorithm: str, user_password: str) -> bytes:
    """A text PDF re-saved by pypdf's writer with AES encryption."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(make_pdf([["Quarterly fees rose to 12 dollars."]]))))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm=algorithm)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize("algorithm", ["AES-128", "AES-256"])
def test_aes_pdf_with_an_empty_user_password_opens(make_pdf, algorithm):
    # Any viewer opens it without asking; so do we (issue 17, item 4: needs cryptography).
    data = _aes_pdf(make_pdf, algorithm, "")
    assert load_bytes(data, "aes.pdf").lines == ["Quarterly fees rose to 12 dollars."]
    assert guard.load_bytes_guarded(data, "aes.pdf").lines == ["Quarterly fees rose to 12 dollars."]


@pytest.mark.parametrize("algorithm", ["AES-128", "AES-256"])
def test_aes_pdf_with_a_password_is_called_password_protected(make_pdf, algorithm):
    data = _aes_pdf(make_pdf, algorithm, "open-sesame")
    with pytest.raises(errors.EncryptedPdf, match="password-protected"):
        load_bytes(data, "locked.pdf")
    with pytest.raises(errors.EncryptedPdf, match="password-protected"):
        guard.load_bytes_guarded(data, "locked.pdf")


# ---------------------------------------------------------------- encodings

SAMPLE = "Café prices: €5 for a “flat white”, naïve résumé.\nSecond line."


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "cp1252"])
def test_encodings_decode_to_the_same_text(encoding):
    doc = load_bytes(SAMPLE.encode(encoding), "menu.txt")
    assert doc.text == SAMPLE
    assert doc.lines == SAMPLE.split("\n")


def test_utf8_with_a_stray_byte_stays_utf8():
    data = "naïve café line one\n".encode() + b"bad \x97 byte\n" + "résumé\n".encode()
    doc = load_bytes(data, "mixed.txt")
    assert doc.line(1) == "naïve café line one"
    assert doc.line(2) == "bad \ufffd byte"
    assert doc.line(3) == "résumé"


def test_latin1_only_bytes_fall_back_to_windows_1252():
    doc = load_bytes(b"Price \x80 9, caf\xe9, undefined \x81 byte", "old.txt")
    assert doc.text == "Price € 9, café, undefined \x81 byte"


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_windows_and_old_mac_line_endings_are_line_breaks_and_nothing_else_moves(newline):
    lines = ["# Title  ", "", "\tindented\twith tabs ", "form\ffeed and\u2028separator", "", "last"]
    doc = load_bytes(newline.join(lines).encode(), "endings.md")
    assert doc.lines == lines
    assert doc.line_count == 6


def test_mixed_line_endings_each_count_once():
    doc = load_bytes(b"one\r\ntwo\rthree\nfour\r\n\r\nsix", "mixed.txt")
    assert doc.lines == ["one", "two", "three", "four", "", "six"]


# ---------------------------------------------------------------- bad input


def _garble(text: str) -> str:
    """Shift every character by 29 code points, as a PDF font without a
    Unicode map does (space becomes a control character)."""
    return "".join(chr(ord(ch) - 29) if ord(ch) > 29 else ch for ch in text)


def _corrupt_second_stream(pdf: bytes) -> bytes:
    """Overwrite the middle of the second content stream with fixed junk."""
    starts = [m.end() for m in re.finditer(rb"stream\n", pdf)]
    pos = starts[1] + 5
    junk = bytes(random.Random(7).randrange(256) for _ in range(60))
    return pdf[:pos] + junk + pdf[pos + 60 :]


def _three_page_pdf(make_pdf) -> bytes:
    return make_pdf([[f"Page {n} line {k} explains a billing rule." for k in range(1, 9)] for n in (1, 2, 3)])


BAD_INPUTS = {
    "empty.txt": (lambda mk: b"", errors.EmptyDocument, "empty"),
    "empty.md": (lambda mk: b"", errors.EmptyDocument, "empty"),
    "empty.pdf": (lambda mk: b"", errors.EmptyDocument, "empty"),
    "blank.md": (lambda mk: b" \r\n\t\n  \n", errors.EmptyDocument, "empty"),
    "bom-only.txt": (lambda mk: b"\xef\xbb\xbf\n", errors.EmptyDocument, "white space"),
    "image.txt": (
        lambda mk: (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
            + bytes(random.Random(1).randrange(256) for _ in range(4000))
        ),
        errors.BinaryContent,
        "binary",
    ),
    "controls.md": (lambda mk: bytes(range(1, 32)) * 200, errors.BinaryContent, "binary"),
    "encrypted.pdf": (
        lambda mk: mk([["Secret salary table."]], user_password="user", owner_password="owner"),
        errors.EncryptedPdf,
        "password",
    ),
    "truncated-half.pdf": (
        lambda mk: _three_page_pdf(mk)[: len(_three_page_pdf(mk)) // 2],
        errors.CorruptPdf,
        "damaged",
    ),
    "truncated-tail.pdf": (lambda mk: _three_page_pdf(mk)[:-40], errors.CorruptPdf, "damaged"),
    "corrupt-stream.pdf": (
        lambda mk: _corrupt_second_stream(_three_page_pdf(mk)),
        errors.CorruptPdf,
        "damaged",
    ),
    "random.pdf": (
        lambda mk: bytes(random.Random(2).randrange(256) for _ in range(5000)),
        errors.CorruptPdf,
        "not a PDF",
    ),
    "header-then-junk.pdf": (
        lambda mk: b"%PDF-1.4\n" + bytes(random.Random(3).randrange(256) for _ in range(5000)),
        errors.CorruptPdf,
        "damaged",
    ),
    "blank-pages.pdf": (lambda mk: mk([[], []]), errors.EmptyDocument, "no extractable text"),
    "garbled.pdf": (
        lambda mk: mk([[_garble(PROSE[i : i + 60]) for i in range(0, len(PROSE), 60)]]),
        errors.GarbledText,
        "garbage",
    ),
    "slides.pptx": (lambda mk: b"PK\x03\x04 not read", errors.UnsupportedFileType, "unsupported file type"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_raises_a_specific_readable_error(name, make_pdf):
    build, expected, phrase = BAD_INPUTS[name]
    with pytest.raises(expected) as info:
        load_bytes(build(make_pdf), name)
    err = info.value
    assert isinstance(err, errors.DocumentError) and isinstance(err, errors.RagcoreError)
    assert err.name == name
    assert str(err).startswith(f"{name}: ")
    assert phrase in err.reason
    assert len(err.reason) >= 15 and "Traceback" not in err.reason


def test_every_truncation_of_a_pdf_is_refused(make_pdf):
    data = _three_page_pdf(make_pdf)
    for cut in range(200, len(data) - 10, max(1, len(data) // 15)):
        with pytest.raises(errors.CorruptPdf):
            load_bytes(data[:cut], "cut.pdf")


def test_file_over_the_size_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"word " * 50_000)
    with pytest.raises(errors.FileTooLarge) as info:
        load_path(path, max_bytes=100_000)
    assert "over the" in info.value.reason and "RAGCORE_MAX_UPLOAD_MB" in info.value.reason
    with pytest.raises(errors.FileTooLarge):
        load_bytes(path.read_bytes(), "big.txt", max_bytes=100_000)
    assert load_path(path, max_bytes=1_000_000).size_bytes == 250_000


def test_missing_file_and_folder_are_document_errors(tmp_path):
    with pytest.raises(errors.DocumentError) as info:
        load_path(tmp_path / "gone.md")
    assert "cannot read" in info.value.reason
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(errors.DocumentError):
        load_path(tmp_path / "folder.md")


def test_looks_garbled_tells_glyph_codes_from_language():
    assert not looks_garbled(PROSE)
    assert looks_garbled(_garble(PROSE))  # spaces become control characters
    shifted_letters = "".join(chr(ord(c) - 29) if c.islower() else c for c in PROSE)
    assert looks_garbled(shifted_letters)  # letters without vowels
    assert looks_garbled("%$6(&$03'$7 ^&*%$#@! (&$03*#@ " * 5)  # symbol soup
    assert not looks_garbled("Τα τέλη χρεώνονται κάθε μήνα και επιστρέφονται εντός τριάντα ημερών. " * 3)
    assert not looks_garbled("费用每月收取，退款在三十天内支付。客户在已付款期间内保留访问权限。" * 3)
    assert not looks_garbled("Revenue 2021 $ 17,455 $ 11,139 56 % 2020 $ 3,208 (1,024) 12.5 % " * 4)
    assert not looks_garbled("short %$#")


# ------------------------------------------------------------ control block

FRONT_MATTER = """---
title: "Refund policy"
owner: Billing
---

# Refund policy

Refunds are paid within thirty days.
"""

CONTROL_TABLE = """# Security policy

**Document control**

| Field | Value |
| --- | --- |
| Version | 3.1 |
| Owner | Security team |
| Classification | Internal |

## Purpose

This policy says how we keep data safe.
"""

CONTROL_TEXT = """WAREHOUSE PROCEDURE
===================

DOCUMENT CONTROL
Version: 2.0
Owner: Operations
Revision history:
  1.0  2024-01-10  First issue
  2.0  2025-02-01  New returns flow and a line that wraps
  onto the next one

1. SCOPE

This procedure covers returns.
"""


@pytest.mark.parametrize(
    ("text", "name", "block"),
    [
        (FRONT_MATTER, "fm.md", (1, 4)),
        (CONTROL_TABLE, "table.md", (3, 9)),
        (CONTROL_TEXT, "proc.txt", (4, 10)),
        ("# Plan\n\nVersion: 4\nOwner: Sales\nStatus: final\n\n## Prices\n\nTen dollars.\n", "kv.md", (3, 5)),
        (
            "---\ntitle: A\n---\n| Version | Date |\n| --- | --- |\n| 1 | 2024 |\n\nBody text.\n",
            "fmt.md",
            (1, 6),
        ),
    ],
    ids=["front-matter", "control-table", "text-control", "key-values", "front-matter-then-table"],
)
def test_control_block_is_recognised_and_lines_keep_their_numbers(text, name, block):
    doc = load_bytes(text.encode(), name)
    assert doc.control_lines == block
    assert doc.lines == text.split("\n")  # nothing renumbered
    first, last = block
    for strategy in ("heading", "sentence", "whole"):
        passages = chunk_document(doc, strategy)
        assert passages
        for p in passages:
            assert p.last_line < first or p.first_line > last, (strategy, p)
        covered = {n for p in passages for n in range(p.first_line, p.last_line + 1)}
        content = {n for n in range(1, doc.line_count + 1) if doc.line(n).strip() and not first <= n <= last}
        assert content <= covered, strategy


def test_front_matter_title_names_the_document():
    assert load_bytes(FRONT_MATTER.encode(), "fm.md").title == "Refund policy"


@pytest.mark.parametrize(
    "text",
    [
        "# Notes\n\nDate: 2024-05-01\n\nWe met and agreed the price.\n",  # one key line is not a block
        "# Plan\n\nWe changed the plan this year.\nVersion: 4\nOwner: Sales\n",  # prose came first
        "# Plan\n\n## Prices\n\nVersion: 4\nOwner: Sales\n",  # after the first real section
        "---\n\nA paragraph between two rules.\n\n---\n\nMore text.\n",  # rules, not front matter
        "# Plain\n\nNothing special here at all.\n",
    ],
    ids=["lone-key", "prose-first", "after-section", "rules", "plain"],
)
def test_control_block_is_not_invented(text):
    assert find_control_block(text.split("\n"), "md") is None
    assert load_bytes(text.encode(), "x.md").control_lines is None


def test_a_numbered_heading_after_a_revision_history_is_not_part_of_it():
    text = "Version: 3\nOwner: ops\nRevision history:\n  1.0  2024-01-01  first\n1.2 2025-03-04 second\n\n1.1 Scope\n\nText.\n"
    assert load_bytes(text.encode(), "p.txt").control_lines == (1, 5)


# --------------------------------------------------------------- real files


def test_real_2018_addendum_is_refused_as_garbled(shared_dir):
    path = shared_dir / "documents/basecamp-policies/pdf/Basecamp_Data_Processing_Addendum_v201805.pdf"
    require_shared(path)
    with pytest.raises(errors.GarbledText) as info:
        load_path(path)
    assert info.value.name == path.name


def test_real_2022_addendum_loads_with_pages(shared_dir):
    from pypdf import PdfReader

    path = shared_dir / "documents/basecamp-policies/pdf/Basecamp_Data_Processing_Addendum_v202212.pdf"
    require_shared(path)
    doc = load_path(path)
    assert doc.kind == "pdf"
    assert len(doc.line_pages) == doc.line_count
    assert list(doc.line_pages) == sorted(doc.line_pages)
    assert doc.line_pages[0] == 1
    assert max(doc.line_pages) == len(PdfReader(path).pages)
    assert not looks_garbled(doc.text)
    passages = chunk_document(doc)
    assert passages and all(p.pages and p.chunking == "sentence" for p in passages)


def test_real_markdown_front_matter_is_the_control_block(shared_dir):
    folder = shared_dir / "documents/basecamp-policies"
    files = sorted(p for p in folder.glob("*.md") if p.name != "LICENSE.md")
    if not files:
        missing_shared(f"no Markdown in {folder}")
    for path in files:
        raw = path.read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")
        doc = load_path(path)
        assert doc.lines == raw, path.name
        if raw[0] == "---":
            assert doc.control_lines == (1, raw.index("---", 1) + 1), path.name
            title_line = next(line for line in raw[1 : raw.index("---", 1)] if line.startswith("title:"))
            assert doc.title == title_line.split(":", 1)[1].strip().strip("'\"")


@pytest.mark.slow  # several seconds to a minute: pypdf over a 307-page filing
def test_real_uber_10k_parses_fully_despite_xref_warnings(shared_dir):
    path = shared_dir / "documents/sec-10k/uber_2021_10k.pdf"
    require_shared(path)
    doc = load_path(path)
    assert len(doc.text) > 1_000_000
    assert max(doc.line_pages) == 307
    assert len(doc.line_pages) == doc.line_count


@pytest.mark.parametrize("name", ["notes.md", "notes.txt"])
def test_random_text_never_crashes_the_loader(name):
    rng = random.Random(11)
    alphabet = "ab \n\r\t.#|-:*é€\x00\x07"
    for _ in range(200):
        data = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60))).encode("utf-8")
        try:
            doc = load_bytes(data, name)
        except errors.DocumentError:
            continue
        assert doc.text.count("\n") + 1 == doc.line_count
        assert "\r" not in doc.text
        for strategy in ("heading", "sentence", "whole"):
            for p in chunk_document(doc, strategy):
                assert p.text == doc.text[p.start : p.end]


def test_os_level_read_error_is_a_document_error(tmp_path, monkeypatch):
    path = tmp_path / "locked.md"
    path.write_text("# Locked\n")
    if os.name == "posix" and os.geteuid() != 0:
        path.chmod(0)
        with pytest.raises(errors.DocumentError) as info:
            load_path(path)
        assert "cannot read" in info.value.reason
    else:
        pytest.skip("file permissions do not stop this user")


# ------------------------------------------------ UTF-16 without a BOM (issue 17, item 9)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_detected_by_its_nul_pattern(encoding):
    data = SAMPLE.encode(encoding)
    assert not data.startswith((b"\xff\xfe", b"\xfe\xff"))
    assert load_bytes(data, "menu.txt").text == SAMPLE


def test_nul_bytes_in_both_halves_are_still_binary():
    data = bytes(random.Random(3).randrange(256) for _ in range(4000)) + b"\x00\x00" * 50
    with pytest.raises(errors.BinaryContent, match="NUL"):
        load_bytes(data, "blob.txt")


def test_utf16_pattern_that_does_not_decode_says_so():
    # NULs in every odd byte, but a lone high surrogate: not valid UTF-16.
    data = "Price list\n".encode("utf-16-le") * 20 + b"\x00\xd8" + "end".encode("utf-16-le")
    with pytest.raises(errors.BinaryContent, match="UTF-16 without a byte-order mark"):
        load_bytes(data, "bad.txt")
