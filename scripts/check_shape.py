"""Report the shape rules of docs/architecture.md across ragcore/ (and pages/):
modules over 500 lines, functions over 60 lines, and ``Any`` in the public
signatures of the services.

    python scripts/check_shape.py            # report everything, exit 0
    python scripts/check_shape.py --strict ragcore/services pages/ask.py
                                             # exit 1 if a named file breaks a rule

A file is named by its path or by a folder holding it. Reporting never fails
for files not named, since other people may own them.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
SCANNED = ("ragcore", "pages", "app.py")
SERVICES = "ragcore/services"  # public signatures here must not use Any


@dataclass(frozen=True)
class Problem:
    path: str  # relative to the project root
    line: int
    rule: str  # "module-length" | "function-length" | "any-in-signature"
    detail: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.detail}"


def python_files(root: Path = ROOT) -> list[Path]:
    found: list[Path] = []
    for name in SCANNED:
        path = root / name
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return found


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(tree: ast.AST) -> Iterator[tuple[str, Function, bool]]:
    """Every function with its dotted name (class methods as Class.method) and
    whether it is nested in another function (so not part of any interface)."""

    def walk(node: ast.AST, prefix: str, nested: bool) -> Iterator[tuple[str, Function, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, Function):
                yield prefix + child.name, child, nested
                yield from walk(child, f"{prefix}{child.name}.", True)
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.", nested)
            else:
                yield from walk(child, prefix, nested)

    yield from walk(tree, "", False)


def _mentions_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return False
    return any(
        (isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
        for n in ast.walk(annotation)
    )


def _is_public(name: str) -> bool:
    return not any(part.startswith("_") and not part.startswith("__") for part in name.split("."))


def check_file(path: Path, root: Path = ROOT) -> list[Problem]:
    rel = path.relative_to(root).as_posix()
    text = path.read_text(encoding="utf-8")
    problems: list[Problem] = []
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if rel.startswith("ragcore/") and lines > MAX_MODULE_LINES:
        problems.append(Problem(rel, 1, "module-length", f"{lines} lines (at most {MAX_MODULE_LINES})"))
    tree = ast.parse(text, filename=rel)
    for name, fn, nested in _functions(tree):
        length = (fn.end_lineno or fn.lineno) - fn.lineno + 1
        if length > MAX_FUNCTION_LINES:
            problems.append(
                Problem(
                    rel,
                    fn.lineno,
                    "function-length",
                    f"{name}: {length} lines (at most {MAX_FUNCTION_LINES})",
                )
            )
        if rel.startswith(SERVICES + "/") and not nested and _is_public(name):
            args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg]
            if any(_mentions_any(a.annotation) for a in args if a is not None) or _mentions_any(fn.returns):
                problems.append(Problem(rel, fn.lineno, "any-in-signature", f"{name} uses Any"))
    return problems


def check(root: Path = ROOT) -> list[Problem]:
    return [p for path in python_files(root) for p in check_file(path, root)]


def _named(problem: Problem, strict: Sequence[str]) -> bool:
    return any(problem.path == s.rstrip("/") or problem.path.startswith(s.rstrip("/") + "/") for s in strict)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--strict", nargs="*", default=[], metavar="PATH", help="fail for problems in these files"
    )
    args = parser.parse_args(argv)
    problems = check()
    for problem in problems:
        mark = "FAIL" if _named(problem, args.strict) else "note"
        print(f"{mark} {problem}")
    failed = [p for p in problems if _named(p, args.strict)]
    print(f"{len(problems)} problem(s), {len(failed)} in strict files", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
