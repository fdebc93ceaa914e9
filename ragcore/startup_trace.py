"""Start-up timestamps for the cold-start breakdown (#18).

When ``RAGCORE_STARTUP_TRACE`` names a file, :func:`mark` appends one line
per event: the wall-clock time (``time.time()``), the thread's name and the
event. ``scripts/cold_start.py --trace`` sets it and prints each event's
seconds since ``streamlit run`` was spawned. Unset (always, outside that
script), ``mark`` does nothing but read the environment.
"""

from __future__ import annotations

import os
import threading
import time

ENV = "RAGCORE_STARTUP_TRACE"


def mark(event: str) -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    line = f"{time.time():.4f}\t{threading.current_thread().name}\t{event}\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)


def read(path: str, since: float) -> list[tuple[float, str, str]]:
    """The marks in ``path`` as (seconds since ``since``, thread, event), in time order."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            stamp, thread, event = line.rstrip("\n").split("\t", 2)
            rows.append((round(float(stamp) - since, 3), thread, event))
    return sorted(rows)
