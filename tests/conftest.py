"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

# ../shared from the repository root: real documents and benchmarks that CI has
# but a fresh checkout may not.
SHARED_DIR = Path(__file__).resolve().parents[1] / ".." / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder (``../shared``), or skip the test when it is absent."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"shared material not found at {SHARED_DIR.resolve()}: these tests need ../shared")
    return SHARED_DIR.resolve()
