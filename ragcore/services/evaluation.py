"""Evaluation runs for the Evaluation page: the stored runs, the shipped gold
sets, and scoring a gold set now."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import config, errors
from ..store import Library
from .common import CHUNKINGS, EVAL_DIR, REPO_ROOT, RESULTS_DIR, safe_name
from .indexes import Indexes


@dataclass(frozen=True)
class StoredRun:
    """An evaluation run stored as JSON in ``eval/results``."""

    path: Path
    name: str
    kind: str  # "run" | "chunkings"
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
                run = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                continue
            if not isinstance(run, dict):
                continue
            out.append(describe_run(path, run))
        return out

    def load_run(self, path: Path | str) -> dict[str, Any]:
        path = Path(path)
        if path.resolve().parent != self.results_dir.resolve():
            raise errors.RagcoreError(f"{path.name}: not a stored run")
        return json.loads(path.read_text(encoding="utf-8"))

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
    ) -> dict[str, Any]:
        """Score ``rankers`` on a gold set (JSON bytes, uploaded as ``name``)
        against a loaded collection. Its judgements name documents of the
        collection, so its ``corpus`` may be left out."""
        from ..evaluation import all_qrels, evaluate, load_goldset, resolve_spans, retriever_rankers
        from ..evaluation import statistics as stats

        if not rankers:
            raise errors.RagcoreError("choose at least one ranker")
        try:
            parsed = json.loads(gold_bytes)
        except (UnicodeDecodeError, ValueError):
            parsed = None  # load_goldset reports what is wrong with it
        if isinstance(parsed, dict) and "corpus" not in parsed:
            gold_bytes = json.dumps({**parsed, "corpus": "."}).encode("utf-8")
        with tempfile.TemporaryDirectory() as tmp:
            # Only a sanitised base name, so messages name the file the user chose.
            path = Path(tmp) / safe_name(name, "goldset.json")
            path.write_bytes(gold_bytes)
            gold = load_goldset(path)
        retriever = self.indexes.retriever(collection)
        if not retriever.passages:
            raise errors.RagcoreError(f"the collection {collection!r} has no passages to evaluate against")
        resolved = resolve_spans(gold, retriever.corpus.documents)
        qrels = all_qrels(resolved, retriever.passages, gold.unit)
        return evaluate(
            resolved,
            qrels,
            retriever_rankers(retriever, rankers, gold.unit),
            unit=gold.unit,
            relevant_min_grade=gold.relevant_min_grade,
            resamples=resamples or stats.RESAMPLES,
            settings={"source": "goldset", "name": gold.name, "collection": collection, "rankers": rankers},
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
    ) -> dict[str, Any]:
        """Score ``rankers`` on a shipped gold set over its own corpus folder,
        cut with ``chunking``, or under each of heading, sentence and whole
        with ``chunking="compare"`` (vectors come from the library cache)."""
        from ..evaluation import all_qrels, compare_chunkings, evaluate, load_goldset, resolve_spans
        from ..evaluation import statistics as stats

        if not rankers:
            raise errors.RagcoreError("choose at least one ranker")
        if chunking not in (*CHUNKINGS, "compare"):
            raise ValueError(f"chunking must be one of {', '.join(CHUNKINGS)} or 'compare', not {chunking!r}")
        gold = load_goldset(gold_path)
        settings = {"source": "goldset", "name": gold.name, "gold": str(gold_path), "rankers": rankers}
        common = {
            "unit": gold.unit,
            "relevant_min_grade": gold.relevant_min_grade,
            "resamples": resamples or stats.RESAMPLES,
            "progress": progress,
        }
        if chunking == "compare":
            setups = {}
            resolved = None
            for strategy in ("heading", "sentence", "whole"):
                corpus, ranking = self._gold_rankers(gold, strategy, rankers, progress)
                if resolved is None:
                    resolved = resolve_spans(gold, corpus.documents)
                setups[strategy] = (corpus.passages, ranking)
            return compare_chunkings(resolved, setups, settings={**settings, "chunking": "compare"}, **common)
        corpus, ranking = self._gold_rankers(gold, chunking, rankers, progress)
        resolved = resolve_spans(gold, corpus.documents)
        qrels = all_qrels(resolved, corpus.passages, gold.unit)
        return evaluate(resolved, qrels, ranking, settings={**settings, "chunking": chunking}, **common)

    def _gold_rankers(
        self, gold: Any, chunking: str, rankers: list[str], progress: Callable[[str], None] | None
    ):
        from ..corpus import load_corpus
        from ..evaluation import retriever_rankers

        if progress:
            progress(f"loading {Path(gold.corpus).name} with {chunking} chunking")
        corpus = load_corpus(Path(gold.corpus), chunking, self.library)
        retriever = self.indexes.new_retriever(corpus)
        if any(r != "bm25" for r in rankers):
            if progress:
                progress(f"dense index over {len(corpus.passages)} passages ({chunking})")
            retriever.ensure_dense()
        return corpus, retriever_rankers(retriever, rankers, gold.unit)


def describe_run(path: Path, run: Mapping[str, Any]) -> StoredRun:
    """A one-line description of a stored run for the run picker."""
    settings = run.get("settings", {}) or {}
    name = str(settings.get("name") or path.stem)
    if "chunkings" in run:
        first = next(iter(run["chunkings"].values()), {})
        questions = int(first.get("questions", {}).get("scored", 0))
        rankers = tuple(first.get("rankers", {}))
        title = f"{name}: chunking comparison ({', '.join(run['chunkings'])})"
        return StoredRun(path, name, "chunkings", questions, rankers, title)
    questions = int(run.get("questions", {}).get("scored", 0))
    rankers = tuple(run.get("rankers", {}))
    chunking = settings.get("chunking")
    extra = f", {chunking} chunking" if chunking else ""
    title = f"{name}: {questions} questions, {', '.join(rankers)}{extra}"
    return StoredRun(path, name, "run", questions, rankers, title)


def question_texts(run: Mapping[str, Any]) -> dict[str, str]:
    """Question id -> text, read from the run's gold set when it is a JSON
    file still at the recorded path (runs store ids only); empty otherwise."""
    gold = (run.get("settings") or {}).get("gold")
    if not isinstance(gold, str) or not gold.endswith(".json"):
        return {}
    path = Path(gold) if Path(gold).is_absolute() else REPO_ROOT / gold
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(q["id"]): str(q["text"]) for q in data.get("questions", []) if "id" in q and "text" in q}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}
