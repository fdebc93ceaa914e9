"""The regex hex-string reader gives what pypdf's own reader gives."""

from __future__ import annotations

import io

import pypdf
import pytest
from pypdf.errors import PdfStreamError
from pypdf.generic._utils import read_hex_string_from_stream

from ragcore import pdf_speed
from ragcore.pdf_text import pdf_page_texts
from tests.conftest import SHARED_DIR, require_shared

CASES = [
    b"<48656c6c6f> Tj",
    b"<>",
    b"<4 8 6\n5\r6c\t6c\x0c6f\x00>rest",
    b"<ABC>",  # odd: last digit padded with 0
    b"<FEFF00410042> Tj",  # UTF-16 with a byte-order mark: a text string
    b"<0041004C0020> ",
    b"[<0041> 12 <0042>] TJ",
]
BAD = [b"<41G2>", b"<4142", b"<41 (x)>"]


def _read(reader, data: bytes, at: int):
    stream = io.BytesIO(data)
    stream.seek(at)
    value = reader(stream, None)
    return type(value), value, stream.tell()


@pytest.mark.parametrize("data", CASES)
def test_same_object_and_position_as_pypdf(data: bytes) -> None:
    at = data.index(b"<")
    assert _read(pdf_speed.read_hex_string, data, at) == _read(read_hex_string_from_stream, data, at)


@pytest.mark.parametrize("data", BAD)
def test_bad_hex_strings_raise_pypdfs_error(data: bytes) -> None:
    with pytest.raises(PdfStreamError) as ours:
        _read(pdf_speed.read_hex_string, data, 0)
    with pytest.raises(PdfStreamError) as theirs:
        _read(read_hex_string_from_stream, data, 0)
    assert str(ours.value) == str(theirs.value)


def test_installed_over_the_checked_pypdf_only(monkeypatch) -> None:
    from pypdf.generic import _data_structures

    monkeypatch.setattr(pdf_speed, "_installed", False)
    monkeypatch.setattr(pypdf, "__version__", "0.0.0")
    original = _data_structures.read_hex_string_from_stream
    assert pdf_speed.install() is False
    assert _data_structures.read_hex_string_from_stream is original


def test_same_text_of_a_10k_as_pypdfs_reader(monkeypatch) -> None:
    """Pages of a filing written in hex strings: the same text either way."""
    from pypdf.generic import _data_structures

    data = require_shared(SHARED_DIR / "documents" / "sec-10k" / "uber_2021_10k.pdf").read_bytes()
    ours = pdf_page_texts(data, "uber.pdf", 0, 40)  # pages 0, 40, 80, ...
    assert _data_structures.read_hex_string_from_stream is pdf_speed.read_hex_string
    monkeypatch.setattr(_data_structures, "read_hex_string_from_stream", read_hex_string_from_stream)
    monkeypatch.setattr(pdf_speed, "install", lambda: False)
    theirs = pdf_page_texts(data, "uber.pdf", 0, 40)
    assert len(ours.texts) == 8 and sum(len(t) for t in ours.texts.values()) > 10_000
    assert ours == theirs
