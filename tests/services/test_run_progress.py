"""The Evaluation page's progress bar: it moves while passages are embedded,
never goes back, and spreads chunkings scored one after another."""

from __future__ import annotations

from ragcore.services.run_progress import EMBEDDING_SHARE, RunProgress


def test_embedding_moves_the_bar_before_any_ranker_scores() -> None:
    progress = RunProgress(["bm25", "dense"])
    progress.update("loading demo with auto chunking")
    assert progress.update("indexing 27 documents, 341 passages") == 0.0
    assert progress.update("embedding passages: 100 of 400") == EMBEDDING_SHARE / 4
    assert progress.update("embedding passages: 400 of 400") == EMBEDDING_SHARE
    # Rankers fill the rest of the round after embedding.
    assert progress.update("bm25: question 5 of 10") == EMBEDDING_SHARE + (1 - EMBEDDING_SHARE) * 0.25
    assert progress.update("bm25: done") == EMBEDDING_SHARE + (1 - EMBEDDING_SHARE) * 0.5
    assert progress.update("dense: done") == 0.98  # 1.0 is the caller's, once the run is stored


def test_without_embedding_the_rankers_fill_the_round_and_the_bar_never_goes_back() -> None:
    progress = RunProgress(["bm25", "dense"], rounds=2)
    progress.update("loading demo with auto chunking")
    assert progress.update("bm25: done") == 0.25
    assert progress.update("bm25: question 1 of 10") == 0.25  # a late message moves nothing back
    assert progress.update("dense: done") == 0.5
    progress.update("loading demo with whole chunking")
    assert progress.update("embedding passages: 50 of 100") == 0.5 + EMBEDDING_SHARE / 4
    assert progress.update("widen: question 1 of 2") == 0.5 + EMBEDDING_SHARE / 4  # not a ranker of this run
    assert progress.update("embedding passages: 0 of 0") == 0.5 + EMBEDDING_SHARE / 4
