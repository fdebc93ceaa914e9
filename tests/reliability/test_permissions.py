"""The library is private to its owner (issue 17, item 5): the home folder is
0700 and the database, WAL and shared-memory files 0600 under the usual
umask, and an existing world-readable home is repaired when it is opened."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ragcore.records import sha256_hex
from ragcore.store import Library


@pytest.fixture
def usual_umask():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _write_something(lib: Library) -> None:
    # Any write makes SQLite create the WAL and shared-memory files.
    lib.record_failure("private", "memo.md", sha256_hex("memo"), "a note")


def test_a_new_home_is_0700_and_its_database_files_0600(tmp_path, usual_umask) -> None:
    home = tmp_path / "home"
    lib = Library(home)
    _write_something(lib)
    files = {p.name: _mode(p) for p in home.iterdir()}
    assert _mode(home) == 0o700
    assert {"library.sqlite3", "library.sqlite3-wal", "library.sqlite3-shm"} <= set(files)
    assert all(mode == 0o600 for mode in files.values()), files
    lib.close()


def test_an_existing_world_readable_home_is_repaired_on_open(tmp_path, usual_umask) -> None:
    home = tmp_path / "home"
    lib = Library(home)
    _write_something(lib)
    lib.close()
    (home / "originals").mkdir()
    (home / "originals" / "abc.pdf").write_bytes(b"%PDF-1.4")
    for path in [home, home / "originals"]:
        os.chmod(path, 0o755)
    for path in [home / "library.sqlite3", home / "originals" / "abc.pdf"]:
        os.chmod(path, 0o644)
    reopened = Library(home)
    assert _mode(home) == 0o700 and _mode(home / "originals") == 0o700
    assert _mode(home / "library.sqlite3") == 0o600
    assert _mode(home / "originals" / "abc.pdf") == 0o600
    assert reopened.connect().execute("SELECT count(*) FROM meta").fetchone()[0] > 0
    reopened.close()
