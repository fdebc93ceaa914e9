"""Retrieval: BM25 and dense signals, fusion, optional rerank."""

from .bm25 import BM25Index, BM25Params
from .retriever import DEFAULT_FUSION, MODES, FusionConfig, Retriever

__all__ = ["DEFAULT_FUSION", "MODES", "BM25Index", "BM25Params", "FusionConfig", "Retriever"]
