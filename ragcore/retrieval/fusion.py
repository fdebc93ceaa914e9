"""Fusing ranked lists from different signals.

Each input ranking is a list of (row, score), best first. Outputs are the
same shape. The methods:

- Reciprocal rank fusion: score(d) = sum_i w_i / (k + rank_i(d)), Cormack,
  Clarke & Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and
  individual Rank Learning Methods", SIGIR 2009 (k = 60 there).
- Convex combination of normalised scores: score(d) = sum_i w_i * s_i(d),
  with s_i min-max normalised over signal i's candidates and 0 outside them;
  Fox & Shaw's CombSUM (TREC-2, 1994) with weights, which Bruch, Gai &
  Ingber ("An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS
  2023) found more robust than RRF when one signal is much weaker.
- Gated fusion (the default): a fused ranking of BM25 and dense (reciprocal
  rank fusion, or a convex combination of normalised scores), or dense
  alone, chosen per query by a logistic gate over what the query and the two
  rankings show (the idf coverage of each list's top passage and their
  ratio, the lists' agreement, dense's score spread and top score, the
  query's length, whether it names an identifier): on a question asked in
  other words than its evidence BM25 matches only incidental words, and the
  gate falls back to dense (``fusion_gate``; ranker selection from query
  features, Balasubramanian & Allan, SIGIR 2010; query performance
  prediction, Carmel & Yom-Tov 2010; Bruch, Gai & Ingber, TOIS 2023, on
  convex combination and on fusion weights that differ by collection). The
  gate is fitted inside leave-one-collection-out cross-validation only. The
  constants and the weights are chosen and fitted as docs/decisions.md says.
- Learned fusion (the previous default): each passage in either list is scored by
  a linear function of its reciprocal ranks, its normalised scores and the
  share of the query's idf mass it holds, each also multiplied by
  per-query signals (the idf coverage of each list's top passage, the
  lists' agreement, dense's score spread, the query's length), so how far
  each list is trusted is set per query; fitted by a listwise loss inside
  leave-one-collection-out cross-validation only (``learned_fusion``;
  Vogt & Cottrell, Information Retrieval 1999; Cao et al., ICML 2007;
  Bruch, Gai & Ingber, TOIS 2023). The constants and the weights are
  chosen and fitted as docs/decisions.md says.
- Query-signal RRF (the previous default): RRF with k = ``k`` in
  which BM25's weight is set per query from what the query and the two
  rankings show: it is 0 when the passage dense ranks first holds less
  than a fifth of the query's idf mass, since BM25 is then matching
  incidental words of a question asked in other words than its evidence,
  and 1 otherwise; passages holding an
  identifier of the query ("ERR-4012") lead. Query performance prediction
  from retrieval signals (Carmel & Yom-Tov 2010; Aslam & Pavlu, ECIR 2007)
  used to weight fusion per query. The rule and its constants were chosen
  by leave-one-collection-out cross-validation (docs/decisions.md).
- Agreement-weighted RRF (the previous default): RRF in which the lexical
  signal's weight is the squared share of its top ``depth`` passages that
  the dense signal also ranks in its top ``pool``. Disagreement between
  rankers as a sign of a hard query follows Aslam & Pavlu, "Query Hardness
  Estimation Using Jensen-Shannon Divergence Among Multiple Scoring
  Functions", ECIR 2007. The constants were chosen on the benchmarks and
  the demo gold set, in-sample (docs/decisions.md, history).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from .bm25 import BM25Index
from .fusion_gate import FusionGate, shipped_gate
from .learned_fusion import FusionStats, LearnedFusion, shipped
from .prf import Feedback

Ranking = Sequence[tuple[int, float]]
GateFeature = Literal["coverage", "agreement", "dense_coverage", "support"]
# Theoretical lower bounds of the raw scores (Bruch et al. 2023's "TMM"
# normalisation): BM25 is never below 0, a cosine never below -1.
SCORE_FLOORS: dict[str, float] = {"bm25": 0.0, "dense": -1.0}
IDENTIFIER_PINS = 3  # at most this many passages holding a query's identifier lead


def rrf(
    rankings: Mapping[str, Ranking], k: float = 60.0, weights: Mapping[str, float] | None = None
) -> list[tuple[int, float]]:
    """Reciprocal rank fusion (Cormack et al. 2009)."""
    fused: dict[int, float] = {}
    for name, ranking in rankings.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, (row, _score) in enumerate(ranking, start=1):
            fused[row] = fused.get(row, 0.0) + w / (k + rank)
    return _sorted(fused)


def convex(rankings: Mapping[str, Ranking], weights: Mapping[str, float]) -> list[tuple[int, float]]:
    """Weighted sum of min-max normalised scores (CombSUM, Fox & Shaw 1994)."""
    fused: dict[int, float] = {}
    for name, ranking in rankings.items():
        w = weights.get(name, 0.0)
        if not ranking or w == 0:
            continue
        scores = [s for _, s in ranking]
        hi, lo = max(scores), min(scores)
        span = hi - lo
        for row, score in ranking:
            norm = (score - lo) / span if span > 0 else 1.0
            fused[row] = fused.get(row, 0.0) + w * norm
        for row, _ in ranking:
            fused.setdefault(row, 0.0)
    return _sorted(fused)


def convex_tmm(
    rankings: Mapping[str, Ranking], weights: Mapping[str, float], floors: Mapping[str, float] = SCORE_FLOORS
) -> list[tuple[int, float]]:
    """Convex combination with theoretical-min-max normalisation,
    (s - floor) / (max - floor), which Bruch, Gai & Ingber (TOIS 2023) found
    more stable than min-max across collections; 0 outside a signal's list."""
    fused: dict[int, float] = {}
    for name, ranking in rankings.items():
        w = weights.get(name, 0.0)
        if not ranking or w == 0:
            continue
        floor = floors.get(name, 0.0)
        span = ranking[0][1] - floor
        for row, score in ranking:
            norm = (score - floor) / span if span > 0 else 1.0
            fused[row] = fused.get(row, 0.0) + w * norm
    return _sorted(fused)


