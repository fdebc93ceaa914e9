"""Build documents, paragraph passages and hits by hand, so lens tests do not
depend on the chunker or the retriever."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import pytest

from ragcore.records import Document, Hit, Passage, StageTrace, sha256_hex


def paragraph_passages(name: str, text: str) -> list[Passage]:
    """One passage per paragraph (a run of non-blank lines), with exact line
    numbers, offsets, and the nearest Markdown heading as label."""
    doc = Document(name=name, title=name, kind="md", text=text, content_hash=sha256_hex(text))
    passages: list[Passage] = []
    heading = ""
    first: int | None = None
    lines = doc.lines
    for number in range(1, len(lines) + 2):
        line = lines[number - 1] if number <= len(lines) else ""
        if line.strip() and first is None:
            first = number
        if not line.strip() and first is not None:
            start, end = doc.line_span(first, number - 1)
            para = text[start:end]
            passages.append(
                Passage(name, len(passages), first, number - 1, start, end, heading or name, para)
            )
            match = re.match(r"#+\s+(.*)", para)
            if match and first == number - 1:
                heading = match.group(1).strip()
            first = None
    for p in passages:
        assert p.text == doc.text[p.start : p.end]
        assert doc.line_at(p.start) == p.first_line
    return passages


def hits_of(passages: Sequence[Passage]) -> list[Hit]:
    """Hits in the given order, rank 1 first."""
    trace = {"bm25": None, "dense": None, "fused": None, "rerank": None}
    return [
        Hit(p, rank, 1.0 / rank, {**trace, "bm25": StageTrace(rank, 1.0 / rank)})
        for rank, p in enumerate(passages, start=1)
    ]


def corpus_hits(docs: dict[str, str]) -> list[Hit]:
    """Every paragraph of every document as a hit, documents in the given order."""
    return hits_of([p for name, text in docs.items() for p in paragraph_passages(name, text)])


@pytest.fixture
def make_hits() -> Callable[[dict[str, str]], list[Hit]]:
    """{name: text} -> every paragraph as a hit."""
    return corpus_hits


@pytest.fixture
def passages_of() -> Callable[[str, str], list[Passage]]:
    """(name, text) -> one passage per paragraph."""
    return paragraph_passages


@pytest.fixture
def hits_from() -> Callable[[Sequence[Passage]], list[Hit]]:
    """passages -> hits, rank 1 first."""
    return hits_of
