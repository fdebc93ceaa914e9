"""A run, typed: what ``evaluate`` and ``compare_chunkings`` produce and what
``eval/results/*.json`` hold.

``Run`` is one gold set scored by several rankers; ``ChunkingRun`` is one gold
set scored under several chunkings. ``to_json`` writes the run's JSON (the
contract of ``python -m ragcore eval --json``, see docs/goldset-format.md);
``from_json`` reads it back, and ``from_json(x).to_json() == x`` for every
stored run. Keys this module does not know (added by later features) are kept
in ``extra`` and written back after the known ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

JsonValue: TypeAlias = "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"

Unit = Literal["passage", "document"]
Source = Literal["goldset", "beir"]
Family = Literal["primary", "secondary"]
RunKind = Literal["retrieval", "answers"]


def _opt(out: JsonObject, key: str, value: JsonValue) -> None:
    if value is not None:
        out[key] = value


def _extra(data: Mapping[str, JsonValue], known: tuple[str, ...]) -> JsonObject:
    return {k: v for k, v in data.items() if k not in known}


@dataclass(frozen=True)
class MetricSummary:
    """A metric's mean over questions with its interval."""

    mean: float
    ci_low: float | None
    ci_high: float | None
    interval: str  # "bootstrap-percentile" | "wilson"
    n: int

    def to_json(self) -> JsonObject:
        return {
            "mean": self.mean,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "interval": self.interval,
            "n": self.n,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> MetricSummary:
        return cls(data["mean"], data["ci_low"], data["ci_high"], data["interval"], data["n"])


Metrics = dict[str, MetricSummary]


def _metrics_json(metrics: Mapping[str, MetricSummary]) -> JsonObject:
    return {name: m.to_json() for name, m in metrics.items()}


def _metrics_from(data: Mapping[str, JsonValue]) -> Metrics:
    return {name: MetricSummary.from_json(m) for name, m in data.items()}


@dataclass(frozen=True)
class RankerResult:
    """One ranker's metrics over all questions and per question type."""

    metrics: Metrics
    by_type: dict[str, Metrics]
    note: str | None = None  # why its figures cannot differ from another ranker's, when they cannot
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "metrics": _metrics_json(self.metrics),
            "by_type": {t: _metrics_json(m) for t, m in self.by_type.items()},
        }
        _opt(out, "note", self.note)
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> RankerResult:
        by_type = data.get("by_type") or {}
        return cls(
            _metrics_from(data["metrics"]),
            {t: _metrics_from(m) for t, m in by_type.items()},
            data.get("note"),
            _extra(data, ("metrics", "by_type", "note")),
        )


_COMPARISON_KEYS = (
    "ranker",
    "a",
    "b",
    "metric",
    "diff",
    "ci_low",
    "ci_high",
    "d_z",
    "p",
    "p_holm",
    "family",
    "interval",
    "test",
    "n",
)


@dataclass(frozen=True)
class Comparison:
    """A paired comparison a - b on one metric over the same questions.

    Across chunkings (``ChunkingRun``) ``ranker`` names the ranker compared
    and ``a``/``b`` are chunkings; family, interval and test are then unset."""

    a: str
    b: str
    metric: str
    diff: float
    ci_low: float | None
    ci_high: float | None
    d_z: float | None
    p: float | None
    p_holm: float | None
    n: int
    family: Family | None = None
    interval: str | None = None
    test: str | None = None
    ranker: str | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {}
        for key in _COMPARISON_KEYS:
            value = getattr(self, key)
            if value is not None or key in ("ci_low", "ci_high", "d_z", "p", "p_holm"):
                out[key] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> Comparison:
        return cls(**{k: data.get(k) for k in _COMPARISON_KEYS})


