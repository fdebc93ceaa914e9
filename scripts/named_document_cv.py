"""Leave-one-group-out choice of ``BM25Params.named_document_boost`` and
``BM25Params.name_initials_in_queries``.

A question that names a document (every word of its name, or its initials:
"the SLA" for sla.md, "the MSA" for master-services-agreement.pdf) has that
document's passages' BM25 scores multiplied by 1 + boost; with initials, a
run of 3-5 query words whose initials are a word of a document's name (or
its initials) also searches them ("request for proposal" -> "rfp"). For
each setting of the grid (written before the run: the boosts, each with
initials off and on) the script scores BM25 and the default
ranker (hybrid) by nDCG@10 on every group: the demo gold set by question
type and the dev-shared gold set (Cranfield, CISI and Vaswani are numbered
records with no name, so no question names one: unchanged by construction).
Leave one group out: the boost with the best BM25 nDCG@10 gain over the
other groups (each collection weighted equally, the demo's types sharing
the demo's weight, as for BM25's other settings; ties to the smaller boost)
is scored on the group left out (ties: the earlier setting of the grid).

    python scripts/named_document_cv.py [--out eval/results/named-document-cv.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import all_qrels, load_goldset, resolve_spans  # noqa: E402
from ragcore.evaluation.metrics.ndcg import ndcg_at_k  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402
from ragcore.retrieval.bm25 import BM25Params  # noqa: E402

BOOSTS = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)
GRID = [(boost, initials) for initials in (False, True) for boost in BOOSTS]
GOLD = {"demo": ROOT / "eval" / "demo.gold.json", "dev-shared": ROOT / "eval" / "dev-shared.gold.json"}
Scores = dict[str, dict[str, list[float]]]  # group -> mode -> nDCG@10 per boost


def study(name: str, library, grid: list[dict[str, object]] | None = None) -> Scores:
    """nDCG@10 per group and mode for each BM25 setting of ``grid``
    (``BM25Params`` fields to replace; this script's grid by default)."""
    settings = (
        grid
        if grid is not None
        else [{"named_document_boost": b, "name_initials_in_queries": i} for b, i in GRID]
    )
    gold = load_goldset(GOLD[name])
    corpus = load_corpus(gold.corpus, "auto", library)
    resolved = resolve_spans(gold, corpus.documents)
    qrels = all_qrels(resolved, corpus.passages, gold.unit)
    judged = [q for q in resolved if any(g > 0 for g in qrels.get(q.id, {}).values())]
    out: Scores = {}
    for setting in settings:
        params = replace(BM25Params(), **setting)  # type: ignore[arg-type]
        retriever = Retriever(corpus, vector_cache=library, bm25_params=params)
        per: dict[tuple[str, str], list[float]] = {}
        for q in judged:
            group = f"{name}:{q.type}" if name == "demo" else name
            for mode in ("bm25", "hybrid"):
                hits = retriever.search(q.text, mode, 10).hits
                per.setdefault((group, mode), []).append(
                    ndcg_at_k([h.passage.id for h in hits], qrels[q.id], 10)
                )
        for (group, mode), values in per.items():
            out.setdefault(group, {}).setdefault(mode, []).append(float(np.mean(values)))
    return out


def training_gain(scores: Scores, groups: list[str], i: int, mode: str = "bm25") -> float:
    """Mean ``mode`` gain of setting ``i`` over setting 0 on ``groups``, each collection weighted equally."""
    by_collection: dict[str, list[float]] = {}
    for g in groups:
        by_collection.setdefault(g.split(":")[0], []).append(scores[g][mode][i] - scores[g][mode][0])
    return float(np.mean([np.mean(v) for v in by_collection.values()]))


def run(grid: list[dict[str, object]], kind: str, command: str, out: Path | None) -> None:
    """Score every setting of ``grid`` on every group, choose by leave one
    group out (``training_gain``; the first setting is the baseline), print
    the folds and the scores, and write them to ``out`` when given."""
    library = default_library()
    scores: Scores = {}
    for name in GOLD:
        if name == "dev-shared" and not (ROOT / ".." / "shared" / "documents").is_dir():
            print("skipping dev-shared: ../shared/documents not found")
            continue
        scores.update(study(name, library, grid))
    groups = sorted(scores)
    folds = []
    for held in groups:
        train = [g for g in groups if g != held]
        best = max(range(len(grid)), key=lambda i: (round(training_gain(scores, train, i), 9), -i))
        change = {m: scores[held][m][best] - scores[held][m][0] for m in ("bm25", "hybrid")}
        folds.append({"held_out": held, "chosen": grid[best], "held_out_change": change})
        print(
            f"held out {held:>20}: chosen {grid[best]}  bm25 {change['bm25']:+.4f}  hybrid {change['hybrid']:+.4f}"
        )
    for g in groups:
        print(
            f"{g:>20} "
            + "  ".join(f"{m} " + " ".join(f"{x:.4f}" for x in scores[g][m]) for m in ("bm25", "hybrid"))
        )
    if out:
        result = {"kind": kind, "command": command, "grid": grid, "groups": scores, "folds": folds}
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    grid: list[dict[str, object]] = [
        {"named_document_boost": b, "name_initials_in_queries": i} for b, i in GRID
    ]
    run(grid, "named-document-cv", f"python scripts/named_document_cv.py --out {args.out}", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
