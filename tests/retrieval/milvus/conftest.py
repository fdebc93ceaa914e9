"""Milvus Lite for the backend tests: in-process (a ``.db`` file) or as a
loopback server (``milvus-lite server`` on 127.0.0.1), stopped after."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragcore import errors
from ragcore.retrieval.backends import IndexTarget, parse_index
from ragcore.retrieval.backends.milvus import MilvusIndex, forget_client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds the listening socket on ``port``: when two
    test runs share a machine, another run's server may answer on a port this
    one chose a moment earlier, and freezing our process would then freeze
    nothing (Linux /proc; elsewhere assumed)."""
    tables = [Path("/proc/net/tcp"), Path("/proc/net/tcp6")]  # gRPC may listen on either
    if not tables[0].exists():
        return True
    inodes = set()
    for table in (t for t in tables if t.exists()):
        for line in table.read_text().splitlines()[1:]:
            fields = line.split()
            if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":  # 0A: listening
                inodes.add(fields[9])
    fds = Path(f"/proc/{pid}/fd")
    try:
        links = {str(fd.readlink()) for fd in fds.iterdir()}
    except OSError:
        return False
    return any(f"socket:[{inode}]" in links for inode in inodes)


@dataclass
class LoopbackServer:
    """A ``milvus-lite server`` subprocess on 127.0.0.1 that a test may stop
    and start again (same data folder, same port)."""

    data_dir: Path
    port: int
    process: subprocess.Popen | None = None

    @property
    def target(self) -> IndexTarget:
        return parse_index(f"http://127.0.0.1:{self.port}")

    def start(self, wait_s: float = 30.0) -> None:
        cmd = [sys.executable, "-m", "milvus_lite", "server", "--data-dir", str(self.data_dir)]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port), "--max-workers", "4"]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"milvus-lite server exited with {self.process.returncode}")
            if self._answers() and _listens(self.process.pid, self.port):
                return
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"milvus-lite server did not listen on 127.0.0.1:{self.port} in {wait_s} s")

    def _answers(self) -> bool:
        """The server answers a Milvus call (a listening port is not enough:
        gRPC backs off from an address that refused it a moment ago)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                pass
            MilvusIndex(self.target, "rc_probe", 2).exists()
            return True
        except (OSError, errors.RagcoreError):
            forget_client(self.target)
            return False

    def pause(self) -> None:
        """Freeze the server (SIGSTOP): connections stay open, nothing answers."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        self.resume()  # a frozen process cannot act on SIGTERM
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None
        forget_client(self.target)


@pytest.fixture
def lite_target(tmp_path: Path) -> Iterator[IndexTarget]:
    """Milvus Lite in this process, in a fresh ``.db`` file."""
    target = parse_index(f"milvus:{tmp_path / 'index.db'}")
    yield target
    forget_client(target)


@pytest.fixture
def loopback_server(tmp_path: Path) -> Iterator[LoopbackServer]:
    """A Milvus Lite server on 127.0.0.1, stopped after the test."""
    server = LoopbackServer(tmp_path / "milvus-server", free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()
