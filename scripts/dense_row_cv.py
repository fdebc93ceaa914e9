"""Leave-one-group-out choice of the dense table-row weight
(scripts/dense_rows.py; docs/decisions.md, "Dense table rows").

Each body row of a Markdown table (with its header row and the passage's
contextual header) is embedded as an extra vector of its passage, and the
passage's dense score is max(own cosine, weight x best row's cosine); 0 is
off. The grid (below) was written before the first run. As for BM25's
``table_row_weight`` (scripts/table_row_cv.py), the weight is chosen by the
dense signal alone: for each group held out, the weight with the best mean
dense nDCG@10 gain over the other groups (each collection weighted equally,
the demo's types sharing the demo's weight; Cranfield, CISI and Vaswani hold
no pipe tables, so they gain 0 by construction; ties to the smaller weight)
is scored on the group left out, for dense and for the default ranker (the
gate of scripts/gate_variants.py, refitted in its own leave-one-group-out
CV over rankings made with that weight).

    python scripts/dense_row_cv.py [--out eval/results/dense-row-cv.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # BLAS threads contend on a loaded machine


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from gate_variants import Lab, build, gate_family, goal  # noqa: E402

WEIGHTS = (0.0, 0.8, 0.9, 1.0, 1.1, 1.25)
PLAIN = ["cranfield", "cisi", "vaswani"]  # no pipe tables
TABLES = ["demo", "dev-shared"]


def dense_means(lab: Lab) -> dict[str, float]:
    return {g: lab.single_mean(g, "dense") for g in lab.groups}


def training_gain(lab: Lab, dense: dict[float, dict[str, float]], w: float, train: list[str]) -> float:
    return lab.collection_mean({h: dense[w][h] - dense[0.0][h] for h in train})


def _by_hybrid(labs, dense, hybrid, w: float, g: str) -> dict[str, object]:
    bar = max(labs[w].single_mean(g, "bm25"), dense[w][g])
    value = hybrid[w][g][0]
    return {"weight": w, "hybrid": value, "dense": dense[w][g], "goal_met": goal(labs[w], g, value, {g: bar})}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "eval" / "results" / "dense-row-cv.json")
    args = parser.parse_args()
    t0 = time.time()
    # Collections without tables rank the same at every weight: built once.
    plain, plain_keys = build(PLAIN)
    labs = {}
    for w in WEIGHTS:
        queries, rowkey = build(TABLES, w)
        labs[w] = Lab([*plain, *queries], plain_keys | rowkey)
    print(f"built {len(labs)} labs ({time.time() - t0:.0f} s)", flush=True)
    dense = {w: dense_means(lab) for w, lab in labs.items()}
    groups = labs[0.0].groups
    chosen = {}
    for g in groups:
        train = [h for h in groups if h != g]
        chosen[g] = max(WEIGHTS, key=lambda w: (round(training_gain(labs[w], dense, w, train), 9), -w))
    hybrid: dict[float, dict[str, tuple[float, str]]] = {}
    nested: dict[float, dict[str, float]] = {}
    for w in WEIGHTS:
        hybrid[w] = labs[w].cv(gate_family())
        nested[w] = dict(labs[w].nested_mean)
        print(f"gate CV at weight {w} done ({time.time() - t0:.0f} s)", flush=True)
    # Second rule (written after the first had run): the weight whose gate,
    # fitted without the held-out group, has the best nested training mean.
    by_hybrid = {g: max(WEIGHTS, key=lambda w: (round(nested[w][g], 9), -w)) for g in groups}
    folds = []
    for g in groups:
        w = chosen[g]
        bars = {
            "off": max(labs[0.0].single_mean(g, "bm25"), dense[0.0][g]),
            "chosen": max(labs[w].single_mean(g, "bm25"), dense[w][g]),
        }
        row = {
            "held_out": g,
            "chosen_weight": w,
            "dense_off": dense[0.0][g],
            "dense_chosen": dense[w][g],
            "bm25": labs[0.0].single_mean(g, "bm25"),
            "hybrid_off": hybrid[0.0][g][0],
            "hybrid_chosen": hybrid[w][g][0],
            "gate_setting": hybrid[w][g][1],
            "goal_met_off": goal(labs[0.0], g, hybrid[0.0][g][0], {g: bars["off"]}),
            "goal_met_chosen": goal(labs[w], g, hybrid[w][g][0], {g: bars["chosen"]}),
            "by_hybrid_rule": _by_hybrid(labs, dense, hybrid, by_hybrid[g], g),
            "hybrid_per_weight": {str(v): hybrid[v][g][0] for v in WEIGHTS},
        }
        folds.append(row)
        print(
            f"{g:18} w={w:<5g} dense {row['dense_off']:.4f} -> {row['dense_chosen']:.4f}  "
            f"hybrid {row['hybrid_off']:.4f} -> {row['hybrid_chosen']:.4f}  "
            f"met {row['goal_met_off']} -> {row['goal_met_chosen']}",
            flush=True,
        )
    for flag in ("off", "chosen"):
        met = sum(r[f"goal_met_{flag}"] for r in folds)
        print(f"goal met ({flag}): {met}/{len(folds)}")
    for r in folds:
        b = r["by_hybrid_rule"]
        print(
            f"by hybrid rule {r['held_out']:18} w={b['weight']:<5g} hybrid {b['hybrid']:.4f} met {b['goal_met']}"
        )
    print(f"goal met (by hybrid rule): {sum(r['by_hybrid_rule']['goal_met'] for r in folds)}/{len(folds)}")
    result = {
        "kind": "dense-row-cv",
        "command": "python scripts/dense_row_cv.py",
        "weights": list(WEIGHTS),
        "dense": {str(w): d for w, d in dense.items()},
        "folds": folds,
        "final_weight": max(WEIGHTS, key=lambda w: (round(training_gain(labs[w], dense, w, groups), 9), -w)),
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({time.time() - t0:.0f} s); final weight {result['final_weight']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
