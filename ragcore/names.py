"""Names that reach the library and the terminal: one sanitiser for all.

A file name is data from whoever made the file. It is stored as a label and
printed by ``ingest``, ``search`` and ``ask``, so it must not carry line
breaks or control characters (a name holding "\\n...: 999 passages (added)"
would forge a line of output, an escape sequence would drive the terminal),
nor path syntax when it comes from an upload. :func:`safe_name` is what the
app stores for an upload; :func:`safe_path_name` keeps a folder's relative
path (``policies/leave.md``) with each part freed of control characters;
:func:`printable` is for any other text printed on one line.
"""

from __future__ import annotations

import re
import unicodedata

_UNSAFE = re.compile(r"[^\w .()\-+,&@=]", re.UNICODE)
MAX_NAME = 120


def _no_controls(text: str) -> str:
    # Unicode category C: control, format (bidi overrides), unassigned, private use, surrogates.
    return "".join(ch for ch in unicodedata.normalize("NFC", text) if unicodedata.category(ch)[0] != "C")


def safe_name(filename: str, default: str = "upload") -> str:
    """A document name from an upload's file name: its base name only, with
    control and path characters replaced, never a path.

    The name is only ever a label in the library; no file is opened or
    written under it.
    """
    base = re.split(r"[\\/]", filename or "")[-1]
    base = _UNSAFE.sub("_", _no_controls(base)).strip(" .")
    stem, dot, suffix = base.rpartition(".")
    if not dot:
        stem, suffix = base, ""
    stem = stem.strip(" .") or default
    suffix = suffix.lower()[:10]
    stem = stem[: MAX_NAME - len(suffix) - 1]
    return f"{stem}.{suffix}" if suffix else stem


def safe_path_name(relative: str) -> str:
    """A folder file's relative path as a stored name: forward slashes, no
    empty or ``.`` parts, and each part without control and format characters
    (the part of :func:`safe_name` that stops forged output). Other
    characters stay, so gold sets that name ``Q&A #2.md`` still find it."""
    parts = [_no_controls(p).strip() for p in re.split(r"[\\/]", relative or "")]
    parts = [p for p in parts if p not in ("", ".")]
    return "/".join(parts) if parts else safe_name(relative)


def printable(text: str) -> str:
    """``text`` on one line: line breaks and tabs as spaces, other control
    and format characters (escape sequences, bidi overrides) removed."""
    return _no_controls(re.sub(r"[\r\n\t\v\f\x85\u2028\u2029]+", " ", str(text)))
