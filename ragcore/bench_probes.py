"""Probes that ``bench`` runs in fresh child processes: peak memory while
indexing, and the time to reopen saved indexes (``python -c "from
ragcore.bench import rss_probe; print(rss_probe(100000))"``)."""

from __future__ import annotations

import resource
import time
from pathlib import Path

import numpy as np

from .benchdata import (
    iter_random_unit_vectors,
    iter_synthetic_passages,
    random_unit_vectors,
    synthetic_passages,
)


class _FixedQuery:
    """Stands in for the embedder in the probes: every query is one stored vector."""

    def __init__(self, query: np.ndarray, model_id: str = "bench-fixed-query") -> None:
        self.query = query
        self.model_id = model_id  # the folder name the saved dense index is filed under

    def embed_query(self, text: str) -> np.ndarray:
        return self.query

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        raise AssertionError("the probe hands its vectors in")


def _probe_corpus(size: int, folder: Path | None = None):
    """The synthetic passages as a corpus: in memory, or with ``folder`` in a
    PassageFile there (texts on disk; written block by block when absent)."""
    from .corpus import Corpus
    from .passage_file import PassageFile, write_passages
    from .records import Passage

    def passages(texts):
        for i, t in enumerate(texts):
            yield Passage(f"d{i // 10}", i % 10, 1, 1, 0, len(t), "", t)

    if folder is None:
        return Corpus("probe", {}, list(passages(synthetic_passages(size))))
    if (folder / "meta.json").is_file():
        return Corpus("probe", {}, PassageFile(folder))  # type: ignore[arg-type]
    return Corpus("probe", {}, write_passages(folder, passages(iter_synthetic_passages(size))))  # type: ignore[arg-type]


def rss_probe(
    size: int, index_dir: str | None = None, texts_on_disk: bool = False, model_id: str = "bench-fixed-query"
) -> dict:
    """Run in a child process: index ``size`` passages (BM25, then random
    vectors, in the order the app builds them; saved to ``index_dir`` when
    given) and report peak RSS and the BM25 build time. With
    ``texts_on_disk`` the passages are a PassageFile under ``index_dir`` and
    the vectors are written to disk block by block as they are made."""
    from .retrieval import Retriever

    folder = Path(index_dir) if index_dir else None
    corpus = _probe_corpus(size, folder / "passages" if texts_on_disk and folder else None)
    embedder = _FixedQuery(random_unit_vectors(1, seed=3)[0].copy(), model_id)
    r = Retriever(corpus, embedder=embedder, index_dir=folder)
    if texts_on_disk and folder is not None:
        r.set_vector_blocks(iter_random_unit_vectors(size), 384)
    else:
        vectors = random_unit_vectors(size)
        r.set_vectors(vectors)
        del vectors  # the index keeps its own layout (or a memory map)
    r.search("bama kelo", "hybrid", 10)
    return {"size": size, "peak_rss_mb": peak_rss_mb(), "bm25_build_s": r.build_seconds["bm25"]}


def reopen_probe(
    size: int, index_dir: str, texts_on_disk: bool = False, model_id: str = "bench-fixed-query"
) -> dict:
    """Run in a child process after ``rss_probe`` saved its indexes: time from
    opening them to the first hybrid result. In-memory passage records are
    made before the clock starts (they come from the library, not the
    indexes); a PassageFile is opened inside the timed span."""
    from .retrieval import Retriever

    embedder = _FixedQuery(random_unit_vectors(1)[0], model_id)
    folder = Path(index_dir)
    corpus = None if texts_on_disk else _probe_corpus(size)
    t0 = time.perf_counter()
    corpus = corpus or _probe_corpus(size, folder / "passages")
    r = Retriever(corpus, embedder=embedder, index_dir=folder)
    embedded = r.ensure_dense()
    r.search("bama kelo", "hybrid", 10)
    seconds = time.perf_counter() - t0
    return {"size": size, "seconds": seconds, "embedded": embedded, "rss_mb": current_rss_mb()}


def current_rss_mb() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def peak_rss_mb() -> float:
    """This process's peak resident memory. Linux's VmHWM belongs to the
    process image; ru_maxrss also carries the high-water mark of the parent
    that forked it (kept across exec), which would charge the benchmark's own
    baselines to the probe."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
