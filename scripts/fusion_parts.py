"""Multi-part questions in the cross-validation (scripts/fusion_cv.py).

A question that ``ragcore.retrieval.query.retrieval_parts`` cuts into
parts (with the retriever's ``PART_MIN_OWN_WORDS``) is ranked per part
(``part_queries``) and as a whole, each with the fusion under test, and the
rankings merged by ``merge_part_rankings`` with the retriever's
``PART_HEAD`` and ``PART_LEAD``, as ``Retriever(split_parts=True)`` does. Whether the
retriever splits, and its part rule, are chosen by
``scripts/part_split_cv.py`` (the parts helper's cross-validation); here
the held-out group is scored as the retriever ships (``shipped_split``),
and the gain of each carry rule is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ragcore.retrieval import fusion
from ragcore.retrieval.learned_fusion import FusionStats
from ragcore.retrieval.query import CARRIES, merge_part_rankings, part_queries, retrieval_parts
from ragcore.retrieval.retriever import PART_CARRY, PART_HEAD, PART_LEAD, PART_MIN_OWN_WORDS, SPLIT_PARTS

Ranking = list[tuple[int, float]]
AnyFuser = Callable[[Ranking, Ranking, fusion.QuerySignals, FusionStats], Ranking]


@dataclass
class PartQuery:
    """One part query's two rankings and what the fusions need of it."""

    bm25: Ranking
    dense: Ranking
    signals: fusion.QuerySignals
    stats: FusionStats


def part_texts(questions: list[tuple[str, str, str]], carry: str) -> dict[str, list[str]]:
    """qid -> the queries searched for its parts (only questions that split)."""
    out = {}
    for qid, text, _ in questions:
        parts = retrieval_parts(text, PART_MIN_OWN_WORDS)
        if len(parts) > 1:
            out[qid] = part_queries(parts, carry)
    return out


def prepare_parts(prep, label: str, dense_of: Callable[[list[str]], dict[str, Ranking]]) -> None:
    """Rank every part query of ``prep``'s questions (BM25 ``label``, whose
    index ``prep.indexes[label]`` holds) and keep them in ``prep.parts``."""
    index = prep.indexes[label]
    texts = {carry: part_texts(prep.coll.questions, carry) for carry in CARRIES}
    dense = dense_of(sorted({t for by_q in texts.values() for ts in by_q.values() for t in ts}))
    prep.parts[label] = {}
    for carry, by_q in texts.items():
        parts: dict[str, list[PartQuery]] = {}
        for qid, queries in by_q.items():
            parts[qid] = []
            for t in queries:
                bm, dn = index.search(t, 100), dense[t]
                sig, st = fusion.query_signals(index, t, bm, dn), fusion.fusion_stats(index, t, bm, dn)
                parts[qid].append(PartQuery(bm, dn, sig, st))
        prep.parts[label][carry] = parts


def split_per_question(prep, label: str, fuse: AnyFuser, qids: list[str], carry: str) -> dict[str, float]:
    """nDCG@10 per question with multi-part questions split and merged."""
    out = {}
    for qid in qids:
        whole = fuse(prep.bm25[label][qid], prep.dense[qid], prep.signals[label][qid], prep.stats[label][qid])
        pieces = prep.parts[label][carry].get(qid)
        if pieces:
            ranked = [fuse(p.bm25, p.dense, p.signals, p.stats) for p in pieces]
            whole = merge_part_rankings(ranked, whole, head=PART_HEAD, lead=PART_LEAD)
        out[qid] = prep.coll.ndcg(qid, whole)
    return out


def split_gain(preps, label: str, fuse: AnyFuser, groups: list[str]) -> dict[str, dict[str, float]]:
    """group -> {"off": mean nDCG@10 without splitting, carry: with splitting}."""
    out = {}
    for prep in preps:
        for g, qids in prep.coll.groups.items():
            if g not in groups:
                continue
            plain = {}
            for qid in qids:
                ranking = fuse(
                    prep.bm25[label][qid], prep.dense[qid], prep.signals[label][qid], prep.stats[label][qid]
                )
                plain[qid] = prep.coll.ndcg(qid, ranking)
            out[g] = {"off": float(np.mean(list(plain.values())))}
            for carry in CARRIES:
                split = split_per_question(prep, label, fuse, qids, carry)
                out[g][carry] = float(np.mean(list(split.values())))
    return out


def shipped_split() -> str:
    """The retriever's split as shipped: its carry rule, or "off"."""
    return PART_CARRY if SPLIT_PARTS else "off"


def choose_split(gains: dict[str, dict[str, float]], train: list[str]) -> str:
    """ "off" or the carry rule with the largest mean gain over the training
    groups (a rule must gain to be chosen)."""
    mean = {c: float(np.mean([gains[h][c] - gains[h]["off"] for h in train])) for c in CARRIES}
    best = max(CARRIES, key=lambda c: (mean[c], c))
    return best if mean[best] > 0 else "off"
