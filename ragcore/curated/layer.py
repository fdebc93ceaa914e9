"""Loading a curated file against the documents it names.

Every quote is resolved to lines. An entry whose quote no longer occurs, or
occurs more than once, or whose document is missing, is reported as a
``CuratedProblem`` naming the file and the entry, and left out: the rest of
the layer keeps working. A file that is not valid JSON of the curated shape
is one ``CuratedFileError``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..errors import RagcoreError
from ..quotes import find_quote
from ..records import Citation, Document
from .schema import CuratedFile, LinkEntry, NoteEntry, PinnedAnswerEntry, QuoteRef


class CuratedFileError(RagcoreError):
    """The curated file cannot be read at all (missing, not JSON, wrong shape)."""


@dataclass(frozen=True)
class CuratedProblem:
    file: str
    entry: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: entry {self.entry!r}: {self.message}"


@dataclass(frozen=True)
class Anchor:
    """A quote resolved to the lines that hold it."""

    doc: str
    first_line: int
    last_line: int
    quote: str
    pages: tuple[int, ...] = ()

    def overlaps(self, doc: str, first_line: int, last_line: int) -> bool:
        return doc == self.doc and self.first_line <= last_line and first_line <= self.last_line

    def citation(self, n: int) -> Citation:
        lines = (
            self.first_line if self.first_line == self.last_line else f"{self.first_line}-{self.last_line}"
        )
        label = f"curated: line{'s' if self.first_line != self.last_line else ''} {lines}"
        return Citation(n, self.doc, self.first_line, self.last_line, label, self.pages)


@dataclass(frozen=True)
class PinnedAnswer:
    id: str
    question: str
    answer: str
    cites: tuple[Anchor, ...]


@dataclass(frozen=True)
class Note:
    id: str
    anchor: Anchor
    text: str


@dataclass(frozen=True)
class Link:
    id: str
    source: Anchor
    target: Anchor
    reason: str


@dataclass
class CuratedLayer:
    """What a curated file says that still holds for the documents."""

    source: str
    answers: list[PinnedAnswer] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    problems: list[CuratedProblem] = field(default_factory=list)

    def notes_for(self, doc: str, first_line: int, last_line: int) -> list[Note]:
        return [n for n in self.notes if n.anchor.overlaps(doc, first_line, last_line)]

    def links_for(self, doc: str, first_line: int, last_line: int) -> list[tuple[Anchor, Link]]:
        """(the other end, link) for every link with one end in these lines."""
        found = []
        for link in self.links:
            if link.source.overlaps(doc, first_line, last_line):
                found.append((link.target, link))
            elif link.target.overlaps(doc, first_line, last_line):
                found.append((link.source, link))
        return found

    @property
    def entry_count(self) -> int:
        return len(self.answers) + len(self.notes) + len(self.links)


def read_curated_file(path: Path | str) -> CuratedFile:
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CuratedFileError(f"{path.name}: no such curated file") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CuratedFileError(f"{path.name}: not a JSON file ({exc})") from exc
    return parse_curated(raw, path.name)


def parse_curated(raw: object, name: str) -> CuratedFile:
    try:
        return CuratedFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise CuratedFileError(f"{name}: {where}: {first['msg']}{more}") from exc


def load_curated(path: Path | str, documents: Mapping[str, Document]) -> CuratedLayer:
    """Read ``path`` and resolve it against ``documents`` (name -> Document)."""
    return resolve(read_curated_file(path), documents, Path(path).name)


def resolve(curated: CuratedFile, documents: Mapping[str, Document], name: str) -> CuratedLayer:
    layer = CuratedLayer(source=name)
    seen: set[str] = set()
    for entry in (*curated.answers, *curated.notes, *curated.links):
        if entry.id in seen:
            layer.problems.append(
                CuratedProblem(name, entry.id, "the id is used twice; the second is skipped")
            )
            continue
        seen.add(entry.id)
        try:
            _add(layer, entry, documents)
        except _Unresolved as exc:
            layer.problems.append(CuratedProblem(name, entry.id, str(exc)))
    return layer


class _Unresolved(Exception):
    pass


def _add(
    layer: CuratedLayer, entry: PinnedAnswerEntry | NoteEntry | LinkEntry, documents: Mapping[str, Document]
) -> None:
    if isinstance(entry, PinnedAnswerEntry):
        cites = tuple(anchor(ref, documents) for ref in entry.cites)
        layer.answers.append(PinnedAnswer(entry.id, entry.question, entry.answer, cites))
    elif isinstance(entry, NoteEntry):
        layer.notes.append(Note(entry.id, anchor(entry.cite, documents), entry.note))
    else:
        source, target = anchor(entry.source, documents), anchor(entry.target, documents)
        layer.links.append(Link(entry.id, source, target, entry.reason))


def anchor(ref: QuoteRef, documents: Mapping[str, Document]) -> Anchor:
    doc = documents.get(ref.doc)
    if doc is None:
        raise _Unresolved(f"document {ref.doc!r} is not in the collection")
    found = find_quote(ref.quote, doc.text)
    short = ref.quote if len(ref.quote) <= 60 else ref.quote[:57] + "..."
    if not found:
        raise _Unresolved(f"the quote {short!r} no longer occurs in {ref.doc}")
    if len(found) > 1:
        raise _Unresolved(
            f"the quote {short!r} occurs {len(found)} times in {ref.doc}; quote more to make it unique"
        )
    start, end = found[0]
    first, last = doc.line_at(start), doc.line_at(max(start, end - 1))
    return Anchor(ref.doc, first, last, ref.quote, doc.pages_for(first, last))


def problems_text(problems: Sequence[CuratedProblem]) -> str:
    return "\n".join(str(p) for p in problems)
