"""Leave-one-collection-out cross-validation of BM25 settings and fusion
(``python scripts/fusion_study.py --cv``).

Collections: Cranfield, CISI and Vaswani from ../shared/benchmarks (scored
per document), the demo gold set split by question type, and the
development gold set over ../shared/documents (eval/dev-shared.gold.json),
scored per passage. Each question is ranked once per signal; dense rankings
(the slow part) are cached under the cache folder, keyed by the passages'
content and the question text, so a second run embeds nothing.

For each group C held out: every candidate family (plain RRF, weighted
RRF, convex combinations, agreement-weighted RRF, query-signal RRF, the
learned fusion, and the gate between dense alone and a fused ranking)
picks its setting on the other groups by the highest mean nDCG@10, each
collection weighted equally, and is scored on C. The default (``hybrid``)
is the gated family (``DEFAULT_FAMILY``) at the setting it picks, with
multi-part questions split as the retriever ships. Which family the same
rule would pick over nested training scores, and which session 4's
worst-case rule would pick, are printed for the record. BM25's own
settings are chosen first, by the same mean of BM25 alone. No figure
reported for C was chosen or fitted on C.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from dense_rows import row_vectors
from fusion_fitted import FittedFamily
from fusion_gate import GateFamily
from fusion_learned import LearnedFamily
from fusion_parts import AnyFuser, prepare_parts, shipped_split, split_per_question

from ragcore.corpus import load_corpus
from ragcore.evaluation.goldset import all_qrels, load_beir, load_goldset, resolve_spans
from ragcore.evaluation.heldout import REFERENCE_RRF  # issue #22's published bar, one copy
from ragcore.evaluation.metrics.ndcg import ndcg_at_k
from ragcore.records import Passage
from ragcore.retrieval import fusion
from ragcore.retrieval.bm25 import BM25Index, BM25Params, top_k
from ragcore.retrieval.learned_fusion import FusionStats
from ragcore.store import Library

DEPTH = 100
TIE = 0.002  # session 4's rule only (pick_worst)
GATED = "gated"
# The default's family is fixed to the gate, whose settings include every
# fused ranking of the plain families (a gate that never picks dense alone
# is that fusion): choosing between families per fold picked another family
# exactly in the folds where the gate scored best (session 4, and this
# session's first run; docs/decisions.md). Within it, the fused ranking and
# the signals are chosen in every fold.
DEFAULT_FAMILY = GATED
Ranking = list[tuple[int, float]]


@dataclass
class Collection:
    """One scored collection: its passages, judged questions and qrels."""

    name: str
    unit: str
    passages: list[Passage]
    questions: list[tuple[str, str, str]]  # (id, text, type)
    qrels: dict[str, dict[str, int]]
    groups: dict[str, list[str]] = field(default_factory=dict)  # group name -> question ids

    def keys(self, rows: Iterable[int]) -> list[str]:
        seen: set[str] = set()
        out = []
        for row in rows:
            p = self.passages[row]
            key = p.doc if self.unit == "document" else p.id
            if key not in seen:
                seen.add(key)
                out.append(key)
        return out

    def ndcg(self, qid: str, ranking: Ranking) -> float:
        return ndcg_at_k(self.keys(row for row, _ in ranking), self.qrels[qid], 10)


def _judged(questions, qrels):
    return [q for q in questions if any(g > 0 for g in qrels.get(q[0], {}).values())]


def load_beir_collection(folder: Path, library: Library) -> Collection:
    beir = load_beir(folder)
    corpus = load_corpus(folder, "auto", library)
    questions = _judged([(q.id, q.text, q.type) for q in beir.questions], beir.qrels)
    name = folder.name
    return Collection(
        name, "document", corpus.passages, questions, beir.qrels, {name: [q[0] for q in questions]}
    )


def load_gold_collection(path: Path, library: Library, name: str, split_types: bool) -> Collection:
    gold = load_goldset(path)
    corpus = load_corpus(gold.corpus, "auto", library)
    resolved = resolve_spans(gold, corpus.documents)
    qrels = all_qrels(resolved, corpus.passages, gold.unit)
    # Only grades at or above the set's relevance threshold count as gains
    # here as in the stored runs' nDCG? No: nDCG uses the grades themselves.
    questions = _judged([(q.id, q.text, q.type) for q in resolved], qrels)
    groups: dict[str, list[str]] = {}
    for qid, _text, qtype in questions:
        groups.setdefault(f"{name}:{qtype}" if split_types else name, []).append(qid)
    return Collection(name, gold.unit, corpus.passages, questions, qrels, groups)


# ------------------------------------------------------------- signals


def _fingerprint(coll: Collection, model_id: str) -> str:
    digest = hashlib.sha256(model_id.encode())
    for p in coll.passages:
        digest.update(p.content_hash.encode())
    return digest.hexdigest()[:16]


def table_row_owners(coll: Collection) -> list[int]:
    """Rows of ``coll``'s passages that hold Markdown table rows (as BM25's ``row_owner``)."""
    from ragcore.retrieval.bm25_rows import continued_headers, table_rows

    return [
        i
        for i, (p, h) in enumerate(continued_headers(coll.passages))
        if "|" in p.text and table_rows(p.text, h)
    ]


def dense_rankings(
    coll: Collection, library: Library, cache: Path, row_weight: float = 0.0
) -> dict[str, Ranking]:
    """Top ``DEPTH`` (row, cosine) per question, from the cache when there;
    with ``row_weight``, passages holding table rows score
    max(own, row_weight x best row) (scripts/dense_rows.py)."""
    from ragcore.retrieval.embedding import get_embedder
    from ragcore.retrieval.vectors import passage_vectors

    embedder = get_embedder()
    owners = table_row_owners(coll) if row_weight else []
    tag = f"-rows{row_weight:g}" if owners else ""
    path = cache / f"dense-{coll.name}-{_fingerprint(coll, embedder.model_id)}{tag}.json"
    stored: dict[str, Ranking] = json.loads(path.read_text()) if path.is_file() else {}
    wanted = {hashlib.sha256(text.encode()).hexdigest()[:16]: (qid, text) for qid, text, _ in coll.questions}
    missing = [key for key in wanted if key not in stored]
    if missing:
        vectors, _ = passage_vectors(coll.passages, embedder, library)
        rows = row_vectors(coll.passages, owners, embedder, library) if owners else None
        for key in missing:
            query = embedder.embed_query(wanted[key][1])
            scores = vectors @ np.asarray(query, dtype=np.float32)
            if rows is not None:
                held, best = rows.best(query)
                scores[held] = np.maximum(scores[held], row_weight * best)
            stored[key] = [[int(r), float(s)] for r, s in top_k(scores.astype(np.float64) + 2.0, DEPTH)]
            # +2 keeps every cosine positive for top_k; undone below.
        cache.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stored))
    return {qid: [(int(r), float(s) - 2.0) for r, s in stored[key]] for key, (qid, _) in wanted.items()}


def bm25_rankings(coll: Collection, params: BM25Params) -> tuple[BM25Index, dict[str, Ranking]]:
    index = BM25Index.from_passages(coll.passages, params)
    return index, {qid: index.search(text, DEPTH) for qid, text, _ in coll.questions}


# ------------------------------------------------------------ candidates

Fuser = Callable[[Ranking, Ranking, fusion.QuerySignals], Ranking]


def _rrf(k: float, wb: float) -> Fuser:
    return lambda bm, dn, sig: fusion.rrf({"bm25": bm, "dense": dn}, k=k, weights={"bm25": wb, "dense": 1.0})


def _convex(alpha: float, tmm: bool) -> Fuser:
    weights = {"bm25": 1 - alpha, "dense": alpha}
    if tmm:
        return lambda bm, dn, sig: fusion.convex_tmm({"bm25": bm, "dense": dn}, weights)
    return lambda bm, dn, sig: fusion.convex({"bm25": bm, "dense": dn}, weights)


def _agreement(k: float, power: float) -> Fuser:
    return lambda bm, dn, sig: fusion.agreement_rrf(bm, dn, k=k, power=power)[0]


def _gated(
    k: float, feature: fusion.GateFeature, threshold: float, low: float, pin: bool, soft: bool = False
) -> Fuser:
    def fuse(bm: Ranking, dn: Ranking, sig: fusion.QuerySignals) -> Ranking:
        return fusion.gated_rrf(
            bm, dn, sig, k=k, feature=feature, threshold=threshold, low=low, pin=pin, soft=soft
        )[0]

    return fuse


def candidate_families() -> dict[str, dict[str, Fuser]]:
    """Every family's parameter grid (the grids are written before any run)."""
    families: dict[str, dict[str, Fuser]] = {
        "rrf": {f"k={k}": _rrf(k, 1.0) for k in (10, 20, 40, 60, 100)},
        "weighted rrf": {
            f"k={k} bm25 x{w}": _rrf(k, w) for k in (20, 60) for w in (0.2, 0.35, 0.5, 0.7, 1.4, 2.0)
        },
        "convex min-max": {f"dense {a}": _convex(a, False) for a in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)},
        "convex tmm": {f"dense {a}": _convex(a, True) for a in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)},
        "agreement rrf": {f"k={k} power={p}": _agreement(k, p) for k in (20, 60) for p in (1.0, 2.0)},
        "query-signal rrf": {},
    }
    for feature in ("dense_coverage", "support"):
        for k in (20, 60):
            for t in (0.05, 0.1, 0.2, 0.3, 0.5, 0.7):
                for low in (0.0, 0.2, 0.4):
                    for soft in (False, True):
                        name = f"{feature} {'ramp to' if soft else '>='} {t} else x{low} k={k}"
                        families["query-signal rrf"][name] = _gated(k, feature, t, low, True, soft)
    return families


