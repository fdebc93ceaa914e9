"""The library folder is private: ``RAGCORE_HOME`` 0700, its files 0600.

Private uploads, their originals and the AI log live under the home; under
the usual umask (022) a new folder is 755 and SQLite's files 644, so any
local user could read them. The home is made owner-only when a library opens,
and an existing home is repaired then. SQLite creates the WAL and shared-memory
files with the database file's mode, so the database is created 0600 before
SQLite first opens it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def secure_home(home: Path, database: Path) -> None:
    """Create ``home`` (0700) and ``database`` (0600) if missing, and make every
    folder and file already under ``home`` owner-only."""
    home.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    _restrict(home, FOLDER_MODE)
    if not database.exists():
        os.close(os.open(database, os.O_CREAT | os.O_WRONLY, FILE_MODE))
    for folder, dirs, files in os.walk(home):
        for name in dirs:
            _restrict(Path(folder) / name, FOLDER_MODE)
        for name in files:
            _restrict(Path(folder) / name, FILE_MODE)


def _restrict(path: Path, mode: int) -> None:
    try:
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            return  # a link's target is not ours to change
        if stat.S_IMODE(st.st_mode) & ~mode:
            os.chmod(path, stat.S_IMODE(st.st_mode) & mode)
    except OSError:
        pass  # not ours (another owner, a read-only mount): nothing more we can do
