"""The answer-type lift on a held-out set of identifier questions
(eval/dev-identifiers.gold.json by default, over ../shared/documents):
per question, whether the cue (``BM25Index.asks_for_code`` without a code
in the question) fires, the rank of the first grade-2 passage in bm25 and
in the default mode (hybrid), and nDCG@10 in both, with the lift at its
shipped setting and off. A question the cue does not fire on ranks the same
either way (tested), so the "off" columns differ only where it fires.

    python scripts/identifier_dev_ranks.py [--gold eval/dev-identifiers.gold.json] [--out FILE]
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
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import load_gold_collection  # noqa: E402

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402

DEPTH = 100
MODES = ("bm25", "hybrid")


def measure(retriever: Retriever, coll, qid: str, text: str) -> dict:
    """Rank of the first grade-2 passage (999 when none in the top ``DEPTH``) and nDCG@10, per mode."""
    out: dict = {}
    graded = coll.qrels[qid]
    for mode in MODES:
        hits = retriever.search(text, mode, DEPTH).hits
        ranking = [(retriever.row_of(h.passage), h.score) for h in hits]
        keys = coll.keys(row for row, _ in ranking)
        rank = next((i + 1 for i, k in enumerate(keys) if graded.get(k, 0) >= 2), 999)
        out[mode] = {"rank": rank, "ndcg10": round(coll.ndcg(qid, ranking), 4)}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=ROOT / "eval" / "dev-identifiers.gold.json")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    library = default_library()
    coll = load_gold_collection(args.gold, library, args.gold.stem, split_types=False)
    retriever = Retriever(load_corpus(load_goldset(args.gold).corpus, "auto", library), vector_cache=library)
    shipped = retriever.bm25.params
    lift = shipped.answer_code_lift
    rows = {}
    for qid, text, _ in coll.questions:
        fires = retriever.bm25.asks_for_code(text) and not retriever.bm25.priority_identifiers(text)
        on = measure(retriever, coll, qid, text)
        retriever.bm25.params = replace(shipped, answer_code_lift=0.0)
        off = measure(retriever, coll, qid, text) if fires else on
        retriever.bm25.params = shipped
        rows[qid] = {"text": text, "cue_fires": bool(fires), "lift_on": on, "lift_off": off}
        print(
            f"{qid} fires={int(fires)} bm25 rank {on['bm25']['rank']:>3} (off {off['bm25']['rank']:>3}) "
            f"hybrid rank {on['hybrid']['rank']:>3} (off {off['hybrid']['rank']:>3}) "
            f"nDCG@10 bm25 {on['bm25']['ndcg10']:.3f} hybrid {on['hybrid']['ndcg10']:.3f}"
        )
    summary = {
        "questions": len(rows),
        "cue_fires": sum(r["cue_fires"] for r in rows.values()),
        "lift": lift,
    }
    for state in ("lift_on", "lift_off"):
        for mode in MODES:
            ranks = [r[state][mode]["rank"] for r in rows.values()]
            summary[f"{state}_{mode}_at1"] = sum(k == 1 for k in ranks)
            summary[f"{state}_{mode}_top3"] = sum(k <= 3 for k in ranks)
            summary[f"{state}_{mode}_ndcg10"] = round(
                float(np.mean([r[state][mode]["ndcg10"] for r in rows.values()])), 4
            )
    print(json.dumps(summary, indent=1))
    if args.out:
        result = {
            "kind": "identifier-dev-ranks",
            "gold": str(args.gold.relative_to(ROOT)),
            "summary": summary,
            "questions": rows,
        }
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
