"""Held-out figures of the default ranker, read from a cross-validation result.

``scripts/fusion_study.py --cv`` writes ``eval/results/fusion-cv.json``: for
each group (a collection, or one question type of the demo gold set) left
out, the fusion was chosen on the other groups and scored on this one. This
module reads that file into typed rows for the Evaluation page and says, per
group, whether the default reached its goal: at least the better single
signal, and at least the straightforward RRF figure published for the three
classic collections (``../shared/benchmarks/README.md``: RRF k=60 of dense
and stemmed BM25, top 100 each).

Why a separate view: a stored run scores the default on the questions its
constants were chosen on (in-sample); only these figures were not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from .. import errors

#: Plain RRF k=60 of dense and stemmed BM25 on the classic collections (nDCG@10).
REFERENCE_RRF: dict[str, float] = {"cranfield": 0.417, "cisi": 0.441, "vaswani": 0.515}

Baseline = Literal["bm25", "dense", "rrf k=60"]
BASELINES: tuple[Baseline, ...] = ("bm25", "dense", "rrf k=60")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Difference(_Loose):
    diff: float
    low: float
    high: float
    p: float | None = None


class _Chosen(_Loose):
    family: str
    setting: str
    held_out: float


class _Fold(_Loose):
    collection: str
    questions: int
    bm25: float
    dense: float
    chosen: _Chosen
    chosen_minus: dict[str, _Difference]
    per_question: dict[str, list[float]]


class _Study(_Loose):
    kind: Literal["fusion-cv"]
    rule: str
    folds: list[_Fold]


@dataclass(frozen=True)
class Difference:
    """The default minus a baseline on the same questions, with its paired 95% interval."""

    diff: float
    low: float
    high: float
    p: float | None


@dataclass(frozen=True)
class HeldOutRow:
    """One group scored with every constant chosen on the other groups."""

    collection: str
    questions: int
    bm25: float
    dense: float
    rrf: float
    hybrid: float
    setting: str
    minus: dict[Baseline, Difference]
    per_question: dict[str, tuple[float, ...]]

    @property
    def reference(self) -> float | None:
        return REFERENCE_RRF.get(self.collection)

    @property
    def best_single(self) -> float:
        return max(self.bm25, self.dense)

    @property
    def goal_met(self) -> bool:
        """At least the better single signal and the published RRF figure (unrounded)."""
        reference = self.reference
        return self.hybrid >= self.best_single and (reference is None or self.hybrid >= reference)


@dataclass(frozen=True)
class HeldOutStudy:
    rule: str
    rows: tuple[HeldOutRow, ...]

    @property
    def met(self) -> int:
        return sum(row.goal_met for row in self.rows)


def is_heldout(data: object) -> bool:
    return isinstance(data, dict) and data.get("kind") == "fusion-cv"


def _row(fold: _Fold) -> HeldOutRow:
    missing = [name for name in BASELINES if name not in fold.chosen_minus or name not in fold.per_question]
    if missing or "chosen" not in fold.per_question:
        raise errors.RagcoreError(
            f"held-out result for {fold.collection}: no paired figures for {', '.join(missing) or 'chosen'}"
        )
    rrf = fold.per_question["rrf k=60"]
    return HeldOutRow(
        collection=fold.collection,
        questions=fold.questions,
        bm25=fold.bm25,
        dense=fold.dense,
        rrf=sum(rrf) / len(rrf) if rrf else 0.0,
        hybrid=fold.chosen.held_out,
        setting=fold.chosen.setting,
        minus={name: Difference(**fold.chosen_minus[name].model_dump()) for name in BASELINES},
        per_question={name: tuple(values) for name, values in fold.per_question.items()},
    )


def heldout_from_json(data: object) -> HeldOutStudy:
    """A cross-validation result as typed rows; a clear error if it is not one."""
    try:
        study = _Study.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise errors.RagcoreError(f"not a held-out result: {where}: {first['msg']}") from exc
    return HeldOutStudy(rule=study.rule, rows=tuple(_row(fold) for fold in study.folds))
