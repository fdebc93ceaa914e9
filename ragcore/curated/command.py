"""``python -m ragcore curated check FILE [--corpus DIR]``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..records import Document
from .layer import CuratedLayer, load_curated


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("curated", help="check a curated file (pinned answers, notes, links)")
    actions = p.add_subparsers(dest="curated_command", required=True)
    check = actions.add_parser("check", help="resolve every quote of a curated file against its corpus")
    check.add_argument("file", metavar="FILE")
    check.add_argument(
        "--corpus", metavar="DIR", help="the documents folder (default: FILE's name less .curated.json)"
    )
    check.add_argument("--json", action="store_true", help="print one JSON object")


def corpus_folder_for(file: Path) -> Path:
    name = file.name
    stem = name[: -len(".curated.json")] if name.endswith(".curated.json") else file.stem
    return file.parent / stem


def folder_documents(folder: Path) -> dict[str, Document]:
    from ..corpus import document_files
    from ..documents import load_path
    from ..errors import RagcoreError

    if not folder.is_dir():
        raise RagcoreError(f"{folder}: no such folder (name the documents with --corpus DIR)")
    documents = {}
    for name, path in document_files(folder):
        try:
            documents[name] = load_path(path, name)
        except RagcoreError:
            continue  # a file that cannot be read cannot be quoted either; its entries are reported
    return documents


def run(args: argparse.Namespace) -> int:
    file = Path(args.file)
    folder = Path(args.corpus) if args.corpus else corpus_folder_for(file)
    layer = load_curated(file, folder_documents(folder))
    if args.json:
        print(json.dumps(summary(layer), ensure_ascii=False))
    else:
        print(summary_text(layer))
    return 1 if layer.problems else 0


def summary(layer: CuratedLayer) -> dict[str, object]:
    return {
        "file": layer.source,
        "answers": len(layer.answers),
        "notes": len(layer.notes),
        "links": len(layer.links),
        "problems": [{"entry": p.entry, "message": p.message} for p in layer.problems],
    }


def summary_text(layer: CuratedLayer) -> str:
    lines = [
        f"{layer.source}: {len(layer.answers)} pinned answers, {len(layer.notes)} notes, "
        f"{len(layer.links)} links resolved"
    ]
    if layer.problems:
        lines.append(f"{len(layer.problems)} entr{'y' if len(layer.problems) == 1 else 'ies'} skipped:")
        lines.extend(f"  {p}" for p in layer.problems)
    return "\n".join(lines)
