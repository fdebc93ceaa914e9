"""A Corpus: the documents and passages one retriever searches.

A corpus comes from a library collection, or from a folder indexed on the
fly (``--corpus DIR``): a folder of documents, or a BEIR folder. Folders are
mirrored into a collection of the library under ``RAGCORE_HOME`` keyed by
the folder, and files are re-read only when their bytes change, so parsing
and embedding are cached by content hash and nothing is written inside the
folder (which may be read-only).
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from . import config, errors
from .chunking import chunk_document, resolve_strategy
from .documents import SUPPORTED_SUFFIXES
from .documents import load_path as load_document  # in-process: only for files shipped with the app

# Every file is read under the guard's limits; the plain name keeps one seam for tests.
from .guard import load_path_guarded as load_path
from .names import safe_path_name
from .records import Document, Passage, sha256_hex
from .store import AddResult, Library


@dataclass
class IngestReport:
    """One line of ``ingest`` output: a file and what happened to it."""

    name: str
    status: str  # "added" | "replaced" | "duplicate" | "unchanged" | "error"
    passages: int = 0
    error: str | None = None

    def line(self) -> str:
        if self.status == "error":
            return f"{self.name}: error: {self.error}"
        if self.status == "duplicate":
            return f"{self.name}: duplicate of {self.error}, not added"
        return f"{self.name}: {self.passages} passage{'' if self.passages == 1 else 's'} ({self.status})"


@dataclass
class Corpus:
    name: str
    documents: dict[str, Document]
    passages: list[Passage]
    errors: list[IngestReport] = field(default_factory=list)
    kind: str = "folder"  # "folder" | "beir" | "collection"

    @property
    def fingerprint(self) -> str:
        """Stable key for caches built over this exact set of passages."""
        return sha256_hex(json.dumps([(p.doc, p.start, p.end, p.chunking) for p in self.passages]))[:16]


def chunk(doc: Document, chunking: str = "auto") -> tuple[str, list[Passage]]:
    """The strategy ``chunking`` resolves to for ``doc``, and the passages it cuts."""
    strategy = resolve_strategy(doc, chunking)
    return strategy, chunk_document(doc, strategy)


def add_document(
    library: Library, collection: str, doc: Document, chunking: str = "auto", *, replace: bool = True
) -> AddResult:
    """Chunk ``doc`` and store it with its passages in one transaction (see
    ``Library.add_document`` for duplicates and replacement)."""
    strategy, passages = chunk(doc, chunking)
    return library.add_document(collection, doc, passages, strategy, replace=replace)


def rechunk(library: Library, collection: str, name: str, chunking: str) -> int:
    """Re-cut one stored document with another strategy; returns passages made."""
    doc = library.get_document(collection, name)
    strategy, passages = chunk(doc, chunking)
    return library.replace_passages(collection, name, strategy, passages)


def default_library() -> Library:
    return Library(config.settings().home)


def is_beir(path: Path) -> bool:
    return (path / "corpus.jsonl").is_file()


def document_files(folder: Path) -> list[tuple[str, Path]]:
    """(name, path) of supported files under ``folder``, names relative to it
    with forward slashes; hidden files and folders are skipped."""
    out = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts) or not path.is_file():
            continue
        if path.suffix.lower() in SUPPORTED_SUFFIXES:
            out.append((safe_path_name(rel.as_posix()), path))  # stored and printed: no control characters
    return out


def ingest_files(
    library: Library,
    collection: str,
    paths: list[tuple[str, Path]],
    chunking: str = "auto",
    *,
    max_bytes: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    shipped: bool = False,
) -> list[IngestReport]:
    """Load and store each file; one report per file, errors included.

    Files are parsed under the limits of :mod:`ragcore.guard` (PDFs in a
    worker process with a timeout and a memory cap); with ``shipped`` (files
    that come with the app, like the demo: as trusted as its code) here, by
    the same loader, without a worker's start-up per PDF."""
    loaded_files = _loaded(paths, max_bytes, load_document if shipped else load_path)
    reports = []
    for k, ((name, _path), loaded) in enumerate(zip(paths, loaded_files, strict=True)):
        if progress:
            progress(k, len(paths), name)
        try:
            doc = loaded.result()
            result = add_document(library, collection, doc, chunking)
        except errors.RagcoreError as exc:
            reports.append(IngestReport(name, "error", error=getattr(exc, "reason", str(exc))))
            continue
        if result.status == "duplicate":
            reports.append(IngestReport(name, "duplicate", error=result.duplicate_of))
        else:
            reports.append(IngestReport(name, result.status, result.passages))
    return reports


PARSE_AHEAD = 2  # files parsed at once while ingesting (each PDF in its own guarded worker)


def _loaded(
    paths: list[tuple[str, Path]], max_bytes: int | None, load: Callable[..., Document]
) -> Iterator[Future[Document]]:
    """Each file's loaded document (or its error), in order, with up to
    ``PARSE_AHEAD`` files parsing at once: a worker's start-up and parse then
    overlap another's (#18: the demo's PDFs on an empty home). Look-ahead is
    bounded, so a large folder is never held in memory whole."""
    with ThreadPoolExecutor(max_workers=PARSE_AHEAD, thread_name_prefix="ragcore-parse") as pool:
        pending: deque[Future[Document]] = deque()
        for name, path in paths:
            pending.append(pool.submit(load, path, name, max_bytes=max_bytes))
            if len(pending) > PARSE_AHEAD:
                yield pending.popleft()
        while pending:
            yield pending.popleft()


