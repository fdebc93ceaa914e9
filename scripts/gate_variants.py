"""Variants of the default gate, each measured in the gate's own
leave-one-collection-out cross-validation (scripts/fusion_cv.py).

The default ``hybrid`` is a gate choosing per query between dense alone and
a fused ranking (ragcore/retrieval/fusion_gate.py). This script measures
changes to it proposed for issue #22, with the rule the CV uses for the
gated family: for each held-out group g, every setting of a variant is
fitted without g and without a training group h and scored on h; the
setting with the highest mean over the training groups (each collection
weighted equally) is fitted without g and scored on g, with multi-part
questions split as the retriever ships. The first variant is the shipped
family and reproduces eval/results/fusion-cv.md's held-out hybrid column.

Variants (all written before this run; the signals they add are computed
at query time from the BM25 index and the two rankings):

- query idf: the largest and the mean idf of the query's known terms
  (pre-retrieval query performance prediction: avgIDF / maxIDF, He & Ounis,
  SPIRE 2004), added to every signal set, or offered beside the shipped sets
  so each fold chooses;
- named document: whether the question names a document
  (``BM25Index.named_rows``), as a signal, or as a rule sending such
  questions to a BM25-heavy fusion (dense 0.3 or 0.5, or BM25 alone; the
  choice, including "no rule", made in each fold);
- score margins: BM25's top-two gap relative to its top score, dense's
  top-two gap;
- a third expert: the gate chooses among dense alone, the fused ranking
  and a BM25-heavy one (convex tmm dense 0.3 or 0.5, or BM25 alone), by a
  softmax over the same signals fitted to the expected nDCG@10.

Session 7 variants (for the demo's table and multi-part misses; written
after a scratch run of the same rules in this CV, so their figures are a
check of that run, not a fresh test):

- table-row signal: whether BM25's top passage scores through one of its
  table rows (``BM25Params.table_row_weight``), as a signal of the gate, and
  with a BM25-heavy third expert;
- rules on top of the shipped gate, chosen per fold (``cv_rules``): every
  piece of a question that splits, or only its parts, or every piece whose
  BM25 top passage scores through a table row, goes to a BM25-heavy fusion
  (dense 0.5 or 0.3) or to BM25 alone; or no rule.

Session 8 variants (written before their first run, for the same three
misses; issue #22's list of query-performance predictors):

- NQC (normalized query commitment, Shtok, Kurland, Carmel, Raiber &
  Markovits, ACM TOIS 2012) of BM25's and of dense's list, and the overlap
  of the two top-10s (Aslam & Pavlu, ECIR 2007), as gate signals, alone,
  with query idf, and with a BM25-heavy third expert;
- a table passage in BM25's top 3 (the table-row aware signal at a depth
  that also sees table questions whose best row is not BM25's first hit),
  as a signal and as a rule chosen per fold;
- a per-query convex weight instead of a choice (``ConvexWeight``: dense's
  weight is a logistic function of the signals, fitted to the expected
  nDCG@10 interpolated over the grid of weights; the per-query analogue of
  Bruch et al.'s tuned convex combination), with and without NQC/overlap.

The output also gives, per variant and group, the paired difference per
question against the bar's signal and against the shipped gate, with 95%
paired bootstrap intervals.

    python scripts/gate_variants.py [--out eval/results/gate-variants.md] [--variants a,b]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # BLAS threads contend on a loaded machine (20x slower fits)

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import REFERENCE_RRF, Prepared, _more_dense, dense_rankings, load_all  # noqa: E402
from fusion_gate import FUSED, expert  # noqa: E402
from fusion_parts import part_texts, prepare_parts, shipped_split  # noqa: E402

from ragcore.evaluation.metrics.ndcg import ndcg_at_k  # noqa: E402
from ragcore.retrieval import BM25Params, fusion  # noqa: E402
from ragcore.retrieval.bm25 import column_sum  # noqa: E402
from ragcore.retrieval.bm25_rows import best_row_scores  # noqa: E402
from ragcore.retrieval.fusion_gate import GATE_FEATURES, SCALE_FREE, gate_features  # noqa: E402
from ragcore.retrieval.query import merge_part_rankings  # noqa: E402
from ragcore.retrieval.retriever import PART_HEAD, PART_LEAD  # noqa: E402

EXTRA = (
    "named",
    "bm25_margin",
    "dense_margin",
    "max_idf",
    "mean_idf",
    "row_win",
    "is_part",
    "has_parts",
    "nqc_bm25",
    "nqc_dense",
    "overlap10",
    "table_top3",
)
QPP = ("nqc_bm25", "nqc_dense", "overlap10")
NQC_DEPTH = 10  # fixed before any run (Shtok et al.'s k is 5-100; 10 = the depth nDCG reads)
ALL = (*GATE_FEATURES, *EXTRA)
IDF = ("max_idf", "mean_idf")
SIGNALS = {"": GATE_FEATURES, " scale-free": SCALE_FREE}
L2 = 1.0
Ranking = list[tuple[int, float]]


@dataclass
class Piece:
    """The whole question or one of its parts: its signals and, per expert
    (dense, bm25, every fused ranking of the gate's grid), its ranking as
    keys (documents or passages), identifier pins applied."""

    x: np.ndarray
    keys: dict[str, list[str]]


@dataclass
class Query:
    coll: str
    group: str
    qid: str
    qrels: dict[str, int]
    whole: Piece
    parts: list[Piece]
    ndcg: dict[str, float] = field(default_factory=dict)
    single: dict[str, float] = field(default_factory=dict)  # BM25 and dense alone, no pins (the bar)
    rows: list[dict[str, list[int]]] = field(default_factory=list)  # whole + parts: expert -> rows


def extra_signals(index, text: str, bm: Ranking, dn: Ranking) -> list[float]:
    ids = np.unique(index.term_ids(index.query_tokens(text)))
    named = float(len(index.named_rows(ids)) > 0) if len(ids) else 0.0
    margin = (bm[0][1] - bm[1][1]) / bm[0][1] if len(bm) > 1 and bm[0][1] > 0 else 0.0
    dense_margin = dn[0][1] - dn[1][1] if len(dn) > 1 else 0.0
    idf = index.idf[ids] if len(ids) else np.zeros(1)
    # is_part and has_parts are set by ``build`` (0 here).
    return [
        named,
        margin,
        dense_margin,
        float(idf.max()),
        float(idf.mean()),
        row_win(index, ids, bm),
        0.0,
        0.0,
        nqc(bm, floor=0.0),
        nqc(dn, floor=-1.0),
        overlap(bm, dn),
        float(bool(set(r for r, _ in bm[:3]) & set(np.unique(index.row_owner).tolist()))),
    ]


def nqc(ranking: Ranking, floor: float, depth: int = NQC_DEPTH) -> float:
    """Normalized query commitment (Shtok, Kurland, Carmel, Raiber & Markovits,
    ACM TOIS 2012): the spread of the top ``depth`` scores over the mean score
    of the whole list (the stand-in for the corpus' own score, which neither
    BM25 nor a cosine has), scores measured from the signal's ``floor``."""
    scores = np.asarray([s for _, s in ranking], dtype=np.float64) - floor
    if len(scores) < 2 or scores.mean() <= 0:
        return 0.0
    return float(scores[:depth].std() / scores.mean())


def overlap(bm: Ranking, dn: Ranking, depth: int = 10) -> float:
    """Share of the two top-``depth`` lists in common (rank agreement as a
    predictor of a fusion's quality: Aslam & Pavlu, ECIR 2007)."""
    top_b, top_d = {r for r, _ in bm[:depth]}, {r for r, _ in dn[:depth]}
    return len(top_b & top_d) / depth if top_b and top_d else 0.0


def row_win(index, ids: np.ndarray, bm: Ranking) -> float:
    """1 when BM25's top passage scores through one of its table rows
    (``BM25Params.table_row_weight`` x its best row beats its own score)."""
    if not bm or not len(ids) or not index.row_owner.size:
        return 0.0
    top = bm[0][0]
    cols, counts = np.unique(ids, return_counts=True)
    weights = counts.astype(np.float64)
    by_row = column_sum(index.rows, cols, weights)
    best = best_row_scores(index.rows, index.row_owner, by_row, index.size)[top]
    own = column_sum(index.matrix[top], cols, weights)[0]
    return float(index.params.table_row_weight * best > own)


def build(names: list[str], dense_row_weight: float = 0.0) -> tuple[list[Query], dict[str, list[str]]]:
    """Every question's pieces; with ``dense_row_weight``, dense scores
    passages by their table rows too (scripts/dense_rows.py)."""
    from ragcore.corpus import default_library

    library = default_library()
    cache = ROOT / ".ragcore" / "fusion-cache"
    label, params = "shipped", BM25Params()  # every fold of the CV chose the shipped BM25
    experts = {name: expert(name) for name in FUSED}
    carry = shipped_split()
    queries, rowkey = [], {}
    for coll in load_all(names, ROOT, ROOT.parent / "shared", library):
        prep = Prepared(
            coll,
            dense_rankings(coll, library, cache, dense_row_weight),
            dense_of=_more_dense(coll, library, cache, dense_row_weight),
        )
        prep.add_bm25(label, params, signals=True)
        prepare_parts(prep, label, prep.dense_of)
        index = prep.indexes[label]
        rowkey[coll.name] = [p.doc if coll.unit == "document" else p.id for p in coll.passages]

        def piece(bm, dn, stats, text, coll=coll, index=index):
            rankings = {"dense": list(dn), "bm25": list(bm)} | {
                n: e.fused(bm, dn) for n, e in experts.items()
            }
            if stats.identifier_rows:
                rankings = {n: fusion.pin_rows(r, stats.identifier_rows) for n, r in rankings.items()}
            x = np.r_[gate_features(bm, dn, stats), extra_signals(index, text, bm, dn)]
            rows = {n: [row for row, _ in r[:100]] for n, r in rankings.items()}
            return Piece(x, {n: coll.keys(r) for n, r in rows.items()}), rows

        group_of = {qid: g for g, qids in coll.groups.items() for qid in qids}
        for qid, text, qtype in coll.questions:
            whole, rows = piece(prep.bm25[label][qid], prep.dense[qid], prep.stats[label][qid], text)
            parts, part_rows = [], []
            pieces = prep.parts[label][carry].get(qid) if carry != "off" else None
            if pieces:
                texts = part_texts([(qid, text, qtype)], carry)[qid]
                for p, t in zip(pieces, texts, strict=True):
                    pc, pr = piece(p.bm25, p.dense, p.stats, t)
                    parts.append(pc)
                    part_rows.append(pr)
            for pc in parts:
                pc.x[ALL.index("is_part")] = 1.0
            for pc in (whole, *parts) if parts else ():
                pc.x[ALL.index("has_parts")] = 1.0
            q = Query(coll.name, group_of[qid], qid, coll.qrels[qid], whole, parts, rows=[rows, *part_rows])
            q.ndcg = {n: ndcg_at_k(k, q.qrels, 10) for n, k in whole.keys.items()}
            plain = {"bm25": prep.bm25[label][qid], "dense": prep.dense[qid]}
            q.single = {n: ndcg_at_k(coll.keys(r for r, _ in v), q.qrels, 10) for n, v in plain.items()}
            queries.append(q)
    return queries, rowkey


class Softmax:
    """A gate over ``experts`` (the first is the reference): a linear score
    per expert over the standardised signals ``used``, fitted to maximise
    the expected nDCG@10 of the softmax choice minus an L2 penalty, each
    collection weighted equally (for two experts, fusion_gate.fit_gate's
    objective); a query goes to the expert of highest score."""

    def __init__(self, experts: list[str], used: tuple[str, ...]) -> None:
        self.experts, self.used = experts, [ALL.index(f) for f in used]

    def fit(self, lab: Lab, ids: np.ndarray) -> Softmax:
        from scipy.optimize import minimize

        x = lab.x[ids][:, self.used]
        self.mu, self.sd = x.mean(0), x.std(0)
        self.sd[self.sd == 0] = 1.0
        x = (x - self.mu) / self.sd
        gain = np.c_[tuple(lab.nd[e][ids] for e in self.experts)]
        w = lab.weights(ids)
        n, d = x.shape
        k = len(self.experts)

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            big = theta.reshape(k - 1, d + 1)
            z = np.c_[np.zeros(n), x @ big[:, :d].T + big[:, d]]
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            expected = (p * gain).sum(1)
            value = -float(w @ expected) + 0.5 * L2 * float((big[:, :d] ** 2).sum()) / n
            dz = -(w[:, None] * p * (gain - expected[:, None]))[:, 1:]
            return value, np.c_[dz.T @ x + L2 * big[:, :d] / n, dz.sum(0)].ravel()

        self.theta = minimize(loss, np.zeros((k - 1) * (d + 1)), jac=True, method="L-BFGS-B").x
        self.theta = self.theta.reshape(k - 1, d + 1)
        return self

    def choose(self, x: np.ndarray) -> np.ndarray:
        """The chosen expert's index for each row of ``x`` (all of ``ALL``)."""
        z = (x[:, self.used] - self.mu) / self.sd
        return np.argmax(np.c_[np.zeros(len(z)), z @ self.theta[:, :-1].T + self.theta[:, -1]], 1)


class ConvexWeight:
    """A per-query convex weight instead of a choice: dense's weight is
    alpha = sigmoid(theta . x + b) over the standardised signals ``used``,
    and the ranking is the convex combination (theoretical-min-max
    normalised, Bruch, Gai & Ingber, TOIS 2023) at the grid weight nearest
    alpha (BM25 alone at 0, dense alone at 1). Fitted to maximise the
    expected nDCG@10 with nDCG interpolated linearly between grid weights,
    minus an L2 penalty, each collection weighted equally."""

    GRID = (
        (0.0, "bm25"),
        *((a, f"convex tmm dense {a}") for a in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)),
        (1.0, "dense"),
    )
    STARTS = (-1.5, 0.0, 1.4, 2.2)  # alpha 0.18, 0.5, 0.8, 0.9: the objective is piecewise linear

    def __init__(self, used: tuple[str, ...]) -> None:
        self.alphas = np.array([a for a, _ in self.GRID])
        self.experts = [name for _, name in self.GRID]
        self.used = [ALL.index(f) for f in used]

    def fit(self, lab: Lab, ids: np.ndarray) -> ConvexWeight:
        from scipy.optimize import minimize

        x = lab.x[ids][:, self.used]
        self.mu, self.sd = x.mean(0), x.std(0)
        self.sd[self.sd == 0] = 1.0
        x = (x - self.mu) / self.sd
        nd = np.c_[tuple(lab.nd[e][ids] for e in self.experts)]
        slope = np.diff(nd, axis=1) / np.diff(self.alphas)
        w, (n, d), at = lab.weights(ids), x.shape, np.arange(len(ids))

        def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
            a = 1.0 / (1.0 + np.exp(-np.clip(x @ theta[:d] + theta[d], -30, 30)))
            seg = np.clip(np.searchsorted(self.alphas, a, side="right") - 1, 0, len(self.alphas) - 2)
            value = nd[at, seg] + slope[at, seg] * (a - self.alphas[seg])
            dz = -w * slope[at, seg] * a * (1 - a)
            penalty = 0.5 * L2 * float(theta[:d] @ theta[:d]) / n
            return -float(w @ value) + penalty, np.r_[x.T @ dz + L2 * theta[:d] / n, dz.sum()]

        fits = [minimize(loss, np.r_[np.zeros(d), b], jac=True, method="L-BFGS-B") for b in self.STARTS]
        self.theta = min(fits, key=lambda r: r.fun).x
        return self

    def choose(self, x: np.ndarray) -> np.ndarray:
        z = (x[:, self.used] - self.mu) / self.sd
        a = 1.0 / (1.0 + np.exp(-np.clip(z @ self.theta[:-1] + self.theta[-1], -30, 30)))
        return np.argmin(np.abs(a[:, None] - self.alphas[None, :]), 1)


