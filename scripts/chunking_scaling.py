"""Chunking time at n and 2n for the adversarial shapes of issue 17, item 2.

Prints CPU seconds and the 2n/n ratio (linear chunking gives about 2).
Run: python scripts/chunking_scaling.py [n]   (default n = 200000)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragcore.chunking import chunk_document
from ragcore.documents import load_bytes

SHAPES = {
    "empty headings (md)": ("a.md", lambda n: "".join(f"# Heading {i}\n" for i in range(n))),
    "numbered headings (txt)": ("a.txt", lambda n: "".join(f"\n{i}.1 Title here\n" for i in range(n))),
}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    for shape, (name, make) in SHAPES.items():
        times = []
        for size in (n, 2 * n):
            data = make(size).encode("utf-8")
            doc = load_bytes(data, name)
            start = time.process_time()
            passages = chunk_document(doc)
            times.append(time.process_time() - start)
            print(
                f"{shape}: {size:,} ({len(data) / 1e6:.1f} MB) -> {len(passages):,} passages in {times[-1]:.2f} s"
            )
        print(f"{shape}: ratio 2n/n = {times[1] / times[0]:.2f}")


if __name__ == "__main__":
    main()
