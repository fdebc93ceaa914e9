"""Library operations: upload, re-chunk and remove documents, read their
passages and lines, and open a cited PDF page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .. import config, errors
from ..corpus import rechunk
from ..records import Passage
from ..store import DocumentInfo, Library
from .collections import Collections
from .common import SESSION_PREFIX, Progress, check_chunking, safe_name
from .indexes import EmbedJob, Indexes
from .originals import Originals
from .pdf_pages import MarkedPages, marked_page
from .views import DocumentView, view_of

if TYPE_CHECKING:
    from ..guard import Parsed

UploadStatus = Literal["added", "replaced", "duplicate", "rejected"]
EmbedWhen = Literal["now", "background"]


@dataclass
class UploadOutcome:
    """What happened to one uploaded file."""

    name: str
    status: UploadStatus
    message: str
    passages: int = 0
    embedded: int = 0

    @property
    def ok(self) -> bool:
        return self.status in ("added", "replaced")


def _quiet(stage: str, fraction: float) -> None:
    return None


class Documents:
    """What a page does to the documents of a collection."""

    def __init__(
        self, library: Library, indexes: Indexes, collections: Collections, originals: Originals
    ) -> None:
        self.library = library
        self.indexes = indexes
        self.collections = collections
        self.originals = originals
        self._marked = MarkedPages()  # marked PDF pages, per collection, document, page and lines

    def documents(self, collection: str) -> list[DocumentInfo]:
        return self.library.list_documents(collection)

    def upload(
        self,
        collection: str,
        filename: str,
        data: bytes,
        chunking: str = "auto",
        progress: Progress | None = None,
        embed: EmbedWhen = "now",
    ) -> UploadOutcome:
        """Parse and chunk (in the guard's worker, under its limits), store and embed one uploaded file.

        The name is reduced to a safe base name (:func:`safe_name`); the size limit is
        ``RAGCORE_MAX_UPLOAD_MB``. A rejected file leaves the library unchanged and says why.
        ``embed="background"``: searchable by BM25 once stored, embedded by the indexes' worker."""
        from ..chunking import resolve_strategy

        check_chunking(chunking)
        name = safe_name(filename)
        try:
            self.collections.check_writable(collection)
        except errors.LibraryError as exc:
            return UploadOutcome(name, "rejected", str(exc))
        refused = self.collections.over_quota(collection, name, len(data))
        if refused:
            return UploadOutcome(name, "rejected", refused)
        report = progress or _quiet
        report(f"{name}: parsing", 0.0)
        try:
            parsed = self._parsed(data, name, chunking)
        except errors.DocumentError as exc:
            return UploadOutcome(name, "rejected", exc.reason)
        doc, strategy = parsed.document, resolve_strategy(parsed.document, chunking)
        if collection.startswith(SESSION_PREFIX):
            # Owned by its session, so private collections can be expired by owner.
            self.library.ensure_collection(collection, owner=collection)
        try:
            result = self.library.add_document(collection, doc, parsed.passages or [], strategy)
        except errors.RagcoreError as exc:
            return UploadOutcome(name, "rejected", str(exc))
        if result.status == "duplicate":
            return UploadOutcome(
                name,
                "duplicate",
                f"same content as {result.duplicate_of}, already in the collection; not added",
            )
        if doc.kind == "pdf":
            self.originals.keep(doc, data)
        embedded = self._embed_upload(collection, doc.name, result.passages, report, embed)
        report(f"{name}: done", 1.0)
        verb = "replaced the earlier version" if result.status == "replaced" else "added"
        return UploadOutcome(
            name,
            result.status,
            f"{verb}: {result.passages} passage{'' if result.passages == 1 else 's'}",
            passages=result.passages,
            embedded=embedded,
        )

    def _parsed(self, data: bytes, name: str, chunking: str) -> Parsed:
        """The upload parsed and chunked in the guard's worker (its size limit:
        ``RAGCORE_MAX_UPLOAD_MB``), its lines tokenised for BM25 meanwhile."""
        from ..guard import parse_and_chunk_guarded

        limit = config.settings().max_upload_bytes
        return parse_and_chunk_guarded(
            data, name, chunking, max_bytes=limit, while_chunking=self.indexes.prepare_terms
        )

    def _embed_upload(
        self, collection: str, name: str, passages: int, report: Progress, embed: EmbedWhen
    ) -> int:
        """Embed a stored upload now (returns how many passages were embedded),
        or queue it for the background worker (returns 0)."""
        if embed == "background":
            self.indexes.embed_later(collection, passages, self._embed_job(collection, name))
            return 0
        report(f"{name}: embedding {passages} passages", 0.5)
        return self._embed_document(collection, name, report)

    def _embed_job(self, collection: str, name: str) -> EmbedJob:
        """Embedding one stored document, as a background job (nothing to do
        when the document was removed meanwhile)."""

        def job(counts: Callable[[int, int], None]) -> int:
            if all(info.name != name for info in self.library.list_documents(collection)):
                return 0
            return self._embed_document(collection, name, _quiet, counts)

        return job

    def _embed_document(
        self, collection: str, name: str, report: Progress, counts: Callable[[int, int], None] | None = None
    ) -> int:
        """Embed one document's passages into the library cache (by content
        hash), so the next retriever over the collection finds them ready."""
        from ..chunking import chunk_document
        from ..retrieval.vectors import passage_vectors

        doc = self.library.get_document(collection, name)
        strategy = next(i.chunking for i in self.library.list_documents(collection) if i.name == name)
        passages = chunk_document(doc, strategy)  # deterministic: the passages just stored
        if not passages:
            return 0

        def step(done: int, total: int) -> None:
            report(f"{name}: embedded {done} of {total} passages", 0.5 + 0.5 * done / max(total, 1))
            if counts is not None:
                counts(done, total)

        embedder = self.indexes.embedder
        if not collection.startswith(SESSION_PREFIX):
            _, embedded = passage_vectors(passages, embedder, self.library, progress=step)
            return embedded
        # A private collection embeds all its passages and reuses no cached vector:
        # the count and the time must not say whether another visitor has the same text.
        vectors, embedded = passage_vectors(passages, embedder, None, progress=step)
        self.library.put_vectors(
            {p.content_hash: v for p, v in zip(passages, vectors, strict=True)}, embedder.model_id
        )
        return embedded

    def original_bytes(self, collection: str, name: str) -> bytes | None:
        """The original file of a PDF document, when it is available."""
        return self.originals.read(collection, name)

    def remove(self, collection: str, name: str) -> bool:
        self.collections.check_writable(collection)
        return self.library.remove_document(collection, name)

    def rechunk(self, collection: str, name: str, chunking: str, progress: Progress | None = None) -> int:
        """Re-cut one document with another strategy and embed its new passages."""
        check_chunking(chunking)
        self.collections.check_writable(collection)
        count = rechunk(self.library, collection, name, chunking)
        self._embed_document(collection, name, progress or _quiet)
        return count

    def passages_of(self, collection: str, name: str) -> list[Passage]:
        self.library.get_document(collection, name)  # raises a clear error for an unknown document
        return [p for p in self.indexes.retriever(collection).passages if p.doc == name]

    def whole_document_names(self, collection: str) -> list[str]:
        return [info.name for info in self.documents(collection) if info.chunking == "whole"]

    def document_view(
        self, collection: str, name: str, first_line: int, last_line: int, context: int = 8
    ) -> DocumentView:
        """Lines ``first_line..last_line`` of a document marked, with
        ``context`` lines either side (the reader opens scrolled to them)."""
        return view_of(self.library.get_document(collection, name), first_line, last_line, context)

    def marked_pdf_page(self, collection: str, name: str, first_line: int, last_line: int) -> bytes | None:
        """The cited page of a PDF as a one-page PDF with the cited lines
        highlighted (None when the original is not available)."""
        data = self.original_bytes(collection, name)
        if data is None:
            return None
        doc = self.library.get_document(collection, name)
        return marked_page(doc, data, first_line, last_line, collection=collection, cache=self._marked)
