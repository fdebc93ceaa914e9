"""A window of a document's numbered lines around a cited span."""

from __future__ import annotations

from dataclasses import dataclass

from .. import errors
from ..records import Document


@dataclass(frozen=True)
class ViewLine:
    number: int
    text: str
    marked: bool
    page: int | None = None


@dataclass(frozen=True)
class DocumentView:
    """A window of a document's numbered lines around a cited span."""

    name: str
    title: str
    kind: str
    first_line: int
    last_line: int
    lines: tuple[ViewLine, ...]
    total_lines: int
    pages: tuple[int, ...]

    @property
    def marked(self) -> list[ViewLine]:
        return [line for line in self.lines if line.marked]

    @property
    def citation(self) -> str:
        span = (
            f"line {self.first_line}"
            if self.first_line == self.last_line
            else (f"lines {self.first_line}-{self.last_line}")
        )
        if self.pages:
            span += (
                f", p. {self.pages[0]}" if len(self.pages) == 1 else f", pp. {self.pages[0]}-{self.pages[-1]}"
            )
        return f"{self.name}, {span}"


def view_of(doc: Document, first_line: int, last_line: int, context: int = 8) -> DocumentView:
    """Lines ``first_line..last_line`` of ``doc`` marked, with ``context``
    lines either side (the reader opens scrolled to them)."""
    if not 1 <= first_line <= last_line <= doc.line_count:
        raise errors.LibraryError(
            f"{doc.name}: lines {first_line}-{last_line} are outside the document (1-{doc.line_count})"
        )
    lo = max(1, first_line - context)
    hi = min(doc.line_count, last_line + context)
    texts = doc.lines
    lines = tuple(
        ViewLine(
            n,
            texts[n - 1],
            first_line <= n <= last_line,
            doc.line_pages[n - 1] if doc.line_pages else None,
        )
        for n in range(lo, hi + 1)
    )
    return DocumentView(
        doc.name,
        doc.title,
        doc.kind,
        first_line,
        last_line,
        lines,
        doc.line_count,
        doc.pages_for(first_line, last_line),
    )
