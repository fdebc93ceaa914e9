"""Score rankers on a set of questions and compare them, question by question.

``evaluate`` works on ranked id lists, so it runs without any retrieval;
``retriever_rankers`` adapts the project's Retriever, and ``compare_chunkings``
scores one gold set under several chunkings. The result is the run's JSON
(see docs/goldset-format.md and ``python -m ragcore eval``).

Method (per question, then aggregated over questions): Sakai, "Statistical
Reform in Information Retrieval?", SIGIR Forum 48(1), 2014, and Smucker,
Allan and Carterette, CIKM 2007: report intervals, pair the comparisons on the
same questions, and adjust the family of primary tests.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

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


def evaluate(
    questions: Sequence[QuestionLike],
    qrels: Mapping[str, Mapping[str, int]],
    rankers: Mapping[str, Ranker],
    *,
    unit: str = "passage",
    relevant_min_grade: int = 1,
    default_ranker: str = DEFAULT_RANKER,
    seed: int = st.SEED,
    resamples: int = st.RESAMPLES,
    confidence: float = st.CONFIDENCE,
    settings: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Score every ranker on every question that has a relevant judgement.

    ``qrels`` maps question id -> {id -> grade} in the id space the rankers
    return (passage ids, or documents when ``unit == "document"``, in which
    case each ranking is collapsed to documents first). Questions without a
    judgement at ``relevant_min_grade`` or above are dropped from every metric
    and counted. The primary comparisons are ``default_ranker`` (or the first
    ranker, if it is absent) against each other ranker on nDCG@10; Holm's
    adjustment runs over that family, and separately over all other rows.
    """
    if unit not in ("passage", "document"):
        raise ValueError(f"unit must be 'passage' or 'document', not {unit!r}")
    if not rankers:
        raise ValueError("no rankers to evaluate")
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError("question ids must be unique")
    scored = [q for q in questions if has_relevant(qrels.get(q.id, {}), relevant_min_grade)]
    dropped = [q.id for q in questions if not has_relevant(qrels.get(q.id, {}), relevant_min_grade)]
    if not scored:
        raise GoldSetError(
            f"none of the {len(questions)} questions has a judgement of grade {relevant_min_grade} or above; "
            "there is nothing to score"
        )
    names = list(rankers)
    default = default_ranker if default_ranker in rankers else names[0]
    metric_names = list(METRICS)

    # scores[r, q, m]
    scores = np.zeros((len(names), len(scored), len(metric_names)))
    per_question: dict[str, dict[str, Any]] = {
        q.id: {"type": q.type, "metrics": {}, "top10": {}} for q in scored
    }
    for r, name in enumerate(names):
        rank = rankers[name]
        step = max(1, len(scored) // 10)
        for i, q in enumerate(scored):
            if progress and (i % step == 0):
                progress(f"{name}: question {i + 1} of {len(scored)}")
            items = as_items(rank(q.text))
            if unit == "document":
                items = collapse_to_documents(items)
            judged = qrels[q.id]
            values = score_question([it.id for it in items[:DEPTH]], judged, relevant_min_grade)
            scores[r, i] = [values[m] for m in metric_names]
            per_question[q.id]["metrics"][name] = values
            per_question[q.id]["top10"][name] = [
                {
                    "doc": it.doc,
                    "first_line": it.first_line,
                    "last_line": it.last_line,
                    "grade": judged.get(it.id),
                }
                for it in items[:TOP]
            ]
        if progress:
            progress(f"{name}: {len(scored)} questions done")

    if progress:
        progress(f"statistics: {resamples} bootstrap resamples")
    flat = scores.transpose(1, 0, 2).reshape(len(scored), -1)  # columns: ranker-major, metric-minor
    boot = st.bootstrap_means(flat, resamples, seed)

    def column(r: int, m: int) -> int:
        return r * len(metric_names) + m

    def summary(rows: np.ndarray, boot_rows: np.ndarray, r: int) -> dict[str, dict[str, Any]]:
        out = {}
        for m, metric in enumerate(metric_names):
            values = flat[rows, column(r, m)]
            if metric in HIT_RATES:
                iv = st.hit_rate_interval(values, confidence)
                out[metric] = _interval_json(iv, len(values))
            else:
                low, high = st.percentile_interval(boot_rows[:, column(r, m)], confidence)
                out[metric] = {
                    "mean": float(values.mean()),
                    "ci_low": float(low),
                    "ci_high": float(high),
                    "interval": "bootstrap-percentile",
                    "n": len(values),
                }
        return out

    everyone = np.arange(len(scored))
    types = sorted({q.type for q in scored})
    type_rows = {t: np.array([i for i, q in enumerate(scored) if q.type == t]) for t in types}
    # Each type is resampled within itself, with the run's seed.
    type_boot = {t: st.bootstrap_means(flat[rows], resamples, seed) for t, rows in type_rows.items()}
    ranker_block = {
        name: {
            "metrics": summary(everyone, boot, r),
            "by_type": {t: summary(type_rows[t], type_boot[t], r) for t in types},
        }
        for r, name in enumerate(names)
    }

    comparisons = _comparisons(
        names,
        default,
        metric_names,
        flat,
        boot,
        column,
        resamples,
        seed,
        confidence,
        progress,
    )

    run_settings = dict(settings or {})
    run_settings.setdefault("rankers", names)
    run_settings.update(
        {
            "default_ranker": default,
            "unit": unit,
            "relevant_min_grade": relevant_min_grade,
            "seed": seed,
            "resamples": resamples,
            "confidence": confidence,
            "primary_metric": PRIMARY_METRIC,
        }
    )
    return {
        "settings": run_settings,
        "questions": {
            "total": len(questions),
            "scored": len(scored),
            "dropped": len(dropped),
            "dropped_ids": dropped,
            "by_type": {t: len(rows) for t, rows in type_rows.items()},
        },
        "rankers": ranker_block,
        "comparisons": comparisons,
        "per_question": per_question,
    }


def _comparisons(
    names: list[str],
    default: str,
    metric_names: list[str],
    flat: np.ndarray,
    boot: np.ndarray,
    column: Callable[[int, int], int],
    resamples: int,
    seed: int,
    confidence: float,
    progress: Progress | None,
) -> list[dict[str, Any]]:
    """Every pair of rankers on every metric; the default ranker comes first in its pairs."""
    others = [n for n in names if n != default]
    pairs = [(default, o) for o in others] + list(itertools.combinations(others, 2))
    rows: list[dict[str, Any]] = []
    if progress and pairs:
        progress(f"comparisons: {len(pairs)} pair(s) of rankers")
    for a, b in pairs:
        ia, ib = names.index(a), names.index(b)
        for m, metric in enumerate(metric_names):
            x, y = flat[:, column(ia, m)], flat[:, column(ib, m)]
            if metric in HIT_RATES:
                c = st.paired_hit_rate_comparison(x, y, confidence)
            else:
                boot_diff = boot[:, column(ia, m)] - boot[:, column(ib, m)]
                c = st.paired_mean_comparison(x, y, boot_diff, resamples, seed, confidence)
            family = "primary" if (a == default and metric == PRIMARY_METRIC) else "secondary"
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "metric": metric,
                    "diff": c.diff,
                    "ci_low": c.low,
                    "ci_high": c.high,
                    "d_z": c.d_z,
                    "p": c.p,
                    "p_holm": None,
                    "family": family,
                    "interval": c.interval,
                    "test": c.test,
                    "n": c.n,
                }
            )
    for family in ("primary", "secondary"):
        members = [row for row in rows if row["family"] == family]
        for row, adjusted in zip(members, st.holm([row["p"] for row in members]), strict=True):
            row["p_holm"] = adjusted
    return rows