def agreement(lexical: Ranking, dense: Ranking, depth: int = 5, pool: int = 20) -> float:
    """Share of the lexical top ``depth`` that the dense top ``pool`` also holds."""
    top = [row for row, _ in lexical[:depth]]
    if not top:
        return 0.0
    dense_top = {row for row, _ in dense[:pool]}
    return sum(row in dense_top for row in top) / len(top)


def agreement_rrf(
    lexical: Ranking, dense: Ranking, k: float = 20.0, depth: int = 5, pool: int = 20, power: float = 2.0
) -> tuple[list[tuple[int, float]], float]:
    """RRF with the lexical weight set by agreement (see the module notes);
    returns the fused ranking and the lexical weight used."""
    weight = agreement(lexical, dense, depth, pool) ** power
    return rrf({"bm25": lexical, "dense": dense}, k=k, weights={"bm25": weight, "dense": 1.0}), weight


@dataclass(frozen=True)
class QuerySignals:
    """What the query and the two rankings show at query time, for a
    per-query choice of how much to trust BM25 (pre-retrieval and
    post-retrieval query performance prediction: the query's idf mass that
    the top passage covers, after the clarity and coverage predictors of
    Cronen-Townsend et al., SIGIR 2002, and Carmel & Yom-Tov, "Estimating
    the Query Difficulty for Information Retrieval", 2010; agreement
    between rankers, Aslam & Pavlu, ECIR 2007)."""

    coverage: float  # share of the query's idf mass held by BM25's top passage
    agreement: float  # share of BM25's top 5 that dense ranks in its top 20
    identifier_rows: tuple[int, ...] = ()  # BM25's top passages holding a code of the query
    # Share of the query's idf mass held by dense's top passage: near 0 when
    # the passage dense trusts most shares no word with the question (a
    # question asked in other words than its evidence), where BM25 can only
    # be matching incidental words.
    dense_coverage: float = 1.0

    @property
    def support(self) -> float:
        """Dense's top passage's coverage relative to BM25's (at most 1): the
        share of BM25's lexical match that the passage dense trusts most
        also has. Relative, so a long query, which no passage covers
        fully, is not mistaken for a question in other words."""
        if self.coverage <= 0:
            return 0.0
        return min(1.0, self.dense_coverage / self.coverage)


