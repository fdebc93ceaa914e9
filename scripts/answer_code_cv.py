"""Leave-one-group-out choice of ``BM25Params.answer_code_lift``: how much a
question that asks for a code it does not hold ("Which error code ...",
``text.asks_for_identifier``) lifts passages whose sentence or table row
holding a code covers the rest of the question (``bm25_answer_type``).

Grid, written before the run: 0 (off, the baseline), 0.1, 0.25, 0.5, 0.75,
1, 1.5, 2; from session 10 (identdev) each lift with the cue's "core" nouns
and with its "extended" ones (``BM25Params.answer_type_nouns``), so a
setting is a (nouns, lift) pair. A question the cue does not fire on is
ranked exactly as with the lift off (tested), so only the questions it
fires on (with the extended nouns, a superset) are ranked again per
setting. Groups: Cranfield, CISI, Vaswani, the demo gold set by question
type, dev-shared, dev-answers, dev-answers-b, dev-named-parts and
dev-identifiers (the dev sets need ../shared/documents). Scored by nDCG@10 in bm25 and in
the default mode (hybrid: the lift reaches it through BM25's ranking).
Leave one group out: the setting with the best BM25 gain over off on the
other groups (each collection weighted equally, the demo's types sharing
the demo's weight, as for BM25's other settings; ties to the smaller lift)
is scored on the group left out; ties go to the core nouns as well. The
choice by hybrid gain, and the choice among the core settings alone, are
printed too.

    python scripts/answer_code_cv.py [--out eval/results/answer-code-cv.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import lift_cv  # noqa: E402
from fusion_cv import Collection, load_beir_collection, load_gold_collection  # noqa: E402
from lift_cv import MODES, GroupScores, print_group_table  # noqa: E402

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402
from ragcore.retrieval.bm25 import BM25Params  # noqa: E402
from ragcore.text import identifier_answer_words  # noqa: E402

SHARED = ROOT / ".." / "shared"
BEIR = ("cranfield", "cisi", "vaswani")
GOLD = ("demo", "dev-shared", "dev-answers", "dev-answers-b", "dev-named-parts", "dev-identifiers")
GRID = [0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0]
NOUNS = ("core", "extended")
# (nouns, lift) settings; "core 0" is the baseline (the lift off).
SETTINGS = [f"core {s:g}" for s in GRID] + [f"extended {s:g}" for s in GRID[1:]]
BASELINE = SETTINGS[0]


def parse(setting: str) -> tuple[str, float]:
    nouns, lift = setting.split()
    return nouns, float(lift)


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
    the cue fires on with the extended nouns (the only ones ranked again),
    with their answer-type words, marked "(extended)" where the core nouns miss them."""
    corpus_dir = source if source.is_dir() else load_goldset(source).corpus
    # The code units are built whenever the lift is on; the lift itself is read at query time.
    bm25 = replace(BM25Params(), answer_code_lift=GRID[-1], answer_type_nouns="extended")
    retriever = Retriever(load_corpus(corpus_dir, "auto", library), vector_cache=library, bm25_params=bm25)
    base = retriever.bm25.params
    per: lift_cv.Scores = {m: {s: {} for s in SETTINGS} for m in MODES}
    for qid, text, _ in coll.questions:
        retriever.bm25.params = base  # the cue is read with the lift on and the extended nouns
        fires = retriever.bm25.asks_for_code(text) and not retriever.bm25.priority_identifiers(text)
        core = fires and bool(identifier_answer_words(text, "core"))
        if fires:
            words = identifier_answer_words(text, "extended")
            firing[f"{coll.name}/{qid}"] = words if core else [*words, "(extended)"]
        # Only the settings whose cue fires rank the question anew; the rest rank it as the baseline.
        ranked = [s for s in SETTINGS[1:] if fires and (core or s.startswith("extended"))]
        for setting in [BASELINE, *ranked]:
            nouns, lift = parse(setting)
            retriever.bm25.params = replace(base, answer_code_lift=lift, answer_type_nouns=nouns)
            targets = [setting] if setting != BASELINE else [x for x in SETTINGS if x not in ranked]
            lift_cv.record(per, retriever, coll, qid, text, targets)
    retriever.bm25.params = base
    return {g: GroupScores(ids, per) for g, ids in coll.groups.items()}


def folds(
    groups: dict[str, GroupScores], criterion: str = "bm25", settings: list[str] = SETTINGS
) -> list[dict]:
    """Leave one group out, choosing by ``criterion``'s gain (bm25, as for
    BM25's other settings; hybrid printed for the record, since the
    setting also decides the default mode's identifier pins) among
    ``settings`` (ties to the core nouns, then the smaller lift)."""

    def tie(s: str) -> tuple[bool, float]:
        nouns, lift = parse(s)
        return (nouns == "core", -lift)

    return lift_cv.folds(groups, criterion, settings, BASELINE, tie, width=12)


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
    core_folds = folds(groups, "bm25", [s for s in SETTINGS if s.startswith("core")])
    table = print_group_table(groups, SETTINGS)
    if args.out:
        result = {
            "kind": "answer-code-cv",
            "command": f"python scripts/answer_code_cv.py --out {args.out}",
            "grid": GRID,
            "settings": SETTINGS,
            "questions_asking_for_a_code": firing,
            "groups": table,
            "per_question": {
                g: {
                    m: {
                        s: {
                            q: round(gs.scores[m][s][q], 4)
                            for q in gs.questions
                            if f"{g.split(':')[0]}/{q}" in firing
                        }
                        for s in SETTINGS
                    }
                    for m in MODES
                }
                for g, gs in sorted(groups.items())
            },
            "folds": result_folds,
            "folds_by_hybrid": hybrid_folds,
            "folds_core_nouns_only": core_folds,
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
