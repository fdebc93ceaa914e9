"""``python -m ragcore geneval``: run a topic file through the configured model.

Prints the worst-case cost before the first call, then makes the calls with
the Ask page's prompts, stores the run (``"kind": "generation"``) in the
results folder and prints its failure and check figures. ``--dry-run`` stops
after the estimate; ``--mock`` uses LiteLLM's mock response, so no key is
needed and the run is marked as a mock.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from ragcore import config
from ragcore.cli_args import positive_int
from ragcore.errors import RagcoreError
from ragcore.evaluation.generation import load_topics, save_run
from ragcore.evaluation.generation_figures import GenerationFigures, generation_figures
from ragcore.evaluation.generation_run import GenerationPlan, plan_generation, run_plan

REPO_ROOT = Path(__file__).resolve().parents[2]
MOCK_MODEL = "gpt-4o-mini"  # the name a mock run is priced and labelled with


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--topics", type=Path, required=True, metavar="FILE", help="topic file (eval/*.geneval.json)"
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--corpus", metavar="DIR", help="corpus folder (default: the topic file's corpus)")
    src.add_argument("--library", metavar="DIR", help="a library folder (RAGCORE_HOME layout)")
    p.add_argument("--collection", default="uploads", help="collection in --library (default: uploads)")
    p.add_argument("--chunking", default="auto", choices=["auto", "heading", "sentence", "whole"])
    p.add_argument("--mode", default="hybrid", choices=["bm25", "dense", "hybrid"], help="retrieval mode")
    p.add_argument(
        "--k", type=positive_int, default=8, help="passages per prompt (default 8, as the Ask page)"
    )
    p.add_argument("--n-short", type=int, default=3, help="short-answer items per topic (default 3)")
    p.add_argument("--n-mcq", type=int, default=3, help="multiple-choice items per topic (default 3)")
    p.add_argument(
        "--out", type=Path, metavar="FILE", help="where to store the run (default: results folder)"
    )
    p.add_argument("--name", help="run name (default: the topic file's name)")
    p.add_argument("--mock", action="store_true", help="LiteLLM mock responses instead of a model (no key)")
    p.add_argument("--dry-run", action="store_true", help="print the cost estimate and stop")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _model(mock: bool):
    from ragcore.answer.llm import ModelConfig, explain_no_model, find_model, provider_of

    if mock:
        return ModelConfig(MOCK_MODEL, provider_of(MOCK_MODEL), "--mock")
    found = find_model(os.environ)
    if found is None:
        raise RagcoreError(f"geneval needs a model: {explain_no_model(os.environ)} (or use --mock)")
    return found


def _search(args, corpus_dir: str):
    from ragcore.cli import make_retriever, open_corpus

    if not args.library and not args.corpus:
        folder = Path(corpus_dir)
        args.corpus = str(folder if folder.is_absolute() or folder.exists() else REPO_ROOT / folder)
    corpus, library = open_corpus(args)
    if not corpus.passages:
        raise RagcoreError("the corpus has no passages to write from")
    retriever = make_retriever(corpus, library)
    return lambda text: retriever.search(text, args.mode, args.k).hits


def estimate_line(plan: GenerationPlan, cap: float, spent: float) -> str:
    return (
        f"estimated cost: up to ${plan.estimated_usd:.4f} for {len(plan.calls)} calls to {plan.model} "
        f"(worst case: full prompts, replies at their token limit; session cap ${cap:.2f}, ${spent:.4f} spent)"
    )


def _default_out(name: str) -> Path:
    chosen = config.get("RAGCORE_RESULTS_DIR")
    folder = Path(chosen) if chosen else REPO_ROOT / "eval" / "results"
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return folder / f"{name}-{stamp}.json"


def summary_lines(figures: GenerationFigures) -> list[str]:
    lines = [f"model failures: {figures.failures} of {figures.calls} calls"]
    for outcome, count in figures.failures_by_outcome.items():
        if count:
            lines.append(f"  {outcome}: {count}")
    for name, rate in figures.check_rates.items():
        lines.append(
            f"{name}: {rate.rate:.0%} of {rate.n} items pass [{rate.low:.0%}, {rate.high:.0%}] "
            f"(design effect {rate.design.deff:.2f})"
        )
    if figures.fact_recall is not None:
        r = figures.fact_recall
        lines.append(
            f"fact recall: {r.mean:.0%} [{r.low:.0%}, {r.high:.0%}] over answers whose topic has facts"
        )
    lines += [f"note: {n}" for n in figures.notes]
    return lines


def run(args) -> int:
    from ragcore.answer.llm import SpendTracker
    from ragcore.evaluation.mock_model import mock_completion

    spec = load_topics(args.topics)
    model = _model(args.mock)
    search = _search(args, spec.corpus)
    plan = plan_generation(
        spec,
        search,
        model,
        topics_file=str(args.topics),
        n_short=args.n_short,
        n_mcq=args.n_mcq,
        mode=args.mode,
        k=args.k,
    )
    spend = SpendTracker.from_settings()
    line = estimate_line(plan, spend.cap_usd, spend.spent_usd)
    print(line, file=sys.stderr if args.json else sys.stdout, flush=True)
    if args.dry_run:
        if args.json:
            print(
                json.dumps(
                    {"estimated_usd": plan.estimated_usd, "calls": len(plan.calls), "model": plan.model}
                )
            )
        return 0
    progress = None if args.json else (lambda m: print(f"  {m}", flush=True))
    result = run_plan(
        plan,
        model,
        spend,
        name=args.name or spec.name,
        corpus=spec.corpus,
        mock=args.mock,
        local=model.on_this_machine,
        completion=mock_completion() if args.mock else None,
        progress=progress,
    )
    out = save_run(result, args.out or _default_out(result.name))
    figures = generation_figures(result)
    if args.json:
        print(json.dumps({"path": str(out), "run": result.name, **figures.to_json()}, ensure_ascii=False))
        return 0
    for text in summary_lines(figures):
        print(text)
    print(f"stored: {out}")
    return 0
