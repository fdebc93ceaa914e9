"""Cross-validation of the multi-part split used by the retriever.

For every question that ``split_question`` cuts, the default ranker (hybrid)
ranks the whole question and each part; a rule = (carry, head, min own
words, part fusion) merges them (``query.part_queries``,
``query.merge_part_rankings``, ``query.retrieval_parts``). The part fusion
is how each part's BM25 and dense lists are fused: as the whole question's
(the shipped gate), or, for a part query of at most ``short`` content words,
a convex combination (theoretical min-max, identifier pins kept) with dense
weighted ``w`` (session 7: a short part gives dense little to embed). Each
rule's gain is its nDCG@10 minus the whole question's, averaged over every
question of a group (a question that the rule keeps whole gains 0). Groups:
Cranfield, CISI, the demo gold set by question type, dev-shared,
dev-named-parts, dev-answers, dev-answers-b (Vaswani has no question that
splits).

Leave one group out: the rule with the largest mean gain over the other
groups (or no splitting when none gains) is scored on the held-out group.
Also printed: for the questions judged per part (judgements with "part"),
how many parts have a grade-2 passage in the top 5 under each rule.

    python scripts/part_split_cv.py [--out eval/results/part-split-cv-session7.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from dataclasses import replace
from itertools import product
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import Collection, load_all, load_gold_collection  # noqa: E402

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.evaluation.goldset import load_goldset, qrels_for, resolve_spans  # noqa: E402
from ragcore.evaluation.metrics.ndcg import ndcg_at_k  # noqa: E402
from ragcore.retrieval import Retriever, fusion  # noqa: E402
from ragcore.retrieval.query import (  # noqa: E402
    CARRIES,
    merge_part_rankings,
    part_queries,
    retrieval_parts,
    split_question,
)
from ragcore.text import ENGLISH_STOP_WORDS, tokenize  # noqa: E402

COLLECTIONS = ["cranfield", "cisi", "demo", "dev-shared"]
NAMED_PARTS = ROOT / "eval" / "dev-named-parts.gold.json"
# Gold sets over ../shared/documents scored as one group each (session 7:
# every set at hand; the answer sets' unanswerable questions have no qrels).
SHARED_SETS = ("dev-named-parts", "dev-answers", "dev-answers-b")
HEADS = (0, 1, 2, 3)
MIN_OWN = (0, 1, 2, 3)
PartFusion = tuple[float, int]  # (dense weight, at most this many content words); (1.0, 0): the gate
GATE: PartFusion = (1.0, 0)
SESSION6 = "carry=pronoun head=3 min_own_words=2"  # the setting shipped before session 7
PART_FUSIONS: tuple[PartFusion, ...] = (
    GATE,
    *((w, short) for w in (0.0, 0.2, 0.35, 0.5, 0.65) for short in (2, 3, 4, 99)),
)
Rule = tuple[str, int, int, PartFusion]
RULES: list[Rule] = list(product(CARRIES, HEADS, MIN_OWN, PART_FUSIONS))
Ranking = list[tuple[int, float]]


def rule_name(rule: Rule | None) -> str:
    if rule is None:
        return "off"
    carry, head, min_own, (w, short) = rule
    fused = "" if (w, short) == GATE else f" short<={short}:dense={w}"
    return f"carry={carry} head={head} min_own_words={min_own}{fused}"


def merged_rows(question: str, rule: Rule, rank, rank_part) -> list[int] | None:
    carry, head, min_own, part_fusion = rule
    parts = retrieval_parts(question, min_own)
    if len(parts) < 2:
        return None
    ranked = [rank_part(q, part_fusion) for q in part_queries(parts, carry)]
    return [row for row, _ in merge_part_rankings(ranked, rank(question), head)]


def keys_of(coll: Collection, rows: list[int]) -> list[str]:
    return coll.keys(rows)


def study(coll: Collection, library, part_rows: dict[str, list[set[int]]]):
    """group -> rule -> mean gain; and qid -> rule -> per-part first rank."""
    retriever = Retriever(
        types.SimpleNamespace(passages=coll.passages), vector_cache=library, split_parts=False
    )
    cache: dict[str, tuple[Ranking, Ranking, Ranking, tuple[int, ...]]] = {}
    fused_cache: dict[tuple[str, float], Ranking] = {}

    def lists(text: str) -> tuple[Ranking, Ranking, Ranking, tuple[int, ...]]:
        if text not in cache:
            bm = retriever._bm25_ranking(text, 100)
            dn = retriever._dense_ranking(text, 100)
            stats = fusion.fusion_stats(retriever.bm25, text, bm, dn)
            cache[text] = (
                bm,
                dn,
                retriever.fusion.fuse({"bm25": bm, "dense": dn}, None, stats),
                stats.identifier_rows,
            )
        return cache[text]

    def rank(text: str) -> Ranking:
        return lists(text)[2]

    def rank_part(text: str, part_fusion: PartFusion) -> Ranking:
        w, short = part_fusion
        if part_fusion == GATE or len(set(tokenize(text, stop_words=ENGLISH_STOP_WORDS))) > short:
            return rank(text)
        if (text, w) not in fused_cache:
            bm, dn, _, pins = lists(text)
            fused = fusion.convex_tmm({"bm25": bm, "dense": dn}, {"bm25": 1.0 - w, "dense": w})
            fused_cache[text, w] = fusion.pin_rows(fused, pins) if pins else fused
        return fused_cache[text, w]

    gains: dict[str, dict[str, float]] = {}
    parts_at: dict[str, dict[str, list[int]]] = {}
    texts = {qid: text for qid, text, _ in coll.questions}
    for group, qids in coll.groups.items():
        total = dict.fromkeys(map(rule_name, RULES), 0.0)
        for qid in qids:
            whole = (
                [row for row, _ in rank(texts[qid])]
                if len(split_question(texts[qid])) > 1 or qid in part_rows
                else None
            )
            if whole is None:
                continue
            base = ndcg_at_k(keys_of(coll, whole), coll.qrels[qid], 10)
            for rule in RULES:
                rows = merged_rows(texts[qid], rule, rank, rank_part)
                if rows is not None:
                    total[rule_name(rule)] += ndcg_at_k(keys_of(coll, rows), coll.qrels[qid], 10) - base
                if qid in part_rows:
                    got = rows if rows is not None else whole
                    parts_at.setdefault(qid, {})[rule_name(rule)] = [
                        next((i for i, r in enumerate(got, 1) if r in want), 999) for want in part_rows[qid]
                    ]
            if qid in part_rows:
                parts_at[qid]["off"] = [
                    next((i for i, r in enumerate(whole, 1) if r in want), 999) for want in part_rows[qid]
                ]
        gains[group] = {name: value / len(qids) for name, value in total.items()}
    return gains, parts_at


def judged_parts(path: Path, library) -> dict[str, list[set[int]]]:
    """qid -> for each part, the rows of its grade-2 passages."""
    gold = load_goldset(path)
    corpus = load_corpus(gold.corpus, "auto", library)
    row = {p.id: i for i, p in enumerate(corpus.passages)}
    raw = {q.id: q for q in gold.questions}
    out = {}
    for q in resolve_spans(gold, corpus.documents):
        judgements = raw[q.id].judgements
        parts = sorted({j.part for j in judgements if j.part})
        if not parts:
            continue
        out[q.id] = []
        for part in parts:
            spans = tuple(
                s for s, j in zip(q.spans, judgements, strict=True) if j.part == part and j.grade == 2
            )
            grades = qrels_for(replace(q, spans=spans), corpus.passages)
            out[q.id].append({row[pid] for pid, g in grades.items() if g == 2})
    return out


def choose(gains: dict[str, dict[str, float]], groups: list[str]) -> tuple[str, float]:
    """The rule of the largest mean gain over ``groups`` ("off" when none
    gains); ties go to the shipped gate for the parts, then to the larger name."""
    mean = {rule_name(r): float(np.mean([gains[g][rule_name(r)] for g in groups])) for r in RULES}
    gated = {rule_name(r) for r in RULES if r[3] == GATE}
    best = max(mean, key=lambda name: (round(mean[name], 12), name in gated, name))
    return (best, mean[best]) if mean[best] > 0 else ("off", 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    library = default_library()
    gains: dict[str, dict[str, float]] = {}
    parts_at: dict[str, dict[str, list[int]]] = {}
    collections = load_all(COLLECTIONS, ROOT, ROOT / ".." / "shared", library)
    if (ROOT / ".." / "shared" / "documents").is_dir():  # two-part questions naming a document (session 6)
        for name in SHARED_SETS:
            path = ROOT / "eval" / f"{name}.gold.json"
            collections.append(load_gold_collection(path, library, name, split_types=False))
    for coll in collections:
        path = {
            "demo": "demo.gold.json",
            "dev-shared": "dev-shared.gold.json",
            **{name: f"{name}.gold.json" for name in SHARED_SETS},
        }.get(coll.name)
        judged = judged_parts(ROOT / "eval" / path, library) if path else {}
        g, p = study(coll, library, judged)
        gains.update(g)
        parts_at.update({f"{coll.name}:{qid}": v for qid, v in p.items()})
    groups = sorted(gains)
    folds = []
    for held in groups:
        chosen, train_gain = choose(gains, [g for g in groups if g != held])
        held_gain = 0.0 if chosen == "off" else gains[held][chosen]
        folds.append(
            {"held_out": held, "chosen": chosen, "train_gain": train_gain, "held_out_gain": held_gain}
        )
        print(
            f"held out {held:>18}: chosen {chosen}  (train {train_gain:+.4f})  held-out nDCG@10 {held_gain:+.4f}"
        )
    final, final_gain = choose(gains, groups)
    print(
        f"mean held-out gain {np.mean([f['held_out_gain'] for f in folds]):+.4f}; chosen on all groups: {final}"
    )
    reported = ["off", SESSION6, final, *sorted({f["chosen"] for f in folds} - {final, SESSION6, "off"})]
    for name in dict.fromkeys(reported):
        ranks = {q: r[name] for q, r in parts_at.items()}
        inside = sum(x <= 5 for r in ranks.values() for x in r)
        total = sum(len(r) for r in ranks.values())
        print(
            f"parts in the top 5 ({name}): {inside}/{total}; "
            + " ".join(f"{q} {r}" for q, r in ranks.items())
        )
    if args.out:
        result = {
            "kind": "part-split-cv",
            "command": "python scripts/part_split_cv.py --out " + str(args.out),
            "groups": {g: {n: round(v, 6) for n, v in by.items()} for g, by in gains.items()},
            "folds": folds,
            "final": {"rule": final, "mean_gain": final_gain},
            # per-part ranks: only the rules printed above (not the whole grid's)
            "part_ranks": {q: {n: r[n] for n in reported if n in r} for q, r in parts_at.items()},
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
