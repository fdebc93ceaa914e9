"""Core records that flow one way through ragcore.

file -> Document (numbered lines) -> Passage (line span) -> Hit (trace)
-> Answer / Lens / Metrics -> page.

Line numbers are 1-based and inclusive everywhere; character offsets are
0-based, end-exclusive offsets into ``Document.text``.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal

_NEWLINE = re.compile("\n")
# Keys of YAML front matter whose value is prose about the document (the
# conventions of Jekyll, Hugo, MkDocs and Pandoc): indexed as content,
# though the block around them is metadata.
_PROSE_KEY = re.compile(
    r"(?:description|summary|abstract|subtitle|excerpt)\s*:[ \t]*(?:[>|][-+]?[ \t]*$)?", re.I
)
# What precedes a cut passage's text when it is embedded: nothing, its
# document's name, or the name and its heading path (chosen by
# cross-validation: docs/decisions.md, "Passage context").
ContextHeader = Literal["off", "name", "name+path"]
CONTEXT_HEADERS: ContextHeader = "off"
_NAME_JOINERS = re.compile(r"[-_]+")


def context_header(doc: str, label: str) -> str:
    """ "master-services-agreement.pdf", "5. Term (page 2)" -> "master services
    agreement: 5. Term (page 2)"; the name alone when there is no label, and
    no name when it holds no letter (a numbered document id)."""
    stem = doc.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    name = _NAME_JOINERS.sub(" ", stem).strip() if any(c.isalpha() for c in stem) else ""
    return ": ".join(part for part in (name, label.strip()) if part)


def sha256_hex(data: bytes | str) -> str:
    """Hex sha256 of bytes, or of a string encoded as UTF-8."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Document:
    """One source file as numbered lines.

    ``text`` is the file's text with line breaks normalised to ``\\n`` and
    nothing else moved, so ``text.split("\\n")[n - 1]`` is source line ``n``.
    For a PDF, ``text`` is the extracted text and ``line_pages[n - 1]`` is the
    page (1-based) that line ``n`` came from.
    """

    name: str  # path relative to the corpus folder, or an upload's base name
    title: str
    kind: str  # "md" | "txt" | "pdf"
    text: str
    content_hash: str  # sha256 of the file's bytes
    size_bytes: int = 0
    line_pages: tuple[int, ...] = ()  # PDF only: page of each line
    # Lines (first, last) of a document control block, skipped for indexing.
    control_lines: tuple[int, int] | None = None
    line_starts: tuple[int, ...] = field(init=False, repr=False, compare=False)
    # Character spans, inside a YAML control block, of the values of its prose
    # keys ("description: ..."), which are indexed (derived from the text).
    prose_spans: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0]
        starts.extend(m.end() for m in _NEWLINE.finditer(self.text))
        object.__setattr__(self, "line_starts", tuple(starts))
        object.__setattr__(self, "prose_spans", self._prose_spans())

    def _prose_spans(self) -> tuple[tuple[int, int], ...]:
        """The values of the front matter's prose keys, each with the indented
        lines that continue it (a folded or literal block)."""
        if self.control_lines is None or self.line(self.control_lines[0]).strip() != "---":
            return ()
        first, last = self.control_lines
        spans: list[tuple[int, int]] = []
        n = first + 1
        while n < last:
            m = _PROSE_KEY.match(self.line(n))
            if not m:
                n += 1
                continue
            end_line = n
            while end_line + 1 < last and self.line(end_line + 1)[:1] in (" ", "\t"):
                end_line += 1
            start, end = self.line_starts[n - 1] + m.end(), self.line_span(n, end_line)[1]
            if self.text[start:end].strip():
                spans.append((start, end))
            n = end_line + 1
        return tuple(spans)

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def line(self, number: int) -> str:
        """Source line ``number`` (1-based)."""
        if not 1 <= number <= self.line_count:
            raise IndexError(f"{self.name} has no line {number}")
        start = self.line_starts[number - 1]
        end = self.line_starts[number] - 1 if number < self.line_count else len(self.text)
        return self.text[start:end]

    def line_at(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return bisect.bisect_right(self.line_starts, offset)

    def line_span(self, first_line: int, last_line: int) -> tuple[int, int]:
        """Character offsets (start, end) covering lines first..last inclusive."""
        start = self.line_starts[first_line - 1]
        end = self.line_starts[last_line] - 1 if last_line < self.line_count else len(self.text)
        return start, end

    def pages_for(self, first_line: int, last_line: int) -> tuple[int, ...]:
        """Sorted distinct pages of lines first..last (empty for non-PDF)."""
        if not self.line_pages:
            return ()
        return tuple(sorted(set(self.line_pages[first_line - 1 : last_line])))

    def is_control_line(self, number: int) -> bool:
        return self.control_lines is not None and self.control_lines[0] <= number <= self.control_lines[1]


@dataclass(frozen=True)
class Passage:
    """A retrievable span of one document.

    ``text == document.text[start:end]`` always holds, so a reader can render
    the original lines and mark exactly this span.
    """

    doc: str  # Document.name
    index: int  # order within the document, from 0
    first_line: int
    last_line: int
    start: int
    end: int
    label: str  # heading path, e.g. "Pricing > Enterprise"
    text: str
    pages: tuple[int, ...] = ()
    chunking: str = "heading"

    @property
    def id(self) -> str:
        return f"{self.doc}#{self.index}"

    @property
    def embedding_text(self) -> str:
        """The text embedded for this passage: a part of a document cut into
        passages is preceded by what the cut took away from it, the
        document's name and the passage's heading path ("sla: 2. Uptime
        commitment > 2.1 Commitment by plan"), as a contextual chunk header;
        a whole-document passage (BEIR collections) is its text alone
        (docs/decisions.md, "Passage context")."""
        if CONTEXT_HEADERS == "off" or self.chunking == "whole":
            return self.text
        label = self.label if CONTEXT_HEADERS == "name+path" else ""
        header = context_header(self.doc, label)
        return f"{header}\n\n{self.text}" if header else self.text

    @property
    def content_hash(self) -> str:
        """Key for cached embeddings: same embedded text, same vector."""
        return sha256_hex(self.embedding_text)

    @property
    def citation(self) -> str:
        """Human citation: document, lines, and pages for PDFs."""
        lines = (
            f"lines {self.first_line}-{self.last_line}"
            if self.last_line != self.first_line
            else f"line {self.first_line}"
        )
        pages = ""
        if self.pages:
            pages = (
                f", p. {self.pages[0]}" if len(self.pages) == 1 else f", pp. {self.pages[0]}-{self.pages[-1]}"
            )
        return f"{self.doc}, {lines}{pages}"


@dataclass(frozen=True)
class StageTrace:
    """Where one passage stood under one retrieval stage."""

    rank: int  # 1-based
    score: float


@dataclass(frozen=True)
class Hit:
    """A ranked passage with the trace of how each stage placed it.

    ``trace`` has the keys ``bm25``, ``dense``, ``fused`` and ``rerank``; a value
    is None where the passage was outside that stage's candidates or the stage
    did not run.
    """

    passage: Passage
    rank: int
    score: float
    trace: dict[str, StageTrace | None]

    def to_json(self) -> dict:
        p = self.passage
        return {
            "rank": self.rank,
            "doc": p.doc,
            "first_line": p.first_line,
            "last_line": p.last_line,
            "pages": list(p.pages),
            "label": p.label,
            "text": p.text,
            "score": float(self.score),
            "trace": {
                stage: (None if t is None else {"rank": t.rank, "score": float(t.score)})
                for stage, t in self.trace.items()
            },
        }


STAGES = ("bm25", "dense", "fused", "rerank")


@dataclass(frozen=True)
class Citation:
    """A numbered citation [n] that resolves to document lines."""

    n: int
    doc: str
    first_line: int
    last_line: int
    label: str
    pages: tuple[int, ...] = ()

    @classmethod
    def of(cls, n: int, passage: Passage) -> Citation:
        return cls(n, passage.doc, passage.first_line, passage.last_line, passage.label, passage.pages)

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "doc": self.doc,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "label": self.label,
            "pages": list(self.pages),
        }


