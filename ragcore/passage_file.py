"""Passages whose texts stay on disk: a read-only sequence for large collections.

A million passages of a few hundred words hold about 700 MB of text, and
as Python objects (a :class:`Passage` each) well over a gigabyte; the search
indexes need none of it once built. A :class:`PassageFile` keeps the
records' numbers in small numpy arrays (about 40 bytes a passage), the
document names and heading labels once each, and the texts in one UTF-8
file read with ordinary file reads (not memory-mapped, so text read while
indexing is not charged to the process). ``passages[i]`` makes the
:class:`Passage` on demand; iteration reads the texts a block at a time.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import overload

import numpy as np

from .records import Passage

FORMAT_VERSION = 1
_INT_FIELDS = ("index", "first_line", "last_line", "start", "end")
READ_BLOCK = 4096  # passages read per file read while iterating


class _Interned:
    """Strings stored once, each row holding a code."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self._codes: dict[str, int] = {}

    def code(self, value: str) -> int:
        code = self._codes.get(value)
        if code is None:
            code = self._codes[value] = len(self.values)
            self.values.append(value)
        return code


def write_passages(folder: Path, passages: Iterable[Passage]) -> PassageFile:
    """Write ``passages`` (any iterable, consumed once) to ``folder`` and open it."""
    folder.mkdir(parents=True, exist_ok=True)
    names = {"doc": _Interned(), "label": _Interned(), "chunking": _Interned()}
    # array.array, not lists: a million Python ints per field would cost more than the texts
    codes = {key: array("i") for key in names}
    numbers = {key: array("q") for key in _INT_FIELDS}
    offsets, pages, page_offsets = array("q", [0]), array("i"), array("q", [0])
    with open(folder / "texts.bin", "wb") as fh:
        for p in passages:
            data = p.text.encode("utf-8")
            fh.write(data)
            offsets.append(offsets[-1] + len(data))
            for key, table in names.items():
                codes[key].append(table.code(getattr(p, key)))
            for key in _INT_FIELDS:
                numbers[key].append(getattr(p, key))
            pages.extend(p.pages)
            page_offsets.append(len(pages))
    arrays = {
        "offsets": np.frombuffer(offsets, dtype=np.int64),
        "page_offsets": np.frombuffer(page_offsets, dtype=np.int64),
        "pages": np.frombuffer(pages, dtype=np.int32),
        **{f"{key}_code": np.frombuffer(codes[key], dtype=np.int32) for key in names},
        **{key: np.frombuffer(numbers[key], dtype=np.int64) for key in _INT_FIELDS},
    }
    for name, values in arrays.items():
        np.save(folder / f"{name}.npy", values, allow_pickle=False)
    meta = {"version": FORMAT_VERSION, "size": len(offsets) - 1}
    meta.update({key: table.values for key, table in names.items()})
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return PassageFile(folder)


class PassageFile(Sequence[Passage]):
    """The passages written by :func:`write_passages`, texts read on demand."""

    def __init__(self, folder: Path) -> None:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if meta.get("version") != FORMAT_VERSION:
            raise ValueError(
                f"{folder}: passage file format {meta.get('version')}, expected {FORMAT_VERSION}"
            )
        self.folder = folder
        self._size = int(meta["size"])
        self._tables: dict[str, list[str]] = {key: meta[key] for key in ("doc", "label", "chunking")}
        load = lambda name: np.load(folder / f"{name}.npy", allow_pickle=False)  # noqa: E731
        self._offsets = load("offsets")
        self._page_offsets, self._pages = load("page_offsets"), load("pages")
        self._codes = {key: load(f"{key}_code") for key in self._tables}
        self._numbers = {key: load(key) for key in _INT_FIELDS}
        self._fd = os.open(folder / "texts.bin", os.O_RDONLY)

    def __del__(self) -> None:
        fd = getattr(self, "_fd", None)
        if fd is not None:
            os.close(fd)

    def __len__(self) -> int:
        return self._size

    @property
    def docs(self) -> list[str]:
        """Each passage's document name, in row order (no text read)."""
        names = self._tables["doc"]
        return [names[c] for c in self._codes["doc"].tolist()]

    def text(self, row: int) -> str:
        start, end = int(self._offsets[row]), int(self._offsets[row + 1])
        return os.pread(self._fd, end - start, start).decode("utf-8")

    def _make(self, row: int, text: str) -> Passage:
        fields = {key: self._tables[key][int(self._codes[key][row])] for key in self._tables}
        pages = tuple(self._pages[self._page_offsets[row] : self._page_offsets[row + 1]].tolist())
        numbers = {key: int(self._numbers[key][row]) for key in _INT_FIELDS}
        return Passage(text=text, pages=pages, **fields, **numbers)

    @overload
    def __getitem__(self, row: int) -> Passage: ...
    @overload
    def __getitem__(self, row: slice) -> list[Passage]: ...
    def __getitem__(self, row: int | slice) -> Passage | list[Passage]:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(self._size))]
        if row < 0:
            row += self._size
        if not 0 <= row < self._size:
            raise IndexError(f"passage {row} is outside 0..{self._size - 1}")
        return self._make(row, self.text(row))

    def __iter__(self) -> Iterator[Passage]:
        for first in range(0, self._size, READ_BLOCK):
            last = min(first + READ_BLOCK, self._size)
            base = int(self._offsets[first])
            data = os.pread(self._fd, int(self._offsets[last]) - base, base)
            for row in range(first, last):
                a, b = int(self._offsets[row]) - base, int(self._offsets[row + 1]) - base
                yield self._make(row, data[a:b].decode("utf-8"))


class PassageTexts(Sequence[str]):
    """The texts of a :class:`PassageFile` as a sequence of strings."""

    def __init__(self, passages: PassageFile) -> None:
        self.passages = passages

    def __len__(self) -> int:
        return len(self.passages)

    @overload
    def __getitem__(self, row: int) -> str: ...
    @overload
    def __getitem__(self, row: slice) -> list[str]: ...
    def __getitem__(self, row: int | slice) -> str | list[str]:
        if isinstance(row, slice):
            return [self.passages.text(i) for i in range(*row.indices(len(self)))]
        return self.passages.text(row if row >= 0 else row + len(self))
