"""Pseudo-relevance feedback on the rankings of a split question's parts, or
not (issue #22): one binary option, measured in scripts/prf_study.py's
leave-one-group-out cross-validation (its machinery, groups and grid).

Why: the shipped PRF step lost held out on demo:multi-part (0.905 -> 0.878)
and moved multi-08's second part from rank 4 to 8 in ``search``. The
retriever ranks each part of a split question with the gate, so the part's
fused ranking takes dense's feedback ranking too; the hypothesis is that
feedback from a part's top 5 drags its query vector toward the other
part's passages.

Option and ship rule, written before the first run:

- **parts PRF on** (shipped) or **off**: when the retriever splits a
  question, each part's fused ranking uses dense's PRF ranking (on) or the
  plain dense ranking (off). The whole question's ranking keeps PRF either
  way, and the gate's choice (read from the plain lists) is the same.
- Per held-out group g: the gate setting is chosen exactly as
  prf_study.py's "PRF on fused's dense half" (its grid: k in {3, 5, 10},
  beta in {0.25, 0.5, 1.0} or off, every gate setting; nested mean over the
  training groups, whole questions). The part option is then chosen on the
  training groups: for each training group h, the chosen setting fitted
  without g and h scores h with multi-part questions split as the retriever
  ships, parts PRF on and off; "off" is chosen only if its collection mean
  over the training groups (each collection weighted equally) is strictly
  higher (a tie keeps the shipped "on"). The setting fitted without g then
  scores g with the chosen option.
- **Ship** "off for parts" only if the held-out count of groups meeting
  issue #22's goal (``gate_variants.goal``) with the option chosen per fold
  does not fall below parts-on's in the same run, no group parts-on meets
  falls below its target, and the option is chosen "off" when every group
  is in training. Otherwise nothing ships and this script's output is the
  record.

    nice -n 10 python scripts/prf_parts_study.py [--out eval/results/prf-parts-study.md]
        [--heldout eval/results/heldout-default.json]

``--heldout`` also writes the "option chosen per fold" column, which is the
shipped default's whole procedure (BM25 as shipped, the gate's setting and
its PRF step, and the parts option, each chosen without the held-out group),
as the held-out result the Evaluation page and the README's held-out table
read (``ragcore.evaluation.heldout``: kind "fusion-cv"), with each group's
BM25, dense and plain RRF k=60 per question and the paired intervals.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gate_variants import REFERENCE_RRF, goal
from prf_study import PRF, ROOT, SharedLab, build, cell, family

PRF_SUFFIX = re.compile(r" prf k\d+ b[\d.]+$")
Option = bool  # parts PRF on (True, shipped) or off


def plain(name: str) -> str:
    """The expert ``name`` without its PRF step (same fused ranking, plain dense)."""
    return PRF_SUFFIX.sub("", name)


class PartsLab(SharedLab):
    def held_out_parts(self, model, g: str, parts_prf: Option) -> list[float]:
        """As Lab.held_out, the parts' experts without PRF when not ``parts_prf``."""
        out = []
        for i in self.of_group[g]:
            q = self.queries[i]
            pieces = [q.whole, *q.parts]
            names = tuple(model.experts[c] for c in model.choose(np.vstack([p.x for p in pieces])))
            if not q.parts:
                out.append(q.ndcg[names[0]])
                continue
            if not parts_prf:
                names = (names[0], *(plain(n) for n in names[1:]))
            out.append(self._split(i, names))
        return out

    def fitted(self, variant, s: str, excluded: frozenset[str]):
        fits = self.__dict__.setdefault("_fits", {})
        if (s, excluded) not in fits:
            ids = np.array([i for i, q in enumerate(self.queries) if q.group not in excluded])
            fits[(s, excluded)] = variant[s]().fit(self, ids)
        return fits[(s, excluded)]

    def choose_option(self, variant, best: dict[str, str], out: frozenset[str], train: list[str]) -> Option:
        """Off only if strictly better on ``train``'s split held-out scores
        (each h scored by its setting ``best[h]`` fitted without ``out`` and h)."""
        score = {}
        for opt in (True, False):
            means = {
                h: float(np.mean(self.held_out_parts(self.fitted(variant, best[h], out | {h}), h, opt)))
                for h in train
            }
            score[opt] = self.collection_mean(means)
        return not (score[False] > score[True])

    def cv_parts(self, variant) -> dict[str, dict]:
        rows = {}
        for g in self.groups:
            train = [h for h in self.groups if h != g]

            def nested(s: str, g: str = g, train: list[str] = train) -> float:
                return self.collection_mean(
                    {h: self.mean(self.fitted(variant, s, frozenset({g, h})), h) for h in train}
                )

            best = max(variant, key=lambda s: (nested(s), s))
            # each training group h scored by the fold's setting fitted without g and h
            opt = self.choose_option(variant, dict.fromkeys(train, best), frozenset({g}), train)
            model = self.fitted(variant, best, frozenset({g}))
            on, off = self.held_out_parts(model, g, True), self.held_out_parts(model, g, False)
            rows[g] = {"setting": best, "option": opt, "on": on, "off": off, "chosen": on if opt else off}
        return rows

    def option_on_all(self, variant) -> Option:
        best = SharedLab.chosen_on_all(self, variant)
        return self.choose_option(variant, dict.fromkeys(self.groups, best), frozenset(), list(self.groups))


