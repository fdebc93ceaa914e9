"""``python -m ragcore eval``: score rankers on a gold set or a BEIR folder.

    python -m ragcore eval (--gold FILE | --beir DIR) [--rankers bm25,dense,hybrid]
        [--chunking heading|sentence|whole|auto] [--compare-chunkings] [--json] [--out FILE]

Prints a table per ranker (mean and 95% interval of each metric) and the
paired comparisons; ``--json`` prints the run as JSON instead, ``--out`` also
writes it to a file. Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ..errors import RagcoreError
from . import lens_eval
from . import statistics as st
from .goldset import load_beir, load_goldset
from .orchestration import run_beir, run_goldset, versions
from .run import JsonValue
from .runner import DEFAULT_RANKER, DEFAULT_RANKERS, Progress
from .tables import format_chunking_comparison, format_run

CHUNKINGS = ("heading", "sentence", "whole", "auto")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``eval`` options to ``parser``."""
    _add_sources(parser)
    _add_scoring(parser)
    parser.add_argument("--json", action="store_true", help="print the run as JSON instead of tables")
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the run's JSON to FILE")
    parser.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    parser.add_argument(
        "--answers", action="store_true", help="also score the answers of the ask path (needs --gold)"
    )
    parser.add_argument("--model", metavar="NAME", help="with --answers: score this LiteLLM model's answer")
    parser.add_argument(
        "--curated",
        choices=["on", "off"],
        default="off",
        help="with --answers: also score answers with the corpus's curated layer on (reported apart)",
    )


def _add_sources(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--gold",
        type=Path,
        metavar="FILE",
        help="gold-set JSON file (docs/goldset-format.md)",
    )
    source.add_argument(
        "--beir",
        type=Path,
        metavar="DIR",
        help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/test.tsv",
    )
    source.add_argument(
        "--lens-gold", type=Path, metavar="FILE", help="lens gold file (docs/lens-gold-format.md)"
    )
    parser.add_argument(
        "--corpus", type=Path, metavar="DIR", help="with --lens-gold: read this copy of its folder"
    )


def _add_scoring(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rankers",
        default=",".join(DEFAULT_RANKERS),
        help="comma-separated retrieval modes to score (default: %(default)s)",
    )
    parser.add_argument(
        "--chunking",
        choices=CHUNKINGS,
        default=None,
        help="passage chunking (default: auto for a gold set, whole for a BEIR folder)",
    )
    parser.add_argument(
        "--compare-chunkings",
        action="store_true",
        help="score the gold set under heading, sentence and whole-document chunking",
    )
    parser.add_argument(
        "--default-ranker",
        default=DEFAULT_RANKER,
        help="ranker of the primary comparisons (default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=st.SEED,
        help="seed of the bootstrap and permutation draws",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=st.RESAMPLES,
        help="bootstrap and permutation resamples",
    )


def run(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the ``eval`` subcommand; 0 on success, 1 on bad input or a failed run."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    started = time.monotonic()
    # Taken before anything is loaded, so they describe the code that runs.
    run_versions = versions()
    if args.lens_gold is not None:
        try:
            return lens_eval.run_command(args.lens_gold, args.corpus, args.json, out)
        except RagcoreError as exc:
            print(f"eval: {exc}", file=err)
            return 1

    def progress(message: str) -> None:
        if not args.quiet:
            print(f"[eval {time.monotonic() - started:6.1f}s] {message}", file=err, flush=True)

    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    problem = _argument_problem(args, rankers)
    if problem:
        print(f"eval: {problem}", file=err)
        return 1
    try:
        result = _result(args, rankers, progress, run_versions)
    except RagcoreError as exc:
        print(f"eval: {exc}", file=err)
        return 1
    _emit(result, args, out, progress)
    return 0


def _argument_problem(args: argparse.Namespace, rankers: list[str]) -> str | None:
    """What is wrong with the command line, or None."""
    if not rankers or len(set(rankers)) != len(rankers):
        return "--rankers must name each ranker once, e.g. bm25,dense,hybrid"
    unknown = [r for r in rankers if r not in _known_modes()]
    if unknown:
        return f"unknown ranker(s) {', '.join(unknown)}; choose from {', '.join(_known_modes())}"
    if args.resamples < 1:
        return "--resamples must be at least 1"
    if args.compare_chunkings and args.beir is not None:
        return "--compare-chunkings needs --gold (a BEIR folder is judged per document)"
    if getattr(args, "answers", False) and (args.gold is None or args.compare_chunkings):
        return "--answers needs --gold (and no --compare-chunkings)"
    return None


def _result(
    args: argparse.Namespace, rankers: list[str], progress: Progress, run_versions: dict[str, JsonValue]
) -> dict[str, Any]:
    """The run's JSON: the retrieval run, and the answers' scores with --answers."""
    runner = _gold_run if args.gold is not None else _beir_run
    result = {"kind": "retrieval", **runner(args, rankers, progress, run_versions)}
    if getattr(args, "answers", False):
        from .answer_run import run_answers

        result["kind"] = "answers"
        gold = load_goldset(args.gold)
        result["answers"] = run_answers(
            gold, model=args.model, resamples=args.resamples, seed=args.seed, progress=progress
        )
        if getattr(args, "curated", "off") == "on":  # reported beside, never mixed into, the figures above
            result["answers_curated"] = run_answers(
                gold,
                model=args.model,
                resamples=args.resamples,
                seed=args.seed,
                progress=progress,
                curated=True,
            )
    return result


def _emit(result: dict[str, Any], args: argparse.Namespace, out: TextIO, progress: Progress) -> None:
    """Write the run to --out, and print it as JSON or as tables."""
    text = json.dumps(result, indent=1, ensure_ascii=False) + "\n"
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        progress(f"wrote {args.out}")
    if args.json:
        out.write(text)
    elif "chunkings" in result:
        out.write(format_chunking_comparison(result))
    else:
        out.write(format_run(result))
        if "answers" in result:
            from .answer_run import format_answers

            out.write("\n" + format_answers(result["answers"]))
            if "answers_curated" in result:
                out.write("\nWith the curated layer on (pinned answers where a question matches):\n")
                out.write(format_answers(result["answers_curated"]))


def _known_modes() -> tuple[str, ...]:
    try:
        from ..retrieval import MODES
    except ImportError:  # retrieval not installed: accept the documented modes
        return ("bm25", "dense", "hybrid", "widen", "rerank")
    return tuple(MODES)


def _gold_run(
    args: argparse.Namespace, rankers: list[str], progress: Progress, run_versions: dict[str, JsonValue]
) -> dict[str, JsonValue]:
    result = run_goldset(
        load_goldset(args.gold),
        rankers,
        source=str(args.gold),
        chunking="compare" if args.compare_chunkings else (args.chunking or "auto"),
        default_ranker=args.default_ranker,
        seed=args.seed,
        resamples=args.resamples,
        run_versions=run_versions,
        progress=progress,
    )
    return result.to_json()


def _beir_run(
    args: argparse.Namespace, rankers: list[str], progress: Progress, run_versions: dict[str, JsonValue]
) -> dict[str, JsonValue]:
    result = run_beir(
        load_beir(args.beir),
        rankers,
        folder=args.beir,
        source=str(args.beir),
        chunking=args.chunking or "whole",
        default_ranker=args.default_ranker,
        seed=args.seed,
        resamples=args.resamples,
        run_versions=run_versions,
        progress=progress,
    )
    return result.to_json()
