"""Leave-one-group-out choice of the unknown-word expansion
(``retrieval.word_neighbours``, ``Retriever.expansion``): a question word no
passage holds is searched by BM25 as its nearest collection words by the
dense model's embedding, each weighted ``weight x similarity``.

Fixed before the first run (session 12, 2026-12-07; before it, only a probe
of five demo questions in bm25 mode was looked at: ident-11 and para-11 gain
their evidence at rank 1, para-03, fact-09 and unans-11 keep their ranking):

- Grid: off (the baseline); weight 0.25, 0.5, 1.0 x similarity floor 0.5,
  0.6, 0.7; three neighbours a word (not tuned). Names are never expanded
  (a structural rule, not tuned).
- Groups: Cranfield, CISI, Vaswani, the demo gold set by question type,
  dev-shared, dev-answers, dev-answers-b, dev-named-parts and
  dev-identifiers (the dev sets need ../shared/documents), as for the
  answer-type lifts (``answer_code_cv.py``, ``answer_value_cv.py``).
- Criterion: the mean gain in nDCG@10 of the default mode (hybrid) over
  off, each collection weighted equally (the demo's types sharing the
  demo's weight); ties go to off, then the smaller weight, then the higher
  floor. The choice by BM25's gain is printed for the record.
- Ship rule: the setting chosen on all groups ships when, held out (each
  group scored at the setting chosen without it), the hybrid change is
  >= 0 on the equally weighted mean over collections, and no group loses
  more than 0.01 of hybrid nDCG@10. Otherwise the expansion stays off.

A question with no unknown word is ranked exactly as with the expansion off
(tested), so only the questions that have one are ranked again per setting.

    python scripts/word_neighbours_cv.py [--out eval/results/word-neighbours-cv.json]
"""

from __future__ import annotations

import argparse
import json
import sys
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
from ragcore.retrieval.word_neighbours import Expansion, unknown_words  # noqa: E402

BASELINE = "off"
GRID = {BASELINE: Expansion()} | {
    f"w{w:g}-s{s:g}": Expansion(weight=w, min_similarity=s) for w in (0.25, 0.5, 1.0) for s in (0.5, 0.6, 0.7)
}
SETTINGS = list(GRID)
MAX_GROUP_LOSS = 0.01


def score_collection(coll: Collection, source: Path, library, firing: dict[str, list[str]]) -> dict:
    """Each group's scores per setting; ``firing`` collects the questions
    holding an unknown word (the only ones ranked again), with those words."""
    corpus_dir = source if source.is_dir() else load_goldset(source).corpus
    retriever = Retriever(load_corpus(corpus_dir, "auto", library), vector_cache=library)
    per: lift_cv.Scores = {m: {s: {} for s in SETTINGS} for m in MODES}
    for qid, text, _ in coll.questions:
        unknown = unknown_words(text, retriever.bm25.params, retriever.bm25.vocab)
        if unknown:
            firing[f"{coll.name}/{qid}"] = unknown
        for setting in SETTINGS if unknown else [BASELINE]:
            retriever.expansion = GRID[setting]
            targets = [setting] if unknown else SETTINGS
            lift_cv.record(per, retriever, coll, qid, text, targets)
    retriever.expansion = GRID[BASELINE]
    return {g: GroupScores(ids, per) for g, ids in coll.groups.items()}


def _tie_key(setting: str) -> tuple[float, float]:
    """Ties: off, then the smaller weight, then the higher floor."""
    e = GRID[setting]
    return (-e.weight, e.min_similarity)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    library = default_library()
    groups: dict[str, GroupScores] = {}
    firing: dict[str, list[str]] = {}
    for coll, source in collections(library):
        groups.update(score_collection(coll, source, library, firing))
        fired = sum(k.startswith(coll.name + "/") for k in firing)
        print(f"   {coll.name}: {len(coll.questions)} questions, {fired} with an unknown word", flush=True)
    found = lift_cv.study(groups, SETTINGS, BASELINE, _tie_key, MAX_GROUP_LOSS, width=10)
    if args.out:
        result = {
            "kind": "word-neighbours-cv",
            "command": f"python scripts/word_neighbours_cv.py --out {args.out}",
            "grid": {name: vars(e) for name, e in GRID.items()},
            "questions_with_unknown_words": firing,
            **found,
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
