"""Ranks of the evidence of the demo gold set's identifier and multi-part
questions (docs/decisions.md section 1 quotes them).

Identifier questions: rank of the first grade-2 passage in bm25 and hybrid.
Multi-part questions: for each part (judgements with "part"), the rank of
its first grade-2 passage in hybrid for the whole question ("whole") and
with the question split and merged (``query.rank_by_parts``, "split").

    python scripts/part_and_code_ranks.py
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset, qrels_for, resolve_spans  # noqa: E402
from ragcore.retrieval import fusion  # noqa: E402
from ragcore.retrieval.bm25 import BM25Index, top_k  # noqa: E402
from ragcore.retrieval.embedding import get_embedder  # noqa: E402
from ragcore.retrieval.query import rank_by_parts  # noqa: E402
from ragcore.retrieval.vectors import passage_vectors  # noqa: E402


def main() -> int:
    library = default_library()
    gold = load_goldset(ROOT / "eval" / "demo.gold.json")
    corpus = load_corpus(gold.corpus, "auto", library)
    passages = corpus.passages
    embedder = get_embedder()
    vectors, _ = passage_vectors(passages, embedder, library)
    index = BM25Index.from_passages(passages)

    def dense(q: str):
        scores = vectors @ np.asarray(embedder.embed_query(q), dtype=np.float32)
        return [(r, s - 2.0) for r, s in top_k(scores.astype(np.float64) + 2.0, 100)]

    def hybrid(q: str):
        bm, dn = index.search(q, 100), dense(q)
        return fusion.DEFAULT_RULE.fuse(bm, dn, fusion.query_signals(index, q, bm, dn))

    def rank_of(ranking, question, spans) -> int:
        ids = {pid for pid, g in qrels_for(replace(question, spans=tuple(spans)), passages).items() if g == 2}
        return next((i for i, (row, _) in enumerate(ranking, 1) if passages[row].id in ids), 999)

    raw = {q.id: q for q in gold.questions}
    for q in resolve_spans(gold, corpus.documents):
        if q.type == "identifier":
            ranks = {
                m: rank_of(f(q.text), q, q.spans)
                for m, f in (("bm25", lambda t: index.search(t, 100)), ("hybrid", hybrid))
            }
            print(f"{q.id} identifier  bm25 {ranks['bm25']}  hybrid {ranks['hybrid']}")
        elif q.type == "multi-part":
            judgements = raw[q.id].judgements
            parts = sorted({j.part for j in judgements if j.part})
            whole = hybrid(q.text)
            split = rank_by_parts(q.text, hybrid) or whole
            row = []
            for label, ranking in (("whole", whole), ("split", split)):
                ranks = [
                    rank_of(
                        ranking,
                        q,
                        [s for s, j in zip(q.spans, judgements, strict=True) if j.part == p and j.grade == 2],
                    )
                    for p in parts
                ]
                row.append(f"{label} {ranks}")
            print(f"{q.id} multi-part  " + "  ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
