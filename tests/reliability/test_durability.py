"""Durability: an ingest killed with SIGKILL at a random moment leaves a
library that opens, passes ``PRAGMA integrity_check`` and holds each document
whole or not at all.

``RAGCORE_KILLS`` sets the number of kills (20).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragcore.chunking import chunk_document
from ragcore.documents import load_bytes
from ragcore.store import Library

KILLS = int(os.environ.get("RAGCORE_KILLS", "20"))
SECTIONS = 6000  # about 0.6 MB of Markdown and 6,000 passages: the add takes a few tenths of a second
REPO = Path(__file__).resolve().parents[2]

_CHILD = """
import sys
sys.path.insert(0, {repo!r})
from ragcore.documents import load_bytes
from ragcore.corpus import add_document
from ragcore.store import Library
from tests.reliability.test_durability import big_document
k = int(sys.argv[1])
lib = Library(sys.argv[2])
doc = load_bytes(big_document(k), f"big-{{k}}.md")
print("ready", flush=True)
add_document(lib, "c", doc)
print("done", flush=True)
"""


def big_document(k: int, sections: int = SECTIONS) -> bytes:
    """Markdown of ``sections`` sections, different for each ``k``."""
    parts = [f"# Contract {k}"]
    for i in range(sections):
        parts.append(
            f"## Section {i}\n\nClause {i} of contract {k} sets the fee at {i + k} dollars per order."
        )
    return "\n".join(parts).encode("utf-8")


def _expected(k: int) -> tuple[str, int]:
    doc = load_bytes(big_document(k), f"big-{k}.md")
    return doc.text, len(chunk_document(doc))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_killed_ingests_leave_each_document_whole_or_absent(tmp_path) -> None:
    home = tmp_path / "lib"
    Library(home).close()
    code = _CHILD.format(repo=str(REPO))
    # How long one add takes in a child like the killed ones (its lazy imports
    # and a fresh process included, which an add in this process would miss),
    # so the kills spread over the whole of it.
    probe = subprocess.Popen(
        [sys.executable, "-c", code, "-1", str(tmp_path / "probe")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    assert probe.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    assert probe.stdout.readline().strip() == "done"
    add_s = time.perf_counter() - t0
    assert probe.wait() == 0

    rng = random.Random(20)
    landed = {"absent": 0, "whole": 0}
    kept: set[str] = set()
    for k in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, "-c", code, str(k), str(home)], stdout=subprocess.PIPE, text=True, cwd=REPO
        )
        assert child.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0, 1.2 * add_s))
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert child.returncode == -signal.SIGKILL or child.returncode == 0

        lib = Library(home)  # opens (and recovers the WAL) after the kill
        assert lib.integrity_check() == "ok"
        stored = {info.name: info for info in lib.list_documents("c")}
        name = f"big-{k}.md"
        # Earlier documents are exactly as the earlier kills left them.
        assert set(stored) - {name} == kept, f"documents changed by a later kill: {set(stored) ^ kept}"
        if name in stored:
            text, passages = _expected(k)
            assert lib.get_document("c", name).text == text
            assert stored[name].passages == passages
            rows = lib.connect().execute(
                "SELECT COUNT(*) FROM passages p JOIN documents d ON d.id = p.document_id WHERE d.name = ?",
                (name,),
            )
            assert rows.fetchone()[0] == passages
            kept.add(name)
            landed["whole"] += 1
        else:
            landed["absent"] += 1
        lib.close()
    # Both outcomes happened, so kills landed before and after the commit.
    print(f"kills survived: {KILLS}; document absent {landed['absent']}, whole {landed['whole']}")
    if KILLS >= 10:
        assert landed["absent"] > 0 and landed["whole"] > 0, landed