@dataclass(frozen=True)
class RankedEntry:
    """One of a ranker's top passages for a question, with its gold grade."""

    doc: str
    first_line: int | None
    last_line: int | None
    grade: int | None

    def to_json(self) -> JsonObject:
        return {
            "doc": self.doc,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "grade": self.grade,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> RankedEntry:
        return cls(data["doc"], data.get("first_line"), data.get("last_line"), data.get("grade"))


@dataclass(frozen=True)
class QuestionResult:
    """One question: its type, each ranker's metric values and top passages."""

    type: str
    metrics: dict[str, dict[str, float]]  # ranker -> metric -> value
    top10: dict[str, tuple[RankedEntry, ...]]  # ranker -> its top passages

    def to_json(self) -> JsonObject:
        return {
            "type": self.type,
            "metrics": {r: dict(v) for r, v in self.metrics.items()},
            "top10": {r: [e.to_json() for e in entries] for r, entries in self.top10.items()},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> QuestionResult:
        top = data.get("top10") or {}
        return cls(
            str(data.get("type", "")),
            {r: dict(v) for r, v in (data.get("metrics") or {}).items()},
            {r: tuple(RankedEntry.from_json(e) for e in es) for r, es in top.items()},
        )


@dataclass(frozen=True)
class QuestionCounts:
    """How many questions there were, were scored, and were dropped (no relevant judgement)."""

    total: int
    scored: int
    dropped: int
    dropped_ids: tuple[str, ...]
    by_type: dict[str, int]

    def to_json(self) -> JsonObject:
        return {
            "total": self.total,
            "scored": self.scored,
            "dropped": self.dropped,
            "dropped_ids": list(self.dropped_ids),
            "by_type": dict(self.by_type),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> QuestionCounts:
        return cls(
            data["total"],
            data["scored"],
            data["dropped"],
            tuple(data.get("dropped_ids") or ()),
            dict(data.get("by_type") or {}),
        )


@dataclass(frozen=True)
class Versions:
    """What made the run: interpreter, numeric libraries, and the ragcore commit."""

    python: str
    numpy: str
    scipy: str
    ragcore_commit: str | None
    ragcore_modified: bool | None

    def to_json(self) -> JsonObject:
        return {
            "python": self.python,
            "numpy": self.numpy,
            "scipy": self.scipy,
            "ragcore_commit": self.ragcore_commit,
            "ragcore_modified": self.ragcore_modified,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> Versions:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__})


# Known settings in the order runs write them; any other key goes to ``extra``.
_SETTINGS_KEYS = (
    "source",
    "gold",
    "collection",
    "rankers",
    "chunking",
    "versions",
    "name",
    "index",
    "chunkings",
    "default_ranker",
    "unit",
    "relevant_min_grade",
    "seed",
    "resamples",
    "confidence",
    "primary_metric",
)


@dataclass(frozen=True)
class RunSettings:
    """How a run was made; fields left None were not recorded."""

    source: str | None = None  # "goldset" | "beir"
    gold: str | None = None
    collection: str | None = None
    rankers: tuple[str, ...] = ()
    chunking: str | None = None
    versions: Versions | None = None
    name: str | None = None
    index: JsonObject | None = None  # documents, passages, embedding_model, fusion
    chunkings: tuple[str, ...] | None = None
    default_ranker: str | None = None
    unit: Unit | None = None
    relevant_min_grade: int | None = None
    seed: int | None = None
    resamples: int | None = None
    confidence: float | None = None
    primary_metric: str | None = None
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = {}
        for key in _SETTINGS_KEYS:
            value = getattr(self, key)
            if key == "rankers":
                out[key] = list(value)
            elif key == "versions":
                _opt(out, key, value.to_json() if value is not None else None)
            elif key == "chunkings":
                _opt(out, key, list(value) if value is not None else None)
            else:
                _opt(out, key, value)
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> RunSettings:
        values: dict[str, object] = {k: data[k] for k in _SETTINGS_KEYS if k in data}
        values["rankers"] = tuple(data.get("rankers") or ())
        if isinstance(data.get("versions"), dict):
            values["versions"] = Versions.from_json(data["versions"])
        if "chunkings" in data:
            values["chunkings"] = tuple(data["chunkings"])
        return cls(**values, extra=_extra(data, _SETTINGS_KEYS))

    @property
    def label(self) -> str:
        """The run's name for titles and file names."""
        return self.name or "run"


_RUN_KEYS = ("kind", "settings", "questions", "rankers", "comparisons", "per_question")


@dataclass(frozen=True)
class Run:
    """One gold set scored by several rankers."""

    settings: RunSettings
    questions: QuestionCounts
    rankers: dict[str, RankerResult]
    comparisons: tuple[Comparison, ...]
    per_question: dict[str, QuestionResult]
    kind: RunKind | None = None
    extra: JsonObject = field(default_factory=dict)  # e.g. "answers" (eval --answers)

    def to_json(self) -> JsonObject:
        out: JsonObject = {}
        _opt(out, "kind", self.kind)
        out["settings"] = self.settings.to_json()
        out["questions"] = self.questions.to_json()
        out["rankers"] = {name: r.to_json() for name, r in self.rankers.items()}
        out["comparisons"] = [c.to_json() for c in self.comparisons]
        out["per_question"] = {q: r.to_json() for q, r in self.per_question.items()}
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> Run:
        return cls(
            RunSettings.from_json(data.get("settings") or {}),
            QuestionCounts.from_json(data["questions"]),
            {n: RankerResult.from_json(r) for n, r in data["rankers"].items()},
            tuple(Comparison.from_json(c) for c in data.get("comparisons") or ()),
            {q: QuestionResult.from_json(r) for q, r in (data.get("per_question") or {}).items()},
            data.get("kind"),
            _extra(data, _RUN_KEYS),
        )

    @property
    def metric_names(self) -> list[str]:
        first = next(iter(self.rankers.values()), None)
        return list(first.metrics) if first else []


_CHUNKING_KEYS = ("kind", "settings", "summary", "comparisons", "chunkings")


@dataclass(frozen=True)
class ChunkingRun:
    """One gold set scored under several chunkings, compared ranker by ranker."""

    settings: RunSettings
    summary: dict[str, dict[str, MetricSummary]]  # chunking -> ranker -> primary metric
    comparisons: tuple[Comparison, ...]
    chunkings: dict[str, Run]
    kind: RunKind | None = None
    extra: JsonObject = field(default_factory=dict)

    def to_json(self) -> JsonObject:
        out: JsonObject = {}
        _opt(out, "kind", self.kind)
        out["settings"] = self.settings.to_json()
        out["summary"] = {c: _metrics_json(per) for c, per in self.summary.items()}
        out["comparisons"] = [c.to_json() for c in self.comparisons]
        out["chunkings"] = {c: run.to_json() for c, run in self.chunkings.items()}
        return {**out, **self.extra}

    @classmethod
    def from_json(cls, data: Mapping[str, JsonValue]) -> ChunkingRun:
        return cls(
            RunSettings.from_json(data.get("settings") or {}),
            {c: _metrics_from(per) for c, per in (data.get("summary") or {}).items()},
            tuple(Comparison.from_json(c) for c in data.get("comparisons") or ()),
            {c: Run.from_json(r) for c, r in data["chunkings"].items()},
            data.get("kind"),
            _extra(data, _CHUNKING_KEYS),
        )


AnyRun = Run | ChunkingRun
RUN_KINDS = (None, "retrieval", "answers")  # stored results of other kinds are not runs


def is_run(data: object) -> bool:
    """Whether stored JSON is a run (not e.g. a threshold study or a generation run)."""
    return isinstance(data, dict) and data.get("kind") in RUN_KINDS


def run_from_json(data: Mapping[str, JsonValue]) -> AnyRun:
    """A stored run of either shape (a chunking comparison has ``chunkings``)."""
    return ChunkingRun.from_json(data) if "chunkings" in data else Run.from_json(data)
