"""Uploads embedded in the background (#18): searchable by BM25 at once, the
dense index ready when the worker ends, progress readable meanwhile."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ragcore.services import UPLOADS_COLLECTION, Workspace
from tests.services.workspaces import demo_workspace
from tests.test_service import PRICING_MD, SLA_MD, HashEmbedder


class GatedEmbedder(HashEmbedder):
    """Blocks every passage batch until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.waiting = threading.Event()

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        self.waiting.set()
        assert self.gate.wait(10), "the test never opened the gate"
        return super().embed_passages(texts, batch_size)


@pytest.fixture
def gated(tmp_path, monkeypatch) -> tuple[Workspace, GatedEmbedder]:
    embedder = GatedEmbedder()
    return demo_workspace(tmp_path, monkeypatch, embedder), embedder


def test_upload_is_searchable_while_it_embeds(gated) -> None:
    ws, embedder = gated
    outcome = ws.docs.upload(UPLOADS_COLLECTION, "sla.md", SLA_MD, embed="background")
    assert outcome.ok and outcome.embedded == 0 and "passage" in outcome.message
    assert embedder.waiting.wait(10)
    now = ws.indexes.embedding_progress(UPLOADS_COLLECTION)
    assert now.running and now.total == outcome.passages and now.done == 0
    hits, snap = ws.asking.search(UPLOADS_COLLECTION, "monthly uptime guarantee")  # hybrid asked
    assert hits and hits[0].passage.doc == "sla.md"
    assert any("embedding in the background" in n for n in snap.notes)
    assert not ws.indexes.dense_ready(UPLOADS_COLLECTION)
    embedder.gate.set()
    assert ws.indexes.wait_for_embedding(10)
    done = ws.indexes.embedding_progress(UPLOADS_COLLECTION)
    assert not done.running and done.done == done.total == outcome.passages and done.error is None
    assert done.embedded == outcome.passages
    assert ws.indexes.dense_ready(UPLOADS_COLLECTION)  # made by the worker, not by a question
    _, snap = ws.asking.search(UPLOADS_COLLECTION, "monthly uptime guarantee")
    assert not any("embedding in the background" in n for n in snap.notes)


def test_two_uploads_add_up_and_a_failure_is_reported(gated) -> None:
    ws, embedder = gated
    a = ws.docs.upload(UPLOADS_COLLECTION, "sla.md", SLA_MD, embed="background")
    b = ws.docs.upload(UPLOADS_COLLECTION, "pricing.md", PRICING_MD, embed="background")
    assert ws.indexes.embedding_progress(UPLOADS_COLLECTION).total == a.passages + b.passages
    embedder.gate.set()
    assert ws.indexes.wait_for_embedding(10)
    assert ws.indexes.embedding_progress(UPLOADS_COLLECTION).done == a.passages + b.passages

    def broken(counts) -> int:
        raise RuntimeError("model file vanished")

    ws.indexes.embed_later(UPLOADS_COLLECTION, 3, broken)
    assert ws.indexes.wait_for_embedding(10)
    failed = ws.indexes.embedding_progress(UPLOADS_COLLECTION)
    assert not failed.running and failed.total == 3 and "model file vanished" in (failed.error or "")


def test_default_upload_still_embeds_before_returning(gated) -> None:
    ws, embedder = gated
    embedder.gate.set()
    outcome = ws.docs.upload(UPLOADS_COLLECTION, "sla.md", SLA_MD)
    assert outcome.embedded == outcome.passages
    assert not ws.indexes.embedding_progress(UPLOADS_COLLECTION).running