def query_signals(index: BM25Index, question: str, lexical: Ranking, dense: Ranking) -> QuerySignals:
    """Compute the signals from the BM25 index and the two rankings."""
    tokens = index.query_tokens(question)
    top = [row for row, _ in lexical[:1]] + [row for row, _ in dense[:1]]
    covered = index.coverage(tokens, top)
    coverage = covered[0] if lexical else 0.0
    dense_coverage = covered[-1] if dense else 1.0
    pinned = identifier_rows(index, question, lexical)
    return QuerySignals(coverage, agreement(lexical, dense), pinned, dense_coverage)


def fusion_stats(index: BM25Index, question: str, lexical: Ranking, dense: Ranking) -> FusionStats:
    """What the learned fusion needs from the BM25 index: each candidate's
    share of the query's idf mass, the query's term count, and the rows
    (of BM25's top 20) holding an identifier of the query."""
    tokens = index.query_tokens(question)
    rows = list(dict.fromkeys([row for row, _ in lexical] + [row for row, _ in dense]))
    coverage = dict(zip(rows, index.coverage(tokens, rows), strict=True))
    terms = len({t for t in tokens if t in index.vocab})
    return FusionStats(coverage, terms, identifier_rows(index, question, lexical))


def identifier_rows(index: BM25Index, question: str, lexical: Ranking) -> tuple[int, ...]:
    """BM25's top-20 passages holding an identifier of the query, in BM25
    order, at most ``IDENTIFIER_PINS``. The identifiers are those of the kinds
    BM25 ranks first (``BM25Params.identifier_priority``: codes and amounts,
    not percentages or numbers run into words; docs/decisions.md,
    "Identifier priority")."""
    pinned: list[int] = []
    candidates = [row for row, _ in lexical[:20]]
    for code in index.priority_identifiers(question):
        for row in index.holding(code, candidates):
            if row not in pinned:
                pinned.append(row)
    pinned.sort(key=candidates.index)
    return tuple(pinned[:IDENTIFIER_PINS])


def gated_rrf(
    lexical: Ranking,
    dense: Ranking,
    signals: QuerySignals,
    *,
    k: float = 60.0,
    feature: GateFeature = "coverage",
    threshold: float = 0.5,
    low: float = 0.0,
    pin: bool = True,
    soft: bool = False,
) -> tuple[list[tuple[int, float]], float]:
    """RRF whose BM25 weight is 1 when the query signal ``feature`` reaches
    ``threshold`` and ``low`` below it (BM25 then matches only incidental
    words); with ``soft`` the weight rises linearly from ``low`` at 0 to 1
    at ``threshold``. Passages holding an identifier of the query lead when
    ``pin``. Returns the fused ranking and the BM25 weight used."""
    value = getattr(signals, feature)
    if soft:
        weight = low + (1.0 - low) * min(1.0, value / threshold) if threshold > 0 else 1.0
    else:
        weight = 1.0 if value >= threshold else low
    fused = rrf({"bm25": lexical, "dense": dense}, k=k, weights={"bm25": weight, "dense": 1.0})
    if pin and signals.identifier_rows:
        fused = pin_rows(fused, signals.identifier_rows)
    return fused, weight


