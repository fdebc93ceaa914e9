"""Score rankers on a set of questions and compare them, question by question.

``score_run`` works on ranked id lists, so it runs without any retrieval, and
returns a typed ``Run`` (``evaluate`` returns its JSON, see
docs/goldset-format.md); ``compare_chunkings`` scores one gold set under
several chunkings. ``Scoring`` holds what every ranker and chunking is scored
with. Rankers over the project's Retriever come from ``rankers``; a whole run
(index, scoring, recorded settings) is made by ``orchestration``.

Method (per question, then aggregated over questions): Sakai, "Statistical
Reform in Information Retrieval?", SIGIR Forum 48(1), 2014, and Smucker,
Allan and Carterette, CIKM 2007: report intervals, pair the comparisons on the
same questions, and adjust the family of primary tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from ..errors import GoldSetError
from ..records import Passage
from . import statistics as st
from .goldset import ResolvedQuestion, all_qrels
from .metrics import (
    DEPTH,
    HIT_RATES,
    METRICS,
    PRIMARY_METRIC,
    has_relevant,
    score_question,
)
from .run import (
    ChunkingRun,
    Comparison,
    Family,
    JsonValue,
    Metrics,
    MetricSummary,
    QuestionCounts,
    QuestionResult,
    RankedEntry,
    RankerResult,
    Run,
    RunSettings,
    Unit,
)

DEFAULT_RANKERS = ("bm25", "dense", "hybrid")
DEFAULT_RANKER = "hybrid"
TOP = 10  # ranked items kept per question in the run's JSON


class QuestionLike(Protocol):
    id: str
    text: str
    type: str


@dataclass(frozen=True)
class RankedItem:
    """One ranked passage (or document): its id, its document and its lines."""

    id: str
    doc: str
    first_line: int | None = None
    last_line: int | None = None


Ranker = Callable[[str], Sequence["str | RankedItem"]]
Progress = Callable[[str], None]


def as_items(ranking: Sequence[str | RankedItem]) -> list[RankedItem]:
    """Plain ids become items that are their own document."""
    return [r if isinstance(r, RankedItem) else RankedItem(id=str(r), doc=str(r)) for r in ranking]


def collapse_to_documents(items: Sequence[RankedItem]) -> list[RankedItem]:
    """A passage ranking as a document ranking: each document once, at the
    rank of its first passage (whose lines it keeps)."""
    seen: set[str] = set()
    out = []
    for item in items:
        if item.doc in seen:
            continue
        seen.add(item.doc)
        out.append(
            RankedItem(
                id=item.doc,
                doc=item.doc,
                first_line=item.first_line,
                last_line=item.last_line,
            )
        )
    return out


@dataclass(frozen=True)
class Scoring:
    """How questions are scored and compared, the same for every ranker and chunking."""

    unit: Unit = "passage"
    relevant_min_grade: int = 1
    default_ranker: str = DEFAULT_RANKER
    seed: int = st.SEED
    resamples: int = st.RESAMPLES
    confidence: float = st.CONFIDENCE

    def settings_json(self, default: str) -> dict[str, JsonValue]:
        return {
            "default_ranker": default,
            "unit": self.unit,
            "relevant_min_grade": self.relevant_min_grade,
            "seed": self.seed,
            "resamples": self.resamples,
            "confidence": self.confidence,
            "primary_metric": PRIMARY_METRIC,
        }


def evaluate(
    questions: Sequence[QuestionLike],
    qrels: Mapping[str, Mapping[str, int]],
    rankers: Mapping[str, Ranker],
    *,
    unit: Unit = "passage",
    relevant_min_grade: int = 1,
    default_ranker: str = DEFAULT_RANKER,
    seed: int = st.SEED,
    resamples: int = st.RESAMPLES,
    confidence: float = st.CONFIDENCE,
    settings: Mapping[str, JsonValue] | None = None,
    progress: Progress | None = None,
) -> dict[str, JsonValue]:
    """The run's JSON of :func:`score_run` (same arguments, as keywords)."""
    scoring = Scoring(unit, relevant_min_grade, default_ranker, seed, resamples, confidence)
    return score_run(questions, qrels, rankers, scoring, settings=settings, progress=progress).to_json()


