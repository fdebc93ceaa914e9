"""Leave-one-group-out choice of ``BM25Params.table_row_weight``.

Each body row of a Markdown table is also scored as a small passage (the
table's header row and that row, ``bm25_rows``), and its passage scores
max(own score, weight x best row's score); 0 is off. The grid (below) was
written before the cross-validated run (docs/decisions.md, "Table rows",
says what was looked at before it). As for the named-document boost
(``named_document_cv.run``): BM25 and the default ranker (hybrid) are scored
by nDCG@10 on every group (the demo gold set by question type, dev-shared;
Cranfield, CISI and Vaswani hold no pipe tables, so they are unchanged by
construction), and the weight with the best BM25 gain over the other groups
(each collection weighted equally, the demo's types sharing the demo's
weight; ties to the earlier, smaller weight) is scored on the group left out.

    python scripts/table_row_cv.py [--out eval/results/table-row-cv.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from named_document_cv import run  # noqa: E402

WEIGHTS = (0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    grid: list[dict[str, object]] = [{"table_row_weight": w} for w in WEIGHTS]
    run(grid, "table-row-cv", f"python scripts/table_row_cv.py --out {args.out}", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
