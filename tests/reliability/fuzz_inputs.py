"""Generated inputs for the loader and chunker fuzz run, and the property
every input must keep: a Document whose passages slice its text exactly, or
a typed DocumentError with a readable message; nothing else.

Shared by ``tests/reliability/test_fuzz_loaders.py`` (a small budget in the
normal run) and ``scripts/fuzz_loaders.py`` (``--inputs 10000``).

Hypothesis draws at most a few kilobytes per example, so large inputs are
built from small draws: a repeat count makes a long line, a depth makes deep
nesting, an offset and a few bytes mutate a seed PDF.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from hypothesis import strategies as st

from ragcore import errors
from ragcore.chunking import chunk_document
from ragcore.documents import SUPPORTED_SUFFIXES, kind_of, load_bytes
from ragcore.guard import load_bytes_guarded
from ragcore.records import Document

SHARED_DOCUMENTS = Path(__file__).resolve().parents[2] / ".." / "shared" / "documents"
MAX_SEED_PDF_BYTES = 600_000  # bigger real PDFs take seconds per parse: too slow for thousands of inputs
SUFFIXES = sorted(SUPPORTED_SUFFIXES)
STRATEGIES = ("heading", "sentence", "whole")


# ------------------------------------------------------------------- seeds


@lru_cache(maxsize=1)
def generated_pdfs() -> tuple[bytes, ...]:
    """Small PDFs made here: plain, several pages with a title, encrypted."""
    from tests.conftest import build_pdf

    return (
        build_pdf([["Pricing", "The Team plan costs 49 dollars per user per month."]]),
        build_pdf(
            [
                [f"Section {i}", f"Clause {i}.1 applies to every order.", "Refunds within 30 days."]
                for i in range(4)
            ],
            title="Master agreement",
        ),
        build_pdf([["Confidential", "Salary bands."]], user_password="pw"),
    )


@lru_cache(maxsize=1)
def real_pdfs() -> tuple[bytes, ...]:
    """Real third-party PDFs from ../shared/documents, when present (small ones)."""
    if not SHARED_DOCUMENTS.is_dir():
        return ()
    found = sorted(p for p in SHARED_DOCUMENTS.rglob("*.pdf") if p.stat().st_size <= MAX_SEED_PDF_BYTES)
    return tuple(p.read_bytes() for p in found)


@lru_cache(maxsize=1)
def real_texts() -> tuple[bytes, ...]:
    """Real Markdown files from ../shared/documents, when present."""
    if not SHARED_DOCUMENTS.is_dir():
        return ()
    return tuple(p.read_bytes() for p in sorted(SHARED_DOCUMENTS.rglob("*.md"))[:12])


# -------------------------------------------------------------- strategies

_names = st.builds(
    lambda stem, suffix: stem + suffix,
    st.sampled_from(["doc", "a b", "Ünïcode", "x"]),
    st.sampled_from(SUFFIXES),
)
_encodings = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "cp1252", "latin-1"])


def _encode(text: str, encoding: str) -> bytes:
    return (
        text.encode(encoding, errors="replace")
        if encoding in ("cp1252", "latin-1")
        else text.encode(encoding, "surrogatepass")
    )


random_bytes = st.tuples(st.binary(max_size=4096), _names)

unicode_text = st.tuples(
    st.builds(_encode, st.text(max_size=2000), _encodings),
    st.sampled_from([".md", ".txt"]).map(lambda s: "doc" + s),
)


@st.composite
def mixed_encodings(draw) -> tuple[bytes, str]:
    """Pieces of text, each in its own encoding, glued together, some NULs."""
    parts = draw(st.lists(st.tuples(st.text(max_size=200), _encodings), max_size=8))
    data = b"".join(_encode(t, e) for t, e in parts)
    if draw(st.booleans()) and data:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\x00" * draw(st.integers(1, 4)) + data[at:]
    return data, draw(st.sampled_from(["mixed.md", "mixed.txt"]))


@st.composite
def deep_markdown(draw) -> tuple[bytes, str]:
    """Deeply nested lists, quotes and headings, and thousands of headings."""
    depth = draw(st.integers(1, 3000))
    kind = draw(st.sampled_from(["list", "quote", "heading", "many-headings", "fence", "table"]))
    word = draw(st.sampled_from(["item", "Ünï", "<b>x</b>", "[a](javascript:x)", "$1,000", ""]))
    if kind == "list":
        text = "\n".join("  " * i + f"- {word} {i}" for i in range(depth))
    elif kind == "quote":
        text = ">" * depth + f" {word}"
    elif kind == "heading":
        text = "\n".join("#" * (1 + i % 8) + f" {word} {i}\nBody {i}." for i in range(depth))
    elif kind == "many-headings":
        text = "\n".join(f"# H{i}" for i in range(depth * 5))
    elif kind == "fence":
        text = "```\n" * depth + word
    else:
        text = "| a | b |\n|---|---|\n" + "\n".join(f"| {word} | {i} |" for i in range(depth))
    return text.encode("utf-8"), "deep.md"


@st.composite
def long_lines(draw) -> tuple[bytes, str]:
    """Very long lines (up to 2 MB), with or without spaces or sentence ends."""
    unit = draw(st.sampled_from([b"a", b"word ", b"End. ", b"\xc3\xa9", b"\t", b"- ", b"#"]))
    count = draw(st.integers(1, 2_000_000 // len(unit)))
    lines = draw(st.integers(1, 3))
    data = b"\n".join([unit * count] * lines)
    return data, draw(st.sampled_from(["long.md", "long.txt"]))


def _mutate(draw, seed: bytes) -> bytes:
    how = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "splice"]))
    at = draw(st.integers(0, len(seed)))
    if how == "truncate":
        return seed[:at]
    if how == "flip":
        out = bytearray(seed)
        for _ in range(draw(st.integers(1, 8))):
            k = draw(st.integers(0, max(0, len(out) - 1)))
            if out:
                out[k] = draw(st.integers(0, 255))
        return bytes(out)
    if how == "insert":
        return seed[:at] + draw(st.binary(min_size=1, max_size=64)) + seed[at:]
    if how == "delete":
        return seed[:at] + seed[at + draw(st.integers(1, 4096)) :]
    return seed[:at] + seed[draw(st.integers(0, len(seed))) :]  # splice: a jump forwards or back


@st.composite
def mutated_pdfs(draw) -> tuple[bytes, str]:
    """Generated or real PDFs, truncated, with flipped, inserted or deleted bytes."""
    seeds = generated_pdfs() + real_pdfs()
    return _mutate(draw, draw(st.sampled_from(seeds))), "mutated.pdf"


@st.composite
def mutated_texts(draw) -> tuple[bytes, str]:
    """Real Markdown (or a small sample) with the same mutations."""
    seeds = real_texts() or (b"# Title\n\nSome text. More text.\n\n## Part\n\n- a\n- b\n",)
    return _mutate(draw, draw(st.sampled_from(seeds))), draw(st.sampled_from(["m.md", "m.txt", "m.pdf"]))


# Weights: cheap text cases dominate; PDFs parse slowly, so they get a share.
any_input = st.one_of(
    random_bytes,
    random_bytes,
    unicode_text,
    unicode_text,
    mixed_encodings(),
    mixed_encodings(),
    deep_markdown(),
    long_lines(),
    mutated_texts(),
    mutated_texts(),
    mutated_pdfs(),
)


# ---------------------------------------------------------------- property


class PropertyBroken(AssertionError):
    """An input broke the contract (not a typed error, or wrong passages)."""


def check(data: bytes, name: str) -> str:
    """Load ``data`` as ``name`` and chunk it every way.

    Returns "ok" or the typed error's class name; raises anything else
    (an unhandled exception, or a PropertyBroken for a wrong result).
    """
    try:
        # The guard's checks, but in-process (a worker per input, as uploads
        # get, would be too slow for thousands of inputs).
        doc = (
            load_bytes(data, name)
            if kind_of(name) == "pdf"
            else load_bytes_guarded(data, name, text_in_process=True)
        )
    except errors.DocumentError as exc:
        _check_message(exc, name)
        return type(exc).__name__
    _check_document(doc)
    return "ok"


def _check_message(exc: errors.DocumentError, name: str) -> None:
    message = str(exc)
    if not message.startswith(f"{name}: ") or not exc.reason.strip():
        raise PropertyBroken(f"message does not name the file and a reason: {message!r}")
    if len(message) > 600 or "Traceback" in message or "\n" in message:
        raise PropertyBroken(f"message is not one readable line: {message[:200]!r}")


def _check_document(doc: Document) -> None:
    if "\r" in doc.text:
        raise PropertyBroken("line breaks were not normalised")
    if doc.kind == "pdf" and len(doc.line_pages) != doc.line_count:
        raise PropertyBroken(f"{len(doc.line_pages)} page numbers for {doc.line_count} lines")
    for strategy in STRATEGIES:
        for p in chunk_document(doc, strategy):
            if p.text != doc.text[p.start : p.end]:
                raise PropertyBroken(f"{strategy}: passage {p.index} is not its document's slice")
            if not 1 <= p.first_line <= p.last_line <= doc.line_count:
                raise PropertyBroken(
                    f"{strategy}: passage {p.index} lines {p.first_line}-{p.last_line} out of range"
                )
