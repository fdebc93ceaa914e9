"""Markdown tables: the row label and column header of a cell."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ragcore.lenses.money.subjects import (
    _BILLING_ANNUAL,
    _BILLING_MONTHLY,
    _GENERIC_HEADERS,
    _PLAN_NOUNS,
    _clean_word,
    _normalise_phrase,
    _tokens,
)

_PARSER = MarkdownIt("commonmark").enable("table")


def _is_table_row(line: str) -> bool:
    s = line.strip()
    return s.startswith("|") and s.count("|") >= 2


def _inline_text(token: Token) -> str:
    """A cell's text without its Markdown: link targets, emphasis and code
    marks dropped ("[**Volume Storage**](/volumes)" is "Volume Storage")."""
    parts = [c.content for c in token.children or () if c.type in ("text", "code_inline")]
    return " ".join(" ".join(parts).split())


def _table_headers(text: str) -> dict[int, list[str]]:
    """Header cells of every Markdown table body row, keyed by the row's line
    start offset. The table structure comes from markdown-it (GFM tables)."""
    headers: dict[int, list[str]] = {}
    if "|" not in text:
        return headers
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    header: list[str] = []
    row: list[str] | None = None
    in_head = False
    for token in _PARSER.parse(text):
        if token.type == "thead_open":
            in_head, header = True, []
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row = []
            if not in_head and token.map is not None and token.map[0] < len(line_starts):
                headers[line_starts[token.map[0]]] = header
        elif token.type == "inline" and row is not None and in_head:
            header.append(_inline_text(token))
        elif token.type == "tr_close":
            row = None
    return headers


def _cells(line: str) -> list[str]:
    """A table row's cells as plain text (the row is parsed as a one-row table)."""
    s = line.strip()
    width = len(_split_row(s))
    parsed = _PARSER.parse(s + "\n|" + "|".join(["---"] * width) + "|\n")
    return [_inline_text(t) for t in parsed if t.type == "inline"]


def _split_row(row: str) -> list[str]:
    """Raw cells of a row, split on pipes that are not escaped."""
    return re.split(r"(?<!\\)\|", row.strip().removeprefix("|").removesuffix("|"))


def _table_context(
    text: str, line: tuple[int, int], offset: int, headers: dict[int, list[str]]
) -> tuple[str | None, str | None, str | None] | None:
    """(row label, column header, first header cell) for an offset in a table
    row, or None when the line is not a table row."""
    row_text = text[line[0] : line[1]]
    if not _is_table_row(row_text):
        return None
    header = headers.get(line[0], [])
    row = _cells(row_text)
    stripped_lead = len(row_text) - len(row_text.lstrip())
    pipes = len(re.findall(r"(?<!\\)\|", row_text[: offset - line[0]]))
    col = pipes - (1 if row_text[stripped_lead:].startswith("|") else 0)
    row_label = row[0] if col > 0 and row and row[0] else None
    col_header = header[col] if 0 <= col < len(header) and header[col] else None
    first_header = header[0] if header else None
    return row_label, col_header, first_header


def _table_subject(
    row_label: str | None, col_header: str | None, first_header: str | None
) -> tuple[str, str | None, str | None]:
    """(subject, billing term, period) from a table cell's labels."""
    billing = None
    period = None
    parts: list[str] = []
    for label in (row_label, col_header):
        if not label:
            continue
        low = label.lower()
        if _BILLING_MONTHLY.search(low) or re.search(r"\b(?:monthly|per\s+month|/\s*mo(?:nth)?)\b", low):
            billing, period = "monthly", "month"
        elif _BILLING_ANNUAL.search(low) or re.search(
            r"\b(?:annual(?:ly)?|yearly|per\s+year|/\s*y(?:ea)?r)\b", low
        ):
            billing, period = "annually", "year"
        words_ = [_clean_word(t) for t in _tokens(label) if t[:1].isalnum()]
        words_ = [
            w
            for w in words_
            if w not in _GENERIC_HEADERS
            and w
            not in (
                "monthly",
                "annual",
                "annually",
                "yearly",
                "per",
                "month",
                "year",
                "billed",
                "billing",
            )
        ]
        if words_:
            parts.append(_normalise_phrase(words_))
    if parts and row_label and first_header:
        head = _clean_word(first_header)
        row_words = _normalise_phrase([_clean_word(t) for t in _tokens(row_label)])
        if head in _PLAN_NOUNS and parts[0] == row_words and not parts[0].endswith(head):
            parts[0] = f"{parts[0]} {head}"
    return " / ".join(p for p in parts if p), billing, period
