"""Pseudo-relevance feedback for the query vector (issue #22's optional
item), measured in the gate's leave-one-group-out cross-validation
(scripts/gate_variants.py's procedure and groups).

The step (Rocchio, 1971; for dense retrievers Yu et al., CIKM 2021, and Li
et al., ACM TOIS 2023, who found a vector Rocchio step over the top-k
passage vectors a robust gain): q' = normalise(q + beta * mean of the
vectors of dense's top k passages). To keep issue #18's speed, q' does not
scan the index again: it re-scores only the candidates the gate already
holds, the union of BM25's and dense's top 100, and its dense ranking is
the top 100 of those by q'. The gate's signals are always computed from
the plain rankings (so the gate sees what it sees today; PRF only changes
what a chosen expert ranks).

Grid and ship rule, written before the first run:

- k in {3, 5, 10}, beta in {0.25, 0.5, 1.0}, or off;
- applied to the gate's dense-alone expert ("dense"), to the dense half of
  its fused ranking ("fused"), or to both ("both");
- "PRF chosen per fold": for each held-out group g, every (PRF setting,
  where, gate setting) of the grid, "off" included, is fitted without g and
  a training group h and scored on h; the one with the highest mean over
  the training groups (each collection weighted equally; ties by name) is
  fitted without g and scored on g, multi-part questions split as the
  retriever ships (exactly ``gate_variants.Lab.cv``). The variants with
  "where" fixed, and dense + PRF alone (k and beta chosen the same way on
  dense alone's training mean), are reported beside it.
- **Ship** "PRF chosen per fold" only if its held-out count of groups
  meeting issue #22's goal (``gate_variants.goal``: >= the better of BM25
  and dense alone, and >= the RRF reference on Cranfield / CISI / Vaswani)
  is higher than the shipped gate's in the same run, and no group the
  shipped gate meets falls below its target. Otherwise nothing ships and
  this script's output is the record.

    nice -n 10 python scripts/prf_study.py [--out eval/results/prf-study.md]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # BLAS threads contend on a loaded machine

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fusion_cv import Prepared, _more_dense, dense_rankings, load_all  # noqa: E402
from fusion_gate import FUSED, expert  # noqa: E402
from fusion_parts import part_texts, prepare_parts, shipped_split  # noqa: E402
from gate_variants import (  # noqa: E402
    ALL,
    REFERENCE_RRF,
    SIGNALS,
    Lab,
    Piece,
    Query,
    Softmax,
    extra_signals,
    goal,
)

from ragcore.evaluation.metrics.ndcg import ndcg_at_k  # noqa: E402
from ragcore.evaluation.statistics import paired_mean_comparison  # noqa: E402
from ragcore.retrieval import BM25Params, fusion  # noqa: E402
from ragcore.retrieval.fusion_gate import GATE_FEATURES, GateQuery, fit_gate, gate_features  # noqa: E402
from ragcore.retrieval.prf import feedback_ranking  # noqa: E402

KS = (3, 5, 10)
BETAS = (0.25, 0.5, 1.0)
PRF = tuple(f"prf k{k} b{b:g}" for k in KS for b in BETAS)
WHERE = ("dense", "fused", "both")
# experts made from a piece's rankings (name -> ranking)
Derive = Callable[[dict[str, list[tuple[int, float]]]], dict[str, list[tuple[int, float]]]]
DEPTH = 100  # the gate's lists, and dense's list after re-scoring
Ranking = list[tuple[int, float]]


def prf_ranking(
    query: np.ndarray, vectors: np.ndarray, bm: Ranking, dn: Ranking, k: int, beta: float
) -> Ranking:
    """Dense's ranking under q', over the union of the two top 100s only
    (the retriever's own function, ``ragcore.retrieval.prf``)."""
    return feedback_ranking(
        query, bm[:DEPTH], dn[:DEPTH], k, beta, lambda rows: vectors[rows], score_rows(vectors)
    )


def score_rows(vectors: np.ndarray):
    return lambda q, rows: vectors[rows] @ q


def setting(name: str) -> tuple[int, float]:
    k, b = name.split()[1:]
    return int(k[1:]), float(b[1:])


def build(names: list[str], derive: Derive | None = None) -> tuple[list[Query], dict[str, list[str]]]:
    """As gate_variants.build, with each piece's PRF experts added: "dense
    <prf>" and "<fused> <prf>" (the fusion over BM25 and dense under q');
    ``derive`` adds experts made from those rankings (before identifier pins)."""
    from ragcore.corpus import default_library
    from ragcore.retrieval.embedding import get_embedder
    from ragcore.retrieval.vectors import passage_vectors

    library, embedder = default_library(), get_embedder()
    cache = ROOT / ".ragcore" / "fusion-cache"
    label, params = "shipped", BM25Params()
    experts = {name: expert(name) for name in FUSED}
    carry = shipped_split()
    queries, rowkey = [], {}
    checked = []
    for coll in load_all(names, ROOT, ROOT.parent / "shared", library):
        t0 = time.time()
        prep = Prepared(
            coll, dense_rankings(coll, library, cache), dense_of=_more_dense(coll, library, cache)
        )
        prep.add_bm25(label, params, signals=True)
        prepare_parts(prep, label, prep.dense_of)
        index = prep.indexes[label]
        vectors, _ = passage_vectors(coll.passages, embedder, library)
        rowkey[coll.name] = [p.doc if coll.unit == "document" else p.id for p in coll.passages]

        def piece(bm, dn, stats, text, need_rows, coll=coll, index=index, vectors=vectors):
            qv = np.asarray(embedder.embed_query(text), dtype=np.float32)
            if dn:  # the cached cosines are this vector's: a check that q' starts from q
                checked.append(abs(float(vectors[dn[0][0]] @ qv) - dn[0][1]))
            rankings = {"dense": list(dn), "bm25": list(bm)} | {
                n: e.fused(bm, dn) for n, e in experts.items()
            }
            plain_prf = {}
            for s in PRF:
                k, b = setting(s)
                dn2 = prf_ranking(qv, vectors, bm, dn, k, b)
                plain_prf[s] = dn2
                rankings[f"dense {s}"] = dn2
                rankings |= {f"{n} {s}": e.fused(bm, dn2) for n, e in experts.items()}
            if derive is not None:
                rankings |= derive(rankings)
            if stats.identifier_rows:
                rankings = {n: fusion.pin_rows(r, stats.identifier_rows) for n, r in rankings.items()}
            x = np.r_[gate_features(bm, dn, stats), extra_signals(index, text, bm, dn)]
            rows = {n: [row for row, _ in r[:DEPTH]] for n, r in rankings.items()}
            return (
                Piece(x, {n: coll.keys(r) for n, r in rows.items()}),
                (rows if need_rows else {}),
                plain_prf,
            )

        group_of = {qid: g for g, qids in coll.groups.items() for qid in qids}
        for qid, text, qtype in coll.questions:
            pieces = prep.parts[label][carry].get(qid) if carry != "off" else None
            whole, rows, plain_prf = piece(
                prep.bm25[label][qid], prep.dense[qid], prep.stats[label][qid], text, bool(pieces)
            )
            parts, part_rows = [], []
            if pieces:
                texts = part_texts([(qid, text, qtype)], carry)[qid]
                for p, t in zip(pieces, texts, strict=True):
                    pc, pr, _ = piece(p.bm25, p.dense, p.stats, t, True)
                    pc.keys = {}
                    parts.append(pc)
                    part_rows.append(pr)
            for pc in parts:
                pc.x[ALL.index("is_part")] = 1.0
            for pc in (whole, *parts) if parts else ():
                pc.x[ALL.index("has_parts")] = 1.0
            q = Query(coll.name, group_of[qid], qid, coll.qrels[qid], whole, parts, rows=[rows, *part_rows])
            q.ndcg = {n: ndcg_at_k(k, q.qrels, 10) for n, k in whole.keys.items()}
            whole.keys = {}  # the nDCGs are kept; the keys would hold ~170 lists per question
            plain = {"bm25": prep.bm25[label][qid], "dense": prep.dense[qid]}
            plain |= {f"dense {s}": r for s, r in plain_prf.items()}
            q.single = {n: ndcg_at_k(coll.keys(r for r, _ in v), q.qrels, 10) for n, v in plain.items()}
            queries.append(q)
        print(f"{coll.name}: {len(coll.questions)} questions, {time.time() - t0:.0f} s", flush=True)
    print(f"largest |cached cosine - recomputed| {max(checked):.2e}", flush=True)
    return queries, rowkey


def gate(dense_name: str, fused_name: str, used: tuple[str, ...]):
    return lambda: Softmax([dense_name, fused_name], used)


def family(prf: tuple[str, ...], where: tuple[str, ...], off: bool = True) -> dict:
    """Every gate setting (fused ranking x signal set) for each PRF setting
    and placement, plus the plain gate ("off") when ``off``."""
    out = {}
    for fused in FUSED:
        for sig, used in SIGNALS.items():
            if off:
                out[f"{fused}{sig} | off"] = gate("dense", fused, used)
            for s in prf:
                for w in where:
                    d = f"dense {s}" if w in ("dense", "both") else "dense"
                    f = f"{fused} {s}" if w in ("fused", "both") else fused
                    out[f"{fused}{sig} | {s} on {w}"] = gate(d, f, used)
    return out


class SharedLab(Lab):
    """Lab whose fits are shared by every variant (a setting's name says
    what it fits, so variants that hold the same setting reuse its fits)."""

    def cv(self, variant):  # type: ignore[override]
        fits = self.__dict__.setdefault("_fits", {})

        def fitted(s: str, excluded: frozenset[str]):
            if (s, excluded) not in fits:
                ids = np.array([i for i, q in enumerate(self.queries) if q.group not in excluded])
                fits[(s, excluded)] = variant[s]().fit(self, ids)
            return fits[(s, excluded)]

        rows = {}
        for g in self.groups:
            train = [h for h in self.groups if h != g]

            def nested(s: str, g: str = g, train: list[str] = train) -> float:
                return self.collection_mean({h: self.mean(fitted(s, frozenset({g, h})), h) for h in train})

            best = max(variant, key=lambda s: (nested(s), s))
            self.last_held[g] = self.held_out(fitted(best, frozenset({g})), g)
            rows[g] = (float(np.mean(self.last_held[g])), best)
        return rows

    def chosen_on_all(self, variant) -> str:
        """The setting the same rule picks with every group in training."""
        fits = self.__dict__.setdefault("_fits", {})

        def mean_without(s: str, h: str) -> float:
            key = (s, frozenset({h}))
            if key not in fits:
                ids = np.array([i for i, q in enumerate(self.queries) if q.group != h])
                fits[key] = variant[s]().fit(self, ids)
            return self.mean(fits[key], h)

        return max(
            variant, key=lambda s: (self.collection_mean({h: mean_without(s, h) for h in self.groups}), s)
        )


def dense_prf_cv(lab: Lab) -> tuple[dict[str, tuple[float, str]], dict[str, list[float]]]:
    """Dense + PRF alone: k and beta (or off) chosen per fold on the
    training groups' collection mean of dense alone, no pins, unsplit."""
    names = ["dense", *(f"dense {s}" for s in PRF)]

    def mean(name: str, g: str) -> float:
        return lab.single_mean(g, name)

    rows, held = {}, {}
    for g in lab.groups:
        train = [h for h in lab.groups if h != g]
        best = max(names, key=lambda n: (lab.collection_mean({h: mean(n, h) for h in train}), n))
        held[g] = [lab.queries[i].single[best] for i in lab.of_group[g]]
        rows[g] = (float(np.mean(held[g])), best)
    return rows, held


def cell(a: list[float], b: list[float]) -> str:
    c = paired_mean_comparison(a, b)
    return f"{c.diff:+.3f} [{c.low:+.3f}, {c.high:+.3f}]"


def report(lab: Lab, results: dict, held: dict, bars: dict[str, float]) -> str:
    names = list(results)
    lines = [
        "| group | questions | target | BM25 | dense | " + " | ".join(names) + " |",
        "|---|---|---|---|---|" + "---|" * len(names),
    ]
    for g in lab.groups:
        ref = f" (ref {REFERENCE_RRF[g]:.3f})" if g in REFERENCE_RRF else ""
        cells = []
        for n in names:
            v = results[n][g][0]
            mark = "" if n == "dense + PRF (alone)" or goal(lab, g, v, bars) else " (miss)"
            cells.append(f"{v:.4f}{mark}")
        lines.append(
            f"| {g} | {len(lab.of_group[g])} | {bars[g]:.3f}{ref} | {lab.single_mean(g, 'bm25'):.3f} | "
            f"{lab.single_mean(g, 'dense'):.3f} | " + " | ".join(cells) + " |"
        )
    met = [
        "-"
        if n == "dense + PRF (alone)"
        else f"**{sum(goal(lab, g, results[n][g][0], bars) for g in lab.groups)}**"
        for n in names
    ]
    lines.append("| **goal met** | | | | | " + " | ".join(met) + " |")
    return "\n".join(lines) + "\n"


def paired(lab: Lab, held: dict) -> str:
    """Held out, per question: dense + PRF − dense; each gate variant − the shipped gate."""
    gates = [n for n in held if n not in ("shipped gate", "dense + PRF (alone)")]
    lines = [
        "| group | dense + PRF − dense | " + " | ".join(f"{n} − shipped gate" for n in gates) + " |",
        "|---|---|" + "---|" * len(gates),
    ]
    for g in lab.groups:
        dense = [lab.queries[i].single["dense"] for i in lab.of_group[g]]
        cells = [cell(held[n][g], held["shipped gate"][g]) for n in gates]
        lines.append(f"| {g} | {cell(held['dense + PRF (alone)'][g], dense)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def ship_verdict(lab: Lab, results: dict, bars: dict[str, float]) -> tuple[bool, str]:
    base, cand = results["shipped gate"], results["PRF chosen per fold"]
    met_base = {g for g in lab.groups if goal(lab, g, base[g][0], bars)}
    met_cand = {g for g in lab.groups if goal(lab, g, cand[g][0], bars)}
    lost = sorted(met_base - met_cand)
    ship = len(met_cand) > len(met_base) and not lost
    return ship, (
        f"shipped gate meets {len(met_base)}/{len(lab.groups)}, PRF chosen per fold {len(met_cand)}/"
        f"{len(lab.groups)}; gained {sorted(met_cand - met_base) or 'none'}, lost {lost or 'none'}: "
        + ("SHIP" if ship else "do not ship")
    )


def write_gate(lab: Lab, chosen: str) -> None:
    """Fit the gate of ``chosen`` (a "<fused><signals> | <prf> on fused"
    setting) on every group and write it as ``fusion_gate.json``, as
    scripts/fusion_gate.py's GateFamily.model fits it (whole questions,
    each collection weighted equally)."""
    from fusion_fitted import collection_weights
    from fusion_gate import FUSED as FUSED_SETTINGS

    gate_part, prf_part = (p.strip() for p in chosen.split("|"))
    if not prf_part.endswith(" on fused"):
        raise SystemExit(f"only PRF on the fused ranking is wired into the retriever, not {chosen!r}")
    prf = prf_part.removesuffix(" on fused")
    fused, used = next((f, u) for f in FUSED for sig, u in SIGNALS.items() if f"{f}{sig}" == gate_part)
    method, k, a = FUSED_SETTINGS[fused]
    weights = collection_weights([q.coll for q in lab.queries])
    queries = [
        GateQuery(q.whole.x[: len(GATE_FEATURES)], q.ndcg[f"{fused} {prf}"], q.ndcg["dense"], w)
        for q, w in zip(lab.queries, weights, strict=True)
    ]
    gate = fit_gate(queries, k, False, 1.0, lab.groups, used, method, a, prf=setting(prf))
    gate.write()
    print(f"wrote the gate: {chosen}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "eval" / "results" / "prf-study.md"))
    parser.add_argument("--collections", default="cranfield,cisi,vaswani,demo,dev-shared")
    parser.add_argument("--write-gate", action="store_true", help="write the chosen gate (if the rule ships)")
    args = parser.parse_args()
    t0 = time.time()
    lab = SharedLab(*build(args.collections.split(",")))
    print(f"built ({time.time() - t0:.0f} s)", flush=True)
    bars = {g: max(lab.single_mean(g, "bm25"), lab.single_mean(g, "dense")) for g in lab.groups}
    variants = {
        "shipped gate": family((), ()),
        "PRF on dense expert": family(PRF, ("dense",)),
        "PRF on fused's dense half": family(PRF, ("fused",)),
        "PRF on both": family(PRF, ("both",)),
        "PRF chosen per fold": family(PRF, WHERE),
    }
    results, held = {}, {}
    results["dense + PRF (alone)"], held["dense + PRF (alone)"] = dense_prf_cv(lab)
    for name, variant in variants.items():
        results[name] = lab.cv(variant)
        held[name] = dict(lab.last_held)
        met = sum(goal(lab, g, v, bars) for g, (v, _) in results[name].items())
        print(f"{name:30} met {met}/{len(lab.groups)} ({time.time() - t0:.0f} s)", flush=True)
    ship, verdict = ship_verdict(lab, results, bars)
    # The setting the rule picks with every group in training (what would ship).
    full = lab.chosen_on_all(variants["PRF chosen per fold"]) if ship else None
    table = report(lab, results, held, bars)
    print(table)
    print(verdict)
    settings = "\n".join(
        f"- {name}: " + "; ".join(f"{g} {s}" for g, (_, s) in rows.items()) for name, rows in results.items()
    )
    out = Path(args.out)
    out.write_text(
        "Held-out nDCG@10 with pseudo-relevance feedback for the query vector (scripts/prf_study.py; "
        "target = the better of BM25 and dense alone on the group, and the RRF reference where there is one)\n\n"
        + table
        + "\nPaired differences per question (held out; 95% paired bootstrap intervals):\n\n"
        + paired(lab, held)
        + f"\nShip rule (fixed before the run): {verdict}\n"
        + "\nSetting chosen per held-out group:\n\n"
        + settings
        + "\n"
    )
    out.with_suffix(".json").write_text(
        json.dumps(
            {
                "kind": "prf-study",  # not a run (evaluation.run.is_run)
                "ship": ship,
                "verdict": verdict,
                "held_out": {n: {g: v for g, (v, _) in r.items()} for n, r in results.items()},
                "chosen": {n: {g: s for g, (_, s) in r.items()} for n, r in results.items()},
                "full": full,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out} ({time.time() - t0:.0f} s)")
    if args.write_gate and full is not None:
        write_gate(lab, full)
    return 0


if __name__ == "__main__":
    sys.exit(main())
