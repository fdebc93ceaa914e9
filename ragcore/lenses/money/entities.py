"""The company a financial statement reports on.

Two annual reports of two companies both have a "Revenue" row and a "Cash
and cash equivalents" row; the row label cannot tell that they are figures of
different companies, the statement's heading can. A statement in PDF text is
headed by a line naming the reporting entity by its legal name ("Northwind, Inc.",
"ACME HOLDINGS CORP."), right above its title. Rows of statements headed by
different entities are never compared (nor the amounts written inside them:
"less a reserve for bad debts of $14 and $19, respectively"); an amount with no such line
near above it is compared as before.
"""

from __future__ import annotations

import re

from ragcore.lenses.money.rows import HEADER_LINES, _lines_before

_SUFFIX = (
    r"Inc|Incorporated|Corp|Corporation|Company|Co|LLC|L\.L\.C|Ltd|Limited|plc|N\.V|S\.A|AG|SE|GmbH|LP|L\.P"
)
# A line that is a legal name only: words, then a corporate suffix ("Uber Technologies, Inc.").
_ENTITY_LINE = re.compile(rf"\s*([A-Za-z][\w&'\- ]{{0,60}}?[\w.])\s*,?\s+(?:{_SUFFIX})\.?\s*", re.IGNORECASE)
_ENTITY_LINES = (
    4 * HEADER_LINES
)  # as far above a row as its table's header may stand (rows.table_lines_before)


def entity_line(line: str) -> str | None:
    """The entity a line names when it is a legal name only (lower case, suffix dropped), else None."""
    m = _ENTITY_LINE.fullmatch(line)
    return " ".join(m.group(1).lower().split()) if m else None


def table_entity(text: str, start: int) -> str | None:
    """The entity heading the statement that holds the line starting at
    ``start`` in ``text``: the nearest legal-name line within a table's reach
    above it, or None."""
    for line in _lines_before(text, start, _ENTITY_LINES):
        name = entity_line(line)
        if name is not None:
            return name
    return None


def entities_differ(a: str | None, b: str | None) -> bool:
    """Whether two rows stand in statements of different entities: both named,
    and neither name's words contain the other's ("uber" and "uber
    technologies" are one)."""
    if a is None or b is None:
        return False
    wa, wb = set(a.split()), set(b.split())
    return not (wa <= wb or wb <= wa)
