"""A floor on the gate's dense-alone choice: never dense alone when BM25's
top passage holds most of the query (issue #22; session 15).

Why (scripts/gate_data_study.py, docs/decisions.md section 1): on
dev-answers the shipped gate sends "Can my colleague who is not the owner
close our account for us?" to dense alone (nDCG@10 0.0) although BM25's top
passage holds every word of it (its idf coverage 1.0): a question asked in
other words than its evidence cannot be one whose words BM25's top passage
all holds. The rule: when the gate picks dense alone but BM25's top passage
holds at least ``c`` of the query's idf mass (``bm25_top_coverage``, a gate
signal already), the fused ranking is used instead.

Grid and procedure, written before the first run: c in {off, 0.75, 0.9,
1.0}, chosen jointly with the gate's setting (the shipped grid of 32) by the
shipped procedure (A of gate_data_study.py: fitted and chosen on the 13
groups, nested collection-weighted mean; PRF fixed at k 5, beta 0.5 on the
fused ranking's dense half); the 13 groups scored held out, the five newer
development sets scored by what the procedure ships. Ship rule: the rule
ships only if the procedure picks a c other than "off" with every group in
training, its collection-weighted mean of held-out nDCG@10 over the 18
groups is higher than A's, and no group A meets falls below its target.

    nice -n 10 python scripts/gate_coverage_rule.py [--out eval/results/gate-coverage-rule.md]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_gate import FUSED  # noqa: E402
from gate_data_study import NEW, OLD, PRF, option_study, shared_lab, write_report  # noqa: E402
from gate_variants import ALL, SIGNALS, Softmax  # noqa: E402

FLOORS = (None, 0.75, 0.9, 1.0)
COVERAGE = ALL.index("bm25_top_coverage")


class CoverageFloor:
    """The gate, overruled to the fused ranking where BM25's top passage covers >= ``c``."""

    def __init__(self, gate: Softmax, c: float | None) -> None:
        self.gate, self.c, self.experts = gate, c, gate.experts

    def fit(self, lab, ids: np.ndarray) -> CoverageFloor:
        self.gate.fit(lab, ids)
        return self

    def choose(self, x: np.ndarray) -> np.ndarray:
        chosen = self.gate.choose(x)
        if self.c is not None:
            chosen = np.where(x[:, COVERAGE] >= self.c - 1e-9, 1, chosen)
        return chosen


def variant(floors: tuple[float | None, ...]) -> dict:
    return {
        f"{fused}{sig} | floor {c}": (
            lambda f=fused, u=used, c=c: CoverageFloor(Softmax(["dense", f"{f} {PRF}"], u), c)
        )
        for fused in FUSED
        for sig, used in SIGNALS.items()
        for c in floors
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "eval" / "results" / "gate-coverage-rule.md"))
    args = parser.parse_args()
    t0 = time.time()
    lab = shared_lab([*OLD, *NEW])
    base, cand = "A: shipped procedure", "A with the coverage floor"
    rows, picked, text, lines, ship = option_study(
        lab, {base: variant((None,)), cand: variant(FLOORS)}, "floor None"
    )
    print(text + "\n".join(lines))
    write_report(
        Path(args.out),
        "Held-out nDCG@10 of the gate with a floor on BM25's top coverage (scripts/gate_coverage_rule.py; "
        f"the five newer sets scored by what the procedure ships; {time.time() - t0:.0f} s)",
        text + "\n" + "\n".join(lines),
        rows,
        {
            "kind": "gate-coverage-rule",
            "ship": ship,
            "picked": picked,
            "held_out": {n: {g: float(np.mean(v[0])) for g, v in r.items()} for n, r in rows.items()},
        },
    )
    print(f"wrote {args.out} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
