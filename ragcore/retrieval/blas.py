"""One BLAS thread inside a block, shared by the dense index, the embedder and
the reranker (none of them owns it, so none imports it from another)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class _Limiter(Protocol):
    def restore_original_limits(self) -> None: ...


class _Controller(Protocol):
    def limit(self, *, limits: int, user_api: str) -> _Limiter: ...


_BLAS_LOCK = threading.Lock()
_BLAS_DEPTH = 0
_BLAS_LIMITER: _Limiter | None = None
_CONTROLLER: _Controller | None = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Limit BLAS (OpenBLAS under numpy) to one thread inside the block.

    Measured here: BLAS threads spinning beside onnxruntime tripled a query's
    embedding time (models.md). The limit is process-wide, so nested and
    concurrent blocks share one limit, restored when the last block exits.
    """
    global _BLAS_DEPTH, _BLAS_LIMITER, _CONTROLLER
    with _BLAS_LOCK:
        if _BLAS_DEPTH == 0:
            try:
                if _CONTROLLER is None:
                    from threadpoolctl import ThreadpoolController

                    _CONTROLLER = ThreadpoolController()  # scans loaded libraries once (~0.5 ms)
                _BLAS_LIMITER = _CONTROLLER.limit(limits=1, user_api="blas")
            except Exception:  # a missing limiter only costs speed, never results
                _BLAS_LIMITER = None
        _BLAS_DEPTH += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS_DEPTH -= 1
            if _BLAS_DEPTH == 0 and _BLAS_LIMITER is not None:
                _BLAS_LIMITER.restore_original_limits()
                _BLAS_LIMITER = None
