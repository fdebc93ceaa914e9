"""Live figures of a collection for the "How it works" page."""

from __future__ import annotations

from dataclasses import dataclass

from ..store import Library
from .asking import Asking, LastQuery
from .indexes import Indexes


@dataclass
class CollectionFacts:
    """Live figures of a loaded collection ("How it works")."""

    collection: str
    documents: int
    passages: int
    chunkings: dict[str, int]
    kinds: dict[str, int]
    embedding_model: str | None
    embedding_load_s: float | None
    vectors_cached: int
    dense_ready: bool
    reranker_status: str
    build_seconds: dict[str, float]
    last_query: LastQuery | None


class Explain:
    """What the "How it works" page shows about the live system."""

    def __init__(self, library: Library, indexes: Indexes, asking: Asking) -> None:
        self.library = library
        self.indexes = indexes
        self.asking = asking

    def facts(self, collection: str, session: str | None = None) -> CollectionFacts:
        """Live figures of ``collection``; the last query is the session's own
        under session isolation (another visitor's question is never shown),
        else the last of any session."""
        infos = self.library.list_documents(collection)
        retriever = self.indexes.retriever(collection)
        chunkings: dict[str, int] = {}
        kinds: dict[str, int] = {}
        for info in infos:
            chunkings[info.chunking] = chunkings.get(info.chunking, 0) + 1
            kinds[info.kind] = kinds.get(info.kind, 0) + 1
        embedder = self.indexes.loaded_embedder or (retriever.embedder if retriever.dense_ready else None)
        model_id = getattr(embedder, "model_id", None)
        return CollectionFacts(
            collection=collection,
            documents=len(infos),
            passages=len(retriever.passages),
            chunkings=chunkings,
            kinds=kinds,
            embedding_model=model_id,
            embedding_load_s=getattr(embedder, "load_seconds", None),
            vectors_cached=self.library.count_vectors(model_id),
            dense_ready=retriever.dense_ready,
            reranker_status=getattr(self.indexes.reranker, "status", "none configured"),
            build_seconds=dict(retriever.build_seconds),
            last_query=self.asking.last_query_of(collection, session),
        )