def multi08(lab: PartsLab, rows: dict) -> str:
    """multi-08's held-out nDCG@10 both ways (the ranks in ``search`` are in
    eval/results/part-and-code-ranks.txt)."""
    for g, r in rows.items():
        for j, i in enumerate(lab.of_group[g]):
            if lab.queries[i].qid == "multi-08":
                return (
                    f"multi-08 ({g}) held-out nDCG@10: parts PRF on {r['on'][j]:.4f}, off {r['off'][j]:.4f}"
                )
    return "multi-08 not found"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(ROOT / "eval" / "results" / "prf-parts-study.md"))
    parser.add_argument("--collections", default="cranfield,cisi,vaswani,demo,dev-shared")
    parser.add_argument("--heldout", help="also write the shipped procedure's held-out result (JSON) here")
    args = parser.parse_args()
    t0 = time.time()
    lab = PartsLab(*build(args.collections.split(",")))
    print(f"built ({time.time() - t0:.0f} s)", flush=True)
    bars = {g: max(lab.single_mean(g, "bm25"), lab.single_mean(g, "dense")) for g in lab.groups}
    variant = family(PRF, ("fused",))
    rows = lab.cv_parts(variant)
    print(f"cv done ({time.time() - t0:.0f} s)", flush=True)
    full = lab.option_on_all(variant)
    lines = [
        "| group | questions | target | parts PRF on (shipped) | parts PRF off | option chosen per fold |"
        " chosen − on [95% CI] | off − on [95% CI] | fold's option | fold's setting |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    met = {"on": set(), "off": set(), "chosen": set()}
    for g in lab.groups:
        r, v = rows[g], {k: float(np.mean(rows[g][k])) for k in ("on", "off", "chosen")}
        for k in met:
            if goal(lab, g, v[k], bars):
                met[k].add(g)
        ref = f" (ref {REFERENCE_RRF[g]:.3f})" if g in REFERENCE_RRF else ""
        mark = {k: "" if g in met[k] else " (miss)" for k in met}
        lines.append(
            f"| {g} | {len(r['on'])} | {bars[g]:.3f}{ref} | {v['on']:.4f}{mark['on']} | "
            f"{v['off']:.4f}{mark['off']} | {v['chosen']:.4f}{mark['chosen']} | "
            f"{cell(r['chosen'], r['on'])} | {cell(r['off'], r['on'])} | "
            f"{'on' if r['option'] else 'off'} | {r['setting']} |"
        )
    lines.append(
        f"| **goal met** | | | **{len(met['on'])}** | **{len(met['off'])}** | **{len(met['chosen'])}** | | | | |"
    )
    lost = sorted(met["on"] - met["chosen"])
    ship = len(met["chosen"]) >= len(met["on"]) and not lost and not full
    verdict = (
        f"parts PRF on meets {len(met['on'])}/{len(lab.groups)}, option chosen per fold "
        f"{len(met['chosen'])}/{len(lab.groups)}; gained {sorted(met['chosen'] - met['on']) or 'none'}, "
        f"lost {lost or 'none'}; option with every group in training: {'on' if full else 'off'}: "
        + ("SHIP off for parts" if ship else "do not ship (parts keep PRF)")
    )
    table = "\n".join(lines) + "\n"
    print(table)
    print(verdict)
    print(multi08(lab, rows))
    out = Path(args.out)
    out.write_text(
        "Held-out nDCG@10, PRF on a split question's parts or not (scripts/prf_parts_study.py; "
        "target = the better of BM25 and dense alone on the group, and the RRF reference where there is one)\n\n"
        + table
        + f"\nShip rule (fixed before the run): {verdict}\n\n{multi08(lab, rows)}\n"
    )
    out.with_suffix(".json").write_text(
        json.dumps(
            {
                "kind": "prf-parts-study",  # not a run (evaluation.run.is_run)
                "ship": ship,
                "verdict": verdict,
                "held_out": {
                    g: {k: float(np.mean(r[k])) for k in ("on", "off", "chosen")} for g, r in rows.items()
                },
                "option": {g: ("on" if r["option"] else "off") for g, r in rows.items()},
                "setting": {g: r["setting"] for g, r in rows.items()},
                "full": "on" if full else "off",
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {out} ({time.time() - t0:.0f} s)")
    if args.heldout:
        Path(args.heldout).write_text(json.dumps(heldout_result(lab, rows, full), indent=1) + "\n")
        print(f"wrote {args.heldout}")
    return 0


def heldout_result(lab: PartsLab, rows: dict, full: Option) -> dict:
    """The "option chosen per fold" column as a held-out result
    (``ragcore.evaluation.heldout``), each group's baselines on the same questions."""
    from ragcore.evaluation.statistics import paired_mean_comparison

    folds = []
    for g in lab.groups:
        r, ids = rows[g], lab.of_group[g]
        per_question = {
            "chosen": [float(x) for x in r["chosen"]],
            "bm25": [float(lab.queries[i].single["bm25"]) for i in ids],
            "dense": [float(lab.queries[i].single["dense"]) for i in ids],
            "rrf k=60": [float(lab.queries[i].ndcg["rrf k=60"]) for i in ids],
        }
        pairs = {
            n: paired_mean_comparison(per_question["chosen"], per_question[n])
            for n in ("bm25", "dense", "rrf k=60")
        }
        folds.append(
            {
                "collection": g,
                "questions": len(ids),
                "bm25": float(np.mean(per_question["bm25"])),
                "dense": float(np.mean(per_question["dense"])),
                "chosen": {
                    "family": "gated",
                    # "fused | prf" as "fused, prf": a cell of the README's Markdown table
                    "setting": f"{r['setting'].replace(' | ', ', ')}; parts PRF {'on' if r['option'] else 'off'}",
                    "held_out": float(np.mean(r["chosen"])),
                },
                "chosen_minus": {
                    n: {"diff": c.diff, "low": c.low, "high": c.high, "p": c.p} for n, c in pairs.items()
                },
                "per_question": per_question,
            }
        )
    return {
        "kind": "fusion-cv",  # read by ragcore.evaluation.heldout, as fusion_study.py --cv's output
        "source": "scripts/prf_parts_study.py --heldout",
        "rule": (
            "leave one group out: the gate's fused ranking, signal set and PRF step (k, beta or off) chosen by the "
            "highest mean nDCG@10 over the other groups (each collection weighted equally), then PRF on a split "
            "question's parts chosen on the same groups; BM25 as shipped (chosen by fusion_study.py --cv); "
            "multi-part questions split as the retriever ships"
        ),
        "final": {"parts_prf": "on" if full else "off"},
        "folds": folds,
    }


if __name__ == "__main__":
    sys.exit(main())
