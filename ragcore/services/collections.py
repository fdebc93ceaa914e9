"""Collections and sessions: the demo mirror, per-session isolation, quotas
and expiry, and which collections a session may change."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from .. import config, errors
from ..corpus import IngestReport, sync_folder
from ..records import sha256_hex
from ..store import Library
from .common import DEMO_COLLECTION, SESSION_PREFIX, UPLOADS_COLLECTION, positive_setting
from .indexes import Indexes
from .originals import Originals

# Session settings, read here until they join ragcore.config (see session_quota_bytes, session_ttl_s).
DEFAULT_SESSION_QUOTA_MB = 200.0
DEFAULT_SESSION_TTL_HOURS = 24.0
EXPIRY_INTERVAL_S = 300.0  # look for expired private collections at most this often
TOUCH_INTERVAL_S = 60.0  # refresh a live private collection's touched_at at most this often


def isolated() -> bool:
    """True when RAGCORE_ISOLATION=session: uploads are private per session or user."""
    return config.settings().isolation == "session"


def session_quota_bytes() -> int:
    """Bytes one private collection may hold (RAGCORE_SESSION_QUOTA_MB, default 200)."""
    return int(positive_setting("RAGCORE_SESSION_QUOTA_MB", DEFAULT_SESSION_QUOTA_MB) * 1024 * 1024)


def session_ttl_s() -> float:
    """Seconds a private collection lives untouched (RAGCORE_SESSION_TTL_HOURS, default 24)."""
    return positive_setting("RAGCORE_SESSION_TTL_HOURS", DEFAULT_SESSION_TTL_HOURS) * 3600


class Collections:
    """Which collections exist for whom, and for how long."""

    def __init__(self, library: Library, indexes: Indexes, originals: Originals, demo_dir: Path) -> None:
        self.library = library
        self.indexes = indexes
        self.originals = originals
        self.demo_dir = demo_dir
        self._lock = threading.Lock()
        self._demo_synced = False
        self.demo_reports: list[IngestReport] = []
        self._touched: dict[str, float] = {}
        self._expired_at: float | None = None

    isolated = staticmethod(isolated)
    session_quota_bytes = staticmethod(session_quota_bytes)
    session_ttl_s = staticmethod(session_ttl_s)

    def ensure_demo(self) -> list[IngestReport]:
        """Mirror the demo folder into the ``demo`` collection (once per
        process). Cheap: files are re-read only when their bytes change."""
        with self._lock:
            if self._demo_synced:
                return self.demo_reports
            if self.demo_dir.is_dir():
                self.demo_reports = sync_folder(self.library, DEMO_COLLECTION, self.demo_dir, shipped=True)
            else:
                self.library.ensure_collection(DEMO_COLLECTION)
            self._demo_synced = True
            return self.demo_reports

    def uploads_collection(self, session_id: str | None = None) -> str:
        """Where this browser session's uploads go: the shared ``uploads``
        collection, or a private one per session when RAGCORE_ISOLATION=session."""
        if isolated() and session_id:
            return SESSION_PREFIX + sha256_hex(session_id)[:16]
        return UPLOADS_COLLECTION

    def collection_choices(self, session_id: str | None = None) -> dict[str, str]:
        """Collections a session may use: label -> collection name."""
        return {"Demo documents": DEMO_COLLECTION, "My uploads": self.uploads_collection(session_id)}

    def open_session(self, owner: str | None) -> str:
        """Called on every run of a session: expires ended sessions' private
        collections (at most every EXPIRY_INTERVAL_S) and keeps this one's
        alive; returns the collection the session uploads to."""
        now = time.monotonic()
        if self._expired_at is None or now - self._expired_at >= EXPIRY_INTERVAL_S:
            self.expire_sessions()
        collection = self.uploads_collection(owner)
        self.touch(collection)
        return collection

    def touch(self, collection: str) -> None:
        """Mark a private collection as in use, so it does not expire while
        its session lives (written at most every TOUCH_INTERVAL_S)."""
        if not collection.startswith(SESSION_PREFIX):
            return
        now = time.monotonic()
        last = self._touched.get(collection)
        if last is not None and now - last < TOUCH_INTERVAL_S:
            return
        if collection in self.library.collections():  # a session that never uploaded stores nothing
            self.library.ensure_collection(collection, owner=collection)
        self._touched[collection] = now

    def expire_sessions(self, older_than_s: float | None = None) -> list[str]:
        """Delete private collections untouched for ``older_than_s`` (default
        RAGCORE_SESSION_TTL_HOURS) with their documents, indexes and kept
        PDF originals; returns their names."""
        self._expired_at = time.monotonic()
        ttl = session_ttl_s() if older_than_s is None else older_than_s
        gone = self.library.expire_collections(SESSION_PREFIX, ttl)
        if gone:
            self.indexes.forget(gone)
            for name in gone:
                self._touched.pop(name, None)
            self.originals.drop_orphans()
        return gone

    def writable(self, collection: str) -> bool:
        """Whether a session may add, remove or re-chunk in ``collection``:
        under session isolation only private collections (the demo and the
        shared uploads are read-only there)."""
        return not isolated() or collection.startswith(SESSION_PREFIX)

    def check_writable(self, collection: str) -> None:
        if not self.writable(collection):
            what = (
                "the demo collection" if collection == DEMO_COLLECTION else f"the collection {collection!r}"
            )
            raise errors.LibraryError(
                f"{what} is shared and read-only on this deployment; add your own documents under My uploads"
            )

    def over_quota(self, collection: str, name: str, size: int) -> str | None:
        """Why a file of ``size`` bytes would overfill a private collection
        (a file replacing one of the same name frees that one's bytes)."""
        if not collection.startswith(SESSION_PREFIX):
            return None
        quota = session_quota_bytes()
        used = sum(i.size_bytes for i in self.library.list_documents(collection) if i.name != name)
        if used + size <= quota:
            return None
        mb = 1024 * 1024
        return (
            f"your storage quota is {quota / mb:g} MB (RAGCORE_SESSION_QUOTA_MB): {used / mb:.1f} MB in use "
            f"and this file is {size / mb:.1f} MB; remove documents first"
        )
