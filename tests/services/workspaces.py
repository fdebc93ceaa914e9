"""A demo workspace for the services tests (shared by test_background_embedding and test_bm25_first)."""

from __future__ import annotations

from pathlib import Path

from ragcore.services import Workspace
from tests.test_service import PRICING_MD


def demo_workspace(tmp_path: Path, monkeypatch, embedder) -> Workspace:
    """A workspace over a one-file demo (the pricing page), isolation off, ``embedder`` its model."""
    monkeypatch.delenv("RAGCORE_ISOLATION", raising=False)
    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "pricing.md").write_bytes(PRICING_MD)
    return Workspace(tmp_path / "home", demo_dir=demo, demo_vectors=tmp_path / "none.npz", embedder=embedder)
