"""Leave-one-group-out choice of ``BM25Params.answer_value_lift`` (``--lift
value``) or ``answer_label_lift`` (``--lift label``): how much a question
that asks for a value it does not state ("What uptime does the SLA
promise?", "How long ...", "How much ...": ``answer_types.asked_value``),
or for a document part by its label ("Which clause ...":
``answer_types.asked_label``), lifts passages whose sentence or table row
stating a value of that kind, or naming that part by a label, covers the
rest of the question (``retrieval.bm25_answer_type``).

Fixed before the first run of each (session 11, 2026-12-07; the label lift
was written while the value lift's run was under way, before any of its
figures were seen):

- Grid: 0 (off, the baseline), 0.1, 0.25, 0.5, 0.75, 1.
- Groups: Cranfield, CISI, Vaswani, the demo gold set by question type,
  dev-shared, dev-answers, dev-answers-b, dev-named-parts and
  dev-identifiers (the dev sets need ../shared/documents), as for the
  answer-type lift (``answer_code_cv.py``).
- Criterion: the mean gain in nDCG@10 of the default mode (hybrid) over the
  lift off, each collection weighted equally (the demo's types sharing the
  demo's weight); ties go to the smaller lift. The choice by BM25's gain is
  printed for the record.
- Ship rule: the setting chosen on all groups ships when, held out (each
  group scored at the setting chosen without it), the hybrid change is
  >= 0 on the equally weighted mean over collections, and no group loses
  more than 0.01 of hybrid nDCG@10. Otherwise the lift stays off.

A question the cue does not fire on is ranked exactly as with the lift off
(tested), so only the questions it fires on are ranked again per setting.

    python scripts/answer_value_cv.py [--lift value|label] [--out eval/results/answer-value-cv.json]
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
from answer_code_cv import collections  # noqa: E402
from fusion_cv import Collection  # noqa: E402
from lift_cv import MODES, GroupScores  # noqa: E402

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402
from ragcore.retrieval.bm25 import BM25Params  # noqa: E402

GRID = [0.0, 0.1, 0.25, 0.5, 0.75, 1.0]
SETTINGS = [f"{s:g}" for s in GRID]
BASELINE = SETTINGS[0]
MAX_GROUP_LOSS = 0.01


def score_collection(coll: Collection, source: Path, library, firing: dict[str, str], lift: str) -> dict:
    """Each group's scores per setting; ``firing`` collects the questions the
    cue fires on (the only ones ranked again), with the value kind asked for."""
    corpus_dir = source if source.is_dir() else load_goldset(source).corpus
    # The value units are built whenever the lift is on; the lift itself is read at query time.
    field = f"answer_{lift}_lift"
    bm25 = replace(BM25Params(), **{field: GRID[-1]})
    retriever = Retriever(load_corpus(corpus_dir, "auto", library), vector_cache=library, bm25_params=bm25)
    base = retriever.bm25.params
    per: lift_cv.Scores = {m: {s: {} for s in SETTINGS} for m in MODES}
    for qid, text, _ in coll.questions:
        retriever.bm25.params = base
        asked = retriever.bm25.asked_type(text)
        cue = asked[1] if asked and asked[0] == lift else None
        if cue:
            firing[f"{coll.name}/{qid}"] = cue
        for setting in SETTINGS if cue else [BASELINE]:
            retriever.bm25.params = replace(base, **{field: float(setting)})
            targets = [setting] if cue else SETTINGS
            lift_cv.record(per, retriever, coll, qid, text, targets)
    retriever.bm25.params = base
    return {g: GroupScores(ids, per) for g, ids in coll.groups.items()}


def _smaller_lift(setting: str) -> tuple[float]:
    return (-float(setting),)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lift", choices=("value", "label"), default="value")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    print(f"shipped setting: {getattr(BM25Params(), f'answer_{args.lift}_lift')}")
    library = default_library()
    groups: dict[str, GroupScores] = {}
    firing: dict[str, str] = {}
    for coll, source in collections(library):
        groups.update(score_collection(coll, source, library, firing, args.lift))
        fired = sum(k.startswith(coll.name + "/") for k in firing)
        print(
            f"   {coll.name}: {len(coll.questions)} questions, {fired} asking for a {args.lift}", flush=True
        )
    found = lift_cv.study(groups, SETTINGS, BASELINE, _smaller_lift, MAX_GROUP_LOSS, width=5)
    if args.out:
        result = {
            "kind": f"answer-{args.lift}-cv",
            "command": f"python scripts/answer_value_cv.py --lift {args.lift} --out {args.out}",
            "grid": GRID,
            "questions_asked": firing,
            **found,
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
