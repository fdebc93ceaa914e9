"""Score the shipped learned-fusion weights on a collection they were not
fitted on (a held-out check for a collection the cross-validation run could
not include), against BM25, dense, plain RRF k=60 and the previous default.

    python scripts/fusion_holdout.py vaswani [--out eval/results/fusion-holdout-vaswani.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import Prepared, dense_rankings, load_all, shipped_bm25_grid  # noqa: E402

from ragcore.corpus import default_library  # noqa: E402
from ragcore.evaluation.statistics import paired_mean_comparison  # noqa: E402
from ragcore.retrieval import fusion  # noqa: E402
from ragcore.retrieval.learned_fusion import shipped  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("collection")
    parser.add_argument("--out")
    parser.add_argument("--cache", default=str(ROOT / ".ragcore" / "fusion-cache"))
    args = parser.parse_args()
    model = shipped()
    if any(g.startswith(args.collection) for g in model.trained_on):
        raise SystemExit(f"the shipped weights were fitted on {args.collection}: not a held-out check")
    library = default_library()
    coll = load_all([args.collection], ROOT, ROOT / ".." / "shared", library)[0]
    prep = Prepared(coll, dense_rankings(coll, library, Path(args.cache)))
    label, params = next(iter(shipped_bm25_grid().items()))
    prep.add_bm25(label, params, signals=True)
    learned = fusion.LearnedRule(pin=True, model=model)
    rankers = {
        "bm25": lambda q: prep.bm25[label][q],
        "dense": lambda q: prep.dense[q],
        "rrf k=60": lambda q: fusion.rrf({"bm25": prep.bm25[label][q], "dense": prep.dense[q]}, k=60),
        "query-signal rrf (previous default)": lambda q: fusion.DEFAULT_RULE.fuse(
            prep.bm25[label][q], prep.dense[q], prep.signals[label][q]
        ),
        "hybrid (learned, shipped)": lambda q: learned.fuse(
            prep.bm25[label][q], prep.dense[q], prep.stats[label][q]
        ),
    }
    qids = [q for q, _, _ in coll.questions]
    per_q = {name: [coll.ndcg(q, rank(q)) for q in qids] for name, rank in rankers.items()}
    hybrid = per_q["hybrid (learned, shipped)"]
    out = {
        "collection": coll.name,
        "questions": len(qids),
        "trained_on": list(model.trained_on),
        "ndcg@10": {},
    }
    for name, scores in per_q.items():
        out["ndcg@10"][name] = float(np.mean(scores))
        line = f"{name:38} {np.mean(scores):.3f}"
        if scores is not hybrid:
            c = paired_mean_comparison(hybrid, scores)
            out.setdefault("hybrid_minus", {})[name] = {
                "diff": c.diff,
                "low": c.low,
                "high": c.high,
                "p": c.p,
            }
            line += f"   hybrid - this {c.diff:+.3f} [{c.low:+.3f}, {c.high:+.3f}]"
        print(line)
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
