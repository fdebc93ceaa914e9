"""Original PDF files, kept so a citation can open the page it cites.

Stored under the document's content hash, never under the uploaded name; the
demo's originals are read from the shipped folder when their bytes match.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from .. import errors
from ..records import Document, sha256_hex
from ..store import Library
from .common import DEMO_COLLECTION


class Originals:
    """The ``originals`` folder of a library home."""

    def __init__(self, library: Library, home: Path, demo_dir: Path) -> None:
        self.library = library
        self.folder = home / "originals"
        self.demo_dir = demo_dir

    def keep(self, doc: Document, data: bytes) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{doc.content_hash}.pdf"
        if not path.exists():
            path.write_bytes(data)

    def read(self, collection: str, name: str) -> bytes | None:
        """The original file of a PDF document, when it is available."""
        try:
            doc = self.library.get_document(collection, name)
        except errors.LibraryError:
            return None
        kept = self.folder / f"{doc.content_hash}.pdf"
        if kept.is_file():
            return kept.read_bytes()
        if collection == DEMO_COLLECTION:
            candidate = (self.demo_dir / PurePosixPath(name)).resolve()
            root = self.demo_dir.resolve()
            if candidate.is_file() and root in candidate.parents:
                data = candidate.read_bytes()
                if sha256_hex(data) == doc.content_hash:
                    return data
        return None

    def drop_orphans(self) -> None:
        """Delete kept originals no document of any collection refers to."""
        if not self.folder.is_dir():
            return
        rows = self.library.connect().execute("SELECT DISTINCT content_hash FROM documents").fetchall()
        kept = {r[0] for r in rows}
        for path in self.folder.glob("*.pdf"):
            if path.stem not in kept:
                path.unlink(missing_ok=True)
