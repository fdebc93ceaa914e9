"""Connections to Milvus and what their failures become.

One pymilvus client per address and token in this process; every call is
translated so a Milvus that is unreachable or slow becomes
``IndexUnavailable`` naming the address (never the token). Calls that may
legitimately take long on a healthy server (writes, flushing, the first
index build) run in a worker thread while the caller pings the server every
second: a server that stops answering fails the call within
``PING_TIMEOUT_S`` plus a second, however long the call itself may take.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

from ... import errors
from . import IndexTarget

DEFAULT_TIMEOUT_S = 8.0  # per call; the issue asks for a clear error within 10 s
PING_EVERY_S = 1.0
PING_TIMEOUT_S = 7.0  # a long call's liveness check: a hung server fails within 8 s
T = TypeVar("T")


class IndexUnavailable(errors.RagcoreError):
    """Milvus could not be reached or did not answer in time."""


class IndexFailure(errors.RagcoreError):
    """Milvus answered with an error."""


_clients: dict[tuple[str, str], object] = {}
_clients_lock = threading.RLock()  # a failed connect forgets the client under it


def client_for(target: IndexTarget, timeout: float = DEFAULT_TIMEOUT_S):
    """One pymilvus client per address and token in this process (Milvus
    Lite allows one process per file, and a client is thread-safe)."""
    key = (target.uri, target.token)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            from pymilvus import MilvusClient

            _quiet_pymilvus()
            with translated(target, "connect"):
                client = MilvusClient(uri=target.uri, token=target.token or "", timeout=timeout)
            _clients[key] = client
            if target.kind == "milvus-lite":
                from ..blas import rescan_libraries

                rescan_libraries()  # Lite runs faiss in this process, with its own BLAS
        return client


def _quiet_pymilvus() -> None:
    """pymilvus configures its loggers on import and logs every failed RPC
    with a traceback; ragcore reports the error itself, once."""
    for name in ("pymilvus", "pymilvus.milvus_client"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def forget_client(target: IndexTarget) -> None:
    """Drop the cached client (after a failure, so the next call reconnects)."""
    with _clients_lock:
        client = _clients.pop((target.uri, target.token), None)
    if client is not None:
        try:
            client.close()
        except Exception:  # closing a dead connection may fail in many ways
            pass


class translated:
    """Context manager turning pymilvus and gRPC errors into ragcore errors
    that name the address (never the token) and what was being done."""

    def __init__(self, target: IndexTarget, doing: str) -> None:
        self.target, self.doing = target, doing

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc is None or isinstance(exc, errors.RagcoreError):
            return False
        from pymilvus.exceptions import MilvusException

        if not isinstance(exc, MilvusException | OSError | RuntimeError) and not _is_grpc(exc):
            return False
        message = str(getattr(exc, "message", "") or exc)
        if self.target.token:
            message = message.replace(self.target.token, "***")
        where = self.target.shown
        if _looks_unreachable(message):
            forget_client(self.target)
            reason = _reason(message)
            raise IndexUnavailable(
                f"Milvus at {where} is unreachable or not answering ({self.doing}: {reason}); "
                "uploads are kept in the library and indexed when it is back"
            ) from None
        raise IndexFailure(f"Milvus at {where} failed to {self.doing}: {message[:300]}") from None


def _is_grpc(exc: BaseException) -> bool:
    import grpc

    return isinstance(exc, grpc.RpcError)


_UNREACHABLE = (
    "fail connecting",
    "unavailable",
    "timeout",
    "timed out",
    "deadline",
    "connection refused",
    "server unavailable",
    "closed channel",
    "cannot invoke rpc",
)


def _reason(message: str) -> str:
    """A short, plain cause for an unreachable Milvus (gRPC's own text is a
    long dump of the failed call)."""
    low = message.lower()
    if any(word in low for word in ("deadline", "timeout", "timed out")):
        return "no answer within the time limit"
    if any(word in low for word in ("connection refused", "fail connecting", "unavailable")):
        return "cannot connect: connection refused or server not running"
    return " ".join(message.split())[:160]


def _looks_unreachable(message: str) -> bool:
    low = message.lower()
    return any(word in low for word in _UNREACHABLE)


def watched(target: IndexTarget, doing: str, call: Callable[[], T], ping: Callable[[], object]) -> T:
    """``call()`` (a raw pymilvus call that may take long), with ``ping()``
    (a quick call with a short timeout) every ``PING_EVERY_S`` while it
    runs, so a server that stops answering fails fast. In-process Milvus
    Lite has no server to stop: the call runs as it is."""
    if target.kind == "milvus-lite":
        with translated(target, doing):
            return call()
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller, translated there
            box["error"] = exc

    worker = threading.Thread(target=run, name="ragcore-milvus-call", daemon=True)
    worker.start()
    while True:
        worker.join(PING_EVERY_S)
        if not worker.is_alive():
            break
        with translated(target, f"{doing}, waiting for an answer"):
            ping()  # raises when the server stopped answering; the call is abandoned
    with translated(target, doing):
        if "error" in box:
            raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