def _interval_json(iv: st.Interval, n: int) -> dict[str, Any]:
    return {
        "mean": iv.mean,
        "ci_low": iv.low,
        "ci_high": iv.high,
        "interval": iv.method,
        "n": n,
    }


# ------------------------------------------------------------------ retrieval


def retriever_rankers(
    retriever: Any,
    modes: Sequence[str] = DEFAULT_RANKERS,
    unit: str = "passage",
    depth: int | None = None,
) -> dict[str, Ranker]:
    """One ranker per retrieval mode of a ``ragcore.retrieval.Retriever``.

    A document-level evaluation asks for more passages (``depth``, default
    100) so that ten distinct documents remain after collapsing.
    """
    fetch = depth or (DEPTH if unit == "passage" else 100)

    def make(mode: str) -> Ranker:
        def rank(text: str) -> list[RankedItem]:
            hits = retriever.search(text, mode=mode, k=fetch).hits
            return [
                RankedItem(
                    h.passage.id,
                    h.passage.doc,
                    h.passage.first_line,
                    h.passage.last_line,
                )
                for h in hits
            ]

        return rank

    return {mode: make(mode) for mode in modes}


def build_rankers(
    corpus_dir: Any,
    chunking: str,
    modes: Sequence[str],
    unit: str,
    progress: Progress | None = None,
) -> tuple[Any, dict[str, Ranker], dict[str, Any]]:
    """Load a corpus folder (documents, or a BEIR folder) under ``chunking``
    and index it; returns (corpus, rankers, details of the index for the run's settings)."""
    # Imported late: evaluating ranked lists needs no index.
    from ..corpus import default_library, load_corpus
    from ..retrieval import Retriever

    if progress:
        progress(f"loading {corpus_dir} with {chunking} chunking")
    library = default_library()
    corpus = load_corpus(corpus_dir, chunking=chunking, library=library)
    if progress:
        progress(f"indexing {len(corpus.documents)} documents, {len(corpus.passages)} passages")
    # The library caches passage vectors by content, so a second run embeds nothing.
    retriever = Retriever(corpus, vector_cache=library)
    if any(mode != "bm25" for mode in modes):
        last = [-1]

        def embedding(done: int, total: int) -> None:
            if progress and (done - last[0] >= max(1, total // 20) or done == total):
                last[0] = done
                progress(f"embedding passages: {done} of {total}")

        embedded = retriever.ensure_dense(progress=embedding)
        if progress:
            progress(f"dense index ready ({embedded} passages embedded now, the others cached)")
    details: dict[str, Any] = {"documents": len(corpus.documents), "passages": len(corpus.passages)}
    if any(mode != "bm25" for mode in modes):
        details["embedding_model"] = getattr(retriever.embedder, "model_id", None)
    fusion = getattr(retriever, "fusion", None)
    if fusion is not None and any(mode not in ("bm25", "dense") for mode in modes):
        details["fusion"] = {"method": fusion.method, "k": fusion.k, "weights": dict(fusion.weights)}
    return corpus, retriever_rankers(retriever, modes, unit), details


# ------------------------------------------------------------------ chunkings


def compare_chunkings(
    questions: Sequence[ResolvedQuestion],
    setups: Mapping[str, tuple[Sequence[Passage], Mapping[str, Ranker]]],
    *,
    unit: str = "passage",
    relevant_min_grade: int = 1,
    default_ranker: str = DEFAULT_RANKER,
    seed: int = st.SEED,
    resamples: int = st.RESAMPLES,
    confidence: float = st.CONFIDENCE,
    settings: Mapping[str, Any] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Score one gold set under several chunkings.

    ``setups`` maps a chunking name to (its passages, its rankers). The
    judgements are mapped onto each chunking's passages by span overlap, each
    chunking is evaluated in full, and each ranker is compared across
    chunkings on nDCG@10 over the questions scored under both (paired
    bootstrap and sign-flip test, Holm over these comparisons).
    """
    runs: dict[str, dict[str, Any]] = {}
    for chunking, (passages, rankers) in setups.items():
        if progress:
            progress(f"chunking {chunking}: {len(passages)} passages")
        qrels = all_qrels(questions, passages, unit)
        runs[chunking] = evaluate(
            questions,
            qrels,
            rankers,
            unit=unit,
            relevant_min_grade=relevant_min_grade,
            default_ranker=default_ranker,
            seed=seed,
            resamples=resamples,
            confidence=confidence,
            settings={**(settings or {}), "chunking": chunking},
            progress=progress,
        )
    summary = {
        chunking: {name: block["metrics"][PRIMARY_METRIC] for name, block in run["rankers"].items()}
        for chunking, run in runs.items()
    }
    comparisons = []
    for a, b in itertools.combinations(list(runs), 2):
        common_rankers = [n for n in runs[a]["rankers"] if n in runs[b]["rankers"]]
        common_questions = [q for q in runs[a]["per_question"] if q in runs[b]["per_question"]]
        if not common_questions:
            continue
        for name in common_rankers:
            x = np.array(
                [runs[a]["per_question"][q]["metrics"][name][PRIMARY_METRIC] for q in common_questions]
            )
            y = np.array(
                [runs[b]["per_question"][q]["metrics"][name][PRIMARY_METRIC] for q in common_questions]
            )
            c = st.paired_mean_comparison(x, y, None, resamples, seed, confidence)
            comparisons.append(
                {
                    "ranker": name,
                    "a": a,
                    "b": b,
                    "metric": PRIMARY_METRIC,
                    "diff": c.diff,
                    "ci_low": c.low,
                    "ci_high": c.high,
                    "d_z": c.d_z,
                    "p": c.p,
                    "p_holm": None,
                    "n": c.n,
                }
            )
    for row, adjusted in zip(comparisons, st.holm([row["p"] for row in comparisons]), strict=True):
        row["p_holm"] = adjusted
    return {
        "settings": {
            **(settings or {}),
            "chunkings": list(runs),
            "seed": seed,
            "resamples": resamples,
        },
        "summary": summary,
        "comparisons": comparisons,
        "chunkings": runs,
    }
