"""Searches share one retriever without a lock: a search held inside a slow
embedder does not hold up another session's BM25 search, and each search
gets its own notes and timings."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from test_retriever import ToyEmbedder, make_corpus

from ragcore.retrieval import Retriever, SearchResult
from ragcore.retrieval import retriever as retriever_module
from ragcore.services import DEMO_COLLECTION, Workspace

WAIT_S = 10.0


class HeldEmbedder(ToyEmbedder):
    """Holds any query starting with "slow" until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed_query(self, text: str) -> np.ndarray:
        if text.startswith("slow"):
            self.entered.set()
            assert self.release.wait(WAIT_S), "the held search was never released"
        return super().embed_query(text)


def _in_thread(search, *args) -> tuple[threading.Thread, list[SearchResult]]:
    out: list[SearchResult] = []
    thread = threading.Thread(target=lambda: out.append(search(*args)), daemon=True)
    thread.start()
    return thread, out


def _overlap(search, held_args: tuple, quick_args: tuple, embedder: HeldEmbedder):
    """Start the held search, run the quick one while it waits; return both results."""
    held, held_out = _in_thread(search, *held_args)
    try:
        assert embedder.entered.wait(WAIT_S), "the held search never reached the embedder"
        quick, quick_out = _in_thread(search, *quick_args)
        quick.join(WAIT_S)
        assert not quick.is_alive(), "the BM25 search waited for the held one"
        assert held.is_alive(), "the held search should still be inside the embedder"
    finally:
        embedder.release.set()
    held.join(WAIT_S)
    assert not held.is_alive()
    return held_out[0], quick_out[0]


def test_a_bm25_search_finishes_while_another_waits_in_the_embedder() -> None:
    embedder = HeldEmbedder()
    retriever = Retriever(make_corpus(), embedder=embedder)
    retriever.ensure_dense()
    slow, quick = _overlap(
        retriever.search,
        ("slow uptime credits", "hybrid", 3),
        ("password reset", "bm25", 3),
        embedder,
    )
    assert quick.mode == "bm25" and quick.hits[0].passage.doc == "faq.md"
    assert set(quick.timings_ms) == {"bm25", "total"} and quick.notes == []
    assert slow.mode == "hybrid" and slow.hits[0].passage.doc == "sla.md"
    assert {"bm25", "embed_query", "dense", "fuse", "total"} == set(slow.timings_ms)
    # The held search's own figures: it waited in the embedder, the quick one did not.
    assert slow.timings_ms["embed_query"] > quick.timings_ms["total"]
    assert not hasattr(retriever, "notes") and not hasattr(retriever, "timings_ms")


def test_the_workspace_takes_no_lock_around_search(tmp_path) -> None:
    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "sla.md").write_text("# SLA\n\n## Uptime\n\nWe guarantee 99.9% monthly uptime.\n")
    (demo / "faq.md").write_text("# FAQ\n\n## Login\n\nReset your password on the login page.\n")
    embedder = HeldEmbedder()
    ws = Workspace(tmp_path / "home", demo_dir=demo, demo_vectors=tmp_path / "none.npz", embedder=embedder)
    ws.collections.ensure_demo()
    ws.indexes.ensure_dense(DEMO_COLLECTION)

    def search(question: str, mode: str) -> SearchResult:
        hits, facts = ws.asking.search(DEMO_COLLECTION, question, mode, 3)
        return SearchResult(hits, facts.notes, facts.timings_ms, mode)

    slow, quick = _overlap(search, ("slow uptime guarantee", "hybrid"), ("password", "bm25"), embedder)
    assert quick.hits[0].passage.doc == "faq.md" and "embed_query" not in quick.timings_ms
    assert slow.hits[0].passage.doc == "sla.md" and "embed_query" in slow.timings_ms


# ------------------------------------------- BM25 and dense of one search at once


class ThreadNoting(ToyEmbedder):
    """Notes the thread each query is embedded on; raises on "fail"."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.threads.append(threading.current_thread().name)
        if text.startswith("fail"):
            raise RuntimeError("embedder failed")
        return super().embed_query(text)


QUESTIONS = [
    "what does the business plan cost",
    "uptime guarantee and credits",
    "reset password",
    "enterprise contract price",
    "refund when the outage is long, and what about the login page?",
    "zzz unknown words only",
]


def _results(retriever: Retriever, mode: str) -> list[list[tuple[str, float, dict]]]:
    out = []
    for question in QUESTIONS:
        hits = retriever.search(question, mode, 5).hits
        out.append(
            [
                (h.passage.id, h.score, {s: (t.rank, t.score) if t else None for s, t in h.trace.items()})
                for h in hits
            ]
        )
    return out


@pytest.mark.parametrize("mode", ["hybrid", "widen", "rerank"])
def test_concurrent_signals_rank_exactly_as_sequential(mode, monkeypatch) -> None:
    monkeypatch.setattr(retriever_module, "workers", lambda: 2)
    together = Retriever(make_corpus(), embedder=ThreadNoting())
    apart = Retriever(make_corpus(), embedder=ThreadNoting())
    apart.concurrent_signals = False
    assert _results(together, mode) == _results(apart, mode)
    # Each search's dense ranking ran in its own thread, BM25 in the caller's.
    assert "ragcore-dense" in together.embedder.threads
    assert set(apart.embedder.threads) == {threading.current_thread().name}


def test_concurrent_search_keeps_every_stage_timing(monkeypatch) -> None:
    monkeypatch.setattr(retriever_module, "workers", lambda: 2)
    result = Retriever(make_corpus(), embedder=ThreadNoting()).search("uptime credits", "hybrid", 3)
    assert {"bm25", "embed_query", "dense", "fuse", "total"} == set(result.timings_ms)


def test_a_dense_failure_in_its_thread_reaches_the_caller(monkeypatch) -> None:
    monkeypatch.setattr(retriever_module, "workers", lambda: 2)
    retriever = Retriever(make_corpus(), embedder=ThreadNoting())
    with pytest.raises(RuntimeError, match="embedder failed"):
        retriever.search("fail uptime", "hybrid", 3)
    assert retriever.embedder.threads[-1] == "ragcore-dense"
    assert retriever.search("uptime", "hybrid", 3).hits  # the retriever still works


def test_one_core_ranks_both_in_the_calling_thread(monkeypatch) -> None:
    monkeypatch.setattr(retriever_module, "workers", lambda: 1)
    retriever = Retriever(make_corpus(), embedder=ThreadNoting())
    retriever.search("uptime credits", "hybrid", 3)
    assert retriever.embedder.threads == [threading.current_thread().name]
