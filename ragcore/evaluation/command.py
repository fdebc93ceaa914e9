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
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from ..errors import RagcoreError
from . import lens_eval
from . import statistics as st
from .goldset import all_qrels, load_beir, load_goldset, resolve_spans
from .metrics import HIT_RATES, METRICS, PRIMARY_METRIC
from .runner import (
    DEFAULT_RANKER,
    DEFAULT_RANKERS,
    build_rankers,
    compare_chunkings,
    evaluate,
)

CHUNKINGS = ("heading", "sentence", "whole", "auto")
COMPARED_CHUNKINGS = ("heading", "sentence", "whole")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``eval`` options to ``parser``."""
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
    parser.add_argument("--json", action="store_true", help="print the run as JSON instead of tables")
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the run's JSON to FILE")
    parser.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    parser.add_argument(
        "--answers", action="store_true", help="also score the answers of the ask path (needs --gold)"
    )
    parser.add_argument("--model", metavar="NAME", help="with --answers: score this LiteLLM model's answer")


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
            print(
                f"[eval {time.monotonic() - started:6.1f}s] {message}",
                file=err,
                flush=True,
            )

    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    if not rankers or len(set(rankers)) != len(rankers):
        print(
            "eval: --rankers must name each ranker once, e.g. bm25,dense,hybrid",
            file=err,
        )
        return 1
    unknown = [r for r in rankers if r not in _known_modes()]
    if unknown:
        print(
            f"eval: unknown ranker(s) {', '.join(unknown)}; choose from {', '.join(_known_modes())}",
            file=err,
        )
        return 1
    if args.resamples < 1:
        print("eval: --resamples must be at least 1", file=err)
        return 1
    if args.compare_chunkings and args.beir is not None:
        print(
            "eval: --compare-chunkings needs --gold (a BEIR folder is judged per document)",
            file=err,
        )
        return 1
    if getattr(args, "answers", False) and (args.gold is None or args.compare_chunkings):
        print("eval: --answers needs --gold (and no --compare-chunkings)", file=err)
        return 1
    try:
        runner = _gold_run if args.gold is not None else _beir_run
        result = {"kind": "retrieval", **runner(args, rankers, progress, run_versions)}
        if getattr(args, "answers", False):
            from .answer_run import run_answers

            result["kind"] = "answers"
            result["answers"] = run_answers(
                load_goldset(args.gold),
                model=args.model,
                resamples=args.resamples,
                seed=args.seed,
                progress=progress,
            )
    except RagcoreError as exc:
        print(f"eval: {exc}", file=err)
        return 1
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
    return 0


def _known_modes() -> tuple[str, ...]:
    try:
        from ..retrieval import MODES
    except ImportError:  # retrieval not installed: accept the documented modes
        return ("bm25", "dense", "hybrid", "widen", "rerank")
    return tuple(MODES)


def _settings(
    args: argparse.Namespace, rankers: list[str], chunking: str, kind: str, run_versions: dict[str, Any]
) -> dict[str, Any]:
    source = args.gold if args.gold is not None else args.beir
    return {
        "source": kind,
        "gold": str(source),
        "rankers": rankers,
        "chunking": chunking,
        "versions": run_versions,
    }


def _gold_run(args: argparse.Namespace, rankers: list[str], progress, run_versions: dict) -> dict[str, Any]:
    gold = load_goldset(args.gold)
    common = {
        "unit": gold.unit,
        "relevant_min_grade": gold.relevant_min_grade,
        "default_ranker": args.default_ranker,
        "seed": args.seed,
        "resamples": args.resamples,
        "progress": progress,
    }
    if args.compare_chunkings:
        setups = {}
        resolved = None
        for chunking in COMPARED_CHUNKINGS:
            corpus, built, details = build_rankers(gold.corpus, chunking, rankers, gold.unit, progress)
            if resolved is None:
                resolved = resolve_spans(gold, corpus.documents)
            setups[chunking] = (corpus.passages, built)
        settings = _settings(args, rankers, "compare", "goldset", run_versions)
        settings["name"] = gold.name
        settings["index"] = {k: v for k, v in details.items() if k not in ("documents", "passages")}
        return compare_chunkings(resolved, setups, settings=settings, **common)
    chunking = args.chunking or "auto"
    corpus, built, details = build_rankers(gold.corpus, chunking, rankers, gold.unit, progress)
    resolved = resolve_spans(gold, corpus.documents)
    qrels = all_qrels(resolved, corpus.passages, gold.unit)
    settings = _settings(args, rankers, chunking, "goldset", run_versions)
    settings["name"] = gold.name
    settings["index"] = details
    return evaluate(resolved, qrels, built, settings=settings, **common)


def _beir_run(args: argparse.Namespace, rankers: list[str], progress, run_versions: dict) -> dict[str, Any]:
    beir = load_beir(args.beir)
    chunking = args.chunking or "whole"
    corpus, built, details = build_rankers(args.beir, chunking, rankers, beir.unit, progress)
    missing = beir.doc_ids - set(corpus.documents)
    if missing:
        progress(f"note: {len(missing)} corpus records were not loaded as documents (e.g. empty ones)")
    settings = _settings(args, rankers, chunking, "beir", run_versions)
    settings["name"] = Path(args.beir).name
    settings["index"] = details
    return evaluate(
        beir.questions,
        beir.qrels,
        built,
        unit=beir.unit,
        relevant_min_grade=beir.relevant_min_grade,
        default_ranker=args.default_ranker,
        seed=args.seed,
        resamples=args.resamples,
        settings=settings,
        progress=progress,
    )


def versions() -> dict[str, Any]:
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


# ------------------------------------------------------------------ tables


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> list[str]:
    right = right or set()
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return [line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def format_run(run: dict[str, Any]) -> str:
    """The run as terminal tables: one per ranker, then the comparisons."""
    s = run["settings"]
    q = run["questions"]
    conf = round(100 * s.get("confidence", st.CONFIDENCE))
    lines = [
        (
            f"{s.get('name', s.get('gold', 'run'))}: {q['scored']} questions scored, {q['dropped']} dropped "
            f"(no relevant judgement), unit {s['unit']}, chunking {s.get('chunking', '-')}"
        ),
        f"{s['resamples']} bootstrap resamples, seed {s['seed']}; hit rates (success@k) use Wilson intervals",
        "",
    ]
    for name, block in run["rankers"].items():
        lines.append(f"{name}")
        rows = []
        for metric in METRICS:
            m = block["metrics"][metric]
            rows.append(
                [
                    metric,
                    _fmt(m["mean"]),
                    f"[{_fmt(m['ci_low'])}, {_fmt(m['ci_high'])}]",
                ]
            )
        lines += _table(["metric", "mean", f"{conf}% interval"], rows, {1})
        lines.append("")
    types = list(run["questions"].get("by_type", {}))
    if len(types) > 1:
        lines.append(f"{PRIMARY_METRIC} by question type")
        header = ["type", "n", *list(run["rankers"])]
        rows = []
        for t in types:
            row = [t, str(run["questions"]["by_type"][t])]
            for block in run["rankers"].values():
                m = block["by_type"][t][PRIMARY_METRIC]
                row.append(f"{_fmt(m['mean'])} [{_fmt(m['ci_low'])}, {_fmt(m['ci_high'])}]")
            rows.append(row)
        lines += _table(header, rows, {1})
        lines.append("")
    if run["comparisons"]:
        lines.append("paired comparisons (a - b on the same questions; primary family first)")
        ordered = sorted(run["comparisons"], key=lambda c: c["family"] != "primary")
        rows = []
        for c in ordered:
            mark = "*" if c["family"] == "primary" else ""
            rows.append(
                [
                    f"{c['a']} - {c['b']}{mark}",
                    c["metric"],
                    _fmt(c["diff"], True),
                    f"[{_fmt(c['ci_low'], True)}, {_fmt(c['ci_high'], True)}]",
                    _fmt(c["d_z"], True),
                    _p(c["p"]),
                    _p(c["p_holm"]),
                    "McNemar" if c["metric"] in HIT_RATES else "sign-flip",
                ]
            )
        lines += _table(
            [
                "a - b",
                "metric",
                "diff",
                f"{conf}% interval",
                "d_z",
                "p",
                "p_holm",
                "test",
            ],
            rows,
            {2, 4, 5, 6},
        )
        lines.append(
            "* primary: the default ranker against each other ranker on nDCG@10, Holm-adjusted as one family; "
            "other rows are Holm-adjusted together"
        )
    return "\n".join(lines) + "\n"


def format_chunking_comparison(result: dict[str, Any]) -> str:
    """The chunking comparison: nDCG@10 per ranker per chunking, then each chunking's run."""
    lines = [f"{PRIMARY_METRIC} by chunking", ""]
    rankers = list(next(iter(result["summary"].values())))
    rows = []
    for chunking, per_ranker in result["summary"].items():
        rows.append(
            [chunking]
            + [
                f"{_fmt(per_ranker[r]['mean'])} [{_fmt(per_ranker[r]['ci_low'])}, {_fmt(per_ranker[r]['ci_high'])}]"
                for r in rankers
            ]
        )
    lines += _table(["chunking", *rankers], rows)
    lines.append("")
    if result["comparisons"]:
        rows = [
            [
                c["ranker"],
                f"{c['a']} - {c['b']}",
                _fmt(c["diff"], True),
                f"[{_fmt(c['ci_low'], True)}, {_fmt(c['ci_high'], True)}]",
                _p(c["p"]),
                _p(c["p_holm"]),
            ]
            for c in result["comparisons"]
        ]
        lines += _table(["ranker", "a - b", "diff", "interval", "p", "p_holm"], rows, {2, 4, 5})
        lines.append("")
    for chunking, run in result["chunkings"].items():
        lines.append(f"=== chunking: {chunking} ===")
        lines.append(format_run(run))
    return "\n".join(lines)