class NamedRule:
    """A question (or part) whose signal ``flag`` is set (by default: it
    names a document) goes to ``to``; the rest to the gate."""

    def __init__(self, gate: Softmax, to: str, flag: str = "named") -> None:
        self.gate, self.to, self.flag = gate, to, flag
        self.experts = [*gate.experts, to]

    def fit(self, lab: Lab, ids: np.ndarray) -> NamedRule:
        self.gate.fit(lab, ids)
        return self

    def choose(self, x: np.ndarray) -> np.ndarray:
        flagged = x[:, ALL.index(self.flag)] > 0
        return np.where(flagged, len(self.experts) - 1, self.gate.choose(x))


Model = Softmax | NamedRule | ConvexWeight
SHIPPED = "shipped gate"
Variant = dict[str, Callable[[], Model]]


@dataclass
class Lab:
    queries: list[Query]
    rowkey: dict[str, list[str]]

    def __post_init__(self) -> None:
        self.x = np.vstack([q.whole.x for q in self.queries])
        self.nd = {e: np.array([q.ndcg[e] for q in self.queries]) for e in self.queries[0].ndcg}
        self.groups = sorted({q.group for q in self.queries})
        self.coll_of = {q.group: q.coll for q in self.queries}
        self.of_group = {
            g: np.array([i for i, q in enumerate(self.queries) if q.group == g]) for g in self.groups
        }
        self.split: dict[tuple[int, tuple[str, ...]], float] = {}
        # per held-out group, the last cv's training mean of its chosen setting (fits without the group)
        self.nested_mean: dict[str, float] = {}
        # per held-out group, the last cv's held-out nDCG@10 per question (for paired intervals)
        self.last_held: dict[str, list[float]] = {}

    def single_mean(self, g: str, signal: str) -> float:
        return float(np.mean([self.queries[i].single[signal] for i in self.of_group[g]]))

    def weights(self, ids: np.ndarray) -> np.ndarray:
        colls = [self.queries[i].coll for i in ids]
        count = {c: colls.count(c) for c in set(colls)}
        w = np.array([1.0 / count[c] for c in colls])
        return w / w.sum()

    def mean(self, model: Model, g: str) -> float:
        """Mean nDCG@10 of group ``g`` under ``model`` (whole questions)."""
        ids = self.of_group[g]
        chosen = model.choose(self.x[ids])
        return float(np.mean([self.nd[model.experts[c]][i] for c, i in zip(chosen, ids, strict=True)]))

    def held_out(self, model: Model, g: str) -> list[float]:
        """Per question of ``g``: multi-part questions split, each piece gated."""
        out = []
        for i in self.of_group[g]:
            q = self.queries[i]
            pieces = [q.whole, *q.parts]
            names = tuple(model.experts[c] for c in model.choose(np.vstack([p.x for p in pieces])))
            out.append(self._split(i, names) if q.parts else q.ndcg[names[0]])
        return out

    def _split(self, i: int, names: tuple[str, ...]) -> float:
        if (i, names) not in self.split:
            q = self.queries[i]
            ranked = [[(row, 0.0) for row in rows[n]] for rows, n in zip(q.rows, names, strict=True)]
            merged = merge_part_rankings(ranked[1:], ranked[0], head=PART_HEAD, lead=PART_LEAD)
            keys = list(dict.fromkeys(self.rowkey[q.coll][row] for row, _ in merged))
            self.split[(i, names)] = ndcg_at_k(keys, q.qrels, 10)
        return self.split[(i, names)]

    def collection_mean(self, values: dict[str, float]) -> float:
        size: dict[str, int] = {}
        for g in values:
            size[self.coll_of[g]] = size.get(self.coll_of[g], 0) + 1
        return sum(v / size[self.coll_of[g]] for g, v in values.items()) / len(size)

    def cv(self, variant: Variant) -> dict[str, tuple[float, str]]:
        """group -> (held-out mean nDCG@10, setting chosen without it)."""
        fits: dict[tuple[str, frozenset[str]], Model] = {}

        def fitted(setting: str, excluded: frozenset[str]) -> Model:
            if (setting, excluded) not in fits:
                ids = np.array([i for i, q in enumerate(self.queries) if q.group not in excluded])
                fits[(setting, excluded)] = variant[setting]().fit(self, ids)
            return fits[(setting, excluded)]

        rows = {}
        for g in self.groups:
            train = [h for h in self.groups if h != g]

            def nested(s: str, g: str = g, train: list[str] = train) -> float:
                return self.collection_mean({h: self.mean(fitted(s, frozenset({g, h})), h) for h in train})

            best = max(variant, key=lambda s: (nested(s), s))
            self.nested_mean[g] = nested(best)
            self.last_held[g] = self.held_out(fitted(best, frozenset({g})), g)
            rows[g] = (float(np.mean(self.last_held[g])), best)
        return rows