BM25_GRID: dict[str, BM25Params] = {
    f"{stop} k1={k1} b={b} heading={h}{' +name' if h else ''} adjacency=0.0": BM25Params(
        k1=k1, b=b, heading_weight=h, adjacency_weight=0.0, stop_list=stop, name_in_heading=bool(h)
    )
    for stop in ("short", "english")
    for k1, b in ((0.9, 0.4), (0.9, 0.6), (1.2, 0.4), (1.2, 0.6), (1.2, 0.75), (1.5, 0.6))
    for h in (0.0, 0.5)
    if stop == "english" or (k1, b, h) == (0.9, 0.4, 0.5)
}


# -------------------------------------------------------------- scoring


def group_means(coll: Collection, per_question: dict[str, float]) -> dict[str, float]:
    return {g: float(np.mean([per_question[q] for q in qids])) for g, qids in coll.groups.items()}


def pick_mean(
    scores: dict[str, dict[str, float]], groups: list[str], collection_of: dict[str, str] | None = None
) -> str:
    """The setting with the highest mean over ``groups``, each collection
    weighted equally (its groups share its weight) when ``collection_of``
    maps groups to collections, so the demo's nine types do not outvote
    the other collections."""
    collection_of = collection_of or {g: g for g in groups}
    size: dict[str, int] = {}
    for g in groups:
        size[collection_of[g]] = size.get(collection_of[g], 0) + 1
    weight = {g: 1.0 / size[collection_of[g]] for g in groups}

    def mean(name: str) -> float:
        return float(sum(weight[g] * scores[name][g] for g in groups) / sum(weight.values()))

    return max(scores, key=lambda name: (mean(name), name))


