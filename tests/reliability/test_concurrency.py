"""Eight sessions at once on one library: adding, removing and querying for
``RAGCORE_CONCURRENCY_SECONDS`` (15; the README's figure is from 60). No
errors, no lost or duplicated documents, and searches agree with the final
state."""

from __future__ import annotations

import os
import random
import threading
import time

from ragcore.corpus import add_document
from ragcore.guard import load_bytes_guarded
from ragcore.services import Workspace

SESSIONS = 8
SECONDS = float(os.environ.get("RAGCORE_CONCURRENCY_SECONDS", "15"))
COLLECTION = "shared"
COMMON = b"# Common terms\n\nEvery session adds this same file; it must be stored once.\n"


def _code_word(name: str) -> str:
    """A letters-only code word per document name ("s3-12.md" -> "zqdxbcw"): one whole
    token, never split at digits, so a sibling sharing a fragment cannot outrank it."""
    letters = name[1:-3].translate(str.maketrans("0123456789-", "abcdefghijx"))
    return f"zq{letters}w"


def _document(token: str) -> bytes:
    return (
        f"# Note {token}\n\n## Terms\n\nThe code word of this note is {token}. "
        f"Orders under {token} ship within two days.\n"
    ).encode()


def test_eight_sessions_add_remove_and_query_at_once(tmp_path) -> None:
    ws = Workspace(tmp_path / "home", demo_dir=tmp_path / "no-demo")
    live: list[set[str]] = [set() for _ in range(SESSIONS)]
    removed: list[set[str]] = [set() for _ in range(SESSIONS)]
    failures: list[str] = []
    counts = {"add": 0, "remove": 0, "query": 0, "common": 0}
    lock = threading.Lock()
    deadline = time.monotonic() + SECONDS
    start = threading.Barrier(SESSIONS)

    def session(s: int) -> None:
        rng = random.Random(s)
        n = 0
        start.wait()
        while time.monotonic() < deadline and not failures:
            op = rng.choice(["add", "add", "remove", "query", "query", "common"])
            try:
                if op == "add" or (op in ("remove", "query") and not live[s]):
                    op = "add"
                    n += 1
                    name = f"s{s}-{n}.md"
                    token = _code_word(name)
                    result = add_document(ws.library, COLLECTION, load_bytes_guarded(_document(token), name))
                    assert result.status == "added", result
                    live[s].add(name)
                elif op == "remove":
                    name = rng.choice(sorted(live[s]))
                    assert ws.docs.remove(COLLECTION, name), f"{name} was not there to remove"
                    live[s].discard(name)
                    removed[s].add(name)
                elif op == "query":
                    name = rng.choice(sorted(live[s]))
                    hits, _ = ws.asking.search(COLLECTION, _code_word(name), "bm25", 3)
                    assert hits and hits[0].passage.doc == name, (name, [h.passage.doc for h in hits])
                else:
                    result = add_document(
                        ws.library, COLLECTION, load_bytes_guarded(COMMON, f"common-{s}.md")
                    )
                    assert result.status in ("added", "duplicate"), result
                with lock:
                    counts[op] += 1
            except Exception as exc:  # recorded, then the test fails with it
                failures.append(f"session {s} {op}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=session, args=(s,)) for s in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []

    # Final state: every session's live documents, the common file once, nothing else.
    stored = [info.name for info in ws.docs.documents(COLLECTION)]
    commons = [name for name in stored if name.startswith("common-")]
    assert len(commons) == 1
    expected = set().union(*live)
    assert sorted(set(stored) - set(commons)) == sorted(expected)
    assert len(stored) == len(set(stored))
    # Searches agree with it: a live document is found by its code word, a removed one is not.
    for s in range(SESSIONS):
        for name in sorted(live[s])[:5]:
            hits, _ = ws.asking.search(COLLECTION, _code_word(name), "bm25", 3)
            assert hits[0].passage.doc == name
        for name in sorted(removed[s])[:5]:
            hits, _ = ws.asking.search(COLLECTION, _code_word(name), "bm25", 3)
            assert name not in {h.passage.doc for h in hits}
    assert ws.library.integrity_check() == "ok"
    total = sum(counts.values())
    print(
        f"{SESSIONS} sessions, {SECONDS:g} s: {total} operations {counts}, {len(stored)} documents at the end"
    )
    assert counts["add"] > SESSIONS and counts["remove"] > 0 and counts["query"] > 0
