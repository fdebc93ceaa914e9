"""Tiny generated corpora for evaluation tests: Documents and Passages built directly."""

from __future__ import annotations

from ragcore.records import Document, Passage, sha256_hex


def make_doc(name: str, lines: list[str], kind: str = "md") -> Document:
    text = "\n".join(lines)
    return Document(name=name, title=name, kind=kind, text=text, content_hash=sha256_hex(text))


def cut(doc: Document, line_ranges: list[tuple[int, int]], chunking: str = "test") -> list[Passage]:
    """Passages covering the given inclusive line ranges of ``doc``."""
    out = []
    for index, (first, last) in enumerate(line_ranges):
        start, end = doc.line_span(first, last)
        out.append(
            Passage(
                doc=doc.name,
                index=index,
                first_line=first,
                last_line=last,
                start=start,
                end=end,
                label=f"{first}-{last}",
                text=doc.text[start:end],
                chunking=chunking,
            )
        )
    return out
