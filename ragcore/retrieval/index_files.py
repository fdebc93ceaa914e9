"""Search indexes kept on disk beside the library, so reopening a collection
neither rebuilds them nor reads them into memory.

A BM25 index is saved attribute by attribute: arrays as ``.npy``, sparse
matrices as their three CSC arrays, the vocabulary as a JSON list of terms;
loading memory-maps the arrays (numpy ``mmap_mode="r"``), so pages are read
only when a query touches them and are shared by every process that opens
them. Folders are written under a temporary name and renamed when complete.
The caller chooses the folder (``index_dir``) and keys it by what the index
was built from; this module never reads the store.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy import sparse

from ..records import sha256_hex
from .bm25 import BM25Index, BM25Params

FORMAT_VERSION = 1


@lru_cache(maxsize=1)
def code_version() -> str:
    """A fingerprint of the code that turns passages into index files: an
    index made by other tokenising or scoring code is stale."""
    from .. import answer_types, text
    from . import bm25, bm25_answer_type, bm25_counts, bm25_rows, dense, document_names

    digest = hashlib.sha256(str(FORMAT_VERSION).encode())
    for module in (text, answer_types, bm25, bm25_answer_type, bm25_counts, bm25_rows, dense, document_names):
        digest.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
    return digest.hexdigest()[:16]


def index_dir_for(home: Path, collection: str, *fingerprints: str) -> Path:
    """Where the indexes of ``collection`` as of ``fingerprints`` (e.g. the
    library's content fingerprint and the corpus's passage layout) live under
    a library home, for this version of the indexing code."""
    key = sha256_hex(json.dumps([*fingerprints, code_version()]))[:16]
    return Path(home) / "indexes" / sha256_hex(collection)[:16] / key


_VERSION_NAME = re.compile(r"^[0-9a-f]{16}$")


def prune_other_versions(index_dir: Path) -> None:
    """Remove the indexes of earlier versions of the same collection.

    Only inside the layout ``index_dir_for`` makes (``indexes/<collection
    hash>/<version hash>``), and only siblings named like a version: an
    index folder given anywhere else (a temporary folder, a folder of the
    user's) never costs its neighbours."""
    parent = index_dir.parent
    if not (parent.is_dir() and parent.parent.name == "indexes" and _VERSION_NAME.match(parent.name)):
        return
    for sibling in parent.iterdir():
        if sibling != index_dir and sibling.is_dir() and _VERSION_NAME.match(sibling.name):
            shutil.rmtree(sibling, ignore_errors=True)


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def write_folder(target: Path, write: Callable[[Path], None]) -> bool:
    """Call ``write(tmp_folder)``, then rename the folder to ``target``; False
    (and nothing left behind) when another process got there first."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        write(tmp)
        os.rename(tmp, target)
        return True
    except OSError:
        if target.is_dir():
            return False
        raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


# ------------------------------------------------------------------ BM25


def save_bm25(index: BM25Index, folder: Path) -> None:
    """Write every attribute of ``index`` into ``folder`` (left as it is when
    another process wrote it first)."""

    def write(tmp: Path) -> None:
        kinds: dict[str, str] = {}
        for name, value in vars(index).items():
            if isinstance(value, sparse.csc_matrix):
                for part in ("data", "indices", "indptr"):
                    np.save(tmp / f"{name}.{part}.npy", getattr(value, part), allow_pickle=False)
                kinds[name] = f"csc:{value.shape[0]}:{value.shape[1]}"
            elif isinstance(value, np.ndarray):
                np.save(tmp / f"{name}.npy", value, allow_pickle=False)
                kinds[name] = "array"
            elif isinstance(value, BM25Params):
                kinds[name] = "params"
            elif name == "vocab" and isinstance(value, dict):
                terms = [""] * len(value)
                for term, i in value.items():
                    terms[i] = term
                (tmp / "vocab.json").write_text(json.dumps(terms), encoding="utf-8")
                kinds[name] = "vocab"
            elif isinstance(value, int):
                kinds[name] = f"int:{value}"
            else:
                raise TypeError(f"BM25Index.{name} ({type(value).__name__}) has no file format")
        meta = {"version": FORMAT_VERSION, "params": asdict(index.params), "attributes": kinds}
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")

    write_folder(folder, write)


def load_bm25(folder: Path, params: BM25Params, size: int) -> BM25Index | None:
    """The index saved in ``folder``, memory-mapped; None when there is none,
    or it was made with other parameters, for another number of passages or
    by another version of the format."""
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    kinds: dict[str, str] = meta.get("attributes", {})
    if meta.get("version") != FORMAT_VERSION or meta.get("params") != asdict(params):
        return None
    if kinds.get("size") != f"int:{size}":
        return None
    index = BM25Index.__new__(BM25Index)
    for name, kind in kinds.items():
        setattr(index, name, _load_attribute(folder, name, kind, params))
    return index


def _load_attribute(folder: Path, name: str, kind: str, params: BM25Params):
    if kind == "params":
        return params
    if kind == "vocab":
        terms = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        return dict(zip(terms, range(len(terms)), strict=True))
    if kind == "array":
        return np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)
    if kind.startswith("int:"):
        return int(kind[4:])
    if kind.startswith("csc:"):
        rows, cols = (int(x) for x in kind.split(":")[1:])
        parts = [np.load(folder / f"{name}.{p}.npy", mmap_mode="r") for p in ("data", "indices", "indptr")]
        return sparse.csc_matrix(tuple(parts), shape=(rows, cols), copy=False)
    raise ValueError(f"{folder}: unknown attribute kind {kind!r} for {name}")
