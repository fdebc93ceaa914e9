"""Generation runs: what a model wrote for a fixed topic file, its automatic
checks, and a person's blind ratings, stored as ``"kind": "generation"``.

A topic file (``eval/<corpus>.geneval.json``) lists at least one topic, each
with a question (answered with the Ask page's prompt) and optionally a study
topic (study items with the Ask page's study prompt; defaults to the question)
and an ``answer`` key in the gold-set format (``{"facts": [...]}``).

A run holds, per topic, every call with its outcome (a refused, cut-off,
invalid or failed call is a failure of the model, never replaced by a
fallback), the passages each call was given, and the items written: the
answer and each study item, with its checks. Ratings are stored in the run.
A rating is *blind* when the checks of that item were not shown before it was
made; revealing checks first is recorded, and such a rating is kept but left
out of agreement figures (``generation_figures``).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcore.errors import RagcoreError

KIND = "generation"
FORMAT = 1

ItemKind = Literal["answer", "short", "mcq"]
CallKind = Literal["answer", "study"]
Outcome = Literal["ok", "refused", "cut_off", "invalid", "timeout", "call_error", "blocked_spend_cap"]
# Outcomes that are failures of the model (blocked_spend_cap sent nothing).
FAILURES: tuple[Outcome, ...] = ("refused", "cut_off", "invalid", "timeout", "call_error")
USEFUL_SCALE = (1, 2, 3, 4, 5)


class GenerationError(RagcoreError):
    """A topic file or a stored generation run that cannot be used."""


# ---------------------------------------------------------------- topic file


class TopicSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    topic: str | None = None  # study-item topic; the question when absent
    answer: dict | None = None  # gold-set answer key: {"facts": [...]} or {"answerable": false}

    @property
    def study_topic(self) -> str:
        return self.topic or self.question


class TopicFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    corpus: str = Field(min_length=1)  # folder of the corpus, relative to the project root
    description: str = ""
    topics: list[TopicSpec] = Field(min_length=1)


def load_topics(path: Path | str) -> TopicFile:
    """Read and validate a topic file; a clear ``GenerationError`` otherwise."""
    path = Path(path)
    try:
        spec = TopicFile.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise GenerationError(f"{path}: cannot read the topic file ({exc.strerror or exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise GenerationError(f"{path}: {where}: {first['msg']}") from None
    from ragcore.evaluation.answer_key import parse_answer_key

    for t in spec.topics:
        if t.answer is not None:
            parse_answer_key(t.answer, f"{path}: topic {t.id}")  # a clear error for a bad key
    ids = [t.id for t in spec.topics]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise GenerationError(f"{path}: topic ids must be unique ({', '.join(dupes)} repeated)")
    return spec


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class Check:
    passed: bool
    detail: str


@dataclass(frozen=True)
class SentPassage:
    """A passage as it was numbered in a prompt."""

    n: int
    doc: str
    first_line: int
    last_line: int
    label: str
    text: str


@dataclass
class CallRecord:
    """One model call of a run."""

    topic: str
    call: CallKind
    outcome: Outcome
    reason: str = ""
    reply: str = ""  # the raw reply (cut to 4,000 characters), shown for invalid output
    cost_usd: float = 0.0
    duration_ms: float | None = None
    passages: list[SentPassage] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.outcome in FAILURES


@dataclass
class GenItem:
    """One rated unit: a topic's answer or one of its study items."""

    id: str  # "<topic>/answer", "<topic>/item-2"
    topic: str
    call: CallKind
    kind: ItemKind
    question: str
    text: str  # the answer with [n] marks, or the item's answer / key
    citations: list[int]
    options: list[str] = field(default_factory=list)
    checks: dict[str, Check] = field(default_factory=dict)
    fact_recall: float | None = None


@dataclass(frozen=True)
class Rating:
    faithful: bool
    useful: int  # 1-5
    note: str
    blind: bool
    rated_at: str


