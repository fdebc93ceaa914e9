"""The command line: ``python -m ragcore {ingest,search,ask,eval,bench}``.

Output contracts (``--json`` keys) are fixed by the issues; extend, don't rename.
Errors go to stderr with a non-zero exit.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from pathlib import Path

from . import config, errors
from .cli_args import positive_int
from .names import printable, safe_path_name


def _library(path: str | None):
    from .store import Library

    return Library(Path(path) if path else config.settings().home)


def _add_source_args(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--corpus", metavar="DIR", help="a folder of documents or a BEIR folder, indexed on the fly"
    )
    src.add_argument("--library", metavar="DIR", help="a library folder (RAGCORE_HOME layout)")
    p.add_argument("--collection", default="uploads", help="collection in --library (default: uploads)")
    p.add_argument("--chunking", default="auto", choices=["auto", "heading", "sentence", "whole"])


def _add_search_args(p: argparse.ArgumentParser) -> None:
    from .retrieval import MODES
    from .retrieval.protocols import ASK_K

    p.add_argument("question")
    _add_source_args(p)
    p.add_argument("--mode", default=None, choices=MODES, help="retrieval mode (default: hybrid)")
    p.add_argument("--k", type=positive_int, default=ASK_K, help=f"number of hits (default {ASK_K})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_backend_arg(p)


def _add_backend_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        metavar="INDEX",
        help="index backend: embedded, milvus:PATH or http(s)://HOST:19530 (overrides RAGCORE_INDEX)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ragcore", description="Grounded questions over documents."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="add files to the library")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("--library", metavar="DIR", help="library folder (default: RAGCORE_HOME)")
    p.add_argument("--collection", default="uploads")
    p.add_argument("--chunking", default="auto", choices=["auto", "heading", "sentence", "whole"])

    _add_search_args(sub.add_parser("search", help="retrieve passages for a question"))

    p = sub.add_parser("ask", help="answer a question with citations")
    _add_search_args(p)
    p.add_argument("--lens", default="auto", choices=["auto", "money", "risk", "none"])
    p.add_argument(
        "--curated",
        default="on",
        choices=["on", "off"],
        help="show a pinned answer first when the question is close to a curated one (default: on)",
    )

    try:
        from .evaluation import command as eval_command
    except ImportError:  # the evaluation package is optional while it is being built
        eval_command = None
    if eval_command is not None:
        p = sub.add_parser("eval", help="evaluate rankers on a gold set or BEIR folder")
        eval_command.add_arguments(p)
        _add_backend_arg(p)

    from .curated.command import add_parser as add_curated_parser

    add_curated_parser(sub)

    from .evaluation import geneval_command

    geneval_command.add_arguments(
        sub.add_parser("geneval", help="evaluate what the model writes on a topic file")
    )

    p = sub.add_parser("bench", help="speed and memory benchmark (prints figures)")
    p.add_argument("--sizes", default="1000,10000,100000")
    p.add_argument("--json", action="store_true")
    p.add_argument("--skip-ingest", action="store_true", help="skip the PDF and embedding measurements")
    _add_backend_arg(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "backend", None):
            # --backend is RAGCORE_INDEX for this command (and what it starts)
            from .retrieval.backends import parse_index

            parse_index(args.backend)
            os.environ["RAGCORE_INDEX"] = args.backend
        if args.command == "ingest":
            return cmd_ingest(args)
        if args.command == "search":
            return cmd_search(args)
        if args.command == "ask":
            return cmd_ask(args)
        if args.command == "eval":
            from .evaluation import command as eval_command

            return eval_command.run(args)
        if args.command == "curated":
            from .curated.command import run as run_curated

            return run_curated(args)

        if args.command == "geneval":
            from .evaluation import geneval_command

            return geneval_command.run(args)
        if args.command == "bench":
            from .bench import run as run_bench

            return run_bench(args)
    except errors.RagcoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        # e.g. the library folder cannot be created or written
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print(f"error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:
        print(f"error: the library database cannot be used: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 1


def cmd_ingest(args) -> int:
    from .corpus import document_files, ingest_files

    library = _library(args.library)
    max_bytes = config.settings().max_upload_bytes
    paths: list[tuple[str, Path]] = []
    missing = []
    for raw in args.paths:
        path = Path(raw)
        if path.is_dir():
            paths.extend(document_files(path))
        elif path.is_file():
            paths.append((safe_path_name(path.name), path))
        else:
            missing.append(raw)
    for raw in missing:
        print(f"{printable(raw)}: error: no such file or folder")
    for report in ingest_files(library, args.collection, paths, args.chunking, max_bytes=max_bytes):
        print(printable(report.line()))
    return 0


def open_corpus(args):
    """The corpus named by --corpus or --library/--collection."""
    from .corpus import corpus_from_library, load_corpus

    if args.corpus:
        library = _library(None)
        folder = Path(args.corpus)
        corpus = load_corpus(folder, args.chunking, library)
        seed_shipped_vectors(library, folder)
        return corpus, library
    library = _library(args.library)
    if args.collection not in library.collections():
        known = ", ".join(library.collections()) or "none"
        raise errors.RagcoreError(
            f"no collection {args.collection!r} in {library.path} (collections: {known})"
        )
    return corpus_from_library(library, args.collection), library


def seed_shipped_vectors(library, folder: Path) -> int:
    """Vectors shipped beside a corpus folder (``corpus/demo`` ->
    ``corpus/demo.vectors.npz``) go into the library cache, so the first
    question needs no embedding pass."""
    shipped = folder.parent / f"{folder.resolve().name}.vectors.npz"
    if not shipped.is_file():
        return 0
    from .retrieval.embedding import get_embedder
    from .retrieval.vectors import seed_from_precomputed

    return seed_from_precomputed(library, shipped, get_embedder().model_id)


def make_retriever(corpus, library):
    from .retrieval.backends.select import make_retriever as on_backend

    reranker = None
    if config.settings().reranker_dir is not None:
        from .retrieval.rerank import Reranker

        reranker = Reranker.from_settings()
        reranker.wait(timeout=60)
    from .retrieval.index_files import index_dir_for

    index_dir = index_dir_for(library.home, corpus.name, library.fingerprint(corpus.name), corpus.fingerprint)
    return on_backend(corpus, vector_cache=library, reranker=reranker, index_dir=index_dir)


def _search(args):
    from .questions import check_question

    args.question = check_question(args.question)  # before any indexing: a bad question costs nothing
    corpus, library = open_corpus(args)
    for report in corpus.errors:
        print(f"note: {report.line()}", file=sys.stderr)
    if not corpus.passages:
        raise errors.RagcoreError("the corpus has no passages to search")
    retriever = make_retriever(corpus, library)
    return corpus, retriever.search(args.question, args.mode, args.k)


def cmd_search(args) -> int:
    _corpus, found = _search(args)
    if args.json:
        out = {
            "question": args.question,
            "mode": found.mode,
            "notes": found.notes,
            "hits": [h.to_json() for h in found.hits],
        }
        print(json.dumps(out, ensure_ascii=False))
        return 0
    for note in found.notes:
        print(f"note: {note}")
    for h in found.hits:
        where = printable(f"{h.passage.citation}  [{h.passage.label}]")
        print(f"{h.rank:>2}. {h.score:8.4f}  {where}  {_trace_text(h)}")
        print("    " + printable(" ".join(h.passage.text.split())[:160]))
    return 0


def _trace_text(hit) -> str:
    parts = []
    for stage, t in hit.trace.items():
        if t is not None:
            parts.append(f"{stage} #{t.rank}")
    return "(" + ", ".join(parts) + ")"


def cmd_ask(args) -> int:
    from .answer.pipeline import answer_question
    from .curated import curated_answer

    corpus, found = _search(args)
    pinned = curated_match(args, corpus) if found.hits else None
    env = {} if pinned is not None else os.environ  # a pinned answer leads: no model call
    result = answer_question(
        args.question,
        found.hits,
        lens=args.lens,
        env=env,
        documents=corpus.documents,
        passages=corpus.passages,
    )
    answers = [result.answer] if pinned is None else [curated_answer(pinned), result.answer]
    if args.json:
        out = {
            "question": args.question,
            "mode": found.mode,
            "notes": found.notes + result.notes,
            "hits": [h.to_json() for h in found.hits],
            "lens": result.lens.to_json(),
            "answer": answers[0].to_json(),
        }
        if pinned is not None:
            out["computed_answer"] = result.answer.to_json()
        print(json.dumps(out, ensure_ascii=False))
        return 0
    for answer in answers:
        print_answer(answer)
    return 0


def print_answer(answer) -> None:
    print(printable(answer.header))
    print()
    for line in answer.text.split("\n"):
        print(printable(line))
    print()
    for c in answer.citations:
        print(printable(f"[{c.n}] {c.doc}, lines {c.first_line}-{c.last_line} ({c.label})"))
    for line in check_lines(answer.checks):
        print(line)
    print()


def curated_match(args, corpus):
    """The pinned answer for the question, when the corpus folder has a curated
    file beside it (``DIR.curated.json``) and ``--curated`` is on."""
    from .curated import curated_path_for, load_curated, match_question
    from .retrieval.embedding import get_embedder

    if args.curated != "on" or not args.corpus:
        return None
    path = curated_path_for(Path(args.corpus))
    if not path.is_file():
        return None
    layer = load_curated(path, corpus.documents)
    for problem in layer.problems:
        print(printable(f"warning: curated entry skipped: {problem}"), file=sys.stderr)
    return match_question(args.question, layer, get_embedder())


def check_lines(checks: dict) -> list[str]:
    """The flags ``--json`` carries, as lines of the text output."""
    lines = []
    flags = [
        ("removed_citations", "citations removed (passages the model was not given)"),
        ("unsupported_numbers", "figures not in the cited passages"),
        ("numbers_from_instructions", "figures only passages with instructions state"),
        ("instruction_passages", "passages that contain instructions (treated as data)"),
    ]
    for key, what in flags:
        values = checks.get(key) or []
        if values:
            shown = ", ".join(f"[{v}]" if isinstance(v, int) else str(v) for v in values)
            lines.append(printable(f"warning: {what}: {shown}"))
    if checks.get("echoes_system_prompt"):
        lines.append("warning: the reply repeats the system prompt")
    return lines
