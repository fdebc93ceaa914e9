"""The pytest configuration filters what it says it filters."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _filters() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["pytest"]["ini_options"]["filterwarnings"]


def test_readonly_warning_filter_matches_pydantic_wording() -> None:
    # The two wordings pydantic uses (one item, several items), as LiteLLM's import prints them.
    messages = [
        "Items 'device_code', 'user_code' on TypedDict class '_DeviceCode' are using the `ReadOnly` "
        "qualifier. Pydantic will not protect items from any mutation on dictionary instances.",
        "Item 'access_token' on TypedDict class '_Poll' is using the `ReadOnly` qualifier. Pydantic will "
        "not protect items from any mutation on dictionary instances.",
    ]
    patterns = [f.split(":")[1] for f in _filters() if f.startswith("ignore:") and "ReadOnly" in f]
    assert patterns
    for message in messages:
        assert any(re.match(p, message, re.IGNORECASE) for p in patterns), message
