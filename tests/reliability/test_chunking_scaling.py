"""Chunking is linear in its input (issue 17, item 2).

200,000 empty Markdown headings took 44.8 s to chunk and 400,000 took 177 s:
every heading without text re-read the text carried so far. Here each
adversarial shape is chunked at n and 2n, and the *work* is counted rather
than timed (a timed unit test would be flaky on a shared machine): function
calls, C calls and characters copied out of the document text. Doubling the
input may at most about double the work.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from ragcore.chunking import chunk_document
from ragcore.documents import load_bytes
from ragcore.records import Document

RATIO_LIMIT = 2.2


class _CountingText(str):
    """The document text, counting the characters every slice of it copies."""

    copied = 0

    def __getitem__(self, key):  # type: ignore[override]
        part = str.__getitem__(self, key)
        _CountingText.copied += len(part)
        return part


def _work(doc: Document, strategy: str) -> int:
    calls = 0

    def profile(frame, event, arg) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    _CountingText.copied = 0
    sys.setprofile(profile)
    try:
        chunk_document(doc, strategy)
    finally:
        sys.setprofile(None)
    return calls + _CountingText.copied


def _counted(text: str, name: str) -> Document:
    doc = load_bytes(text.encode("utf-8"), name)
    return Document(
        name=doc.name,
        title=doc.title,
        kind=doc.kind,
        text=_CountingText(doc.text),
        content_hash=doc.content_hash,
        size_bytes=doc.size_bytes,
        control_lines=doc.control_lines,
    )


SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "empty headings": ("a.md", lambda n: "".join(f"# Heading {i}\n" for i in range(n))),
    "empty headings after front matter": (
        "a.md",
        lambda n: "---\ntitle: t\nowner: o\n---\n" + "".join(f"## H{i}\n" for i in range(n)),
    ),
    "nested empty headings": ("a.md", lambda n: "".join("#" * (1 + i % 6) + f" H{i}\n" for i in range(n))),
    "headings with one word": ("a.md", lambda n: "".join(f"# H{i}\nword.\n\n" for i in range(n))),
    "sentences padded with spaces": ("a.md", lambda n: "".join("a. " + " " * 200 + "\n" for _ in range(n))),
    "one-letter lines ending in a stop": ("a.txt", lambda n: "x.\n" * (4 * n)),
    "numbered text headings": ("a.txt", lambda n: "".join(f"\n{i}.1 Title here\n" for i in range(n))),
    "one long paragraph": ("a.md", lambda n: " ".join(f"Sentence {i} is here." for i in range(n))),
}


@pytest.mark.parametrize("strategy", ["heading", "sentence"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_doubling_the_input_at_most_doubles_the_work(shape: str, strategy: str) -> None:
    name, make = SHAPES[shape]
    n = 2500
    small = _work(_counted(make(n), name), strategy)
    large = _work(_counted(make(2 * n), name), strategy)
    assert large <= RATIO_LIMIT * small, (
        f"{shape}/{strategy}: work {small:,} -> {large:,} for twice the input"
    )


def test_counting_text_counts_slices() -> None:
    # The measure itself: a quadratic re-read must show up in the count.
    text = _CountingText("abcdef" * 10)
    _CountingText.copied = 0
    for k in range(10):
        text[0 : 6 * k]
    assert _CountingText.copied == sum(6 * k for k in range(10))
