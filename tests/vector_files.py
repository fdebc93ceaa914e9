"""Shared checks of the vector files the demo ships (``corpus/*.npz``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def load_shipped(path: Path) -> tuple[dict[str, np.ndarray], str]:
    """A shipped file's vectors keyed by content hash, and its model id."""
    with np.load(path, allow_pickle=False) as data:
        return dict(zip((str(h) for h in data["hashes"]), data["vectors"], strict=True)), str(
            data["model_id"]
        )


def assert_unit_float32_of_the_pinned_model(vectors: dict[str, np.ndarray], model_id: str) -> None:
    from ragcore.retrieval.model_registry import DEFAULT_MODEL

    matrix = np.stack(list(vectors.values()))
    assert matrix.dtype == np.float32 and matrix.shape[1] == DEFAULT_MODEL.dim
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-4)
    assert model_id.startswith(DEFAULT_MODEL.name)
