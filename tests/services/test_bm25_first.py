"""A background embedding job builds its collection's BM25 index before it
embeds (#18): the upload is searchable without the two sharing the cores."""

from __future__ import annotations

import numpy as np

from ragcore.services import UPLOADS_COLLECTION, Workspace
from tests.services.workspaces import demo_workspace
from tests.test_service import SLA_MD, HashEmbedder


class IndexWatcher(HashEmbedder):
    """Records, at its first passage batch, whether the collection's retriever existed."""

    def __init__(self) -> None:
        super().__init__()
        self.ws: Workspace | None = None
        self.index_ready_first: bool | None = None

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        if self.index_ready_first is None and self.ws is not None:
            self.index_ready_first = UPLOADS_COLLECTION in self.ws.indexes._retrievers
        return super().embed_passages(texts, batch_size)


def test_bm25_index_is_built_before_embedding(tmp_path, monkeypatch) -> None:
    embedder = IndexWatcher()
    ws = demo_workspace(tmp_path, monkeypatch, embedder)
    embedder.ws = ws
    outcome = ws.docs.upload(UPLOADS_COLLECTION, "sla.md", SLA_MD, embed="background")
    assert outcome.ok
    assert ws.indexes.wait_for_embedding(10)
    assert embedder.index_ready_first is True
    assert ws.indexes.embedding_progress(UPLOADS_COLLECTION).error is None
