"""Leave one group out over per-question scores of a grid of settings: the
choice, the folds and the ship rule shared by the studies of a BM25 lift or
expansion (``answer_code_cv.py``, ``answer_value_cv.py``,
``word_neighbours_cv.py``). Each study says in its docstring what it grids,
which criterion chooses, how ties break and its ship rule; this module only
carries them out.

A group is "collection" or "collection:type"; every collection weighs the
same in a mean, its types sharing its weight (``training_gain``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

MODES = ("bm25", "hybrid")
TieKey = Callable[[str], tuple]


@dataclass
class GroupScores:
    """nDCG@10 per question of one group, per mode and setting."""

    questions: list[str]
    scores: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)  # mode -> setting -> qid

    def mean(self, mode: str, setting: str) -> float:
        return float(np.mean([self.scores[mode][setting][q] for q in self.questions]))


def print_group_table(groups: dict[str, GroupScores], settings: list[str]) -> dict:
    """Each group's mean nDCG@10 per mode and setting, printed and returned."""
    table = {
        g: {m: {s: round(gs.mean(m, s), 4) for s in settings} for m in MODES}
        for g, gs in sorted(groups.items())
    }
    print("settings:", " | ".join(settings))
    for g, row in table.items():
        print(
            f"{g:>22} " + "  ".join(f"{m} " + " ".join(f"{row[m][s]:.4f}" for s in settings) for m in MODES)
        )
    return table


Scores = dict[str, dict[str, dict[str, float]]]  # mode -> setting -> question id -> nDCG@10


def record(per: Scores, retriever, coll, qid: str, text: str, targets: Sequence[str]) -> None:
    """Rank ``text`` in each mode as ``retriever`` is set now and keep its
    nDCG@10 under every setting of ``targets`` (those that rank it so)."""
    for mode in MODES:
        hits = retriever.search(text, mode, 100).hits
        value = coll.ndcg(qid, [(retriever.row_of(h.passage), h.score) for h in hits])
        for target in targets:
            per[mode][target][qid] = value


def training_gain(
    groups: dict[str, GroupScores], train: list[str], setting: str, mode: str, baseline: str
) -> float:
    """Mean ``mode`` gain of ``setting`` over ``baseline`` on ``train``, each collection weighted equally."""
    by_collection: dict[str, list[float]] = {}
    for g in train:
        gain = groups[g].mean(mode, setting) - groups[g].mean(mode, baseline)
        by_collection.setdefault(g.split(":")[0], []).append(gain)
    return float(np.mean([np.mean(v) for v in by_collection.values()]))


def choose(
    groups: dict[str, GroupScores],
    train: list[str],
    criterion: str,
    settings: Sequence[str],
    baseline: str,
    tie: TieKey,
) -> str:
    """The setting with the best mean ``criterion`` gain over ``baseline`` on ``train``, ties by ``tie``."""
    return max(
        settings,
        key=lambda s: (round(training_gain(groups, train, s, criterion, baseline), 9), *tie(s)),
    )


def folds(
    groups: dict[str, GroupScores],
    criterion: str,
    settings: Sequence[str],
    baseline: str,
    tie: TieKey,
    width: int = 5,
) -> list[dict]:
    """Each group scored at the setting chosen without it (by ``criterion``), printed as it goes."""
    out = []
    names = sorted(groups)
    for held in names:
        best = choose(groups, [g for g in names if g != held], criterion, settings, baseline, tie)
        change = {m: groups[held].mean(m, best) - groups[held].mean(m, baseline) for m in MODES}
        out.append({"held_out": held, "chosen": best, "held_out_change": change})
        print(
            f"[by {criterion}] held out {held:>22}: chosen {best:<{width}} "
            f"bm25 {change['bm25']:+.4f}  hybrid {change['hybrid']:+.4f}"
        )
    return out


def ship(
    groups: dict[str, GroupScores],
    held: list[dict],
    settings: Sequence[str],
    baseline: str,
    tie: TieKey,
    max_group_loss: float,
) -> dict:
    """The ship rule of the lift studies: the setting chosen on every group
    ships when the held-out hybrid change is >= 0 on the mean over
    collections and no group loses more than ``max_group_loss``."""
    by_collection: dict[str, list[float]] = {}
    for fold in held:
        by_collection.setdefault(fold["held_out"].split(":")[0], []).append(fold["held_out_change"]["hybrid"])
    mean = float(np.mean([np.mean(v) for v in by_collection.values()]))
    worst = min(f["held_out_change"]["hybrid"] for f in held)
    chosen = choose(groups, sorted(groups), "hybrid", settings, baseline, tie)
    ships = mean >= 0 and worst >= -max_group_loss
    return {
        "chosen_on_all": chosen,
        "held_out_mean_hybrid_change": round(mean, 5),
        "worst_group_hybrid_change": round(worst, 5),
        "ships": ships,
        "shipped_setting": chosen if ships else baseline,
    }


def study(
    groups: dict[str, GroupScores],
    settings: list[str],
    baseline: str,
    tie: TieKey,
    max_group_loss: float,
    width: int = 5,
) -> dict:
    """The folds by the default mode's gain and, for the record, by BM25's;
    the ship decision; the table of every group's scores; printed as it goes."""
    hybrid_folds = folds(groups, "hybrid", settings, baseline, tie, width)
    bm25_folds = folds(groups, "bm25", settings, baseline, tie, width)
    decision = ship(groups, hybrid_folds, settings, baseline, tie, max_group_loss)
    print("decision:", json.dumps(decision))
    table = print_group_table(groups, settings)
    return {"groups": table, "folds": hybrid_folds, "folds_by_bm25": bm25_folds, "decision": decision}
