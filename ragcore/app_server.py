"""``streamlit run app.py`` on 127.0.0.1 as a child process: started, waited
for until its health check answers, stopped on exit. Shared by the browser
tests (tests/browser/serve.py) and ``scripts/cold_start.py``. It starts a
process; it imports no streamlit.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEALTH_POLL_S = 0.1


class AppDidNotStart(RuntimeError):
    """The server exited, or did not answer its health check in time."""


@dataclass(frozen=True)
class RunningApp:
    url: str
    pid: int


def streamlit_command(port: int, script: Path = REPO / "app.py") -> list[str]:
    return [
        sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
        "--server.port", str(port), "--server.headless", "true",
    ]  # fmt: skip


@contextmanager
def running_app(
    port: int, env: Mapping[str, str], log_path: Path, deadline_s: float = 90, script: Path = REPO / "app.py"
) -> Iterator[RunningApp]:
    """The app (``script``) once its health check answers (its output in
    ``log_path``); the server is stopped on exit. Raises AppDidNotStart."""
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            streamlit_command(port, script), cwd=REPO, env=dict(env), stdout=log, stderr=subprocess.STDOUT
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc, deadline_s)
            yield RunningApp(url, proc.pid)
        finally:
            stop(proc)


def wait_healthy(url: str, proc: subprocess.Popen, deadline_s: float) -> None:
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None:
            raise AppDidNotStart("streamlit exited before answering its health check")
        if time.monotonic() > deadline:
            raise AppDidNotStart(f"streamlit did not answer its health check within {deadline_s:g} s")
        time.sleep(HEALTH_POLL_S)


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
