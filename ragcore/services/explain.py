"""Live figures of a collection for the "How it works" page."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..records import Passage
from ..store import Library
from .asking import Asking, LastQuery
from .indexes import Indexes


class FusionLike(Protocol):
    method: str
    k: float


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

    def pipeline(self) -> PipelineFigures:
        """The settings each stage of the pipeline runs with."""
        return pipeline_figures()

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
            vectors_cached=self._vectors_of(retriever.passages, model_id),
            dense_ready=retriever.dense_ready,
            reranker_status=getattr(self.indexes.reranker, "status", "none configured"),
            build_seconds=dict(retriever.build_seconds),
            last_query=self.asking.last_query_of(collection, session),
        )

    def _vectors_of(self, passages: Sequence[Passage], model_id: str | None) -> int:
        """Vectors stored for this collection's passages: a count of the whole
        library would move with other visitors' uploads (and tell a guess)."""
        if model_id is None:
            return 0
        return len(self.library.get_vectors(list({p.content_hash for p in passages}), model_id))


@dataclass(frozen=True)
class PipelineFigures:
    """The settings each stage runs with, read from the modules that own them."""

    heading_limit: int  # characters of a heading passage at most
    sentence_limit: int  # characters of a sentence passage at most
    sentence_carry: int  # sentences carried into the next passage
    bm25_k1: float
    bm25_b: float
    heading_weight: float
    adjacency_weight: float
    table_headers: bool  # a continued table's header row indexed with its rows
    table_row_weight: float  # each table row also scored as a passage of its own (0: off)
    named_document_boost: float  # a question naming a document multiplies its scores by 1 + this
    # the answer kinds BM25 lifts passages for (a code, a labelled part, a value), those whose lift is on
    answer_lifts: tuple[str, ...]
    split_parts: bool  # multi-part questions ranked part by part in the fused modes
    part_head: int  # the whole question's top passages kept first when parts are merged
    part_lead: str  # which ranking opens each round of the merge: "whole" or "parts"
    part_scope: bool  # a multi-part question naming a document ranks each part within it first
    embed_batch: int
    candidates: int  # per signal, before fusion
    rerank_depth: int
    fusion_name: str
    fusion_description: str
    extractive_sentences: int


def pipeline_figures() -> PipelineFigures:
    """What "How it works" states about each stage, from the modules that do it."""
    from .. import chunking
    from ..answer import extractive
    from ..retrieval import DEFAULT_FUSION, BM25Params
    from ..retrieval import retriever as retrieval
    from ..retrieval.vectors import EMBED_BATCH

    params = BM25Params()
    name, description = fusion_description(DEFAULT_FUSION)
    return PipelineFigures(
        heading_limit=chunking.HEADING_LIMIT,
        sentence_limit=chunking.SENTENCE_LIMIT,
        sentence_carry=chunking.SENTENCE_CARRY,
        bm25_k1=params.k1,
        bm25_b=params.b,
        heading_weight=params.heading_weight,
        adjacency_weight=params.adjacency_weight,
        table_headers=params.table_headers,
        table_row_weight=params.table_row_weight,
        named_document_boost=params.named_document_boost,
        answer_lifts=tuple(
            kind
            for kind, lift in (
                ("a code", params.answer_code_lift),
                ("a labelled part", params.answer_label_lift),
                ("a value", params.answer_value_lift),
            )
            if lift
        ),
        split_parts=retrieval.SPLIT_PARTS,
        part_head=retrieval.PART_HEAD,
        part_lead=retrieval.PART_LEAD,
        part_scope=retrieval.PART_SCOPE,
        embed_batch=EMBED_BATCH,
        candidates=retrieval.CANDIDATES,
        rerank_depth=retrieval.RERANK_DEPTH,
        fusion_name=name,
        fusion_description=description,
        extractive_sentences=extractive.MAX_SENTENCES,
    )


# The bullet of ``ragcore.retrieval.fusion``'s docstring that describes each method.
_FUSION_BULLETS = {
    "gated": "Gated fusion",
    "learned": "Learned fusion",
    "signals": "Query-signal RRF",
    "agreement": "Agreement-weighted RRF",
    "rrf": "Reciprocal rank fusion",
    "convex": "Convex",
}


def fusion_description(config: FusionLike) -> tuple[str, str]:
    """(short name, description) of a fusion configuration, the description
    taken from the fusion module's own notes with its parameters filled in,
    so the page never restates the formula."""
    from ..retrieval import fusion

    label = _FUSION_BULLETS.get(config.method, config.method)
    bullets = [" ".join(b.split()) for b in (fusion.__doc__ or "").split("\n- ")[1:]]
    text = next((b for b in bullets if b.startswith(label)), label)
    text = text.split(". The constants")[0].rstrip(".") + "."
    for field_name in ("depth", "pool", "k"):
        text = text.replace(f"``{field_name}``", f"{getattr(config, field_name, field_name):g}")
    text = text.replace("``", "")  # the docstring's literal markup; the page shows plain text
    short = text.split(":")[0].split(" (")[0]
    return (short if config.method in ("convex", "learned", "gated") else f"{short}, k = {config.k:g}"), text
