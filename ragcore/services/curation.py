"""Curated content per collection: the shipped file, edits, import and export.

The demo ships ``corpus/demo.curated.json`` beside its folder. Edits and
imports are written to the library home (``curated/<collection>.curated.json``),
which then takes precedence over the shipped file; removing the override
brings the shipped file back. A collection that is read-only (the shared demo
under session isolation) cannot be edited; the Library page offers edits for
uploaded collections only, since the demo mirrors its shipped folder.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from ..curated import (
    CuratedFile,
    CuratedFileError,
    CuratedLayer,
    CuratedMatch,
    CuratedProblem,
    Note,
    curated_path_for,
    match_question,
    read_curated_file,
    resolve,
)
from ..curated.layer import parse_curated
from ..curated.schema import FORMAT, NoteEntry, QuoteRef
from ..records import Passage, sha256_hex
from .collections import Collections
from .common import DEMO_COLLECTION
from .indexes import Indexes


@dataclass(frozen=True)
class RelatedItem:
    """One entry of the "related across documents" strip, labelled by who made it."""

    source: Literal["curated", "computed"]
    doc: str
    first_line: int
    last_line: int
    detail: str  # the curated link's reason, or the computed similarity

    @property
    def label(self) -> str:
        lines = (
            self.first_line if self.first_line == self.last_line else f"{self.first_line}-{self.last_line}"
        )
        return f"{self.source}: {self.doc}, line{'s' if self.first_line != self.last_line else ''} {lines} · {self.detail}"


class Curation:
    """The curated layer of each collection, resolved against its documents."""

    def __init__(self, home: Path, indexes: Indexes, collections: Collections, demo_dir: Path) -> None:
        self.folder = home / "curated"
        self.indexes = indexes
        self.collections = collections
        self.demo_dir = demo_dir
        self._cache: dict[str, tuple[tuple[object, ...], CuratedLayer]] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------ files

    def override_path(self, collection: str) -> Path:
        return self.folder / f"{sha256_hex(collection)[:16]}.curated.json"

    def path(self, collection: str) -> Path | None:
        """The file in force for ``collection``: an edited copy, else the shipped one (demo)."""
        override = self.override_path(collection)
        if override.is_file():
            return override
        shipped = curated_path_for(self.demo_dir) if collection == DEMO_COLLECTION else None
        return shipped if shipped is not None and shipped.is_file() else None

    def source(self, collection: str) -> CuratedFile | None:
        path = self.path(collection)
        return read_curated_file(path) if path is not None else None

    # ------------------------------------------------------------ the layer

    def layer(self, collection: str) -> CuratedLayer | None:
        """The resolved layer, or None when the collection has no curated file.
        A file that cannot be read gives an empty layer with one problem."""
        path = self.path(collection)
        if path is None:
            return None
        corpus = self.indexes.retriever(collection).corpus
        key = (str(path), path.stat().st_mtime_ns, corpus.fingerprint)
        with self._lock:
            cached = self._cache.get(collection)
            if cached is not None and cached[0] == key:
                return cached[1]
        try:
            layer = resolve(read_curated_file(path), corpus.documents, path.name)
        except CuratedFileError as exc:
            layer = CuratedLayer(path.name, problems=[CuratedProblem(path.name, "(whole file)", str(exc))])
        with self._lock:
            self._cache[collection] = (key, layer)
        return layer

    def match(self, collection: str, question: str) -> CuratedMatch | None:
        layer = self.layer(collection)
        if layer is None or not layer.answers:
            return None
        return match_question(question, layer, self.indexes.embedder)

    def notes_for(self, collection: str, passage: Passage) -> list[Note]:
        layer = self.layer(collection)
        return layer.notes_for(passage.doc, passage.first_line, passage.last_line) if layer else []

    def related_items(
        self, collection: str, passage: Passage, computed: list[tuple[Passage, float]]
    ) -> list[RelatedItem]:
        """Curated links from this passage first, then the computed neighbours
        (a computed one already linked by hand is shown once, as curated)."""
        layer = self.layer(collection)
        links = layer.links_for(passage.doc, passage.first_line, passage.last_line) if layer else []
        items = [RelatedItem("curated", a.doc, a.first_line, a.last_line, link.reason) for a, link in links]
        for other, score in computed:
            if any(
                i.doc == other.doc and i.first_line <= other.last_line and other.first_line <= i.last_line
                for i in items
            ):
                continue
            items.append(
                RelatedItem(
                    "computed", other.doc, other.first_line, other.last_line, f"similarity {score:.2f}"
                )
            )
        return items

    # ------------------------------------------------------------ edits

    def export_bytes(self, collection: str) -> bytes | None:
        path = self.path(collection)
        return path.read_bytes() if path is not None else None

    def import_bytes(self, collection: str, data: bytes, name: str) -> CuratedLayer:
        """Replace the collection's curated file with ``data`` (validated first:
        a bad file raises CuratedFileError and nothing is written)."""
        self.collections.check_writable(collection)
        try:
            raw = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CuratedFileError(f"{name}: not a JSON file ({exc})") from exc
        self._save(collection, parse_curated(raw, name))
        layer = self.layer(collection)
        assert layer is not None
        return layer

    def add_note(self, collection: str, doc: str, quote: str, note: str) -> CuratedLayer:
        """Add a plain-words note on the passage holding ``quote`` (checked before saving)."""
        self.collections.check_writable(collection)
        current = self.source(collection) or CuratedFile(format=FORMAT, corpus=collection)
        try:
            entry = NoteEntry(
                id=self._new_id(current, "note"), cite=QuoteRef(doc=doc, quote=quote), note=note
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise CuratedFileError(f"the note was not added: {where}: {first['msg']}") from exc
        updated = current.model_copy(update={"notes": (*current.notes, entry)})
        trial = resolve(updated, self.indexes.retriever(collection).corpus.documents, "new note")
        problem = next((p for p in trial.problems if p.entry == entry.id), None)
        if problem is not None:
            raise CuratedFileError(f"the note was not added: {problem.message}")
        self._save(collection, updated)
        layer = self.layer(collection)
        assert layer is not None
        return layer

    def remove_entry(self, collection: str, entry_id: str) -> bool:
        self.collections.check_writable(collection)
        current = self.source(collection)
        if current is None or entry_id not in current.ids():
            return False
        updated = current.model_copy(
            update={
                "answers": tuple(e for e in current.answers if e.id != entry_id),
                "notes": tuple(e for e in current.notes if e.id != entry_id),
                "links": tuple(e for e in current.links if e.id != entry_id),
            }
        )
        self._save(collection, updated)
        return True

    @staticmethod
    def _new_id(current: CuratedFile, prefix: str) -> str:
        taken = set(current.ids())
        n = len(taken) + 1
        while f"{prefix}-{n}" in taken:
            n += 1
        return f"{prefix}-{n}"

    def _save(self, collection: str, curated: CuratedFile) -> None:
        """Write atomically (a crash leaves the old file or the new one, never half)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        target = self.override_path(collection)
        temporary = target.with_suffix(".tmp")
        text = json.dumps(curated.model_dump(by_alias=True), indent=2, ensure_ascii=False) + "\n"
        temporary.write_text(text, encoding="utf-8")
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
        with self._lock:
            self._cache.pop(collection, None)
