"""Retrieval evaluation: gold sets and BEIR folders in, metrics with intervals out.

Rooms: ``goldset`` (inputs and the judgement-to-passage mapping),
``metrics`` (one file per metric, checked against trec_eval),
``statistics`` (intervals and paired tests), ``runner`` (scoring rankers),
``run`` (the typed run and its JSON), ``rankers`` (rankers from retrieval),
``orchestration`` (one way to run a gold set or BEIR folder, for the CLI and
the app), ``command`` (``python -m ragcore eval``).
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
from .orchestration import run_beir, run_goldset
from .rankers import retriever_rankers
from .run import ChunkingRun, Run, run_from_json
from .runner import RankedItem, Scoring, compare_chunkings, evaluate, score_run

__all__ = [
    "METRICS",
    "PRIMARY_METRIC",
    "BeirSet",
    "ChunkingRun",
    "GoldQuestion",
    "GoldSet",
    "JudgedSpan",
    "Judgement",
    "Question",
    "RankedItem",
    "ResolvedQuestion",
    "Run",
    "Scoring",
    "all_qrels",
    "compare_chunkings",
    "evaluate",
    "load_beir",
    "load_goldset",
    "qrels_for",
    "resolve_spans",
    "retriever_rankers",
    "run_beir",
    "run_from_json",
    "run_goldset",
    "score_question",
    "score_run",
]
