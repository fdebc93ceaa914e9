"""``streamlit run app.py`` on 127.0.0.1 for the browser tests, stopped after."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def streamlit_app(port: int, env: Mapping[str, str], log_path: Path) -> Iterator[str]:
    """The app's URL once its health check answers; the server is stopped on exit."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "streamlit", "run", str(REPO / "app.py"), "--server.address",
                "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
            ],
            cwd=REPO, env=dict(env), stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, proc, log, log_path)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_healthy(url: str, proc: subprocess.Popen, log, log_path: Path) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            log.flush()
            pytest.fail(f"streamlit did not start:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.5)