RuleSpec = tuple[str, str] | None  # (flag, expert) or no rule


def cv_rules(lab: Lab, variant: Variant, rules: dict[str, RuleSpec]) -> dict[str, tuple[float, str]]:
    """As ``Lab.cv`` for ``variant`` (the gate), then a rule on top, chosen in
    each fold: the rule (or none) whose held-out means over the training
    groups, multi-part questions split, are best with the gate fitted
    without the held-out group and that training group (ties: no rule,
    then the name). group -> (held-out mean, "setting | rule")."""
    fits: dict[tuple[str, frozenset[str]], Softmax] = {}

    def fitted(setting: str, excluded: frozenset[str]) -> Softmax:
        if (setting, excluded) not in fits:
            ids = np.array([i for i, q in enumerate(lab.queries) if q.group not in excluded])
            fits[(setting, excluded)] = variant[setting]().fit(lab, ids)  # type: ignore[assignment]
        return fits[(setting, excluded)]

    def ruled(gate: Softmax, spec: RuleSpec) -> Model:
        if spec is None:
            return gate
        return NamedRule(gate, spec[1], spec[0])

    rows = {}
    for g in lab.groups:
        train = [h for h in lab.groups if h != g]
        gates = {s: {h: fitted(s, frozenset({g, h})) for h in train} for s in variant}
        best = max(
            variant, key=lambda s: (lab.collection_mean({h: lab.mean(gates[s][h], h) for h in train}), s)
        )

        def score(name: str, best: str = best, train: list[str] = train, gates: dict = gates) -> float:
            return lab.collection_mean(
                {h: float(np.mean(lab.held_out(ruled(gates[best][h], rules[name]), h))) for h in train}
            )

        rule = max(rules, key=lambda n: (round(score(n), 9), rules[n] is None, n))
        lab.last_held[g] = lab.held_out(ruled(fitted(best, frozenset({g})), rules[rule]), g)
        rows[g] = (float(np.mean(lab.last_held[g])), f"{best} | {rule}")
    return rows


