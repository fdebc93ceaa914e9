"""PDF parse time on one worker and on one worker per core (issue 18).

Run: python scripts/pdf_parallel.py [PDF]   (default: the Lyft 10-K in ../shared)
Prints wall-clock seconds of each and whether the Documents are identical.
Meaningful only on an otherwise idle machine (see the load average printed).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore import guard  # noqa: E402
from ragcore.parallel_pdf import parse_pdf_in_parts, parts_for  # noqa: E402

LIMITS = {"timeout_s": 600.0, "memory_bytes": 2 * 1024**3}


def main() -> None:
    path = (
        Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/documents/sec-10k/lyft_2021_10k.pdf"
    )
    data = path.read_bytes()
    parts = max(2, parts_for(len(data)))
    print(
        f"{path.name}: {len(data) / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    start = time.perf_counter()
    one = guard.parse_in_worker(data, path.name, **LIMITS).document
    t_one = time.perf_counter() - start
    start = time.perf_counter()
    many = parse_pdf_in_parts(data, path.name, parts, **LIMITS)
    t_many = time.perf_counter() - start
    pages = max(one.line_pages) if one.line_pages else 0
    print(
        f"{pages} pages: 1 worker {t_one:.1f} s, {parts} workers {t_many:.1f} s (x{t_one / t_many:.2f}); identical {one == many}"
    )


if __name__ == "__main__":
    main()
