"""Leave-one-group-out choice of ``BM25Params.identifier_priority``: which
kinds of a query's whole identifiers put the passages holding them first.

The kinds (``text.identifier_kind``): codes ("ISO-27001", "v2.3.1",
"x-15"), numbers run into a word ("1960s", "37signals"), currency amounts
("$1,199") and percentages ("99.9%"). The grid, written before the run:
codes only (the issue's rule, the baseline), off, and codes with each
subset of the other three kinds. A query holding none of a setting's kinds
is ranked exactly as with priority off (tested), so only the questions
holding a known identifier are ranked again per setting.

Groups: Cranfield, CISI, Vaswani, the demo gold set by question type,
dev-shared, dev-answers, dev-answers-b and dev-named-parts (the dev sets
need ../shared/documents). Scored by nDCG@10 in bm25 and in the default
mode (hybrid); the setting decides both BM25's lift and the default
mode's identifier pins (``fusion.identifier_rows``). Leave one group out:
the setting with the best BM25 gain
over the baseline on the other groups (each collection weighted equally,
the demo's types sharing the demo's weight, as for BM25's other settings;
ties to the earlier setting) is scored on the group left out.

    python scripts/identifier_priority_cv.py [--out eval/results/identifier-priority-cv.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import Collection, load_beir_collection, load_gold_collection  # noqa: E402
from lift_cv import GroupScores  # noqa: E402

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402
from ragcore.retrieval.bm25 import BM25Params  # noqa: E402

SHARED = ROOT / ".." / "shared"
BEIR = ("cranfield", "cisi", "vaswani")
GOLD = ("demo", "dev-shared", "dev-answers", "dev-answers-b", "dev-named-parts")
OTHER_KINDS = ("number-word", "amount", "percent")
GRID = ["code", ""] + [
    " ".join(("code", *extra)) for n in (1, 2, 3) for extra in combinations(OTHER_KINDS, n)
]
MODES = ("bm25", "hybrid")


def collections(library) -> list[tuple[Collection, Path]]:
    out = []
    for name in BEIR:
        folder = SHARED / "benchmarks" / name
        if folder.is_dir():
            out.append((load_beir_collection(folder, library), folder))
    for name in GOLD:
        path = ROOT / "eval" / f"{name}.gold.json"
        if name != "demo" and not (SHARED / "documents").is_dir():
            print(f"skipping {name}: ../shared/documents not found")
            continue
        out.append((load_gold_collection(path, library, name, split_types=name == "demo"), path))
    return out


def score_collection(coll: Collection, source: Path, library, firing: dict[str, list[str]]) -> dict:
    """Each group's scores per setting; ``firing`` collects the questions
    that hold a known identifier (the only ones ranked again)."""
    corpus_dir = source if source.is_dir() else load_goldset(source).corpus
    retriever = Retriever(load_corpus(corpus_dir, "auto", library), vector_cache=library)
    base = retriever.bm25.params
    per: dict[str, dict[str, dict[str, float]]] = {m: {s: {} for s in GRID} for m in MODES}
    for qid, text, _ in coll.questions:
        codes = retriever.bm25.known_identifiers(text)
        if codes:
            firing[f"{coll.name}/{qid}"] = codes
        for setting in GRID if codes else GRID[:1]:
            # A query-time setting: the index itself does not depend on it.
            retriever.bm25.params = replace(base, identifier_priority=setting)
            for mode in MODES:
                hits = retriever.search(text, mode, 100).hits
                value = coll.ndcg(qid, [(retriever.row_of(h.passage), h.score) for h in hits])
                targets = GRID if not codes else [setting]
                for s in targets:
                    per[mode][s][qid] = value
    retriever.bm25.params = base
    return {g: GroupScores(ids, per) for g, ids in coll.groups.items()}


def training_gain(
    groups: dict[str, GroupScores], train: list[str], setting: str, mode: str = "bm25"
) -> float:
    """Mean ``mode`` gain of ``setting`` over the baseline on ``train``, each collection weighted equally."""
    by_collection: dict[str, list[float]] = {}
    for g in train:
        gain = groups[g].mean(mode, setting) - groups[g].mean(mode, GRID[0])
        by_collection.setdefault(g.split(":")[0], []).append(gain)
    return float(np.mean([np.mean(v) for v in by_collection.values()]))


def folds(groups: dict[str, GroupScores], criterion: str = "bm25") -> list[dict]:
    """Leave one group out, choosing by ``criterion``'s gain (bm25, as for
    BM25's other settings; hybrid printed for the record, since the
    setting also decides the default mode's identifier pins)."""
    out = []
    names = sorted(groups)
    for held in names:
        train = [g for g in names if g != held]
        best = max(GRID, key=lambda s: (round(training_gain(groups, train, s, criterion), 9), -GRID.index(s)))
        change = {m: groups[held].mean(m, best) - groups[held].mean(m, GRID[0]) for m in MODES}
        out.append({"held_out": held, "chosen": best, "held_out_change": change})
        print(
            f"[by {criterion}] held out {held:>22}: chosen {best!r:32} "
            f"bm25 {change['bm25']:+.4f}  hybrid {change['hybrid']:+.4f}"
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if BM25Params().identifier_priority != GRID[0]:
        print(f"note: the shipped setting is {BM25Params().identifier_priority!r}, the baseline {GRID[0]!r}")
    library = default_library()
    groups: dict[str, GroupScores] = {}
    firing: dict[str, list[str]] = {}
    for coll, source in collections(library):
        groups.update(score_collection(coll, source, library, firing))
        print(
            f"   {coll.name}: {len(coll.questions)} questions, {sum(k.startswith(coll.name + '/') for k in firing)} with a known identifier"
        )
    print("questions holding a known identifier:", json.dumps(firing))
    result_folds = folds(groups)
    hybrid_folds = folds(groups, "hybrid")
    table = {
        g: {m: {s: round(gs.mean(m, s), 4) for s in GRID} for m in MODES} for g, gs in sorted(groups.items())
    }
    for g, row in table.items():
        print(f"{g:>22} " + "  ".join(f"{m} " + " ".join(f"{row[m][s]:.4f}" for s in GRID) for m in MODES))
    if args.out:
        result = {
            "kind": "identifier-priority-cv",
            "command": f"python scripts/identifier_priority_cv.py --out {args.out}",
            "grid": GRID,
            "questions_with_identifiers": firing,
            "groups": table,
            "per_question": {
                g: {
                    m: {
                        s: {
                            q: round(gs.scores[m][s][q], 4)
                            for q in gs.questions
                            if f"{g.split(':')[0]}/{q}" in firing
                        }
                        for s in GRID
                    }
                    for m in MODES
                }
                for g, gs in sorted(groups.items())
            },
            "folds": result_folds,
            "folds_by_hybrid": hybrid_folds,
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
