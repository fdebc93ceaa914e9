"""Cross-validation of the multi-part split used by the retriever.

For every question that ``split_question`` cuts, the default ranker (hybrid)
ranks the whole question and each part; a rule = (carry, head, min own
words, part fusion, lead) merges them (``query.part_queries``,
``query.merge_part_rankings``, ``query.retrieval_parts``). The lead is
which ranking opens each round of the merge (session 8): the whole
question's or the parts'. The part fusion
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

With ``--wide`` (session 8, a study: its figures are in docs/decisions.md)
the grid also holds other merges (reciprocal rank fusion of the parts and
the whole question with k 2 or 10; each part's first one or two passages,
then the whole question's ranking) and a part scope (a part ranked with the
passages of a document it names first, or of a document the question
names), with the gate or a dense-0.5 / 0.35 convex fusion for short parts.

    python scripts/part_split_cv.py [--out eval/results/part-split-cv-session8.json] [--wide]
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
    LEADS,
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
SESSION6 = "carry=pronoun head=3 min_own_words=2 lead=parts"  # the setting shipped before session 7
SESSION7 = "carry=pronoun head=0 min_own_words=3 lead=parts"  # shipped in session 7
PART_FUSIONS: tuple[PartFusion, ...] = (
    GATE,
    *((w, short) for w in (0.0, 0.2, 0.35, 0.5, 0.65) for short in (2, 3, 4, 99)),
)
# --wide only: merges other than the round robin, and part scopes
WIDE_MERGES = ("rrf2", "rrf10", "slots1", "slots2")
WIDE_SCOPES = ("none", "part", "question")
WIDE_FUSIONS: tuple[PartFusion, ...] = (GATE, (0.5, 3), (0.35, 3))
Rule = tuple[str, int, int, PartFusion, str, str]  # ..., lead or wide merge, scope
RULES: list[Rule] = [
    (*r, lead, "none") for r in product(CARRIES, HEADS, MIN_OWN, PART_FUSIONS) for lead in LEADS
]
WIDE_RULES: list[Rule] = list(
    product(CARRIES, HEADS, MIN_OWN, WIDE_FUSIONS, (*LEADS, *WIDE_MERGES), WIDE_SCOPES)
)
Ranking = list[tuple[int, float]]


def rule_name(rule: Rule | None) -> str:
    if rule is None:
        return "off"
    carry, head, min_own, (w, short), merge, scope = rule
    fused = "" if (w, short) == GATE else f" short<={short}:dense={w}"
    merged = f" lead={merge}" if merge in LEADS else f" merge={merge}"
    scoped = "" if scope == "none" else f" scope={scope}"
    return f"carry={carry} head={head} min_own_words={min_own}{fused}{merged}{scoped}"


def wide_merge(kind: str, ranked: list[Ranking], whole: Ranking, head: int) -> list[int]:
    """``--wide``'s merges: reciprocal rank fusion ("rrfK": the sum of 1 / (K +
    rank) over the parts' and the whole question's rankings) or each part's
    first M passages ("slotsM") then the whole question's ranking; either after
    the whole question's first ``head`` passages."""
    out = list(dict.fromkeys(row for row, _ in whole[:head]))
    seen = set(out)
    if kind.startswith("rrf"):
        k = int(kind[3:])
        score: dict[int, float] = {}
        for ranking in [*ranked, whole]:
            for i, (row, _) in enumerate(ranking, 1):
                score[row] = score.get(row, 0.0) + 1.0 / (k + i)
        return out + sorted((r for r in score if r not in seen), key=lambda r: -score[r])
    firsts = [
        row for i in range(int(kind[5:])) for ranking in ranked if i < len(ranking) for row in [ranking[i][0]]
    ]
    for row in [*firsts, *(r for r, _ in whole), *(r for ranking in ranked for r, _ in ranking)]:
        if row not in seen:
            seen.add(row)
            out.append(row)
    return out


def merged_rows(question: str, rule: Rule, rank, rank_part, named=None) -> list[int] | None:
    carry, head, min_own, part_fusion, merge, scope = rule
    parts = retrieval_parts(question, min_own)
    if len(parts) < 2:
        return None
    ranked = [rank_part(q, part_fusion) for q in part_queries(parts, carry)]
    if scope != "none":  # a part's (or the question's) named document's passages first
        ranked = [
            _scoped(r, named(p if scope == "part" else question)) for r, p in zip(ranked, parts, strict=True)
        ]
    if merge in LEADS:
        return [row for row, _ in merge_part_rankings(ranked, rank(question), head, merge)]
    return wide_merge(merge, ranked, rank(question), head)


def keys_of(coll: Collection, rows: list[int]) -> list[str]:
    return coll.keys(rows)


def _scoped(ranking: Ranking, rows: frozenset[int]) -> Ranking:
    """``ranking`` with the rows of ``rows`` first, each group in its order (the retriever's part scope)."""
    return (
        [x for x in ranking if x[0] in rows] + [x for x in ranking if x[0] not in rows] if rows else ranking
    )


def study(coll: Collection, library, part_rows: dict[str, list[set[int]]], rules: list[Rule]):
    """group -> rule -> mean gain; and qid -> rule -> per-part first rank."""
    retriever = Retriever(
        types.SimpleNamespace(passages=coll.passages), vector_cache=library, split_parts=False
    )
    named_cache: dict[str, frozenset[int]] = {}

    def named(text: str) -> frozenset[int]:
        if text not in named_cache:
            named_cache[text] = retriever.named_rows(text)
        return named_cache[text]

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
        total = dict.fromkeys(map(rule_name, rules), 0.0)
        for qid in qids:
            whole = (
                [row for row, _ in rank(texts[qid])]
                if len(split_question(texts[qid])) > 1 or qid in part_rows
                else None
            )
            if whole is None:
                continue
            base = ndcg_at_k(keys_of(coll, whole), coll.qrels[qid], 10)
            for rule in rules:
                rows = merged_rows(texts[qid], rule, rank, rank_part, named)
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


