"""One way to run a gold set or a BEIR folder, whoever asks.

``run_goldset`` and ``run_beir`` are used by ``python -m ragcore eval``, by the
Evaluation page ("Run now", "My gold set") and so by every stored run in
``eval/results``. Each run records the same settings: the source and its name,
the rankers, the chunking, the index (size, embedding model, fusion), the
versions and commit of the code, and the scoring (seed, resamples, unit).
"""

from __future__ import annotations

import platform
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from ..corpus import Corpus
from . import rankers as ranker_building
from .goldset import BeirSet, GoldSet, all_qrels, resolve_spans
from .run import ChunkingRun, JsonValue, Run
from .runner import DEFAULT_RANKER, Progress, Ranker, Scoring, compare_chunkings, score_run
from .statistics import RESAMPLES, SEED

RunChunking = Literal["auto", "heading", "sentence", "whole", "compare"]
COMPARED_CHUNKINGS = ("heading", "sentence", "whole")

# chunking -> (corpus, rankers, details of the index)
IndexBuilder = Callable[[str | None], tuple[Corpus, Mapping[str, Ranker], dict[str, JsonValue]]]


def versions() -> dict[str, JsonValue]:
    """Versions that make a run reproducible. ``ragcore_commit`` is None
    outside git; ``ragcore_modified`` says whether files under ragcore/
    differed from that commit when the run started."""
    import numpy
    import scipy

    here = Path(__file__).resolve().parent
    commit = _git(here, "rev-parse", "--short", "HEAD")
    status = _git(here, "status", "--porcelain", "--", str(here.parent)) if commit else None
    return {
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "ragcore_commit": commit,
        "ragcore_modified": None if status is None else bool(status),
    }


def _git(cwd: Path, *argv: str) -> str | None:
    try:
        done = subprocess.run(["git", *argv], cwd=cwd, check=False, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def folder_builder(folder: Path, modes: Sequence[str], unit: str, progress: Progress | None) -> IndexBuilder:
    """Index ``folder`` under each chunking asked for (``rankers.build_rankers``)."""

    def build(chunking: str | None) -> tuple[Corpus, Mapping[str, Ranker], dict[str, JsonValue]]:
        return ranker_building.build_rankers(folder, chunking or "auto", modes, unit, progress)

    return build


def run_goldset(
    gold: GoldSet,
    rankers: Sequence[str],
    *,
    source: str,
    chunking: RunChunking | None = "auto",
    default_ranker: str = DEFAULT_RANKER,
    seed: int = SEED,
    resamples: int = RESAMPLES,
    build: IndexBuilder | None = None,
    extra_settings: Mapping[str, JsonValue] | None = None,
    run_versions: dict[str, JsonValue] | None = None,
    progress: Progress | None = None,
) -> Run | ChunkingRun:
    """Score ``rankers`` on a gold set under ``chunking``, or under each of
    heading, sentence and whole with ``chunking="compare"``.

    ``source`` is how the run names its gold set (the path given, or the
    uploaded file's name). ``build`` indexes the documents under a chunking
    (default: the gold set's corpus folder); ``chunking=None`` takes the
    documents as ``build`` has them (a loaded collection) and records none. ``run_versions`` defaults to the
    versions now; take them before loading anything when the run is long.
    """
    run_versions = run_versions if run_versions is not None else versions()
    build = build or folder_builder(gold.corpus, rankers, gold.unit, progress)
    scoring = Scoring(gold.unit, gold.relevant_min_grade, default_ranker, seed, resamples)
    settings: dict[str, JsonValue] = {
        "source": "goldset",
        "gold": source,
        "rankers": list(rankers),
        "chunking": chunking,
        "versions": run_versions,
        "name": gold.name,
    }
    if chunking is None:
        del settings["chunking"]
    if chunking == "compare":
        setups = {}
        resolved = None
        details: dict[str, JsonValue] = {}
        for strategy in COMPARED_CHUNKINGS:
            corpus, built, details = build(strategy)
            if resolved is None:
                resolved = resolve_spans(gold, corpus.documents)
            setups[strategy] = (corpus.passages, built)
        settings["index"] = {k: v for k, v in details.items() if k not in ("documents", "passages")}
        settings.update(extra_settings or {})
        return compare_chunkings(resolved, setups, scoring, settings=settings, progress=progress)
    corpus, built, details = build(chunking)
    resolved = resolve_spans(gold, corpus.documents)
    qrels = all_qrels(resolved, corpus.passages, gold.unit)
    settings["index"] = details
    settings.update(extra_settings or {})
    return ranker_building.with_ranker_notes(
        score_run(resolved, qrels, built, scoring, settings=settings, progress=progress)
    )


def run_beir(
    beir: BeirSet,
    rankers: Sequence[str],
    *,
    folder: Path,
    source: str,
    chunking: str = "whole",
    default_ranker: str = DEFAULT_RANKER,
    seed: int = SEED,
    resamples: int = RESAMPLES,
    run_versions: dict[str, JsonValue] | None = None,
    progress: Progress | None = None,
) -> Run:
    """Score ``rankers`` on a BEIR folder (``beir``, loaded from ``folder``), judged per document."""
    run_versions = run_versions if run_versions is not None else versions()
    corpus, built, details = ranker_building.build_rankers(folder, chunking, rankers, beir.unit, progress)
    missing = beir.doc_ids - set(corpus.documents)
    if missing and progress:
        progress(f"note: {len(missing)} corpus records were not loaded as documents (e.g. empty ones)")
    settings: dict[str, JsonValue] = {
        "source": "beir",
        "gold": source,
        "rankers": list(rankers),
        "chunking": chunking,
        "versions": run_versions,
        "name": Path(folder).name,
        "index": details,
    }
    scoring = Scoring(beir.unit, beir.relevant_min_grade, default_ranker, seed, resamples)
    return ranker_building.with_ranker_notes(
        score_run(beir.questions, beir.qrels, built, scoring, settings=settings, progress=progress)
    )
