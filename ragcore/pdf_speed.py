"""pypdf's page content parser, with regexes over the bytes where pypdf
reads a byte per Python call.

A 10-K writes its text as hexadecimal strings (``<0041004C>``) in ``TJ``
arrays; pypdf 7.1.1 reads them, and every number and operator, a byte or 16
bytes at a time, which was over half the time of extracting a filing's text.
:func:`read_hex_string` and :func:`parse_content_stream` take the common
tokens (numbers, plain names, hex strings, arrays of them, operators,
comments) in one regex step each, build the same objects with the same
constructors, and hand every other token to the pypdf function that pypdf's
own loop would call at that position (literal strings, dictionaries, inline
images, odd numbers and names), with the same parsing budget, so the
operations, errors and limits are pypdf's. Installed only over the pypdf
version it was checked against (tests/test_pdf_speed.py compares both
parsers, object by object, and the extracted text). Imported only where
pypdf is (ragcore.pdf_text).
"""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pypdf
from pypdf import get_configuration
from pypdf._utils import read_until_regex, skip_over_comment
from pypdf.generic import (
    ArrayObject,
    ContentStream,
    DictionaryObject,
    FloatObject,
    NameObject,
    NullObject,
    NumberObject,
)
from pypdf.generic import _data_structures as _pypdf_objects
from pypdf.generic._font import Font
from pypdf.generic._image_inline import read_inline_image
from pypdf.generic._utils import StreamParsingBudget, create_string_object, read_hex_string_from_stream

CHECKED_PYPDF = "7.1.1"
_WHITESPACE = re.compile(rb"[\x00\t\n\x0c\r ]+")  # pypdf's WHITESPACES
_NOT_HEX = re.compile(rb"[^0-9a-fA-F\x00\t\n\x0c\r ]")
_DELIMITED = rb"[^ \t\n\r\x0b\x0c()<>\[\]{}/%]*"  # up to NameObject.delimiter_pattern
# A number is the longest run of NumberObject.NumberPattern's complement; one that
# may start an indirect reference ("12 0 R") goes to pypdf (which refuses it here).
_NUMBER = rb"(?P<num>(?![+-]?\d+\s+\d+\s+R)[+\-.0-9][+,\-.0-9]*)"
_NAME = rb"(?P<name>/" + _DELIMITED + rb")"
# The main loop skips read_non_whitespace's set; the array reader also skips \x0b.
_TOKEN = re.compile(
    rb"[\x00\t\n\x0c\r ]*(?:"
    + _NUMBER
    + rb"|(?P<op>[A-Za-z'\"]"
    + _DELIMITED
    + rb")|"
    + _NAME
    + rb"|(?P<hex><(?!<))"
    rb"|(?P<array>\[)|(?P<comment>%[^\r\n]*[\r\n]?)|(?P<end>\Z)|(?P<other>))"
)
_ELEMENT = re.compile(
    rb"[\x00\t\n\x0b\x0c\r ]*(?:" + _NUMBER + rb"|" + _NAME + rb"|(?P<hex><(?!<))|(?P<close>\])"
    rb"|(?P<null>null)|(?P<comment>%)|(?P<array>\[)|(?P<end>\Z)|(?P<other>))"
)
_OPERATOR_MAX = 100  # below pypdf's 128-byte operator limit, counted in 16-byte reads
_NAME_MAX = 4000  # below pypdf's 4096-byte name limit
_PYPDF_PARSE = ContentStream._parse_content_stream
_PYPDF_FONT = Font.from_font_resource.__func__
# The operators PageObject._extract_text acts on (its TextExtraction handlers and
# the ones its loop rewrites into them); with no visitor every other one
# (paths, colours, marked content) is skipped there, so text_only() drops them.
TEXT_OPERATORS = frozenset(
    (b"BT", b"ET", b"q", b"Q", b"cm", b"Tz", b"Tc", b"Tw", b"TL", b"Tf", b"Td", b"Tm", b"T*", b"Tj")
) | frozenset((b"'", b'"', b"TJ", b"TD", b"Do"))
_TEXT_ONLY = threading.local()  # .fonts: the Font of each font dictionary read so far, or None
_installed = False


