"""Evaluation runs for the Evaluation page: the stored runs, the shipped gold
sets, and scoring a gold set now."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .. import config, errors
from ..corpus import Corpus
from ..evaluation.goldset import GoldSet, load_goldset
from ..evaluation.heldout import HeldOutStudy, heldout_from_json
from ..evaluation.orchestration import run_goldset
from ..evaluation.run import AnyRun, ChunkingRun, JsonValue, RunSettings, is_run, run_from_json
from ..evaluation.runner import Ranker
from ..evaluation.statistics import RESAMPLES
from ..store import Library
from .common import DEMO_COLLECTION, EVAL_DIR, REPO_ROOT, RESULTS_DIR, check_chunking, safe_name
from .indexes import Indexes

# The shipped default's whole procedure held out (scripts/prf_parts_study.py --heldout),
# else the fusion study's gate without its later steps (scripts/fusion_study.py --cv).
HELDOUT_FILES = ("heldout-default.json", "fusion-cv.json")


@dataclass(frozen=True)
class StoredRun:
    """An evaluation run stored as JSON in ``eval/results``."""

    path: Path
    name: str
    kind: Literal["run", "chunkings"]
    questions: int
    rankers: tuple[str, ...]
    title: str


class Evaluations:
    """Stored runs, shipped gold sets, and runs made now."""

    def __init__(
        self, library: Library, indexes: Indexes, results_dir: Path | None = None, eval_dir: Path = EVAL_DIR
    ) -> None:
        self.library = library
        self.indexes = indexes
        self._results_dir = results_dir
        self.eval_dir = eval_dir

    @property
    def results_dir(self) -> Path:
        """Where stored evaluation runs live: as given, else RAGCORE_RESULTS_DIR,
        else ``eval/results`` of the project."""
        if self._results_dir is not None:
            return self._results_dir
        chosen = config.get("RAGCORE_RESULTS_DIR")
        return Path(chosen) if chosen else RESULTS_DIR

    def stored_runs(self) -> list[StoredRun]:
        """Evaluation runs stored in ``eval/results/*.json``, unreadable files skipped."""
        out = []
        if not self.results_dir.is_dir():
            return out
        for path in sorted(self.results_dir.glob("*.json")):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                run = run_from_json(data) if is_run(data) else None  # other kinds of results are skipped
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue  # not JSON, or not a run
            if run is not None:
                out.append(describe_run(path, run))
        return out

    def heldout(self) -> HeldOutStudy | None:
        """The default ranker's cross-validated figures (the first of ``HELDOUT_FILES``), if stored."""
        path = next((self.results_dir / n for n in HELDOUT_FILES if (self.results_dir / n).is_file()), None)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise errors.RagcoreError(f"{path.name}: cannot be read ({exc})") from exc
        return heldout_from_json(data)

    def tuned_on(self, gold_name: str) -> bool:
        """Whether the default ranker's constants were chosen with this gold set's
        questions among others (a group of the stored cross-validation)."""
        try:
            study = self.heldout()
        except errors.RagcoreError:
            return False
        return study is not None and any(row.collection.split(":")[0] == gold_name for row in study.rows)

    @staticmethod
    def preferred_run(stored: list[StoredRun], collection: str) -> int:
        """Index of the run to open first: for the demo, the demo gold set's run with
        the default chunking (not whichever file sorts first); else the first."""
        if collection == DEMO_COLLECTION:
            for i, run in enumerate(stored):
                if run.path.stem == "demo" and run.kind == "run":
                    return i
        return 0

    def load_run(self, path: Path | str) -> AnyRun:
        path = Path(path)
        if path.resolve().parent != self.results_dir.resolve():
            raise errors.RagcoreError(f"{path.name}: not a stored run")
        return run_from_json(json.loads(path.read_text(encoding="utf-8")))

    def gold_sets(self) -> list[Path]:
        """Gold sets shipped with the project (``eval/*.json``, ``eval/gold/*.json``)."""
        folder = self.eval_dir
        found = sorted(folder.glob("*.json")) + sorted((folder / "gold").glob("*.json"))
        return [p for p in found if p.is_file()]

    def evaluate_goldset(
        self,
        gold_bytes: bytes,
        collection: str,
        rankers: list[str],
        *,
        name: str = "goldset.json",
        resamples: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> AnyRun:
        """Score ``rankers`` on a gold set (JSON bytes, uploaded as ``name``)
        against a loaded collection. Its judgements name documents of the
        collection, so its ``corpus`` may be left out."""
        from ..evaluation.rankers import index_details, retriever_rankers

        if not rankers:
            raise errors.RagcoreError("choose at least one ranker")
        gold = _uploaded_goldset(gold_bytes, safe_name(name, "goldset.json"), collection)
        retriever = self.indexes.retriever(collection)
        if not retriever.passages:
            raise errors.RagcoreError(f"the collection {collection!r} has no passages to evaluate against")

        def build(chunking: str | None) -> tuple[Corpus, Mapping[str, Ranker], dict[str, JsonValue]]:
            if any(r != "bm25" for r in rankers):
                self.indexes.ensure_dense(collection)
            return (
                retriever.corpus,
                retriever_rankers(retriever, rankers, gold.unit),
                index_details(retriever, rankers),
            )

        return run_goldset(
            gold,
            rankers,
            source=safe_name(name, "goldset.json"),
            chunking=None,
            resamples=resamples or RESAMPLES,
            build=build,
            extra_settings={"collection": collection},
            progress=progress,
        )

    def evaluate_stored_goldset(
        self,
        gold_path: Path,
        rankers: list[str],
        chunking: str = "auto",
        *,
        resamples: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> AnyRun:
        """Score ``rankers`` on a shipped gold set over its own corpus folder,
        cut with ``chunking``, or under each of heading, sentence and whole
        with ``chunking="compare"`` (vectors come from the library cache)."""
        from ..evaluation.rankers import build_rankers

        if not rankers:
            raise errors.RagcoreError("choose at least one ranker")
        check_chunking(chunking, "compare")
        gold = load_goldset(gold_path)

        def build(strategy: str | None) -> tuple[Corpus, Mapping[str, Ranker], dict[str, JsonValue]]:
            return build_rankers(
                gold.corpus,
                strategy or "auto",
                rankers,
                gold.unit,
                progress,
                library=self.library,
                make_retriever=self.indexes.new_retriever,
            )

        return run_goldset(
            gold,
            rankers,
            source=str(gold_path),
            chunking=chunking,
            resamples=resamples or RESAMPLES,
            build=build,
            progress=progress,
        )


def _uploaded_goldset(gold_bytes: bytes, name: str, collection: str) -> GoldSet:
    """An uploaded gold set, read under its (sanitised) name so messages name
    the file the user chose. It is scored against the chosen collection, so
    its ``corpus`` may only be left out or name that collection: a server
    path would be resolved, and the message would say which folders exist."""
    try:
        parsed = json.loads(gold_bytes)
    except (UnicodeDecodeError, ValueError):
        parsed = None  # load_goldset reports what is wrong with it
    if isinstance(parsed, dict):
        corpus = parsed.get("corpus", ".")
        if corpus not in (".", collection):
            raise errors.GoldSetError(
                f"{name}: an uploaded gold set is scored against the chosen collection; its 'corpus' may "
                f"only name that collection ({collection!r}) or be left out, not a folder"
            )
        gold_bytes = json.dumps({**parsed, "corpus": "."}).encode("utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(gold_bytes)
        return load_goldset(path)


def describe_run(path: Path, run: AnyRun) -> StoredRun:
    """A one-line description of a stored run for the run picker."""
    name = run.settings.name or path.stem
    if isinstance(run, ChunkingRun):
        first = next(iter(run.chunkings.values()), None)
        questions = first.questions.scored if first else 0
        rankers = tuple(first.rankers) if first else ()
        title = f"{name}: chunking comparison ({', '.join(run.chunkings)})"
        return StoredRun(path, name, "chunkings", questions, rankers, title)
    rankers = tuple(run.rankers)
    chunking = run.settings.chunking
    extra = f", {chunking} chunking" if chunking else ""
    title = f"{name}: {run.questions.scored} questions, {', '.join(rankers)}{extra}"
    if run.kind == "answers":
        title = f"{name}: answers ({path.stem}), {title.split(': ', 1)[1]}"  # one title per stored answer run
    return StoredRun(path, name, "run", run.questions.scored, rankers, title)


def question_texts(settings: RunSettings) -> dict[str, str]:
    """Question id -> text, read from the run's gold set when it is a JSON
    file still at the recorded path (runs store ids only); empty otherwise."""
    gold = settings.gold
    if not isinstance(gold, str) or not gold.endswith(".json"):
        return {}
    path = Path(gold) if Path(gold).is_absolute() else REPO_ROOT / gold
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(q["id"]): str(q["text"]) for q in data.get("questions", []) if "id" in q and "text" in q}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}
