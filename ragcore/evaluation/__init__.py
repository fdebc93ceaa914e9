"""Retrieval evaluation: gold sets and BEIR folders in, metrics with intervals out.

Rooms: ``goldset`` (inputs and the judgement-to-passage mapping),
``metrics`` (one file per metric, checked against trec_eval),
``statistics`` (intervals and paired tests), ``runner`` (scoring rankers),
``command`` (``python -m ragcore eval``).
"""

from .goldset import (
    BeirSet,
    GoldQuestion,
    GoldSet,
    JudgedSpan,
    Judgement,
    Question,
    ResolvedQuestion,
    all_qrels,
    load_beir,
    load_goldset,
    qrels_for,
    resolve_spans,
)
from .metrics import METRICS, PRIMARY_METRIC, score_question
from .runner import RankedItem, compare_chunkings, evaluate, retriever_rankers

__all__ = [
    "METRICS",
    "PRIMARY_METRIC",
    "BeirSet",
    "GoldQuestion",
    "GoldSet",
    "JudgedSpan",
    "Judgement",
    "Question",
    "RankedItem",
    "ResolvedQuestion",
    "all_qrels",
    "compare_chunkings",
    "evaluate",
    "load_beir",
    "load_goldset",
    "qrels_for",
    "resolve_spans",
    "retriever_rankers",
    "score_question",
]