def score_run(
    questions: Sequence[QuestionLike],
    qrels: Mapping[str, Mapping[str, int]],
    rankers: Mapping[str, Ranker],
    scoring: Scoring = Scoring(),
    *,
    settings: Mapping[str, JsonValue] | None = None,
    progress: Progress | None = None,
) -> Run:
    """Score every ranker on every question that has a relevant judgement.

    ``qrels`` maps question id -> {id -> grade} in the id space the rankers
    return (passage ids, or documents when ``unit == "document"``, in which
    case each ranking is collapsed to documents first). Questions without a
    judgement at ``relevant_min_grade`` or above are dropped from every metric
    and counted. The primary comparisons are ``default_ranker`` (or the first
    ranker, if it is absent) against each other ranker on nDCG@10; Holm's
    adjustment runs over that family, and separately over all other rows.
    """
    scored, dropped = _check_inputs(questions, qrels, rankers, scoring)
    names = list(rankers)
    default = scoring.default_ranker if scoring.default_ranker in rankers else names[0]
    flat, per_question = _score_questions(scored, qrels, rankers, scoring, progress)
    if progress:
        progress(f"statistics: {scoring.resamples} bootstrap resamples")
    boot = st.bootstrap_means(flat, scoring.resamples, scoring.seed)
    types = sorted({q.type for q in scored})
    type_rows = {t: np.array([i for i, q in enumerate(scored) if q.type == t]) for t in types}
    # Each type is resampled within itself, with the run's seed.
    type_boot = {
        t: st.bootstrap_means(flat[rows], scoring.resamples, scoring.seed) for t, rows in type_rows.items()
    }
    everyone = np.arange(len(scored))
    ranker_block = {
        name: RankerResult(
            metrics=_summary(flat, everyone, boot, r, scoring.confidence),
            by_type={t: _summary(flat, type_rows[t], type_boot[t], r, scoring.confidence) for t in types},
        )
        for r, name in enumerate(names)
    }
    comparisons = _comparisons(names, default, flat, boot, scoring, progress)
    run_settings = dict(settings or {})
    run_settings.setdefault("rankers", names)
    run_settings.update(scoring.settings_json(default))
    counts = QuestionCounts(
        total=len(questions),
        scored=len(scored),
        dropped=len(dropped),
        dropped_ids=tuple(dropped),
        by_type={t: len(rows) for t, rows in type_rows.items()},
    )
    return Run(RunSettings.from_json(run_settings), counts, ranker_block, comparisons, per_question)


def _check_inputs(
    questions: Sequence[QuestionLike],
    qrels: Mapping[str, Mapping[str, int]],
    rankers: Mapping[str, Ranker],
    scoring: Scoring,
) -> tuple[list[QuestionLike], list[str]]:
    """The questions to score and the ids of those dropped; raise on bad input."""
    if scoring.unit not in ("passage", "document"):
        raise ValueError(f"unit must be 'passage' or 'document', not {scoring.unit!r}")
    if not rankers:
        raise ValueError("no rankers to evaluate")
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError("question ids must be unique")
    grade = scoring.relevant_min_grade
    scored = [q for q in questions if has_relevant(qrels.get(q.id, {}), grade)]
    dropped = [q.id for q in questions if not has_relevant(qrels.get(q.id, {}), grade)]
    if not scored:
        raise GoldSetError(
            f"none of the {len(questions)} questions has a judgement of grade {grade} or above; "
            "there is nothing to score"
        )
    return scored, dropped