def piece_rules() -> dict[str, RuleSpec]:
    """No rule, or one of: every piece of a question that splits, every part
    (not the whole question), every piece whose BM25 top passage scores
    through a table row, sent to a BM25-heavy fusion or BM25 alone."""
    out: dict[str, RuleSpec] = {"no rule": None}
    for flag in ("has_parts", "is_part", "row_win"):
        for to in ("convex tmm dense 0.5", "convex tmm dense 0.3", "bm25"):
            out[f"{flag} -> {to}"] = (flag, to)
    return out


def gate_family(extra: tuple[str, ...] = (), third: str | None = None) -> Variant:
    """The shipped gate's grid (every fused ranking x two signal sets), with
    ``extra`` signals added and, with ``third``, a third expert."""
    return {
        f"{fused}{name}": (
            lambda fused=fused, used=used: Softmax(
                ["dense", fused, third] if third and third != fused else ["dense", fused], (*used, *extra)
            )
        )
        for fused in FUSED
        for name, used in SIGNALS.items()
    }


def variants() -> dict[str, Variant]:
    with_or_without_idf = gate_family() | {f"{s} +idf": f for s, f in gate_family(IDF).items()}
    named_rule = {f"{s}": f for s, f in gate_family().items()}
    for to in ("convex tmm dense 0.3", "convex tmm dense 0.5", "bm25"):
        named_rule |= {
            f"{s} named->{to}": (lambda f=f, to=to: NamedRule(f(), to)) for s, f in gate_family().items()
        }
    third = {}
    for lo in ("convex tmm dense 0.3", "convex tmm dense 0.5", "bm25"):
        third |= {f"{s} | {lo}": f for s, f in gate_family(third=lo).items()}
    return {
        SHIPPED: gate_family(),
        "+ query idf (always)": gate_family(IDF),
        "+ query idf (chosen per fold)": with_or_without_idf,
        "+ named document (signal)": gate_family(("named",)),
        "+ named document (rule, chosen per fold)": named_rule,
        "+ score margins": gate_family(("bm25_margin", "dense_margin")),
        "+ BM25-heavy third expert": third,
        "+ table-row signal": gate_family(("row_win",)),
        "+ table-row signal and a BM25-heavy third expert": {
            f"{s} | {lo}": f
            for lo in ("convex tmm dense 0.3", "convex tmm dense 0.5", "bm25")
            for s, f in gate_family(("row_win",), third=lo).items()
        },
        **session8_variants(),
    }


