"""Choose BM25 settings and the default fusion by measurement.

For each collection (the three BEIR benchmarks in ../shared, and the demo
gold set split into its lexical and paraphrase questions) it ranks every
question once per signal, then scores each candidate setting by nDCG@10.
The rule for the default fusion: the highest worst-case margin over the
best single signal across all collections ("never worse than its best
signal, on keyword-heavy and paraphrased questions alike").

    python scripts/fusion_study.py [--collections cranfield,cisi,vaswani,demo] [--json OUT]
    python scripts/fusion_study.py --cv [--collections ...] [--out eval/results/fusion-cv.json]

``--cv`` runs the leave-one-collection-out study of scripts/fusion_cv.py
(the one the defaults are chosen by; the plain run above is in-sample).

Prints tables; writes the figures as JSON with --json (docs/decisions.md
quotes them).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import all_qrels, load_beir, load_goldset, resolve_spans  # noqa: E402
from ragcore.evaluation.metrics.ndcg import ndcg_at_k  # noqa: E402
from ragcore.retrieval import BM25Params, FusionConfig, Retriever  # noqa: E402
from ragcore.retrieval.bm25 import BM25Index  # noqa: E402

SHARED = ROOT / ".." / "shared" / "benchmarks"
DEPTH = 100
DEFAULT_COLLECTIONS = "cranfield,cisi,vaswani,demo"
CV_COLLECTIONS = ["cranfield", "cisi", "vaswani", "demo", "dev-shared"]

BM25_VARIANTS = {
    "k1=1.2 b=0.75, no bonus": BM25Params(heading_weight=0, adjacency_weight=0),
    "k1=0.9 b=0.4, no bonus": BM25Params(k1=0.9, b=0.4, heading_weight=0, adjacency_weight=0),
    "k1=1.2 b=0.75, no stemming": BM25Params(heading_weight=0, adjacency_weight=0, stemming=False),
    "k1=1.2 b=0.75, heading 0.5": BM25Params(heading_weight=0.5, adjacency_weight=0),
    "k1=1.2 b=0.75, adjacency 0.5": BM25Params(heading_weight=0, adjacency_weight=0.5),
    "k1=1.2 b=0.75, both 0.5": BM25Params(heading_weight=0.5, adjacency_weight=0.5),
    "k1=1.2 b=0.75, both 1.0": BM25Params(heading_weight=1.0, adjacency_weight=1.0),
    "k1=0.9 b=0.4, both 0.5": BM25Params(k1=0.9, b=0.4, heading_weight=0.5, adjacency_weight=0.5),
}

FUSIONS = {
    "agreement rrf k=20 (default)": FusionConfig("agreement", 20),
    "agreement rrf k=60": FusionConfig("agreement", 60),
    "rrf k=60": FusionConfig("rrf", 60, {"bm25": 1.0, "dense": 1.0}),
    "rrf k=60 bm25 x0.5": FusionConfig("rrf", 60, {"bm25": 0.5, "dense": 1.0}),
    "rrf k=60 bm25 x0.7": FusionConfig("rrf", 60, {"bm25": 0.7, "dense": 1.0}),
    "rrf k=20 bm25 x0.5": FusionConfig("rrf", 20, {"bm25": 0.5, "dense": 1.0}),
    "convex dense 0.5": FusionConfig("convex", 60, {"bm25": 0.5, "dense": 0.5}),
    "convex dense 0.6": FusionConfig("convex", 60, {"bm25": 0.4, "dense": 0.6}),
    "convex dense 0.7": FusionConfig("convex", 60, {"bm25": 0.3, "dense": 0.7}),
    "convex dense 0.8": FusionConfig("convex", 60, {"bm25": 0.2, "dense": 0.8}),
}


def beir_setup(name: str, library):
    folder = SHARED / name
    beir = load_beir(folder)
    corpus = load_corpus(folder, "auto", library)
    questions = [(q.id, q.text, getattr(q, "type", None)) for q in beir.questions]
    return corpus, questions, beir.qrels, "document"


def demo_setup(library):
    gold = load_goldset(ROOT / "eval" / "demo.gold.json")
    corpus = load_corpus(gold.corpus, "auto", library)
    resolved = resolve_spans(gold, corpus.documents)
    qrels = all_qrels(resolved, corpus.passages, gold.unit)
    questions = [(q.id, q.text, q.type) for q in resolved]
    return corpus, questions, qrels, gold.unit


def ids_of(retriever, rows, unit):
    seen, out = set(), []
    for row in rows:
        p = retriever.passages[row]
        key = p.doc if unit == "document" else p.id
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def study(name, setup, library, out):
    t0 = time.time()
    corpus, questions, qrels, unit = setup
    questions = [q for q in questions if any(g > 0 for g in qrels.get(q[0], {}).values())]
    retriever = Retriever(corpus, vector_cache=library)
    retriever.ensure_dense()
    print(f"\n== {name}: {len(questions)} judged questions, {len(corpus.passages)} passages", flush=True)
    groups = {"all": questions}
    if name == "demo":
        groups = {
            "demo paraphrase": [q for q in questions if q[2] == "paraphrase"],
            "demo lexical": [q for q in questions if q[2] != "paraphrase"],
            "demo all": questions,
        }

    def score(rankings):
        return {
            g: float(np.mean([ndcg_at_k(rankings[q[0]], qrels[q[0]], 10) for q in qs]))
            for g, qs in groups.items()
        }

    # BM25 variants (lexical signal alone)
    bm25_scores = {}
    for label, params in BM25_VARIANTS.items():
        index = BM25Index.from_texts(
            (p.text for p in corpus.passages), [p.label for p in corpus.passages], params
        )
        rankings = {
            q[0]: ids_of(retriever, [r for r, _ in index.search(q[1], DEPTH)], unit) for q in questions
        }
        bm25_scores[label] = score(rankings)
    # Signals and fusions with the current default BM25
    bm = {q[0]: retriever.bm25.search(q[1], DEPTH) for q in questions}
    dn = {q[0]: retriever._dense_ranking(q[1], DEPTH) for q in questions}
    results = {
        "bm25": score({q: ids_of(retriever, [r for r, _ in bm[q]], unit) for q in bm}),
        "dense": score({q: ids_of(retriever, [r for r, _ in dn[q]], unit) for q in dn}),
    }
    for label, cfg in FUSIONS.items():
        fused = {
            q: ids_of(retriever, [r for r, _ in cfg.fuse({"bm25": bm[q], "dense": dn[q]})], unit) for q in bm
        }
        results[label] = score(fused)
    for g in groups:
        best = max(results["bm25"][g], results["dense"][g])
        print(f"-- {g}   (best single signal {best:.3f})")
        for label, s in bm25_scores.items():
            print(f"   BM25 {label:34} {s[g]:.3f}")
        for label, s in results.items():
            print(f"   {label:39} {s[g]:.3f}   {s[g] - best:+.3f} vs best signal")
        out[g if name == "demo" else name] = {
            "bm25_variants": {k: v[g] for k, v in bm25_scores.items()},
            "rankers": {k: v[g] for k, v in results.items()},
            "questions": len(groups[g]),
        }
    print(f"   ({time.time() - t0:.0f} s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--collections", default=DEFAULT_COLLECTIONS)
    parser.add_argument("--json")
    parser.add_argument("--cv", action="store_true", help="leave-one-collection-out cross-validation")
    parser.add_argument("--out", help="--cv: write the figures as JSON here")
    parser.add_argument(
        "--bm25",
        choices=("grid", "shipped"),
        default="grid",
        help="--cv: choose BM25's settings over the whole grid in every fold, or keep the shipped ones",
    )
    parser.add_argument(
        "--cache", default=str(ROOT / ".ragcore" / "fusion-cache"), help="--cv: ranking cache"
    )
    parser.add_argument(
        "--no-learned",
        action="store_true",
        help="--cv: leave the learned fusion (the slowest family to fit) out of the candidates",
    )
    args = parser.parse_args()
    if args.cv:
        from fusion_cv import cv_main

        names = args.collections.split(",") if args.collections != DEFAULT_COLLECTIONS else CV_COLLECTIONS
        out = Path(args.out) if args.out else None
        return cv_main(names, ROOT, SHARED.parent, Path(args.cache), out, args.bm25, not args.no_learned)
    library = default_library()
    out: dict = {}
    for name in args.collections.split(","):
        if name == "demo":
            study("demo", demo_setup(library), library, out)
        elif (SHARED / name).is_dir():
            study(name, beir_setup(name, library), library, out)
        else:
            print(f"skipping {name}: ../shared/benchmarks/{name} not found")
    margins = {}
    for label in FUSIONS:
        per = {
            coll: r["rankers"][label] - max(r["rankers"]["bm25"], r["rankers"]["dense"])
            for coll, r in out.items()
            if coll not in ("demo all",)
        }
        margins[label] = per
    print("\n== worst-case margin over the best single signal (higher is better)")
    for label, per in sorted(margins.items(), key=lambda kv: -min(kv[1].values())):
        print(
            f"   {label:24} worst {min(per.values()):+.3f}   "
            + "  ".join(f"{c} {m:+.3f}" for c, m in per.items())
        )
    if args.json:
        Path(args.json).write_text(json.dumps({"collections": out, "margins": margins}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
