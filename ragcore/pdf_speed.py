"""pypdf's hex-string reader, done with one regex instead of a byte at a time.

A 10-K writes its text as hexadecimal strings (``<0041004C>``); pypdf
7.1.1 reads them one byte per Python call, which was a third of the time of
extracting a filing's text. :func:`read_hex_string` gives the same object
and leaves the stream at the same place; anything it does not expect (a
stream that is not a ``BytesIO``, a bad character, a string running to the
end of the stream) goes to pypdf's own reader, which raises its own error.
The replacement is installed only over the pypdf version it was checked
against (tests/test_pdf_speed.py compares both readers' text).
"""

from __future__ import annotations

import io
import re

CHECKED_PYPDF = "7.1.1"
_WHITESPACE = re.compile(rb"[\x00\t\n\x0c\r ]+")  # pypdf's WHITESPACES
_NOT_HEX = re.compile(rb"[^0-9a-fA-F\x00\t\n\x0c\r ]")
_installed = False


def read_hex_string(stream, forced_encoding=None):
    """The hex string ``<...>`` at the stream's position, as pypdf's reader
    returns it (pypdf.generic._utils.read_hex_string_from_stream)."""
    from pypdf.generic._utils import create_string_object, read_hex_string_from_stream

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
    if len(digits) % 2:
        digits += b"0"  # an odd last digit is followed by an implied 0
    return create_string_object(bytes.fromhex(digits.decode("ascii")), forced_encoding)


def install() -> bool:
    """Put :func:`read_hex_string` in pypdf's object reader (once), over the
    checked pypdf version only; True when it is in place."""
    global _installed
    if _installed:
        return True
    import pypdf
    from pypdf.generic import _data_structures

    if pypdf.__version__ != CHECKED_PYPDF:
        return False
    _data_structures.read_hex_string_from_stream = read_hex_string
    _installed = True
    return True
