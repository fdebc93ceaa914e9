"""Ranks of the evidence of the demo gold set's identifier and multi-part
questions, as ``search`` returns them (docs/decisions.md section 1 quotes them).

Identifier questions: rank of the first grade-2 passage in bm25 and in the
default mode (hybrid). Multi-part questions: for each part (judgements with
"part"), the rank of its first grade-2 passage in the default mode, which
splits and merges multi-part questions inside the retriever ("search"), and
with splitting off ("whole").

    python scripts/part_and_code_ranks.py
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset, qrels_for, resolve_spans  # noqa: E402
from ragcore.retrieval import Retriever  # noqa: E402

DEPTH = 100


def main() -> int:
    library = default_library()
    gold = load_goldset(ROOT / "eval" / "demo.gold.json")
    corpus = load_corpus(gold.corpus, "auto", library)
    passages = corpus.passages
    retriever = Retriever(corpus, vector_cache=library)
    whole_only = Retriever(corpus, vector_cache=library, split_parts=False)

    def rank_of(hits, question, spans) -> int:
        ids = {pid for pid, g in qrels_for(replace(question, spans=tuple(spans)), passages).items() if g == 2}
        return next((h.rank for h in hits if h.passage.id in ids), 999)

    raw = {q.id: q for q in gold.questions}
    failures = 0
    for q in resolve_spans(gold, corpus.documents):
        if q.type == "identifier":
            bm = rank_of(retriever.search(q.text, "bm25", DEPTH).hits, q, q.spans)
            hy = rank_of(retriever.search(q.text, "hybrid", DEPTH).hits, q, q.spans)
            failures += bm > 1 or hy > 3
            print(f"{q.id} identifier  bm25 {bm}  hybrid {hy}")
        elif q.type == "multi-part":
            judgements = raw[q.id].judgements
            parts = sorted({j.part for j in judgements if j.part})
            row = []
            for label, r in (("search", retriever), ("whole", whole_only)):
                hits = r.search(q.text, "hybrid", DEPTH).hits
                ranks = [
                    rank_of(
                        hits,
                        q,
                        [s for s, j in zip(q.spans, judgements, strict=True) if j.part == p and j.grade == 2],
                    )
                    for p in parts
                ]
                if label == "search":
                    failures += any(rank > 5 for rank in ranks)
                row.append(f"{label} {ranks}")
            print(f"{q.id} multi-part  " + "  ".join(row))
    print(
        f"questions missing their target (identifier: bm25 rank 1, hybrid top 3; multi-part: each part top 5): {failures}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