@contextmanager
def text_only() -> Iterator[None]:
    """Within: content streams keep only the operations text extraction
    reads, and a font dictionary met again (on another page) gives the Font
    read the first time. For extract_text without visitors, in one thread;
    the same text, with less parsing."""
    _TEXT_ONLY.fonts = {}
    try:
        yield
    finally:
        _TEXT_ONLY.fonts = None


def _font_from_resource(cls: type[Font], pdf_font_dict: DictionaryObject) -> Font:
    """Font.from_font_resource, read once per font dictionary inside text_only()."""
    fonts = getattr(_TEXT_ONLY, "fonts", None)
    if fonts is None:
        return _PYPDF_FONT(cls, pdf_font_dict)
    # Keyed by identity, the dictionary held so its id is not reused: the
    # reader gives one object per indirect font, and extraction only reads it.
    seen = fonts.get(id(pdf_font_dict))
    if seen is None or seen[0] is not pdf_font_dict:
        seen = fonts[id(pdf_font_dict)] = (pdf_font_dict, _PYPDF_FONT(cls, pdf_font_dict))
    return seen[1]


def read_hex_string(stream, forced_encoding=None):
    """The hex string ``<...>`` at the stream's position, as pypdf's reader
    returns it (pypdf.generic._utils.read_hex_string_from_stream)."""
    if type(stream) is not io.BytesIO:
        return read_hex_string_from_stream(stream, forced_encoding)
    start = stream.tell() + 1  # after "<"
    buffer = stream.getbuffer()
    try:
        stop = _NOT_HEX.search(buffer, start)
        if stop is None or buffer[stop.start()] != ord(">"):
            return read_hex_string_from_stream(stream, forced_encoding)
        digits = _WHITESPACE.sub(b"", bytes(buffer[start : stop.start()]))
    finally:
        del buffer  # a BytesIO cannot grow while its buffer is exported
    stream.seek(stop.end())
    return _hex_object(digits, forced_encoding)


def _hex_object(digits: bytes, forced_encoding):
    if len(digits) % 2:
        digits += b"0"  # an odd last digit is followed by an implied 0
    return create_string_object(bytes.fromhex(digits.decode("ascii")), forced_encoding)


class _Reader:
    """One content stream's bytes and position; pypdf's readers take over at ``pos``."""

    def __init__(self, stream: io.BytesIO, forced_encoding, budget: StreamParsingBudget) -> None:
        self.stream, self.data, self.pos = stream, stream.getvalue(), 0
        self.forced_encoding, self.budget = forced_encoding, budget

    def pypdf_object(self, at: int):
        """What pypdf's read_object (pdf=None) reads at ``at``."""
        self.stream.seek(at)
        value = _pypdf_objects.read_object(
            self.stream, None, self.forced_encoding, parsing_budget=self.budget
        )
        self.pos = self.stream.tell()
        return value

    def token(self, m: re.Match, kind: str | None):
        """The object a number, name, hex string or array match stands for."""
        if kind == "num":
            run = m.group("num")
            if len(run) < min(20, len(self.data) - m.start(kind)):  # pypdf reads 20 bytes ahead
                self.pos = m.end()
                return FloatObject(run) if b"." in run else NumberObject(run)
        elif kind == "name":
            name = m.group("name")
            if name.isascii() and b"#" not in name and len(name) < _NAME_MAX:
                self.pos = m.end()
                return NameObject(name.decode("ascii"))
        elif kind == "hex":
            stop = _NOT_HEX.search(self.data, m.end())
            if stop is not None and self.data[stop.start()] == 0x3E:  # ">"
                self.pos = stop.end()
                return _hex_object(
                    _WHITESPACE.sub(b"", self.data[m.end() : stop.start()]), self.forced_encoding
                )
        elif kind == "array":
            return self.array(m.end())
        return self.pypdf_object(m.start(kind) if kind else m.end())

    def array(self, pos: int) -> ArrayObject:
        """ArrayObject.read_from_stream after its "[", elements as read_object reads them."""
        arr, data = ArrayObject(), self.data
        remaining = get_configuration().array_maximum_element_count
        while True:
            m = _ELEMENT.match(data, pos)
            kind = m.lastgroup
            if kind == "end":
                self.pos = m.end()
                return arr
            if kind == "close":
                self.pos = m.end()
                return arr
            if kind == "comment":
                self.stream.seek(m.start(kind))
                skip_over_comment(self.stream)
                pos = self.stream.tell()
                continue
            remaining = ArrayObject._check_limits(remaining_elements=remaining, parsing_budget=self.budget)
            if kind == "null":
                arr.append(NullObject())
                pos = m.end()
                continue
            arr.append(self.token(m, None if kind == "other" else kind))
            pos = self.pos

    def operator(self, m: re.Match) -> bytes:
        run = m.group("op")
        if len(run) < _OPERATOR_MAX:
            self.pos = m.end()
            return run
        self.stream.seek(m.start("op"))
        run = read_until_regex(
            stream=self.stream,
            regex=NameObject.delimiter_pattern,
            length=ContentStream._OPERATOR_LENGTH_LIMIT,
        )
        self.pos = self.stream.tell()
        return run