def timed(label: str):
    t0 = time.time()
    return lambda: print(f"   [{label}: {time.time() - t0:.0f} s]", flush=True)


@dataclass
class Prepared:
    """Per collection: dense rankings, and per BM25 setting its rankings and
    the query signals computed with that index."""

    coll: Collection
    dense: dict[str, Ranking]
    bm25: dict[str, dict[str, Ranking]] = field(default_factory=dict)
    signals: dict[str, dict[str, fusion.QuerySignals]] = field(default_factory=dict)
    stats: dict[str, dict[str, FusionStats]] = field(default_factory=dict)
    indexes: dict[str, BM25Index] = field(default_factory=dict)
    parts: dict[str, dict] = field(default_factory=dict)  # label -> qid -> fusion_parts.PartQuery list
    dense_of: Callable[[list[str]], dict[str, Ranking]] | None = None  # dense rankings of more queries

    def add_bm25(self, label: str, params: BM25Params, signals: bool = False) -> None:
        if label in self.bm25 and (label in self.signals or not signals):
            return
        index, rankings = bm25_rankings(self.coll, params)
        self.bm25[label] = rankings
        if not signals:
            return
        self.indexes[label] = index
        self.signals[label] = {
            qid: fusion.query_signals(index, text, rankings[qid], self.dense[qid])
            for qid, text, _ in self.coll.questions
        }
        self.stats[label] = {
            qid: fusion.fusion_stats(index, text, rankings[qid], self.dense[qid])
            for qid, text, _ in self.coll.questions
        }


