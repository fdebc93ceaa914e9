"""Retrieval: BM25 and dense signals, fusion, optional rerank."""

from .bm25 import BM25Index, BM25Params
from .protocols import MODES, EmbedderLike, FusionMethod, Mode, RerankerLike, VectorCache
from .results import SearchResult
from .retriever import DEFAULT_FUSION, FusionConfig, Retriever

__all__ = [
    "DEFAULT_FUSION",
    "MODES",
    "BM25Index",
    "BM25Params",
    "EmbedderLike",
    "FusionConfig",
    "FusionMethod",
    "Mode",
    "RerankerLike",
    "Retriever",
    "SearchResult",
    "VectorCache",
]
