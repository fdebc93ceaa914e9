"""The figures of a generation run: failure rates, check pass rates, the
person's ratings, and how well each check agrees with the person.

Every rate is over items (or calls) grouped by topic and gets the
design-effect Wilson interval of ``ragcore.evaluation.agreement``. Agreement
uses blind ratings only: a rating made after the item's checks were shown
could have been swayed by them.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ragcore.evaluation.agreement import Agreement, ClusteredRate, agreement, clustered_rate
from ragcore.evaluation.generation import FAILURES, CallRecord, GenerationRun, GenItem
from ragcore.evaluation.statistics import Interval, bootstrap_ci


@dataclass(frozen=True)
class GenerationFigures:
    calls: int
    failures: int
    failures_by_outcome: dict[str, int]
    failure_rate: dict[str, ClusteredRate]  # "all", "answer", "study"
    check_rates: dict[str, ClusteredRate]  # check name -> pass rate
    items: int
    rated: int
    blind: int
    faithful_rate: ClusteredRate | None  # over blind ratings
    useful_mean: float | None
    agreement: dict[str, Agreement]  # check -> agreement with "faithful" (blind ratings)
    fact_recall: Interval | None = None  # mean over answers whose topic has facts (bootstrap)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "calls": self.calls,
            "failures": self.failures,
            "failures_by_outcome": self.failures_by_outcome,
            "failure_rate": {k: v.to_json() for k, v in self.failure_rate.items()},
            "check_rates": {k: v.to_json() for k, v in self.check_rates.items()},
            "items": self.items,
            "rated": self.rated,
            "blind_ratings": self.blind,
            "faithful_rate": self.faithful_rate.to_json() if self.faithful_rate else None,
            "useful_mean": self.useful_mean,
            "agreement": {k: v.to_json() for k, v in self.agreement.items()},
            "fact_recall": None if self.fact_recall is None else self.fact_recall.__dict__,
            "notes": self.notes,
        }


def _by_topic(rows: Iterable[tuple[str, object]]) -> list[list[object]]:
    groups: dict[str, list[object]] = defaultdict(list)
    for topic, value in rows:
        groups[topic].append(value)
    return [groups[t] for t in sorted(groups)]


def _failure_rates(calls: list[CallRecord]) -> dict[str, ClusteredRate]:
    sent = [c for c in calls if c.outcome != "blocked_spend_cap"]
    out = {}
    for name, subset in (
        ("all", sent),
        *((k, [c for c in sent if c.call == k]) for k in ("answer", "study")),
    ):
        if subset:
            out[name] = clustered_rate(_by_topic((c.topic, c.failed) for c in subset))
    return out


def _check_rates(items: list[GenItem]) -> dict[str, ClusteredRate]:
    names = sorted({n for it in items for n in it.checks})
    return {
        n: clustered_rate(_by_topic((it.topic, it.checks[n].passed) for it in items if n in it.checks))
        for n in names
    }


def _agreement(run: GenerationRun, blind: list[GenItem], resamples: int) -> dict[str, Agreement]:
    names = sorted({n for it in blind for n in it.checks})
    out = {}
    for n in names:
        pairs = _by_topic(
            (it.topic, (it.checks[n].passed, run.ratings[it.id].faithful)) for it in blind if n in it.checks
        )
        out[n] = agreement(n, pairs, resamples=resamples)
    return out


def generation_figures(run: GenerationRun, *, resamples: int = 2_000) -> GenerationFigures:
    """All figures of a run; rating figures are absent until someone rates."""
    failed = [c for c in run.calls if c.failed]
    by_outcome = {o: sum(c.outcome == o for c in run.calls) for o in FAILURES}
    rated = [it for it in run.items if it.id in run.ratings]
    blind = [it for it in rated if run.ratings[it.id].blind]
    notes = list(run.notes)
    if len(rated) > len(blind):
        notes.append(
            f"{len(rated) - len(blind)} rating(s) were made after seeing the checks and are left out of "
            "the agreement figures"
        )
    if run.mock:
        notes.append("made with LiteLLM's mock response: no model wrote these outputs")
    blocked = sum(c.outcome == "blocked_spend_cap" for c in run.calls)
    if blocked:
        notes.append(f"{blocked} call(s) were not sent: the spending cap stopped them")
    recalls = [it.fact_recall for it in run.items if it.fact_recall is not None]
    faithful = (
        clustered_rate(_by_topic((it.topic, run.ratings[it.id].faithful) for it in blind)) if blind else None
    )
    return GenerationFigures(
        calls=len(run.calls),
        failures=len(failed),
        failures_by_outcome=by_outcome,
        failure_rate=_failure_rates(run.calls),
        check_rates=_check_rates(run.items),
        items=len(run.items),
        rated=len(rated),
        blind=len(blind),
        faithful_rate=faithful,
        useful_mean=statistics.fmean(run.ratings[it.id].useful for it in rated) if rated else None,
        agreement=_agreement(run, blind, resamples) if blind else {},
        # One answer per topic, so answers are independent: a plain bootstrap over topics.
        fact_recall=bootstrap_ci(recalls, resamples=resamples) if recalls else None,
        notes=notes,
    )
