"""Lenses: structured readings of the retrieved passages.

The question picks a lens (``choose_lens``); given the collection's passages,
the lens reads the retrieved hits and every other passage that mentions the
question's subject (``collection.collection_hits``), and says how many
documents it read; uploaded documents behave exactly as the demo corpus.
``money`` pulls out prices and their conflicts, ``risk`` absolute wording and
its contradictions, ``none`` is the plain answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ragcore.lenses.choice import KINDS, LensChoice, choose_lens
from ragcore.lenses.collection import collection_hits
from ragcore.lenses.money import Conflict, Figure, Mention, MoneyLens, extract_figures, money_lens
from ragcore.lenses.risk import Finding, RiskLens, find_absolutes, risk_lens
from ragcore.records import Hit, Passage

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
    documents_read: int = 0  # documents whose passages the lens read

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
            "documents_read": self.documents_read,
        }


def run_lens(
    kind: str | LensChoice,
    hits: Sequence[Hit],
    triggers: Sequence[str] = (),
    *,
    collection: Sequence[Passage] | None = None,
    question: str = "",
) -> Lens:
    """Compute the lens ``kind`` (or the kind of a ``LensChoice``) over
    ``hits``; with the ``collection``'s passages, over every passage that
    mentions the ``question``'s subject too."""
    chosen_by = "question"
    if isinstance(kind, LensChoice):
        triggers = triggers or kind.triggers
        chosen_by = kind.chosen_by
        kind = kind.kind
    if kind not in KINDS:
        raise ValueError(f"lens kind must be one of {', '.join(KINDS)}, not {kind!r}")
    base = Lens(kind, tuple(triggers), chosen_by)
    if kind == "none":
        return base
    read = collection_hits(kind, question, hits, collection) if collection is not None else list(hits)
    docs = len({h.passage.doc for h in read})
    if kind == "money":
        found = money_lens(read)
        return Lens(
            kind,
            base.triggers,
            chosen_by,
            figures=found.figures,
            conflicts=found.conflicts,
            documents_read=docs,
        )
    found_risk = risk_lens(read)
    return Lens(
        kind,
        base.triggers,
        chosen_by,
        findings=found_risk.findings,
        contradictions=found_risk.contradictions,
        documents_read=docs,
    )
