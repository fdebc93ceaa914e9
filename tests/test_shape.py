"""The shape rules (scripts/check_shape.py): strict for the services, the
evaluation orchestration, the split model-answer modules, the CLI and the
pages; other files are reported by the script, not failed here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRICT = (
    "ragcore/services",
    "ragcore/evaluation/run.py",
    "ragcore/evaluation/runner.py",
    "ragcore/evaluation/rankers.py",
    "ragcore/evaluation/orchestration.py",
    "ragcore/evaluation/command.py",
    "ragcore/evaluation/tables.py",
    "ragcore/answer/llm.py",
    "ragcore/answer/models.py",
    "ragcore/answer/calls.py",
    "ragcore/answer/replies.py",
    "ragcore/cli.py",
    "pages",
    "app.py",
)


def _checker():
    spec = importlib.util.spec_from_file_location("check_shape", ROOT / "scripts" / "check_shape.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_shape"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_strict_files_keep_the_shape_rules() -> None:
    checker = _checker()
    broken = [str(p) for p in checker.check(ROOT) if checker._named(p, STRICT)]
    assert broken == []


def test_the_checker_finds_long_functions_long_modules_and_any(tmp_path: Path) -> None:
    checker = _checker()
    services = tmp_path / "ragcore" / "services"
    services.mkdir(parents=True)
    body = "\n".join(f"    x{i} = {i}" for i in range(61))
    (services / "bad.py").write_text(
        "from typing import Any\n\n\n"
        f"def long() -> None:\n{body}\n\n\n"
        "def loose(value: Any) -> int:\n    return 1\n\n\n"
        "def _private(value: Any) -> int:\n    return 1\n" + "\n" * 440
    )
    rules = {(p.rule, p.detail.split(":")[0]) for p in checker.check(tmp_path)}
    assert ("function-length", "long") in rules
    assert ("any-in-signature", "loose uses Any") in rules
    assert not any("_private" in detail for _, detail in rules)
    assert any(rule == "module-length" for rule, _ in rules)
