"""Leave-one-group-out choice of ``BM25Params.answer_code_lift``: how much a
question that asks for a code it does not hold ("Which error code ...",
``text.asks_for_identifier``) lifts passages whose sentence or table row
holding a code covers the rest of the question (``bm25_answer_type``).

Grid, written before the run: 0 (off, the baseline), 0.1, 0.25, 0.5, 0.75,
1, 1.5, 2. A question the cue does not fire on is ranked exactly as with
the lift off (tested), so only the questions it fires on are ranked again
per setting. Groups: Cranfield, CISI, Vaswani, the demo gold set by
question type, dev-shared, dev-answers, dev-answers-b and dev-named-parts
(the dev sets need ../shared/documents). Scored by nDCG@10 in bm25 and in
the default mode (hybrid: the lift reaches it through BM25's ranking).
Leave one group out: the setting with the best BM25 gain over off on the
other groups (each collection weighted equally, the demo's types sharing
the demo's weight, as for BM25's other settings; ties to the smaller lift)
is scored on the group left out; the choice by hybrid gain is printed too.

    python scripts/answer_code_cv.py [--out eval/results/answer-code-cv.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import Collection, load_beir_collection, load_gold_collection  # noqa: E402

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402
from ragcore.retrieval.bm25 import BM25Params  # noqa: E402
from ragcore.text import identifier_answer_words  # noqa: E402

SHARED = ROOT / ".." / "shared"
BEIR = ("cranfield", "cisi", "vaswani")
GOLD = ("demo", "dev-shared", "dev-answers", "dev-answers-b", "dev-named-parts")
GRID = [0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]
MODES = ("bm25", "hybrid")


@dataclass
class GroupScores:
    """nDCG@10 per question of one group, per mode and setting."""

    questions: list[str]
    scores: dict[str, dict[float, dict[str, float]]] = field(default_factory=dict)  # mode -> setting -> qid

    def mean(self, mode: str, setting: float) -> float:
        return float(np.mean([self.scores[mode][setting][q] for q in self.questions]))


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
    the cue fires on (the only ones ranked again), with their answer-type words."""
    corpus_dir = source if source.is_dir() else load_goldset(source).corpus
    # The code units are built whenever the lift is on; the lift itself is read at query time.
    bm25 = replace(BM25Params(), answer_code_lift=GRID[-1])
    retriever = Retriever(load_corpus(corpus_dir, "auto", library), vector_cache=library, bm25_params=bm25)
    base = retriever.bm25.params
    per: dict[str, dict[float, dict[str, float]]] = {m: {s: {} for s in GRID} for m in MODES}
    for qid, text, _ in coll.questions:
        retriever.bm25.params = base  # the cue is read with the lift on
        fires = retriever.bm25.asks_for_code(text) and not retriever.bm25.priority_identifiers(text)
        if fires:
            firing[f"{coll.name}/{qid}"] = identifier_answer_words(text)
        for setting in GRID if fires else GRID[:1]:
            retriever.bm25.params = replace(base, answer_code_lift=setting)
            for mode in MODES:
                hits = retriever.search(text, mode, 100).hits
                value = coll.ndcg(qid, [(retriever.row_of(h.passage), h.score) for h in hits])
                targets = GRID if not fires else [setting]
                for s in targets:
                    per[mode][s][qid] = value
    retriever.bm25.params = base
    return {g: GroupScores(ids, per) for g, ids in coll.groups.items()}


def training_gain(
    groups: dict[str, GroupScores], train: list[str], setting: float, mode: str = "bm25"
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
            f"[by {criterion}] held out {held:>22}: chosen {best:<5g} "
            f"bm25 {change['bm25']:+.4f}  hybrid {change['hybrid']:+.4f}"
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    print(f"shipped setting: {BM25Params().answer_code_lift}")
    library = default_library()
    groups: dict[str, GroupScores] = {}
    firing: dict[str, list[str]] = {}
    for coll, source in collections(library):
        groups.update(score_collection(coll, source, library, firing))
        print(
            f"   {coll.name}: {len(coll.questions)} questions, {sum(k.startswith(coll.name + '/') for k in firing)} asking for a code"
        )
    print("questions asking for a code:", json.dumps(firing))
    result_folds = folds(groups)
    hybrid_folds = folds(groups, "hybrid")
    table = {
        g: {m: {str(s): round(gs.mean(m, s), 4) for s in GRID} for m in MODES}
        for g, gs in sorted(groups.items())
    }
    for g, row in table.items():
        print(
            f"{g:>22} " + "  ".join(f"{m} " + " ".join(f"{row[m][str(s)]:.4f}" for s in GRID) for m in MODES)
        )
    if args.out:
        result = {
            "kind": "answer-code-cv",
            "command": f"python scripts/answer_code_cv.py --out {args.out}",
            "grid": GRID,
            "questions_asking_for_a_code": firing,
            "groups": table,
            "per_question": {
                g: {
                    m: {
                        str(s): {
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