def _score_questions(
    scored: Sequence[QuestionLike],
    qrels: Mapping[str, Mapping[str, int]],
    rankers: Mapping[str, Ranker],
    scoring: Scoring,
    progress: Progress | None,
) -> tuple[np.ndarray, dict[str, QuestionResult]]:
    """Every ranker on every question: the scores as one row per question
    (columns ranker-major, metric-minor) and each question's result."""
    metric_names = list(METRICS)
    scores = np.zeros((len(rankers), len(scored), len(metric_names)))  # scores[r, q, m]
    values_of: dict[str, dict[str, dict[str, float]]] = {q.id: {} for q in scored}
    tops_of: dict[str, dict[str, tuple[RankedEntry, ...]]] = {q.id: {} for q in scored}
    for r, (name, rank) in enumerate(rankers.items()):
        step = max(1, len(scored) // 10)
        for i, q in enumerate(scored):
            if progress and (i % step == 0):
                progress(f"{name}: question {i + 1} of {len(scored)}")
            items = as_items(rank(q.text))
            if scoring.unit == "document":
                items = collapse_to_documents(items)
            judged = qrels[q.id]
            values = score_question([it.id for it in items[:DEPTH]], judged, scoring.relevant_min_grade)
            scores[r, i] = [values[m] for m in metric_names]
            values_of[q.id][name] = values
            tops_of[q.id][name] = tuple(
                RankedEntry(it.doc, it.first_line, it.last_line, judged.get(it.id)) for it in items[:TOP]
            )
        if progress:
            progress(f"{name}: {len(scored)} questions done")
    per_question = {q.id: QuestionResult(q.type, values_of[q.id], tops_of[q.id]) for q in scored}
    return scores.transpose(1, 0, 2).reshape(len(scored), -1), per_question


def _column(r: int, m: int) -> int:
    return r * len(METRICS) + m


def _summary(flat: np.ndarray, rows: np.ndarray, boot_rows: np.ndarray, r: int, confidence: float) -> Metrics:
    """Ranker ``r``'s mean and interval of each metric over question ``rows``."""
    out: Metrics = {}
    for m, metric in enumerate(METRICS):
        values = flat[rows, _column(r, m)]
        if metric in HIT_RATES:
            iv = st.hit_rate_interval(values, confidence)
            out[metric] = MetricSummary(iv.mean, iv.low, iv.high, iv.method, len(values))
        else:
            low, high = st.percentile_interval(boot_rows[:, _column(r, m)], confidence)
            out[metric] = MetricSummary(
                float(values.mean()), float(low), float(high), "bootstrap-percentile", len(values)
            )
    return out


def _comparisons(
    names: list[str],
    default: str,
    flat: np.ndarray,
    boot: np.ndarray,
    scoring: Scoring,
    progress: Progress | None,
) -> tuple[Comparison, ...]:
    """Every pair of rankers on every metric; the default ranker comes first in its pairs."""
    others = [n for n in names if n != default]
    pairs = [(default, o) for o in others] + list(itertools.combinations(others, 2))
    rows: list[Comparison] = []
    if progress and pairs:
        progress(f"comparisons: {len(pairs)} pair(s) of rankers")
    for a, b in pairs:
        ia, ib = names.index(a), names.index(b)
        for m, metric in enumerate(METRICS):
            x, y = flat[:, _column(ia, m)], flat[:, _column(ib, m)]
            if metric in HIT_RATES:
                c = st.paired_hit_rate_comparison(x, y, scoring.confidence)
            else:
                boot_diff = boot[:, _column(ia, m)] - boot[:, _column(ib, m)]
                c = st.paired_mean_comparison(
                    x, y, boot_diff, scoring.resamples, scoring.seed, scoring.confidence
                )
            family: Family = "primary" if (a == default and metric == PRIMARY_METRIC) else "secondary"
            rows.append(
                Comparison(
                    a,
                    b,
                    metric,
                    c.diff,
                    c.low,
                    c.high,
                    c.d_z,
                    c.p,
                    None,
                    c.n,
                    family=family,
                    interval=c.interval,
                    test=c.test,
                )
            )
    return tuple(_with_holm(rows, lambda row: row.family))


def _with_holm(rows: list[Comparison], family_of: Callable[[Comparison], str | None]) -> list[Comparison]:
    """``rows`` with ``p_holm`` set, Holm's adjustment run within each family."""
    out = list(rows)
    for family in dict.fromkeys(family_of(row) for row in rows):
        members = [i for i, row in enumerate(rows) if family_of(row) == family]
        adjusted = st.holm([rows[i].p for i in members])
        for i, p_holm in zip(members, adjusted, strict=True):
            out[i] = replace(rows[i], p_holm=p_holm)
    return out


# ------------------------------------------------------------------ chunkings


def compare_chunkings(
    questions: Sequence[ResolvedQuestion],
    setups: Mapping[str, tuple[Sequence[Passage], Mapping[str, Ranker]]],
    scoring: Scoring = Scoring(),
    *,
    settings: Mapping[str, JsonValue] | None = None,
    progress: Progress | None = None,
) -> ChunkingRun:
    """Score one gold set under several chunkings.

    ``setups`` maps a chunking name to (its passages, its rankers). The
    judgements are mapped onto each chunking's passages by span overlap, each
    chunking is evaluated in full, and each ranker is compared across
    chunkings on nDCG@10 over the questions scored under both (paired
    bootstrap and sign-flip test, Holm over these comparisons).
    """
    runs: dict[str, Run] = {}
    for chunking, (passages, rankers) in setups.items():
        if progress:
            progress(f"chunking {chunking}: {len(passages)} passages")
        qrels = all_qrels(questions, passages, scoring.unit)
        runs[chunking] = score_run(
            questions,
            qrels,
            rankers,
            scoring,
            settings={**(settings or {}), "chunking": chunking},
            progress=progress,
        )
    summary = {
        chunking: {name: block.metrics[PRIMARY_METRIC] for name, block in run.rankers.items()}
        for chunking, run in runs.items()
    }
    outer = {
        **(settings or {}),
        "chunkings": list(runs),
        "seed": scoring.seed,
        "resamples": scoring.resamples,
    }
    comparisons = _with_holm(_chunking_comparisons(runs, scoring), lambda row: None)
    return ChunkingRun(RunSettings.from_json(outer), summary, tuple(comparisons), runs)


def _chunking_comparisons(runs: Mapping[str, Run], scoring: Scoring) -> list[Comparison]:
    """Each ranker under each pair of chunkings, on the primary metric over the
    questions both scored."""
    comparisons = []
    for a, b in itertools.combinations(list(runs), 2):
        common_rankers = [n for n in runs[a].rankers if n in runs[b].rankers]
        common_questions = [q for q in runs[a].per_question if q in runs[b].per_question]
        if not common_questions:
            continue
        for name in common_rankers:
            x, y = (
                np.array([run.per_question[q].metrics[name][PRIMARY_METRIC] for q in common_questions])
                for run in (runs[a], runs[b])
            )
            c = st.paired_mean_comparison(x, y, None, scoring.resamples, scoring.seed, scoring.confidence)
            comparisons.append(
                Comparison(a, b, PRIMARY_METRIC, c.diff, c.low, c.high, c.d_z, c.p, None, c.n, ranker=name)
            )
    return comparisons