def choose(gains: dict[str, dict[str, float]], groups: list[str], rules: list[Rule]) -> tuple[str, float]:
    """The rule of the largest mean gain over ``groups`` ("off" when none
    gains); ties go to the shipped gate for the parts, then to the plainer
    merge (no scope, a round robin), then to the larger name."""
    mean = {rule_name(r): float(np.mean([gains[g][rule_name(r)] for g in groups])) for r in rules}
    gated = {rule_name(r) for r in rules if r[3] == GATE}
    best = max(
        mean,
        key=lambda name: (
            round(mean[name], 12),
            name in gated,
            "scope=" not in name,
            "merge=" not in name,
            name,
        ),
    )
    return (best, mean[best]) if mean[best] > 0 else ("off", 0.0)


# --wide: families of rules (merge kinds x scopes), each cross-validated as a whole
FAMILIES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "round robin, parts lead (session 7)": (("parts",), ("none",)),
    "+ whole question leads": (LEADS, ("none",)),
    "+ part scope": (("parts",), ("none", "part")),
    "+ whole leads + part scope": (LEADS, ("none", "part")),
    "+ rrf2": (("parts", "rrf2"), ("none",)),
    "+ rrf2 + part scope": (("parts", "rrf2"), ("none", "part")),
    "+ slots": (("parts", "slots1", "slots2"), ("none",)),
    "all": ((*LEADS, *WIDE_MERGES), WIDE_SCOPES),
}


def load_studies(library, rules: list[Rule]):
    """Every group's gains and the per-part ranks of the questions judged per part."""
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
        g, p = study(coll, library, judged, rules)
        gains.update(g)
        parts_at.update({f"{coll.name}:{qid}": v for qid, v in p.items()})
    return gains, parts_at


def cross_validate(gains: dict[str, dict[str, float]], rules: list[Rule], echo: bool) -> list[dict]:
    groups = sorted(gains)
    folds = []
    for held in groups:
        chosen, train_gain = choose(gains, [g for g in groups if g != held], rules)
        held_gain = 0.0 if chosen == "off" else gains[held][chosen]
        folds.append(
            {"held_out": held, "chosen": chosen, "train_gain": train_gain, "held_out_gain": held_gain}
        )
        if echo:
            print(
                f"held out {held:>18}: chosen {chosen}  (train {train_gain:+.4f})  held-out nDCG@10 {held_gain:+.4f}"
            )
    return folds


def family_table(gains: dict[str, dict[str, float]], parts_at) -> dict[str, dict]:
    """--wide: leave one group out within each family of rules."""
    out = {}
    for family, (merges, scopes) in FAMILIES.items():
        rules = [r for r in WIDE_RULES if r[4] in merges and r[5] in scopes]
        folds = cross_validate(gains, rules, echo=False)
        final, _ = choose(gains, sorted(gains), rules)
        held = {f["held_out"]: round(f["held_out_gain"], 6) for f in folds}
        out[family] = {
            "rules": len(rules),
            "mean_held_out_gain": float(np.mean(list(held.values()))),
            "held_out": held,
            "final": final,
            "demo_questions_met": questions_met(parts_at, final, "demo:"),
        }
        print(
            f"family {family:38} {len(rules):5} rules  LOGO mean {out[family]['mean_held_out_gain']:+.4f}  "
            f"final {final} (demo {out[family]['demo_questions_met']})"
        )
    return out


def questions_met(parts_at, name: str, prefix: str = "") -> str:
    ranks = [r[name] for q, r in parts_at.items() if q.startswith(prefix) and name in r]
    return f"{sum(all(x <= 5 for x in r) for r in ranks)}/{len(ranks)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--wide", action="store_true", help="other merges and part scopes too (a study)")
    args = parser.parse_args()
    rules = WIDE_RULES if args.wide else RULES
    gains, parts_at = load_studies(default_library(), rules)
    folds = cross_validate(gains, rules, echo=True)
    final, final_gain = choose(gains, sorted(gains), rules)
    print(
        f"mean held-out gain {np.mean([f['held_out_gain'] for f in folds]):+.4f}; chosen on all groups: {final}"
    )
    families = family_table(gains, parts_at) if args.wide else {}
    shipped = [] if args.wide else [SESSION6, SESSION7]
    reported = ["off", *shipped, final, *sorted({f["chosen"] for f in folds} - {final, *shipped, "off"})]
    reported += [f["final"] for f in families.values()]
    reported = list(dict.fromkeys(reported))
    for name in reported:
        ranks = {q: r[name] for q, r in parts_at.items()}
        inside = sum(x <= 5 for r in ranks.values() for x in r)
        total = sum(len(r) for r in ranks.values())
        print(
            f"parts in the top 5 ({name}): {inside}/{total}; questions with every part in the top 5: "
            f"demo {questions_met(parts_at, name, 'demo:')}, all {questions_met(parts_at, name)}; "
            + " ".join(f"{q} {r}" for q, r in ranks.items())
        )
    if args.out:
        result = {
            "kind": "part-split-cv",
            "command": "python scripts/part_split_cv.py --out "
            + str(args.out)
            + (" --wide" if args.wide else ""),
            "groups": {g: {n: round(v, 6) for n, v in by.items()} for g, by in gains.items()},
            "folds": folds,
            "final": {"rule": final, "mean_gain": final_gain},
            "families": families,
            # per-part ranks: only the rules printed above (not the whole grid's)
            "part_ranks": {q: {n: r[n] for n in reported if n in r} for q, r in parts_at.items()},
        }
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