def parse_content_stream(self: ContentStream, stream) -> None:
    """ContentStream._parse_content_stream of pypdf 7.1.1, the same operations
    (inside :func:`text_only`: only the operations text extraction reads)."""
    if type(stream) is not io.BytesIO:
        return _PYPDF_PARSE(self, stream)
    budget = StreamParsingBudget(remaining_budget=get_configuration().stream_parsing_work_maximum_count)
    reader = _Reader(stream, self.forced_encoding, budget)
    data, operands = reader.data, []
    # Text only: numbers wait as their bytes until their operator is known to be kept.
    deferred = getattr(_TEXT_ONLY, "fonts", None) is not None
    while True:
        m = _TOKEN.match(data, reader.pos)
        kind = m.lastgroup
        if kind == "end":
            break
        if kind == "num":  # the commonest token, read here rather than in reader.token
            run = m.group(kind)
            if len(run) < min(20, len(data) - m.start(kind)):  # pypdf reads 20 bytes ahead
                self._check_limits(parsing_budget=budget, token_decrement=1)
                operands.append(run if deferred else FloatObject(run) if b"." in run else NumberObject(run))
                reader.pos = m.end()
                continue
        if kind == "comment":  # to the end of the line, the line break included
            reader.pos = m.end()
        elif kind == "op":
            operator = reader.operator(m)
            if operator == b"BI":
                _inline_image(self, reader, operands)
                continue
            self._check_limits(parsing_budget=budget, token_decrement=1)
            if not deferred:
                self._operations.append((operands, operator))
            elif operator in TEXT_OPERATORS:
                self._operations.append(([_number(v) if type(v) is bytes else v for v in operands], operator))
            operands = []
        else:
            self._check_limits(parsing_budget=budget, token_decrement=1)
            operands.append(reader.token(m, None if kind == "other" else kind))
    stream.seek(len(data))


def _number(run: bytes) -> FloatObject | NumberObject:
    return FloatObject(run) if b"." in run else NumberObject(run)


def _inline_image(self: ContentStream, reader: _Reader, operands: list) -> None:
    assert operands == []  # as pypdf asserts
    self._check_limits(parsing_budget=reader.budget, token_decrement=2)
    reader.stream.seek(reader.pos)
    image = read_inline_image(content_stream=self, stream=reader.stream, parsing_budget=reader.budget)
    reader.pos = reader.stream.tell()
    self._operations.append((image, b"INLINE IMAGE"))


def install() -> bool:
    """Put these readers in pypdf (once), over the checked pypdf version
    only; True when they are in place."""
    global _installed
    if _installed:
        return True
    if pypdf.__version__ != CHECKED_PYPDF:
        return False
    _pypdf_objects.read_hex_string_from_stream = read_hex_string
    ContentStream._parse_content_stream = parse_content_stream
    Font.from_font_resource = classmethod(_font_from_resource)
    _installed = True
    return True