def per_question(
    prep: Prepared, label: str, fuse: Fuser | None, signal: str | None = None
) -> dict[str, float]:
    """nDCG@10 per question of one ranker: a single signal or a fusion."""
    coll = prep.coll
    out = {}
    for qid, _text, _ in coll.questions:
        if signal == "dense":
            ranking = prep.dense[qid]
        elif signal == "bm25":
            ranking = prep.bm25[label][qid]
        else:
            ranking = fuse(prep.bm25[label][qid], prep.dense[qid], prep.signals[label][qid])
        out[qid] = coll.ndcg(qid, ranking)
    return out


def shipped_bm25_grid() -> dict[str, BM25Params]:
    """The grid cut to the shipped BM25 setting (``--bm25 shipped``: the grid
    was run in full before and every fold chose it; this saves its cost)."""
    return {label: params for label, params in BM25_GRID.items() if params == BM25Params()}


def cross_validate(
    preps: list[Prepared], grid: dict[str, BM25Params] | None = None, learned: bool = True
) -> dict:
    """The leave-one-collection-out study; returns everything it printed."""
    groups = [g for prep in preps for g in prep.coll.groups]
    owner = {g: prep for prep in preps for g in prep.coll.groups}
    # 1. BM25 settings, chosen by BM25 nDCG@10 alone.
    done = timed("BM25 grid")
    grid = grid or BM25_GRID
    bm25_scores: dict[str, dict[str, float]] = {label: {} for label in grid}
    for prep in preps:
        for label, params in grid.items():
            prep.add_bm25(label, params)
            bm25_scores[label].update(group_means(prep.coll, per_question(prep, label, None, "bm25")))
        # keep memory down: only the grid's scores are needed from here on
    done()
    coll_of = {g: owner[g].coll.name for g in groups}
    bm25_choice = {g: pick_mean(bm25_scores, [h for h in groups if h != g], coll_of) for g in groups}
    # 2. Fusion candidates over each chosen BM25 setting.
    families = candidate_families()
    dense_scores = {}
    for prep in preps:
        dense_scores.update(group_means(prep.coll, per_question(prep, "", None, "dense")))
    # (bm25 label, family, setting) -> collection -> qid -> score (ids repeat across collections)
    per_q: dict[tuple[str, str, str], dict[str, dict[str, float]]] = {}
    scores: dict[
        str, dict[str, dict[str, dict[str, float]]]
    ] = {}  # bm25 -> family -> setting -> group -> score
    done = timed("fusion candidates")
    for label in sorted(set(bm25_choice.values()) | {pick_mean(bm25_scores, groups, coll_of)}):
        for prep in preps:
            prep.add_bm25(label, grid[label], signals=True)
        scores[label] = {}
        for family, settings in families.items():
            scores[label][family] = {}
            for setting, fuse in settings.items():
                scores[label][family][setting] = {}
                for prep in preps:
                    pq = per_question(prep, label, fuse)
                    per_q.setdefault((label, family, setting), {})[prep.coll.name] = pq
                    scores[label][family][setting].update(group_means(prep.coll, pq))
    done()
    done = timed("multi-part queries")
    for label in scores:
        for prep in preps:
            prepare_parts(prep, label, prep.dense_of)
    done()
    done = timed("fitted families")
    fitted = {
        label: Fitted(GateFamily(preps, label), LearnedFamily(preps, label) if learned else None)
        for label in scores
    }
    result = _folds(preps, groups, owner, bm25_scores, bm25_choice, dense_scores, scores, per_q, fitted)
    done()
    return result