@dataclass
class GenerationRun:
    name: str
    created: str
    model: str
    mock: bool
    local: bool
    prompts_hash: str
    topics_file: str
    corpus: str
    settings: dict[str, str | int]
    estimated_usd: float
    spent_usd: float
    calls: list[CallRecord]
    items: list[GenItem]
    topics: list[TopicSpec]
    ratings: dict[str, Rating] = field(default_factory=dict)
    revealed: list[str] = field(default_factory=list)  # checks shown before a rating
    notes: list[str] = field(default_factory=list)
    kind: str = KIND

    def item(self, item_id: str) -> GenItem:
        for it in self.items:
            if it.id == item_id:
                return it
        raise GenerationError(f"no item {item_id!r} in run {self.name!r}")

    def call_of(self, item: GenItem) -> CallRecord:
        return next(c for c in self.calls if c.topic == item.topic and c.call == item.call)

    def to_json(self) -> dict:
        out = asdict(self)
        out["topics"] = [t.model_dump(exclude_none=True) for t in self.topics]
        out["format"] = FORMAT
        return out

    @classmethod
    def from_json(cls, data: dict) -> GenerationRun:
        if data.get("kind") != KIND:
            raise GenerationError('not a generation run (its "kind" is not "generation")')
        try:
            return cls(
                **{
                    k: v
                    for k, v in data.items()
                    if k not in ("calls", "items", "topics", "ratings", "format")
                },
                calls=[
                    CallRecord(**{**c, "passages": [SentPassage(**p) for p in c["passages"]]})
                    for c in data["calls"]
                ],
                items=[
                    GenItem(**{**i, "checks": {k: Check(**v) for k, v in i["checks"].items()}})
                    for i in data["items"]
                ],
                topics=[TopicSpec.model_validate(t) for t in data["topics"]],
                ratings={k: Rating(**v) for k, v in data.get("ratings", {}).items()},
            )
        except (KeyError, TypeError, ValidationError) as exc:
            raise GenerationError(f"a stored generation run of the wrong shape ({exc})") from None


def now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


# ---------------------------------------------------------------- ratings


def reveal(run: GenerationRun, item_id: str) -> GenerationRun:
    """Show the checks of an item before rating it: its rating will not be blind."""
    run.item(item_id)
    if item_id not in run.ratings and item_id not in run.revealed:
        run.revealed.append(item_id)
    return run


def rate(run: GenerationRun, item_id: str, faithful: bool, useful: int, note: str = "") -> GenerationRun:
    """Record a person's rating; blind unless the item's checks were revealed first.

    Rating again replaces the rating but never makes it blind again once the
    checks were shown (after the first rating they are shown).
    """
    run.item(item_id)
    if useful not in USEFUL_SCALE:
        raise GenerationError(f"useful is rated 1-5, not {useful!r}")
    blind = item_id not in run.revealed and item_id not in run.ratings
    if item_id in run.ratings:
        blind = run.ratings[item_id].blind
    run.ratings[item_id] = Rating(bool(faithful), int(useful), note.strip(), blind, now())
    return run


def checks_visible(run: GenerationRun, item_id: str) -> bool:
    """Checks are shown once an item is rated, or when the rater chose to see them."""
    return item_id in run.ratings or item_id in run.revealed


# ---------------------------------------------------------------- storage


def is_generation(data: object) -> bool:
    return isinstance(data, dict) and data.get("kind") == KIND


def save_run(run: GenerationRun, path: Path | str) -> Path:
    """Write the run as JSON, atomically (a crash leaves the old file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(run.to_json(), ensure_ascii=False, indent=1)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644  # mkstemp's 0600 would hide a shared run
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_run(path: Path | str) -> GenerationRun:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise GenerationError(f"{path.name}: cannot read the run ({exc})") from None
    return GenerationRun.from_json(data)


@dataclass(frozen=True)
class StoredGeneration:
    path: Path
    name: str
    title: str


def stored_generation_runs(results_dir: Path | str) -> list[StoredGeneration]:
    """Generation runs in ``results_dir`` (retrieval runs and unreadable files skipped)."""
    out = []
    folder = Path(results_dir)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if not is_generation(data):
            continue
        mock = " (mock model)" if data.get("mock") else ""
        items, rated = len(data.get("items", [])), len(data.get("ratings", {}))
        title = f"{data.get('name', path.stem)}: {data.get('model', '?')}{mock}, {items} items, {rated} rated"
        out.append(StoredGeneration(path, str(data.get("name", path.stem)), title))
    return out
