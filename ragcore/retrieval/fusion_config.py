"""How hybrid mode fuses BM25 and dense: the method and its parameters, one
frozen record per retriever (moved out of ``retriever``, which re-exports it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from . import fusion
from .learned_fusion import FusionStats
from .prf import Feedback
from .protocols import FUSION_METHODS, FusionMethod

Ranking = list[tuple[int, float]]
STATS_METHODS: tuple[FusionMethod, ...] = ("learned", "gated")  # fused from fusion.fusion_stats


def _equal_weights() -> Mapping[str, float]:
    return MappingProxyType({"bm25": 1.0, "dense": 1.0})


@dataclass(frozen=True)
class FusionConfig:
    """How hybrid mode fuses BM25 and dense. Default chosen by measurement
    (docs/decisions.md). ``weights`` is read-only (a mapping proxy over a
    private copy), so a shared config cannot be changed under a search."""

    method: FusionMethod = "gated"  # fusion.GatedRule: chosen by cross-validation
    k: float = 20.0  # RRF constant
    weights: Mapping[str, float] = field(default_factory=_equal_weights)
    depth: int = 5  # agreement: lexical top examined
    pool: int = 20  # agreement: dense top it must fall in
    power: float = 2.0
    rule: fusion.SignalRule = fusion.DEFAULT_RULE  # "signals"
    learned: fusion.LearnedRule = fusion.DEFAULT_LEARNED  # "learned": fitted inside cross-validation
    gated: fusion.GatedRule = fusion.DEFAULT_GATED  # "gated": fitted inside cross-validation

    def __post_init__(self) -> None:
        if self.method not in FUSION_METHODS:
            raise ValueError(
                f"unknown fusion method {self.method!r}; choose one of {', '.join(FUSION_METHODS)}"
            )
        object.__setattr__(self, "weights", MappingProxyType(dict(self.weights)))

    def fuse(
        self,
        rankings: Mapping[str, Ranking],
        signals: fusion.QuerySignals | None = None,
        stats: FusionStats | None = None,
        feedback: Feedback | None = None,  # dense's PRF ranking, for the gate (prf)
    ) -> Ranking:
        if self.method in STATS_METHODS:
            if stats is None:
                raise ValueError(f"the {self.method} fusion needs the query's fusion stats")
            if self.method == "gated":
                return self.gated.fuse(rankings["bm25"], rankings["dense"], stats, feedback)
            return self.learned.fuse(rankings["bm25"], rankings["dense"], stats)
        if self.method == "signals":
            if signals is None:
                raise ValueError("the signals fusion needs the query signals")
            return self.rule.fuse(rankings["bm25"], rankings["dense"], signals)
        if self.method == "agreement":
            fused, _ = fusion.agreement_rrf(
                rankings["bm25"], rankings["dense"], self.k, self.depth, self.pool, self.power
            )
            return fused
        if self.method == "rrf":
            return fusion.rrf(rankings, k=self.k, weights=self.weights)
        return fusion.convex(rankings, self.weights)