def nested(
    settings: dict[str, dict[str, float]], train: list[str], coll_of: dict[str, str]
) -> dict[str, float]:
    """A family's score on each training group h with its setting picked on
    the training groups other than h (a fitted family's scores on h are of
    fits without h already), so families are compared on queries none of
    them was tuned or fitted on, however large their grids."""
    return {h: settings[pick_mean(settings, [t for t in train if t != h], coll_of)][h] for h in train}


def choose(scores_by_family, train, coll_of):
    """Tune each family on ``train`` (highest mean nDCG@10, each collection
    weighted equally), then pick a family by the same rule over its nested
    training scores; returns ({family: setting}, that family, nested).
    (The default's family is fixed, ``DEFAULT_FAMILY``: this pick is
    printed for the record.)"""
    tuned = {family: pick_mean(settings, train, coll_of) for family, settings in scores_by_family.items()}
    inner = {family: nested(settings, train, coll_of) for family, settings in scores_by_family.items()}
    return tuned, pick_mean(inner, train, coll_of), inner


def pick_worst(scores: dict[str, dict[str, float]], best: dict[str, float], groups: list[str]) -> str:
    """Session 4's rule, kept for the record: the largest worst-case margin
    over ``best`` on ``groups`` (ties within TIE by the mean margin)."""

    def margins(name: str) -> np.ndarray:
        return np.asarray([scores[name][g] - best[g] for g in groups])

    worst = {name: margins(name).min() for name in scores}
    top = max(worst.values())
    tied = [name for name in scores if worst[name] >= top - TIE]
    return max(tied, key=lambda name: (margins(name).mean(), name))


@dataclass
class Fitted:
    """The fitted families for one BM25 setting (fitted per fold, not picked
    from a grid); the learned fusion is left out with ``--no-learned``."""

    gated: GateFamily
    learned: LearnedFamily | None = None

    def families(self) -> dict[str, FittedFamily]:
        out: dict[str, FittedFamily] = {GATED: self.gated}
        if self.learned is not None:
            out["learned"] = self.learned
        return out

    def fold_scores(self, held_out: str, groups: list[str]) -> dict[str, dict[str, dict[str, float]]]:
        return {name: family.fold_scores(held_out, groups) for name, family in self.families().items()}

    def all_scores(self, groups: list[str]) -> dict[str, dict[str, dict[str, float]]]:
        return {name: family.all_scores(groups) for name, family in self.families().items()}

    def per_question(self, family: str, group: str, setting: str) -> dict[str, float]:
        return self.families()[family].per_question(group, {group}, setting)


def uniform_fuser(family: str, setting: str, fitted: Fitted, excluded: set[str]) -> AnyFuser:
    """The chosen fusion as one callable of (bm25, dense, signals, stats)."""
    if family == "learned" and fitted.learned is not None:
        rule = fusion.LearnedRule(pin=setting.endswith("pins"), model=fitted.learned.model(excluded))
        return lambda bm, dn, sig, st: rule.fuse(bm, dn, st)
    if family == GATED:
        gated = fusion.GatedRule(pin=True, gate=fitted.gated.model(excluded, setting))
        return lambda bm, dn, sig, st: gated.fuse(bm, dn, st)
    fuse = candidate_families()[family][setting]
    return lambda bm, dn, sig, st: fuse(bm, dn, sig)


def _held_out(prep, label, family, setting, fitted, g, per_q) -> dict[str, float]:
    """Per question of group ``g``: the family at ``setting`` (fitted
    without ``g``), with multi-part questions split as the retriever ships."""
    if family in fitted.families():
        ch = fitted.per_question(family, g, setting)
    else:
        ch = per_q[(label, family, setting)][prep.coll.name]
    split = shipped_split()
    if split == "off":
        return ch
    fuser = uniform_fuser(family, setting, fitted, {g})
    return split_per_question(prep, label, fuser, prep.coll.groups[g], split)