def session8_variants() -> dict[str, Variant]:
    """Session 8 (written before their first run): post-retrieval query
    performance predictors as gate signals (NQC of each list, Shtok et al.
    TOIS 2012; the two top-10s' overlap), a table passage in BM25's top 3,
    and a per-query convex weight set from the signals instead of a choice."""
    third = {}
    for lo in ("convex tmm dense 0.3", "convex tmm dense 0.5", "bm25"):
        third |= {f"{s} | {lo}": f for s, f in gate_family(QPP, third=lo).items()}
    return {
        "+ NQC + top-10 overlap": gate_family(QPP),
        "+ NQC + overlap + query idf": gate_family((*QPP, *IDF)),
        "+ table passage in BM25's top 3": gate_family(("table_top3",)),
        "+ NQC + overlap + BM25-heavy third expert": third,
        "per-query convex weight": {
            f"weight{name}": (lambda used=used: ConvexWeight(used)) for name, used in SIGNALS.items()
        },
        "per-query convex weight + NQC + overlap": {
            f"weight{name} +qpp": (lambda used=used: ConvexWeight((*used, *QPP)))
            for name, used in SIGNALS.items()
        },
    }


def ruled_variants() -> dict[str, tuple[Variant, dict[str, RuleSpec]]]:
    """Variants made of the shipped gate and a rule chosen per fold (``cv_rules``)."""
    table_rules: dict[str, RuleSpec] = {"no rule": None} | {
        f"table_top3 -> {to}": ("table_top3", to)
        for to in ("convex tmm dense 0.5", "convex tmm dense 0.3", "bm25")
    }
    return {
        "+ split / table-row rules (chosen per fold)": (gate_family(), piece_rules()),
        "+ table-in-top-3 rule (chosen per fold)": (gate_family(), table_rules),
    }


