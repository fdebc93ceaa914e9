"""Lenses: structured readings of the retrieved passages.

The question picks a lens (``choose_lens``); the lens is computed only from
the retrieved hits, so uploaded documents behave exactly as the demo corpus.
``money`` pulls out prices and their conflicts, ``risk`` absolute wording and
its contradictions, ``none`` is the plain answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragcore.lenses.choice import KINDS, LensChoice, choose_lens
from ragcore.lenses.money import Conflict, Figure, Mention, MoneyLens, extract_figures, money_lens
from ragcore.lenses.risk import Finding, RiskLens, find_absolutes, risk_lens
from ragcore.records import Hit

__all__ = [
    "KINDS",
    "Conflict",
    "Figure",
    "Finding",
    "Lens",
    "LensChoice",
    "Mention",
    "MoneyLens",
    "RiskLens",
    "choose_lens",
    "extract_figures",
    "find_absolutes",
    "money_lens",
    "risk_lens",
    "run_lens",
]


@dataclass(frozen=True)
class Lens:
    """What a lens found; the lists of the other kinds stay empty."""

    kind: str  # "money" | "risk" | "none"
    triggers: tuple[str, ...] = ()
    chosen_by: str = "question"  # "question" | "user"
    figures: tuple[Figure, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    findings: tuple[Finding, ...] = ()
    contradictions: tuple[tuple[int, int], ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not (self.figures or self.findings)

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "triggers": list(self.triggers),
            "chosen_by": self.chosen_by,
            "figures": [f.to_json() for f in self.figures],
            "conflicts": [c.to_json() for c in self.conflicts],
            "findings": [f.to_json() for f in self.findings],
        }


def run_lens(kind: str | LensChoice, hits: Sequence[Hit], triggers: Sequence[str] = ()) -> Lens:
    """Compute the lens ``kind`` (or the kind of a ``LensChoice``) over ``hits``."""
    chosen_by = "question"
    if isinstance(kind, LensChoice):
        triggers = triggers or kind.triggers
        chosen_by = kind.chosen_by
        kind = kind.kind
    if kind not in KINDS:
        raise ValueError(f"lens kind must be one of {', '.join(KINDS)}, not {kind!r}")
    base = Lens(kind, tuple(triggers), chosen_by)
    if kind == "money":
        found = money_lens(hits)
        return Lens(kind, base.triggers, chosen_by, figures=found.figures, conflicts=found.conflicts)
    if kind == "risk":
        found_risk = risk_lens(hits)
        return Lens(
            kind,
            base.triggers,
            chosen_by,
            findings=found_risk.findings,
            contradictions=found_risk.contradictions,
        )
    return base
