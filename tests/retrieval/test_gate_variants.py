"""The gate-variant study's fits and CV loop (scripts/gate_variants.py), on
synthetic queries."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from gate_variants import (
    ALL,
    ConvexWeight,
    Lab,
    NamedRule,
    Piece,
    Query,
    Softmax,
    cv_rules,
    nqc,
    overlap,
    paired_table,
    row_win,
)

EXPERTS = ("dense", "bm25", "convex tmm dense 0.3")


def _query(i: int, group: str, signal: float, named: bool, ndcg: dict[str, float]) -> Query:
    x = np.zeros(len(ALL))
    x[ALL.index("length")] = signal
    x[ALL.index("named")] = float(named)
    keys = {e: [f"d{i}"] for e in EXPERTS}
    q = Query(f"c-{group}", group, f"q{i}", {f"d{i}": 1}, Piece(x, keys), [])
    q.ndcg = dict(ndcg)
    return q


def _lab() -> Lab:
    """Dense wins when ``length`` is high, BM25 when it is low, in every group;
    named questions want the BM25-heavy fusion."""
    rng = np.random.default_rng(0)
    queries = []
    for i in range(120):
        group = "abc"[i % 3]
        high = i % 2 == 0
        named = i % 10 == 1
        nd = {"dense": 0.9 if high else 0.2, "bm25": 0.3 if high else 0.8, "convex tmm dense 0.3": 0.5}
        if named:
            nd["convex tmm dense 0.3"] = 1.0
        queries.append(_query(i, group, (1.0 if high else -1.0) + rng.normal(0, 0.1), named, nd))
    return Lab(queries, {})


def test_softmax_gate_learns_which_expert_wins():
    lab = _lab()
    gate = Softmax(["dense", "bm25"], ("length",)).fit(lab, np.arange(len(lab.queries)))
    chosen = gate.choose(lab.x)
    want = [0 if q.ndcg["dense"] > q.ndcg["bm25"] else 1 for q in lab.queries]
    assert list(chosen) == want
    assert lab.mean(gate, "a") == pytest.approx(
        np.mean([max(q.ndcg["dense"], q.ndcg["bm25"]) for q in lab.queries if q.group == "a"])
    )


def test_a_gate_without_a_useful_signal_picks_one_expert():
    lab = _lab()
    gate = Softmax(["dense", "bm25"], ("agreement",)).fit(lab, np.arange(len(lab.queries)))  # all zero
    assert len(set(gate.choose(lab.x))) == 1


def test_named_rule_sends_named_questions_to_its_expert():
    lab = _lab()
    rule = NamedRule(Softmax(["dense", "bm25"], ("length",)), "convex tmm dense 0.3")
    rule.fit(lab, np.arange(len(lab.queries)))
    names = [rule.experts[c] for c in rule.choose(lab.x)]
    for q, name in zip(lab.queries, names, strict=True):
        if q.whole.x[ALL.index("named")]:
            assert name == "convex tmm dense 0.3"
        else:
            assert name in ("dense", "bm25")


def test_cv_chooses_the_setting_that_wins_on_the_other_groups():
    lab = _lab()
    variant = {
        "useful": lambda: Softmax(["dense", "bm25"], ("length",)),
        "blind": lambda: Softmax(["dense", "bm25"], ("agreement",)),
    }
    rows = lab.cv(variant)
    assert {setting for _, setting in rows.values()} == {"useful"}
    assert rows["a"][0] == pytest.approx(lab.mean(variant["useful"]().fit(lab, np.arange(120)), "a"))


def _row_lab() -> Lab:
    """The gate's signal cannot tell; questions flagged ``row_win`` want BM25."""
    queries = []
    for i in range(90):
        flagged = i % 3 == 0
        nd = {"dense": 0.2 if flagged else 0.7, "bm25": 0.9 if flagged else 0.1, "convex tmm dense 0.3": 0.4}
        q = _query(i, "abc"[(i // 3) % 3], 0.0, False, nd)
        q.whole.x[ALL.index("row_win")] = float(flagged)
        queries.append(q)
    return Lab(queries, {})


def test_cv_rules_picks_the_rule_that_wins_on_the_training_groups():
    lab = _row_lab()
    variant = {"gate": lambda: Softmax(["dense", "convex tmm dense 0.3"], ("length",))}
    rules = {
        "no rule": None,
        "row_win -> bm25": ("row_win", "bm25"),
        "has_parts -> bm25": ("has_parts", "bm25"),
    }
    rows = cv_rules(lab, variant, rules)
    assert {setting for _, setting in rows.values()} == {"gate | row_win -> bm25"}
    for g, (value, _) in rows.items():
        want = np.mean([max(q.ndcg["dense"], q.ndcg["bm25"]) for q in lab.queries if q.group == g])
        assert value == pytest.approx(want)


def test_row_win_flags_a_top_passage_scored_through_its_table_row():
    from test_bm25_rows import _passages

    from ragcore.retrieval.bm25 import BM25Index

    index = BM25Index.from_passages(_passages())
    for question, want in (("Which code says the monthly quota is used up?", 1.0), ("lunch menus", 0.0)):
        ids = index.term_ids(index.query_tokens(question))
        assert row_win(index, ids, index.search(question)) == want


def test_nqc_is_the_top_scores_spread_over_the_list_mean():
    # scores 3, 2, 1 over floor 0: std 0.8165, mean 2
    assert nqc([(0, 3.0), (1, 2.0), (2, 1.0)], floor=0.0) == pytest.approx(np.std([3, 2, 1]) / 2)
    # cosines are measured from -1, and only the top ``depth`` make the spread
    ranking = [(0, 0.5), (1, 0.5), (2, -0.5)]
    assert nqc(ranking, floor=-1.0, depth=2) == 0.0
    assert nqc(ranking, floor=-1.0, depth=3) > 0.0
    assert nqc([(0, 1.0)], floor=0.0) == 0.0


def test_overlap_counts_shared_rows_of_the_two_top_lists():
    bm = [(r, 1.0) for r in range(10)]
    dn = [(r, 1.0) for r in (0, 2, 4, 20, 21, 22, 23, 24, 25, 26)]
    assert overlap(bm, dn) == pytest.approx(0.3)
    assert overlap(bm, []) == 0.0


def _weight_lab() -> Lab:
    """Dense's best weight follows ``length``: 1 when high, 0 when low, and
    0.5 (the middle of the grid) when near zero."""
    queries = []
    for i in range(150):
        level = (-1.0, 0.0, 1.0)[i % 3]
        best = {-1.0: 0.0, 0.0: 0.5, 1.0: 1.0}[level]
        nd = {name: 1.0 - abs(a - best) for a, name in ConvexWeight.GRID}
        q = _query(i, "abc"[(i // 3) % 3], level, False, {})
        q.ndcg = nd
        queries.append(q)
    return Lab(queries, {})


def test_convex_weight_sets_dense_weight_from_the_signal():
    lab = _weight_lab()
    model = ConvexWeight(("length",)).fit(lab, np.arange(len(lab.queries)))
    chosen = [model.experts[c] for c in model.choose(lab.x)]
    for q, name in zip(lab.queries, chosen, strict=True):
        level = q.whole.x[ALL.index("length")]
        if level > 0:
            assert name == "dense"
        elif level < 0:
            assert name == "bm25"
        else:
            assert name in ("convex tmm dense 0.4", "convex tmm dense 0.5", "convex tmm dense 0.6")


def test_paired_table_compares_each_variant_with_the_bar_and_the_shipped_gate():
    lab = _lab()
    for q in lab.queries:
        q.single = {"dense": q.ndcg["dense"], "bm25": q.ndcg["bm25"]}
    held = {
        "shipped gate": {g: [0.5] * len(lab.of_group[g]) for g in lab.groups},
        "better": {g: [0.6] * len(lab.of_group[g]) for g in lab.groups},
    }
    table = paired_table(lab, held)
    row = next(line for line in table.splitlines() if line.startswith("| a "))
    bar = np.mean([lab.queries[i].single["dense"] for i in lab.of_group["a"]])
    assert f"{0.6 - bar:+.3f}" in row and "+0.100 [+0.100, +0.100]" in row
