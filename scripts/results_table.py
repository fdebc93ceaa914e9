"""Print Markdown tables of the stored evaluation runs (eval/results/*.json),
the figures the README quotes, and the held-out table of the shipped
procedure (eval/results/heldout-default.json, scripts/prf_parts_study.py
--heldout) the README quotes first.

    python scripts/results_table.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
HELDOUT = ROOT / "eval" / "results" / "heldout-default.json"
RUNS = ["demo", "cranfield", "cisi", "vaswani"]
METRICS = ["ndcg@10", "mrr@10", "recall@10", "success@10"]


def cell(m: dict) -> str:
    return f"{m['mean']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}]"


def main() -> int:
    print("| collection | questions | ranker | " + " | ".join(METRICS) + " |")
    print("|---|---|---|" + "---|" * len(METRICS))
    for name in RUNS:
        path = ROOT / "eval" / "results" / f"{name}.json"
        if not path.is_file():
            continue
        run = json.loads(path.read_text(encoding="utf-8"))
        n = run["questions"]["scored"]
        for ranker, data in run["rankers"].items():
            row = [cell(data["metrics"][m]) for m in METRICS]
            print(f"| {name} | {n} | {ranker} | " + " | ".join(row) + " |")
    print()
    print("| collection | comparison (nDCG@10) | difference [95% CI] | d_z | Holm p |")
    print("|---|---|---|---|---|")
    for name in RUNS:
        path = ROOT / "eval" / "results" / f"{name}.json"
        if not path.is_file():
            continue
        run = json.loads(path.read_text(encoding="utf-8"))
        for c in run["comparisons"]:
            if c["metric"] == "ndcg@10" and c.get("family", "primary") == "primary":
                p = c["p_holm"]
                ptxt = "< 0.001" if p < 0.001 else f"{p:.3f}"
                print(
                    f"| {name} | {c['a']} − {c['b']} | {c['diff']:+.3f} [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}] "
                    f"| {c['d_z']:.2f} | {ptxt} |"
                )
    if HELDOUT.is_file():
        from fusion_cv import summary_table

        print()
        print(summary_table(json.loads(HELDOUT.read_text(encoding="utf-8"))), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