def _fold(g, groups, owner, coll_of, bm25_scores, bm25_choice, dense_scores, scores, per_q, fitted) -> dict:
    from ragcore.evaluation.statistics import paired_mean_comparison

    train = [h for h in groups if h != g]
    label = bm25_choice[g]
    best = {h: max(bm25_scores[label][h], dense_scores[h]) for h in groups}
    fold_scores = dict(scores[label]) | fitted[label].fold_scores(g, groups)
    tuned, by_family_rule, inner = choose(fold_scores, train, coll_of)
    chosen = DEFAULT_FAMILY
    worst_rule = pick_worst(inner, best, train)
    prep = owner[g]
    qids = prep.coll.groups[g]
    bm = per_question(prep, label, None, "bm25")
    dn = per_question(prep, "", None, "dense")
    rrf = per_q[(label, "rrf", "k=60")][prep.coll.name]
    ch = _held_out(prep, label, chosen, tuned[chosen], fitted[label], g, per_q)
    pair = {
        name: paired_mean_comparison([ch[q] for q in qids], [other[q] for q in qids])
        for name, other in (("bm25", bm), ("dense", dn), ("rrf k=60", rrf))
    }
    return {
        "collection": g,
        "questions": len(qids),
        "bm25_setting": label,
        "bm25": bm25_scores[label][g],
        "dense": dense_scores[g],
        "families": {
            family: {
                "setting": setting,
                "held_out": fold_scores[family][setting][g],
                "nested_training_mean": float(np.mean([inner[family][h] for h in train])),
            }
            for family, setting in tuned.items()
        },
        "chosen": {
            "family": chosen,
            "setting": tuned[chosen],
            "split_parts": shipped_split(),
            "held_out": float(np.mean([ch[q] for q in qids])),
        },
        "family_by_mean_rule": {
            "family": by_family_rule,
            "held_out": fold_scores[by_family_rule][tuned[by_family_rule]][g],
        },
        "family_by_session4_rule": {
            "family": worst_rule,
            "held_out": fold_scores[worst_rule][tuned[worst_rule]][g],
        },
        "chosen_minus": {
            name: {"diff": c.diff, "low": c.low, "high": c.high, "p": c.p} for name, c in pair.items()
        },
        "per_question": {
            "chosen": [ch[q] for q in qids],
            "bm25": [bm[q] for q in qids],
            "dense": [dn[q] for q in qids],
            "rrf k=60": [rrf[q] for q in qids],
        },
    }


def _folds(preps, groups, owner, bm25_scores, bm25_choice, dense_scores, scores, per_q, fitted) -> dict:
    coll_of = {g: owner[g].coll.name for g in groups}
    rows = [
        _fold(g, groups, owner, coll_of, bm25_scores, bm25_choice, dense_scores, scores, per_q, fitted)
        for g in groups
    ]
    final_bm25 = pick_mean(bm25_scores, groups, coll_of)
    final_scores = dict(scores[final_bm25]) | fitted[final_bm25].all_scores(groups)
    final_tuned, _, _ = choose(final_scores, groups, coll_of)
    final_family = DEFAULT_FAMILY
    if fitted[final_bm25].learned is not None:
        fitted[final_bm25].learned.model(set()).write()
    from ragcore.retrieval.fusion_gate import shipped_gate

    if (
        shipped_gate().prf_k
    ):  # this CV's gate has no PRF: scripts/prf_study.py --write-gate fits the shipped one
        print("fusion_gate.json kept: the shipped gate uses PRF (scripts/prf_study.py --write-gate)")
    else:
        fitted[final_bm25].gated.model(set(), final_tuned[GATED]).write()
    return {
        "kind": "fusion-cv",  # not a run (evaluation.run.is_run)
        "rule": "leave one group out; each family's setting chosen by the highest mean nDCG@10 over the other "
        "groups, each collection weighted equally; the default is the gated family at its chosen setting "
        "(the family pick by the same rule over nested scores, and by session 4's worst-case rule, printed "
        "for the record); BM25 by the same mean of BM25 alone",
        "folds": rows,
        "final": {
            "bm25": final_bm25,
            "family": final_family,
            "setting": final_tuned.get(final_family, ""),
            "split_parts": shipped_split(),
        },
        "bm25_grid": bm25_scores,
    }