def pin_rows(fused: Ranking, rows: Sequence[int]) -> list[tuple[int, float]]:
    """``rows`` first, in their order, then the rest of ``fused``; scores
    are lifted so the list stays sorted."""
    if not fused:
        return [(row, float(len(rows) - i)) for i, row in enumerate(rows)]
    top = fused[0][1]
    head = [(row, top + len(rows) - i) for i, row in enumerate(rows)]
    taken = set(rows)
    return head + [(row, score) for row, score in fused if row not in taken]


def _sorted(fused: dict[int, float]) -> list[tuple[int, float]]:
    # Ties broken by row so a fused list is reproducible.
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class SignalRule:
    """The default hybrid fusion: RRF whose BM25 weight is set per query by
    ``gated_rrf`` from the query signals. Chosen by leave-one-collection-out
    cross-validation (``scripts/fusion_study.py --cv``, docs/decisions.md)."""

    k: float = 20.0
    feature: GateFeature = "dense_coverage"
    threshold: float = 0.2
    low: float = 0.0
    soft: bool = False
    pin: bool = True

    def fuse(self, lexical: Ranking, dense: Ranking, signals: QuerySignals) -> list[tuple[int, float]]:
        fused, _ = gated_rrf(
            lexical,
            dense,
            signals,
            k=self.k,
            feature=self.feature,
            threshold=self.threshold,
            low=self.low,
            pin=self.pin,
            soft=self.soft,
        )
        return fused


DEFAULT_RULE = SignalRule()


@dataclass(frozen=True)
class LearnedRule:
    """The learned fusion (``learned_fusion``) with its shipped weights, or
    ``model`` when given; with ``pin``, passages holding an identifier of
    the query lead, as in ``SignalRule``."""

    pin: bool = True
    model: LearnedFusion | None = None

    def fuse(
        self, lexical: Ranking, dense: Ranking, stats: FusionStats, feedback: Feedback | None = None
    ) -> list[tuple[int, float]]:
        del feedback  # the learned fusion reads plain dense only
        fused = (self.model or shipped()).fuse(lexical, dense, stats)
        if self.pin and stats.identifier_rows:
            fused = pin_rows(fused, stats.identifier_rows)
        return fused


DEFAULT_LEARNED = LearnedRule()


@dataclass(frozen=True)
class GatedRule:
    """A fused ranking (RRF or a convex combination, as the gate was fitted)
    or dense alone, chosen per query by the fitted gate (``fusion_gate``; the
    shipped gate, or ``gate`` when given); with ``pin``, passages holding an
    identifier of the query lead."""

    pin: bool = True
    gate: FusionGate | None = None

    def fuse(
        self, lexical: Ranking, dense: Ranking, stats: FusionStats, feedback: Feedback | None = None
    ) -> list[tuple[int, float]]:
        fused = (self.gate or shipped_gate()).fuse(lexical, dense, stats, feedback)
        if self.pin and stats.identifier_rows:
            fused = pin_rows(fused, stats.identifier_rows)
        return fused


DEFAULT_GATED = GatedRule()
StatsRule = LearnedRule | GatedRule
DEFAULT_HYBRID_RULE: StatsRule = DEFAULT_GATED  # the rule FusionConfig's default method names


def fuse_two(
    lexical: Ranking,
    dense: Ranking,
    stats: FusionStats,
    rule: StatsRule | None = None,
    feedback: Feedback | None = None,
) -> list[tuple[int, float]]:
    """The default hybrid fusion of two ranked lists, best first, for any
    backend: ``lexical`` and ``dense`` are (row, score) lists (BM25 scores,
    cosines), ``stats`` what the lexical index knows of the query
    (``fusion_stats`` makes it from a ``BM25Index``); ``feedback`` (``prf``)
    gives the gate's fusion dense's pseudo-relevance feedback ranking, and a
    backend that cannot re-score by vector passes none (the fusion then
    takes plain dense)."""
    return (rule or DEFAULT_HYBRID_RULE).fuse(lexical, dense, stats, feedback)
