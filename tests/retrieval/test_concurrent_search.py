"""Searches share one retriever without a lock: a search held inside a slow
embedder does not hold up another session's BM25 search, and each search
gets its own notes and timings."""

from __future__ import annotations

import threading

import numpy as np
from test_retriever import ToyEmbedder, make_corpus

from ragcore.retrieval import Retriever, SearchResult
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
