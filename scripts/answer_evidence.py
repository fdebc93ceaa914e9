"""Where the unit stating a question's fact is, read three ways.

    python scripts/answer_evidence.py [--gold FILE ...] [--max-units 5000] [--out FILE]

A diagnostic for the extractive answer's wrongly declined questions
(docs/decisions.md section 7, session 10); it chooses nothing. For every
part of every question with an answer key, retrieved as ``ask`` retrieves
it:

- **top 10**: the units of the hybrid top 10 (what the answer reads), the
  best unit's score (``relevance.Scorer``, what the threshold reads) and the
  rank by score of the first unit stating one of the question's facts;
- **with dense's own top 10**: the same over the hybrid top 10 joined by
  the passages of dense retrieval's own top 10 that it lacks (ranked after
  them), since paraphrased questions are dense retrieval's strength;
- **sentence similarity over the collection** (collections of at most
  ``--max-units`` units): the rank of the first fact-stating unit among all
  the collection's units by the answer's sentence similarity alone (MiniLM,
  question part against unit), i.e. whether ranking units rather than
  passages would bring the fact.

Unanswerable questions get the first two best scores, so that what a
wider reading adds to them is seen beside what it adds to the answerable.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.answer.extractive import question_parts  # noqa: E402
from ragcore.answer.relevance import Part, Scorer, Weights  # noqa: E402
from ragcore.answer.semantic import Similarity, similarity_for  # noqa: E402
from ragcore.answer.units import Unit, answer_units  # noqa: E402
from ragcore.evaluation.answer_run import ASK_K  # noqa: E402
from ragcore.evaluation.answers import normalise  # noqa: E402
from ragcore.evaluation.goldset import load_goldset  # noqa: E402
from ragcore.records import Document, Hit  # noqa: E402


def states_fact(text: str, facts: Sequence[Sequence[str]]) -> bool:
    said = normalise(text)
    return any(normalise(alternative) in said for fact in facts for alternative in fact)


def with_dense(hits: Sequence[Hit], dense: Sequence[Hit]) -> list[Hit]:
    """``hits`` and then dense's own hits they lack, ranked after them."""
    key = lambda h: (h.passage.doc, h.passage.first_line, h.passage.last_line)  # noqa: E731
    seen = {key(h) for h in hits}
    extra = [h for h in dense if key(h) not in seen]
    return [*hits, *(dataclasses.replace(h, rank=len(hits) + i + 1) for i, h in enumerate(extra))]


def read(part: Part, hits: Sequence[Hit], documents: Mapping[str, Document], facts) -> dict:
    units = answer_units(hits, documents)
    scorer = Scorer(units, Weights(), similarity_for(hits))
    ranked = sorted(units, key=lambda u: (-scorer.score(u, part), u.hit_rank, u.position))
    rank = next((i for i, u in enumerate(ranked) if states_fact(u.text, facts)), None)
    return {
        "passages": len(hits),
        "best": round(scorer.score(ranked[0], part), 3) if ranked else None,
        "fact_unit_rank": rank,
        "fact_unit_score": round(scorer.score(ranked[rank], part), 3) if rank is not None else None,
    }


def by_similarity(part: Part, units: Sequence[Unit], similarity: Similarity, facts) -> dict:
    scores = similarity(part.text, [u.text for u in units])
    order = sorted(range(len(units)), key=lambda i: -scores[i])
    rank = next((r for r, i in enumerate(order) if states_fact(units[i].text, facts)), None)
    return {
        "units": len(units),
        "top_similarity": round(scores[order[0]], 3) if order else None,
        "fact_unit_rank": rank,
        "fact_unit_similarity": round(scores[order[rank]], 3) if rank is not None else None,
    }


def study(gold_path: Path, max_units: int) -> list[dict]:
    from ragcore.cli import make_retriever, open_corpus

    gold = load_goldset(gold_path)
    args = argparse.Namespace(corpus=str(gold.corpus), library=None, collection="uploads", chunking="auto")
    corpus, library = open_corpus(args)
    retriever = make_retriever(corpus, library)
    everything: list[Unit] | None = None
    rows = []
    for q in gold.questions:
        if q.answer is None:
            continue
        hits = list(retriever.search(q.text, None, ASK_K).hits)
        dense = list(retriever.search(q.text, "dense", ASK_K).hits)
        similarity = similarity_for(hits)
        if everything is None and similarity is not None and hits:
            every_hit = [Hit(p, i + 1, 0.0, dict(hits[0].trace)) for i, p in enumerate(corpus.passages)]
            everything = answer_units(every_hit, corpus.documents)
            if len(everything) > max_units:
                everything = []
        facts = getattr(q.answer, "facts", ()) or ()
        for n, part in enumerate(question_parts(q.text), 1):
            row = {
                "id": f"{gold.name}:{q.id}",
                "type": q.type,
                "answerable": getattr(q.answer, "answerable", True),
                "part": n,
                "top10": read(part, hits, corpus.documents, facts),
                "with_dense": read(part, with_dense(hits, dense), corpus.documents, facts),
            }
            if facts and everything and similarity is not None:
                row["collection_by_similarity"] = by_similarity(part, everything, similarity, facts)
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gold", type=Path, action="append", help="a gold set (repeat; default the demo's)")
    p.add_argument("--max-units", type=int, default=5000, help="rank units over collections up to this size")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    rows = [r for g in args.gold or [ROOT / "eval" / "demo.gold.json"] for r in study(g, args.max_units)]
    for r in rows:
        t, w, c = r["top10"], r["with_dense"], r.get("collection_by_similarity")
        print(
            f"{r['id']:24} {'A' if r['answerable'] else 'U'} part {r['part']} best {t['best']}"
            f" fact #{t['fact_unit_rank']} | +dense ({w['passages']} passages) best {w['best']}"
            f" fact #{w['fact_unit_rank']}"
            + (f" | by similarity over {c['units']} units: fact #{c['fact_unit_rank']}" if c else "")
        )
    if args.out:
        out = {"kind": "answer-evidence", "k": ASK_K, "rows": rows}
        args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
