"""Cross-validation of the multi-part split used by the retriever.

For every question that ``split_question`` cuts, the default ranker (hybrid)
ranks the whole question and each part; a rule = (carry, head, min own
words) merges them (``query.part_queries``, ``query.merge_part_rankings``,
``query.retrieval_parts``). Each rule's gain is its nDCG@10 minus the whole
question's, averaged over every question of a group (a question that the
rule keeps whole gains 0). Groups: Cranfield, CISI, the demo gold set by
question type, dev-shared, dev-named-parts (Vaswani has no question that splits).

Leave one group out: the rule with the largest mean gain over the other
groups (or no splitting when none gains) is scored on the held-out group.
Also printed: for the questions judged per part (judgements with "part"),
how many parts have a grade-2 passage in the top 5 under each rule.

    python scripts/part_split_cv.py [--out eval/results/part-split-cv.json]
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
from ragcore.retrieval import Retriever  # noqa: E402
from ragcore.retrieval.query import (  # noqa: E402
    CARRIES,
    merge_part_rankings,
    part_queries,
    retrieval_parts,
    split_question,
)
from ragcore.retrieval.results import CallLog  # noqa: E402

COLLECTIONS = ["cranfield", "cisi", "demo", "dev-shared"]
NAMED_PARTS = ROOT / "eval" / "dev-named-parts.gold.json"
HEADS = (0, 1, 2, 3)
MIN_OWN = (0, 1, 2, 3)
Rule = tuple[str, int, int]
RULES: list[Rule] = list(product(CARRIES, HEADS, MIN_OWN))
Ranking = list[tuple[int, float]]


def rule_name(rule: Rule | None) -> str:
    return "off" if rule is None else f"carry={rule[0]} head={rule[1]} min_own_words={rule[2]}"


def merged_rows(question: str, rule: Rule, rank) -> list[int] | None:
    carry, head, min_own = rule
    parts = retrieval_parts(question, min_own)
    if len(parts) < 2:
        return None
    ranked = [rank(q) for q in part_queries(parts, carry)]
    return [row for row, _ in merge_part_rankings(ranked, rank(question), head)]


def keys_of(coll: Collection, rows: list[int]) -> list[str]:
    return coll.keys(rows)


def study(coll: Collection, library, part_rows: dict[str, list[set[int]]]):
    """group -> rule -> mean gain; and qid -> rule -> per-part first rank."""
    retriever = Retriever(
        types.SimpleNamespace(passages=coll.passages), vector_cache=library, split_parts=False
    )
    cache: dict[str, Ranking] = {}

    def rank(text: str) -> Ranking:
        if text not in cache:
            cache[text] = retriever._rank(text, "hybrid", 100, CallLog())[0]
        return cache[text]

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
                rows = merged_rows(texts[qid], rule, rank)
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
    mean = {rule_name(r): float(np.mean([gains[g][rule_name(r)] for g in groups])) for r in RULES}
    best = max(mean, key=lambda name: (mean[name], name))
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
        collections.append(load_gold_collection(NAMED_PARTS, library, "dev-named-parts", split_types=False))
    for coll in collections:
        path = {
            "demo": "demo.gold.json",
            "dev-shared": "dev-shared.gold.json",
            "dev-named-parts": NAMED_PARTS.name,
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
    for name in ("off", final):
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
            "groups": gains,
            "folds": folds,
            "final": {"rule": final, "mean_gain": final_gain},
            "part_ranks": parts_at,
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
