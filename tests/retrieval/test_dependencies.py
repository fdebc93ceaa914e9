"""Dependencies point one way (docs/architecture.md): the store persists and
does not chunk; retrieval knows no store; the embedder and the reranker take
their BLAS helper from its own module, not from the dense index."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "ragcore"


def imported_modules(module: str) -> set[str]:
    """Absolute names of the ragcore modules ``module`` imports (anywhere in it)."""
    path = PACKAGE.joinpath(*module.split(".")[1:]).with_suffix(".py")
    package = module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("ragcore")}


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("ragcore.store", {"ragcore.chunking", "ragcore.corpus"}),
        ("ragcore.retrieval.retriever", {"ragcore.store", "ragcore.corpus"}),
        ("ragcore.retrieval.vectors", {"ragcore.store", "ragcore.corpus"}),
        ("ragcore.retrieval.embedding", {"ragcore.retrieval.dense"}),
        ("ragcore.retrieval.rerank", {"ragcore.retrieval.dense"}),
    ],
)
def test_dependencies_point_one_way(module: str, forbidden: set[str]) -> None:
    imports = imported_modules(module)
    assert imports, f"{module}: no ragcore imports found (is the path right?)"
    assert not imports & forbidden, f"{module} imports {sorted(imports & forbidden)}"


def test_the_import_reader_sees_relative_imports() -> None:
    assert "ragcore.retrieval.blas" in imported_modules("ragcore.retrieval.dense")
    assert "ragcore.records" in imported_modules("ragcore.store")
