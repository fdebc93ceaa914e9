"""Why the extractive answer declines: per question, what the decision to answer sees.

    python scripts/answer_declines.py [--gold FILE ...] [--below 1.2] [--k 20] [--out FILE]

A diagnostic, not a study: it chooses nothing. For every question of the
gold sets (retrieved as ``ask`` retrieves it, and again to depth ``--k``)
whose best unit scores below ``--below`` on some part, it prints the best
unit's score (``relevance.Scorer``, the score the abstention threshold
reads) at the top 10 and at depth ``--k``, that unit's sentence similarity
and topic-word coverage, the highest sentence similarity of any unit, the
best passage's dense score, and where the first unit stating one of the
question's answer facts ranks by score (with its score), so that the
declined answerable questions and the unanswerable ones can be compared
signal by signal (docs/decisions.md section 7, session 9).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import answer_study as study  # noqa: E402

from ragcore.answer.answerability import anchor  # noqa: E402
from ragcore.answer.extractive import ANSWER_MIN_SCORE, _unknown_names, question_parts  # noqa: E402
from ragcore.answer.relevance import Scorer, Weights  # noqa: E402
from ragcore.answer.semantic import similarity_for  # noqa: E402
from ragcore.answer.units import answer_units  # noqa: E402
from ragcore.evaluation.answers import normalise  # noqa: E402


def _dense_top(hits) -> float:
    return max(
        (h.trace["dense"].score for h in hits if h.trace and h.trace.get("dense") is not None), default=0.0
    )


def _states_fact(text: str, facts) -> bool:
    said = normalise(text)
    return any(normalise(alternative) in said for fact in facts for alternative in fact)


def read_part(part, hits, documents, facts) -> dict:
    """What the decision to answer sees for one part over ``hits``."""
    units = answer_units(hits, documents)
    scorer = Scorer(units, Weights(), similarity_for(hits))
    ranked = sorted(units, key=lambda u: (-scorer.score(u, part), u.hit_rank, u.position))
    anchored = anchor(part, documents)
    eligible = [u for u in ranked if anchored is None or anchored(u)]
    best = eligible[0] if eligible else None
    fact_rank = next((i for i, u in enumerate(ranked) if _states_fact(u.text, facts)), None)
    return {
        "best": round(scorer.score(best, part), 3) if best else None,
        "best_similarity": round(scorer.closeness(best, part) or 0.0, 3) if best else None,
        "best_coverage": round(scorer.coverage(best, part), 3) if best else None,
        "max_similarity": round(max((scorer.closeness(u, part) or 0.0 for u in units), default=0.0), 3),
        "fact_unit_rank": fact_rank,
        "fact_unit_score": round(scorer.score(ranked[fact_rank], part), 3) if fact_rank is not None else None,
        "best_text": best.text[:100] if best else "",
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gold", type=Path, action="append", help="a gold set (repeat; default the demo's)")
    p.add_argument("--below", type=float, default=1.2, help="show questions with a part scoring below this")
    p.add_argument("--k", type=int, default=20, help="the deeper depth read (default 20)")
    p.add_argument("--out", type=Path, default=None, help="write the rows as JSON")
    args = p.parse_args(argv)
    study.WIDER_K = args.k
    rows = []
    for gold in args.gold or [ROOT / "eval" / "demo.gold.json"]:
        for q in study.retrieve(gold):
            facts = getattr(q.answer, "facts", ()) or ()
            parts = question_parts(q.text)
            unknown = _unknown_names(parts, q.documents, answer_units(q.hits, q.documents))
            for n, (part, missing) in enumerate(zip(parts, unknown, strict=True), 1):
                row = {
                    "id": q.id,
                    "type": q.type,
                    "answerable": getattr(q.answer, "answerable", True),
                    "part": n,
                    "text": part.text,
                    "unknown_names": missing,
                    "dense_top": round(_dense_top(q.hits), 3),
                    "top10": None if missing else read_part(part, q.hits, q.documents, facts),
                    "deeper": None if missing else read_part(part, q.wide_hits, q.documents, facts),
                }
                rows.append(row)
    shown = [
        r for r in rows if r["top10"] and r["top10"]["best"] is not None and r["top10"]["best"] < args.below
    ]
    print(f"threshold {ANSWER_MIN_SCORE}; parts below {args.below} (of {len(rows)}), by score at the top 10:")
    for r in sorted(shown, key=lambda r: r["top10"]["best"]):
        t, d = r["top10"], r["deeper"]
        print(
            f"{r['id']:24} {'answerable' if r['answerable'] else 'UNANSWERABLE':12} part {r['part']}"
            f" best {t['best']:.3f} (k{args.k} {d['best']:.3f}) sim {t['best_similarity']:.3f}"
            f" cov {t['best_coverage']:.3f} max sim {t['max_similarity']:.3f} dense {r['dense_top']:.3f}"
            f" fact unit #{t['fact_unit_rank']} ({t['fact_unit_score']}) k{args.k} #{d['fact_unit_rank']}"
        )
    if args.out:
        out = {"kind": "answer-declines", "threshold": ANSWER_MIN_SCORE, "k": args.k, "rows": rows}
        args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