# What an answer sentence is: a quoted source sentence, a quoted table row (with
# its header), a disagreement the answer points out (money conflict, change over
# time, contradiction), a plain "not covered" statement, a closest passage shown
# as related (not as an answer), or a sentence a model wrote.
SentenceKind = Literal[
    "quote", "table-row", "conflict", "change", "contradiction", "not-covered", "related", "statement"
]
# Kinds that answer the question (an abstention has none of them).
ANSWERING_KINDS: frozenset[str] = frozenset(
    {"quote", "table-row", "conflict", "change", "contradiction", "statement"}
)


@dataclass(frozen=True)
class AnswerSentence:
    text: str
    citations: tuple[int, ...]  # citation numbers n
    kind: SentenceKind = "quote"


@dataclass
class Answer:
    """What the user reads: extractive (no model) or written by a model.

    ``reason`` says why this mode is shown (no key, the model call failed, ...).
    ``checks`` holds model-answer checks (flags, groundedness); empty otherwise.
    """

    mode: str  # "extractive" | "model"
    header: str
    text: str
    reason: str
    citations: list[Citation]
    sentences: list[AnswerSentence] = field(default_factory=list)
    model: str | None = None
    checks: dict = field(default_factory=dict)
    # False when nothing in the answer answers the question (an abstention);
    # true when at least one part is answered.
    covered: bool = True

    def to_json(self) -> dict:
        return {
            "mode": self.mode,
            "header": self.header,
            "text": self.text,
            "reason": self.reason,
            "model": self.model,
            "covered": self.covered,
            "citations": [c.to_json() for c in self.citations],
            "sentences": [
                {"text": s.text, "citations": list(s.citations), "kind": s.kind} for s in self.sentences
            ],
            "checks": self.checks,
        }
