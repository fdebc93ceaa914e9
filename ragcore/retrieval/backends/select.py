"""One place that turns the index setting into a retriever.

Callers (the CLI, the app's services, evaluation, bench) ask here instead of
constructing ``Retriever`` themselves, so the backend is chosen the same way
everywhere: ``backend`` (a ``--backend`` value) if given, else
``RAGCORE_INDEX``, else the embedded index.
"""

from __future__ import annotations

from pathlib import Path

from ..protocols import EmbedderLike, Mode, PassageSource, RerankerLike, VectorCache
from ..retriever import FusionConfig, Retriever
from . import IndexTarget, current_target


def make_retriever(
    corpus: PassageSource,
    *,
    backend: str | IndexTarget | None = None,
    vector_cache: VectorCache | None = None,
    embedder: EmbedderLike | None = None,
    reranker: RerankerLike | None = None,
    fusion_config: FusionConfig | None = None,
    default_mode: Mode = "hybrid",
    index_dir: Path | None = None,
) -> Retriever:
    """A retriever over ``corpus`` on the chosen backend (``index_dir``: where
    the embedded index saves and memory-maps its files; unused by Milvus)."""
    target = backend if isinstance(backend, IndexTarget) else current_target(backend)
    if not target.is_milvus:
        return Retriever(
            corpus,
            vector_cache=vector_cache,
            embedder=embedder,
            reranker=reranker,
            fusion_config=fusion_config,
            default_mode=default_mode,
            index_dir=index_dir,
        )
    from .milvus_retriever import MilvusRetriever

    name = str(getattr(corpus, "name", "passages"))
    kind = str(getattr(corpus, "kind", "collection"))
    return MilvusRetriever(
        corpus,
        target,
        collection=name,
        keyed_by_content=kind in ("folder", "beir"),
        vector_cache=vector_cache,
        embedder=embedder,
        reranker=reranker,
        fusion_config=fusion_config,
        default_mode=default_mode,
    )


def backend_name(retriever: Retriever) -> str:
    """What a retriever runs on, safe to print (never a token)."""
    target = getattr(retriever, "target", None)
    return target.shown if isinstance(target, IndexTarget) else "embedded"
