"""AppTest fixtures: one library home for the whole session (the demo is
synced and embedded once, then shared by every app test), no model keys, and
the background warm-up joined before the interpreter exits."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragcore.answer.llm import PROVIDERS
from tests.app.helpers import shared_home


@pytest.fixture(scope="session")
def app_home(tmp_path_factory) -> Iterator[Path]:
    home = shared_home(tmp_path_factory)
    yield home
    # The warm-up thread may still be embedding; let it finish so the model's
    # native threads are not torn down under it at exit.
    for thread in threading.enumerate():
        if thread.name == "ragcore-warm-up":
            thread.join(timeout=600)


@pytest.fixture
def app_env(app_home: Path, monkeypatch) -> Path:
    monkeypatch.setenv("RAGCORE_HOME", str(app_home))
    monkeypatch.delenv("RAGCORE_LLM_MODEL", raising=False)
    monkeypatch.delenv("RAGCORE_ISOLATION", raising=False)
    for key_env, _, _ in PROVIDERS:
        monkeypatch.delenv(key_env, raising=False)
    return app_home