def print_table(result: dict) -> None:
    folds = result["folds"]
    families = list(folds[0]["families"]) if folds else []
    short = {
        "rrf": "rrf",
        "weighted rrf": "w-rrf",
        "convex min-max": "cvx-mm",
        "convex tmm": "cvx-tmm",
        "agreement rrf": "agree",
        "query-signal rrf": "qsig",
        "learned": "learned",
        GATED: "gated",
    }
    print("\n== held-out nDCG@10 per collection (each figure chosen on the other collections)")
    head = f"{'collection':22} {'n':>4} {'bm25':>6} {'dense':>6} " + " ".join(
        f"{short.get(f, f):>7}" for f in families
    )
    print(head + f" {'chosen':>7}  chosen-bm25 [95% CI]   chosen-dense [95% CI]   chosen family: setting")
    for row in folds:
        cells = " ".join(f"{row['families'][f]['held_out']:7.3f}" for f in families)
        cm = row["chosen_minus"]
        ci = "  ".join(
            f"{cm[n]['diff']:+.3f} [{cm[n]['low']:+.3f}, {cm[n]['high']:+.3f}]" for n in ("bm25", "dense")
        )
        print(
            f"{row['collection']:22} {row['questions']:4d} {row['bm25']:6.3f} {row['dense']:6.3f} {cells} "
            f"{row['chosen']['held_out']:7.3f}  {ci}   {row['chosen']['family']}: {row['chosen']['setting']}"
        )
    f = result["final"]
    print(
        f"\n== chosen on all collections (the shipped default): BM25 {f['bm25']}; fusion {f['family']}: {f['setting']}"
    )


# Development gold sets over ../shared/documents a CV may take as collections
# (session 15: every development set over ../shared/documents).
SHARED_SETS = (
    "dev-shared",
    "dev-identifiers",
    "dev-answers",
    "dev-answers-b",
    "dev-named-parts",
    "dev-risks",
)


def load_all(names: list[str], root: Path, shared: Path, library: Library) -> list[Collection]:
    out = []
    for name in names:
        t0 = time.time()
        if name in ("cranfield", "cisi", "vaswani"):
            folder = shared / "benchmarks" / name
            if not folder.is_dir():
                print(f"skipping {name}: {folder} not found")
                continue
            out.append(load_beir_collection(folder, library))
        elif name == "demo":
            out.append(
                load_gold_collection(root / "eval" / "demo.gold.json", library, "demo", split_types=True)
            )
        elif name in SHARED_SETS:
            path = root / "eval" / f"{name}.gold.json"
            if not (root / ".." / "shared" / "documents").is_dir():
                print(f"skipping {name}: ../shared/documents not found beside {root}")
                continue
            out.append(load_gold_collection(path, library, name, split_types=False))
        else:
            raise SystemExit(f"unknown collection {name!r}")
        c = out[-1]
        print(
            f"   {name}: {len(c.questions)} judged questions, {len(c.passages)} passages ({time.time() - t0:.0f} s)"
        )
    return out


def cv_main(
    names: list[str],
    root: Path,
    shared: Path,
    cache: Path,
    out: Path | None,
    bm25: str = "grid",
    learned: bool = True,
) -> int:
    from ragcore.corpus import default_library

    library = default_library()
    collections = load_all(names, root, shared, library)
    preps = []
    for coll in collections:
        done = timed(f"dense {coll.name}")
        preps.append(
            Prepared(coll, dense_rankings(coll, library, cache), dense_of=_more_dense(coll, library, cache))
        )
        done()
    result = cross_validate(preps, shipped_bm25_grid() if bm25 == "shipped" else None, learned)
    result["bm25_grid_run"] = bm25
    result["learned_family"] = learned
    print_table(result)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
        write_markdown(result, out.with_suffix(".md"))
        print(f"wrote {out} and {out.with_suffix('.md')}")
    return 0


def _more_dense(
    coll: Collection, library: Library, cache: Path, row_weight: float = 0.0
) -> Callable[[list[str]], dict[str, Ranking]]:
    """Dense rankings of further queries over ``coll`` (cached as its questions are)."""

    def rank(texts: list[str]) -> dict[str, Ranking]:
        extra = Collection(coll.name, coll.unit, coll.passages, [(t, t, "") for t in texts], {})
        return dense_rankings(extra, library, cache, row_weight)

    return rank