def sync_folder(
    library: Library, collection: str, folder: Path, chunking: str = "auto", *, shipped: bool = False
) -> list[IngestReport]:
    """Mirror ``folder`` into ``collection``: add new or changed files, drop
    vanished ones, keep unchanged ones (matched by name and content hash).
    ``shipped``: the folder comes with the app (see :func:`ingest_files`)."""
    files = document_files(folder)
    version = parser_version()
    marker = f"parser:{collection}"
    if library.fingerprint_marker(marker) != version:
        # Loaders or chunkers changed since this folder was mirrored: parse it
        # again (vectors stay cached by passage content, so this is cheap).
        for info in library.list_documents(collection):
            library.remove_document(collection, info.name)
        library.clear_failures(collection)
    stored = {info.name: info for info in library.list_documents(collection)}
    wanted = {name for name, _ in files}
    for name in stored:
        if name not in wanted:
            library.remove_document(collection, name)
    reports = []
    todo = []
    digests: dict[str, str] = {}
    failed = library.failures(collection)
    for name, path in files:
        info = stored.get(name)
        try:
            digest = digests[name] = sha256_hex(path.read_bytes())
        except OSError as exc:
            reports.append(IngestReport(name, "error", error=f"cannot read the file ({exc.strerror or exc})"))
            continue
        if info is not None and info.content_hash == digest:
            if chunking not in ("auto", info.chunking):
                rechunk(library, collection, name, chunking)
            reports.append(IngestReport(name, "unchanged", info.passages))
        elif name in failed and failed[name][0] == digest:
            # The same bytes failed before: report it again without re-parsing.
            reports.append(IngestReport(name, "error", error=failed[name][1]))
        else:
            todo.append((name, path))
    new_reports = ingest_files(library, collection, todo, chunking, shipped=shipped)
    for (name, _path), report in zip(todo, new_reports, strict=True):
        if report.status == "error":
            library.record_failure(collection, name, digests[name], report.error or "")
    reports.extend(new_reports)
    library.ensure_collection(collection)
    library.set_fingerprint_marker(marker, version)
    return reports


@lru_cache(maxsize=1)
def parser_version() -> str:
    """A fingerprint of the code that turns files into passages; a stored
    parse made by other code is stale."""
    from . import chunking, documents, guard, text

    digest = hashlib.sha256()
    for module in (documents, guard, chunking, text):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:16]


def load_beir_documents(folder: Path) -> list[Document]:
    """BEIR ``corpus.jsonl``: each record a document named by its ``_id``, its
    title on the first line followed by its text."""
    docs = []
    with open(folder / "corpus.jsonl", encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                doc_id = str(rec["_id"])
            except (json.JSONDecodeError, KeyError, TypeError, IndexError) as exc:
                raise errors.RagcoreError(
                    f"{folder / 'corpus.jsonl'}: line {number} is not a BEIR record ({type(exc).__name__}: {exc})"
                ) from exc
            title = str(rec.get("title") or "").strip()
            body = str(rec.get("text") or "").strip()
            text = f"{title}\n{body}" if title else body
            docs.append(
                Document(
                    name=doc_id,
                    title=title or doc_id,
                    kind="txt",
                    text=text.replace("\r\n", "\n").replace("\r", "\n"),
                    content_hash=sha256_hex(f"{doc_id}\0{text}"),
                    size_bytes=len(text.encode("utf-8")),
                )
            )
    return docs


def load_corpus(
    path: Path | str, chunking: str = "auto", library: Library | None = None, *, progress=None
) -> Corpus:
    """Index a folder (documents or BEIR) on the fly, cached in the library."""
    path = Path(path)
    if not path.is_dir():
        raise errors.RagcoreError(f"{path}: no such folder")
    library = library or default_library()
    key = sha256_hex(str(path.resolve()))[:12]
    if is_beir(path):
        # BEIR documents are whole records; "auto" keeps them whole.
        strategy = "whole" if chunking == "auto" else chunking
        collection = f"beir:{key}:{strategy}"
        marker = sha256_hex((path / "corpus.jsonl").read_bytes()) + ":" + parser_version()
        if library.fingerprint_marker(collection) != marker:
            library.drop_collection(collection)
            library.add_documents_bulk(
                collection, ((doc, *chunk(doc, strategy)) for doc in load_beir_documents(path))
            )
            library.set_fingerprint_marker(collection, marker)
        corpus = corpus_from_library(library, collection)
        corpus.kind = "beir"
        return corpus
    collection = f"dir:{key}:{chunking}"
    reports = sync_folder(library, collection, path, chunking)
    corpus = corpus_from_library(library, collection)
    corpus.errors = [r for r in reports if r.status == "error"]
    corpus.kind = "folder"
    return corpus


def corpus_from_library(library: Library, collection: str) -> Corpus:
    with library.reading():  # documents and passages from one snapshot
        documents = library.documents(collection)
        passages = library.passages(collection, documents)
    return Corpus(collection, documents, passages, kind="collection")
