"""The regex content-stream readers give what pypdf's own readers give."""

from __future__ import annotations

import ast
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
    assert _data_structures.ContentStream._parse_content_stream is pdf_speed.parse_content_stream
    monkeypatch.setattr(_data_structures, "read_hex_string_from_stream", read_hex_string_from_stream)
    monkeypatch.setattr(_data_structures.ContentStream, "_parse_content_stream", pdf_speed._PYPDF_PARSE)
    monkeypatch.setattr(pdf_speed, "install", lambda: False)
    theirs = pdf_page_texts(data, "uber.pdf", 0, 40)
    assert len(ours.texts) == 8 and sum(len(t) for t in ours.texts.values()) > 10_000
    assert ours == theirs


# Content streams covering each token kind, and the odd ones pypdf handles itself.
STREAMS = [
    b"BT /F1 12 Tf 72 712.5 Td (Hello) Tj ET",
    b"BT [<0041> -250 <00420043> 12.5 (x\\(y\\)) -.5 +3] TJ ET",
    b"q 1 0 0 1 0 0 cm /Im1 Do Q % a comment\r\n0 g\n%last",
    b"/Span <</MCID 0 /ActualText (a)>> BDC EMC",
    b"[1 [2 [3]] null nullx true false /N#20ame] TJ",
    b"BT 1,5 Tc 1.2.3 Tw -- Tz .5 TL ET",
    b"/F\xc3\xa9 1 Tf 10 0 R",
    b"[<41> % inside\n <42>] TJ [1 2",
    b"BI /W 1 /H 1 /CS /G /BPC 8 ID \x00 EI Q",
    b"12345678901234567890123 0 Td 1 0 0 RG 0.1 0.2 0.3 rg",
    b"\x0b 1 0 Td",
    b"' \" T* Tj" + b"x" * 140,
    b"(unclosed",
    b"<4142",
    b"[<41> ) ]",
]


def _operations(data: bytes, parse) -> object:
    from pypdf.generic import ContentStream

    stream = ContentStream(None, None)
    stream.set_data(data)
    try:
        parse(stream, io.BytesIO(data))
    except Exception as exc:  # both parsers must fail alike
        return ("raised", type(exc).__name__, str(exc), _deep(stream._operations))
    return _deep(stream._operations)


def _deep(value: object) -> object:
    if isinstance(value, (list, tuple)):
        return type(value).__name__, tuple(_deep(v) for v in value)
    if isinstance(value, dict):
        return type(value).__name__, tuple(sorted((_deep(k), _deep(v)) for k, v in value.items()))
    return type(value).__name__, repr(value)


@pytest.mark.parametrize("data", STREAMS)
def test_same_operations_as_pypdfs_parser(data: bytes) -> None:
    assert pdf_speed._PYPDF_PARSE.__module__.startswith("pypdf.")  # compared with pypdf's own
    ours = _operations(data, pdf_speed.parse_content_stream)
    theirs = _operations(data, pdf_speed._PYPDF_PARSE)
    assert ours == theirs


def test_same_operations_on_every_page_of_a_10k() -> None:
    from pypdf import PdfReader

    data = require_shared(SHARED_DIR / "documents" / "sec-10k" / "uber_2021_10k.pdf").read_bytes()
    reader = PdfReader(io.BytesIO(data), strict=False)
    for number in range(0, len(reader.pages), 5):
        contents = reader.pages[number].get_contents()
        raw = contents.get_data()
        assert _operations(raw, pdf_speed.parse_content_stream) == _operations(raw, pdf_speed._PYPDF_PARSE), (
            number
        )


def _text_operations(data: bytes) -> object:
    with pdf_speed.text_only():
        return _operations(data, pdf_speed.parse_content_stream)


def _kept(operations: object) -> object:
    """pypdf's operations (as _deep gives them) without those text extraction skips."""
    if operations[0] == "raised":
        return ("raised", *operations[1:3], _kept(operations[3]))
    kind, ops = operations  # each op as _deep gives it: ("tuple", (operands, ("bytes", repr(operator))))
    keep = pdf_speed.TEXT_OPERATORS | {b"INLINE IMAGE"}  # an inline image is read past, and kept
    return kind, tuple(op for op in ops if ast.literal_eval(op[1][1][1]) in keep)


def test_text_operators_are_all_that_text_extraction_reads() -> None:
    from pypdf._text_extraction._text_extractor import TextExtraction

    handled = set(TextExtraction().operation_handlers)
    assert handled <= pdf_speed.TEXT_OPERATORS
    # The rest are the operators PageObject._extract_text's loop rewrites into them.
    assert pdf_speed.TEXT_OPERATORS - handled == {b"'", b'"', b"TJ", b"TD", b"Do"}


@pytest.mark.parametrize("data", STREAMS)
def test_text_only_keeps_pypdfs_text_operations(data: bytes) -> None:
    assert _text_operations(data) == _kept(_operations(data, pdf_speed._PYPDF_PARSE))


def test_text_only_keeps_pypdfs_text_operations_of_a_10k() -> None:
    from pypdf import PdfReader

    data = require_shared(SHARED_DIR / "documents" / "sec-10k" / "uber_2021_10k.pdf").read_bytes()
    reader = PdfReader(io.BytesIO(data), strict=False)
    dropped = 0
    for number in range(0, len(reader.pages), 7):
        raw = reader.pages[number].get_contents().get_data()
        theirs = _operations(raw, pdf_speed._PYPDF_PARSE)
        assert _text_operations(raw) == _kept(theirs), number
        dropped += len(theirs[1]) - len(_kept(theirs)[1])
    assert dropped > 1000  # paths and colours were there to drop


def test_text_only_reads_each_font_dictionary_once() -> None:
    from pypdf.generic import DictionaryObject, NameObject
    from pypdf.generic._font import Font

    font = DictionaryObject(
        {NameObject("/Subtype"): NameObject("/Type1"), NameObject("/BaseFont"): NameObject("/Helvetica")}
    )
    assert Font.from_font_resource(font) is not Font.from_font_resource(font)
    with pdf_speed.text_only():
        first = Font.from_font_resource(font)
        assert Font.from_font_resource(font) is first
        assert Font.from_font_resource(DictionaryObject(font)) is not first
    assert Font.from_font_resource(font) is not first