def goal_met(row: dict) -> str:
    """Whether the held-out hybrid reaches the better single signal and the
    reference RRF figure where there is one (unrounded)."""
    hybrid = row["chosen"]["held_out"]
    bar = max(row["bm25"], row["dense"])
    reference = REFERENCE_RRF.get(row["collection"])
    met = hybrid >= bar and (reference is None or hybrid >= reference)
    return ("yes" if met else "no") + (f" (ref {reference:.3f})" if reference is not None else "")


def summary_table(result: dict) -> str:
    """The README's held-out table: the single signals, plain RRF k=60 and
    the chosen default (``hybrid``), with paired intervals against each."""
    lines = [
        "| collection | questions | BM25 | dense | RRF k=60 | **hybrid** (chosen without it) "
        "| hybrid − BM25 [95% CI] | hybrid − dense [95% CI] | hybrid − RRF [95% CI] | gate setting chosen | goal met |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["folds"]:
        cm = row["chosen_minus"]
        cis = [
            f"{cm[n]['diff']:+.3f} [{cm[n]['low']:+.3f}, {cm[n]['high']:+.3f}]"
            for n in ("bm25", "dense", "rrf k=60")
        ]
        rrf = float(np.mean(row["per_question"]["rrf k=60"]))
        lines.append(
            f"| {row['collection']} | {row['questions']} | {row['bm25']:.3f} | {row['dense']:.3f} | {rrf:.3f} "
            f"| **{row['chosen']['held_out']:.3f}** | {cis[0]} | {cis[1]} | {cis[2]} "
            f"| {row['chosen']['setting']} | {goal_met(row)} |"
        )
    return "\n".join(lines) + "\n"


def write_markdown(result: dict, path: Path) -> None:
    """The three tables of a CV result, as eval/results/fusion-cv.md holds them."""
    path.write_text("\n".join((markdown_table(result), summary_table(result), family_rule_table(result))))


def family_rule_table(result: dict) -> str:
    """For the record: the family a per-fold choice between families would
    have picked (by the mean rule over nested scores, and by session 4's
    worst-case rule), with its held-out score (unsplit), beside the default."""
    lines = [
        "| collection | hybrid (gated, split) | family by mean rule | its held-out | family by session-4 rule "
        "| its held-out |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["folds"]:
        mean, worst = row.get("family_by_mean_rule"), row.get("family_by_session4_rule")
        if not mean or not worst:
            continue
        lines.append(
            f"| {row['collection']} | {row['chosen']['held_out']:.3f} | {mean['family']} | {mean['held_out']:.3f} "
            f"| {worst['family']} | {worst['held_out']:.3f} |"
        )
    return "\n".join(lines) + "\n"


def markdown_table(result: dict) -> str:
    """The held-out table as Markdown (README and docs/decisions.md quote it)."""
    folds = result["folds"]
    families = list(folds[0]["families"]) if folds else []
    lines = [
        "| collection | questions | BM25 | dense | "
        + " | ".join(families)
        + " | **chosen** | chosen − BM25 [95% CI] | chosen − dense [95% CI] | chosen − RRF k=60 [95% CI] |",
        "|---|---|---|---|" + "---|" * len(families) + "---|---|---|---|",
    ]
    for row in folds:
        cm = row["chosen_minus"]
        cis = [
            f"{cm[n]['diff']:+.3f} [{cm[n]['low']:+.3f}, {cm[n]['high']:+.3f}]"
            for n in ("bm25", "dense", "rrf k=60")
        ]
        cells = [f"{row['families'][f]['held_out']:.3f}" for f in families]
        lines.append(
            f"| {row['collection']} | {row['questions']} | {row['bm25']:.3f} | {row['dense']:.3f} | "
            + " | ".join(cells)
            + f" | **{row['chosen']['held_out']:.3f}** | {cis[0]} | {cis[1]} | {cis[2]} |"
        )
    return "\n".join(lines) + "\n"
