"""Index backends: where BM25 and dense search run.

``RAGCORE_INDEX`` (or ``--backend``, which overrides it) names one:

- unset or ``embedded``: the in-process index (BM25 and vectors in memory,
  the library's SQLite as the cache), the default;
- ``milvus:PATH``: Milvus Lite in a local file (one process only);
- ``http://HOST:19530`` or ``https://...``: a Milvus server or cluster, with
  the token from ``RAGCORE_MILVUS_TOKEN`` (never logged or printed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

from ... import config, errors

BackendKind = Literal["embedded", "milvus-lite", "milvus-server"]


@dataclass(frozen=True)
class IndexTarget:
    """A parsed index setting. ``uri`` is what pymilvus connects to; ``shown``
    is safe to print (no credentials)."""

    kind: BackendKind
    uri: str = ""
    token: str = field(default="", repr=False)

    @property
    def shown(self) -> str:
        if self.kind == "embedded":
            return "embedded"
        if self.kind == "milvus-lite":
            return f"milvus:{self.uri}"
        return _without_credentials(self.uri)

    @property
    def is_milvus(self) -> bool:
        return self.kind != "embedded"


def parse_index(value: str | None, token: str | None = None) -> IndexTarget:
    """The backend named by ``value`` (a ``RAGCORE_INDEX`` or ``--backend``
    string); raises ``RagcoreError`` with the accepted forms otherwise."""
    raw = (value or "").strip()
    if raw in ("", "embedded"):
        return IndexTarget("embedded")
    if raw.startswith("milvus:") and not raw.startswith("milvus://"):
        path = raw[len("milvus:") :]
        if not path:
            raise errors.RagcoreError("milvus:PATH needs a file path, e.g. milvus:.ragcore/milvus.db")
        return IndexTarget("milvus-lite", lite_file(Path(path)))
    if raw == "milvus":
        return IndexTarget("milvus-lite", lite_file(config.settings().home / "milvus.db"))
    if raw.startswith(("http://", "https://")):
        parts = urlsplit(raw)
        if not parts.hostname:
            raise errors.RagcoreError(f"{_without_credentials(raw)}: no host in the Milvus address")
        return IndexTarget("milvus-server", raw, token or "")
    raise errors.RagcoreError(
        f"unknown index backend {raw!r}: use 'embedded', 'milvus:PATH', or http(s)://HOST:19530"
    )


def current_target(override: str | None = None) -> IndexTarget:
    """``override`` (a ``--backend`` value) if given, else ``RAGCORE_INDEX``."""
    value = override if override else config.get("RAGCORE_INDEX")
    return parse_index(value, config.get("RAGCORE_MILVUS_TOKEN"))


def lite_file(path: Path) -> str:
    """pymilvus opens Milvus Lite for a path ending in ``.db``; a path
    without that suffix is taken as a folder holding ``milvus.db``."""
    if path.suffix != ".db":
        path = path / "milvus.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    return str(path.resolve())


def _without_credentials(uri: str) -> str:
    parts = urlsplit(uri)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))
