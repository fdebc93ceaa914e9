"""Cost of opening a PDF citation whose page is heavy (issue 17, item 3).

A small PDF with one page of 100,000 text operations: the time to mark it in
the guard's worker, the same under a 5 s limit, a rerun through the cache,
and this (parent) process's peak RSS, which the marking never touches.
Run: python scripts/pdf_mark_cost.py [operations]
"""

from __future__ import annotations

import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragcore import errors, guard
from ragcore.pdf_marks import MarkedPages
from tests.reliability.test_pdf_marks import LINES, _heavy_page_pdf


def main() -> None:
    operations = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    data = _heavy_page_pdf(operations)
    print(f"PDF: {len(data) / 1024:.1f} KB, one page of {operations:,} text operations")
    start = time.perf_counter()
    guard.highlight_guarded(data, "heavy.pdf", 1, LINES, timeout_s=600)
    print(f"marked in the worker (no limit): {time.perf_counter() - start:.1f} s")
    cache = MarkedPages()
    key = ("c", "heavy.pdf", "hash", 1, tuple(LINES))
    for attempt in ("first opening", "rerun (cached)"):
        start = time.perf_counter()
        try:
            cache.get(key, lambda: guard.highlight_guarded(data, "heavy.pdf", 1, LINES, timeout_s=5))
            outcome = "marked"
        except errors.ParseLimitExceeded:
            outcome = "stopped at the 5 s limit"
        print(f"{attempt}: {outcome} after {time.perf_counter() - start:.2f} s")
    print(f"this process's peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