def goal(lab: Lab, g: str, value: float, bars: dict[str, float]) -> bool:
    ref = REFERENCE_RRF.get(g)
    return value >= bars[g] and (ref is None or value >= ref)


def markdown(lab: Lab, results: dict[str, dict[str, tuple[float, str]]], bars: dict[str, float]) -> str:
    names = list(results)
    lines = [
        "| collection | better of BM25, dense | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for g in lab.groups:
        bar = f"{bars[g]:.3f}" + (f" (RRF ref {REFERENCE_RRF[g]:.3f})" if g in REFERENCE_RRF else "")
        cells = [
            f"{results[n][g][0]:.4f}{'' if goal(lab, g, results[n][g][0], bars) else ' (miss)'}"
            for n in names
        ]
        lines.append(f"| {g} | {bar} | " + " | ".join(cells) + " |")
    met = [sum(goal(lab, g, results[n][g][0], bars) for g in lab.groups) for n in names]
    lines.append("| **goal met** | | " + " | ".join(f"**{m}/{len(lab.groups)}**" for m in met) + " |")
    return "\n".join(lines) + "\n"


def paired_table(lab: Lab, held: dict[str, dict[str, list[float]]]) -> str:
    """Each variant's held-out nDCG@10 minus the bar's signal (the better of
    BM25 and dense alone on the group) and minus the shipped gate, per
    question: mean difference [paired bootstrap 95% interval]."""
    from ragcore.evaluation.statistics import paired_mean_comparison

    def cell(a: list[float], b: list[float]) -> str:
        c = paired_mean_comparison(a, b)
        return f"{c.diff:+.3f} [{c.low:+.3f}, {c.high:+.3f}]"

    names = [n for n in held if n != SHIPPED]
    lines = [
        "| collection | " + " | ".join(f"{n} − bar | {n} − shipped" for n in names) + " |",
        "|---|" + "---|---|" * len(names),
    ]
    for g in lab.groups:
        signal = "bm25" if lab.single_mean(g, "bm25") >= lab.single_mean(g, "dense") else "dense"
        bar = [lab.queries[i].single[signal] for i in lab.of_group[g]]
        base = held.get(SHIPPED, {}).get(g)
        cells = [f"{cell(held[n][g], bar)} | {cell(held[n][g], base) if base else '-'}" for n in names]
        lines.append(f"| {g} ({signal}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "eval" / "results" / "gate-variants.md"))
    parser.add_argument("--variants", help="comma-separated names (default: all)")
    args = parser.parse_args()
    t0 = time.time()
    lab = Lab(*build(["cranfield", "cisi", "vaswani", "demo", "dev-shared"]))
    bars = {g: max(lab.single_mean(g, "bm25"), lab.single_mean(g, "dense")) for g in lab.groups}
    chosen = variants()
    if args.variants:
        chosen = {n: v for n, v in chosen.items() if n in args.variants.split(",")}
    ruled = ruled_variants()
    if args.variants:
        ruled = {n: v for n, v in ruled.items() if n in args.variants.split(",")}
    results, held = {}, {}
    for name in [*chosen, *ruled]:
        results[name] = lab.cv(chosen[name]) if name in chosen else cv_rules(lab, *ruled[name])
        held[name] = dict(lab.last_held)
        met = sum(goal(lab, g, v, bars) for g, (v, _) in results[name].items())
        print(f"{name:45} met {met}/{len(lab.groups)} ({time.time() - t0:.0f} s)", flush=True)
    table = markdown(lab, results, bars)
    print(table)
    settings = "\n".join(
        f"- {name}: " + "; ".join(f"{g} {s}" for g, (_, s) in rows.items()) for name, rows in results.items()
    )
    Path(args.out).write_text(
        "Held-out nDCG@10 of gate variants (scripts/gate_variants.py; the bar is the better of BM25 and dense "
        "alone on the group, and the reference RRF figure where there is one)\n\n"
        + table
        + "\nPaired differences per question (held-out nDCG@10; 95% paired bootstrap intervals):\n\n"
        + paired_table(lab, held)
        + "\nSetting chosen per held-out group:\n\n"
        + settings
        + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
