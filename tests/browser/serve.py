"""``streamlit run app.py`` on 127.0.0.1 for the browser tests, stopped after
(ragcore.app_server, shared with scripts/cold_start.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from ragcore.app_server import REPO, AppDidNotStart, running_app

__all__ = ["REPO", "streamlit_app"]


@contextmanager
def streamlit_app(port: int, env: Mapping[str, str], log_path: Path) -> Iterator[str]:
    """The app's URL once its health check answers; the server is stopped on exit."""
    try:
        with running_app(port, env, log_path) as app:
            yield app.url
    except AppDidNotStart:
        pytest.fail(f"streamlit did not start:\n{log_path.read_text()[-3000:]}")
