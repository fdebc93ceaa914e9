"""``bench``'s ingest rows: a 10-K from file to BM25-searchable through the
library (the app's upload path), and embedding throughput through the
library against raw fastembed. Each runs in a fresh child process, as a
user's upload runs in the app's own process, never in the wake of the
bench's large sizes."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .benchdata import synthetic_passages

if TYPE_CHECKING:
    from .bench import Measurement

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
UBER_PDF = SHARED / "documents" / "sec-10k" / "uber_2021_10k.pdf"
PDF_QUESTION = "total revenue"


def bench_ingest(workdir: Path) -> list[Measurement]:
    return [bench_pdf(workdir), bench_embedding(workdir)]


class _WatchedEmbedder:
    """Stands in for the model in the PDF probe: records whether the
    collection's BM25 index was built when embedding began (it should be);
    costs nothing."""

    model_id = "bench-pdf-probe"

    def __init__(self) -> None:
        self.indexes = None  # the workspace's Indexes, once it exists
        self.bm25_first: bool | None = None

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        if self.bm25_first is None and self.indexes is not None:
            self.bm25_first = "filings" in self.indexes._retrievers
        vectors = np.zeros((len(texts), 8), dtype=np.float32)
        vectors[:, 0] = 1.0
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_passages([text])[0]


def pdf_probe(home: str, path: str = str(UBER_PDF)) -> dict[str, object]:
    """Upload ``path`` into a new library at ``home`` as the Library page does
    (parse on every core, chunk, store; embedding queued for the background),
    then ask its first BM25 question; seconds from the file's bytes to the hits."""
    from . import chunking  # noqa: F401  (loaded in the app before any upload)
    from .parallel_pdf import parts_for
    from .retrieval import retriever  # noqa: F401
    from .services.workspace import Workspace

    embedder = _WatchedEmbedder()
    ws = Workspace(home=Path(home), embedder=embedder)
    embedder.indexes = ws.indexes
    data = Path(path).read_bytes()
    t0 = time.perf_counter()
    outcome = ws.docs.upload("filings", Path(path).name, data, embed="background")
    t1 = time.perf_counter()
    hits = ws.indexes.retriever("filings").search(PDF_QUESTION, "bm25", k=10).hits
    t2 = time.perf_counter()
    doc = ws.library.get_document("filings", Path(path).name)
    return {
        "pages": len(set(doc.line_pages)),
        "seconds": t2 - t0,
        "upload_s": t1 - t0,
        "index_s": t2 - t1,
        "passages": outcome.passages,
        "status": outcome.status,
        "hits": len(hits),
        "workers": parts_for(len(data)),
        "bm25_before_embedding": _bm25_first(ws, embedder),
        "pid": os.getpid(),
    }


def _bm25_first(ws, embedder: _WatchedEmbedder) -> bool:
    """Whether BM25 was built before embedding began (waits for the background job)."""
    ws.indexes.wait_for_embedding(60)
    return bool(embedder.bm25_first)


def bench_pdf(workdir: Path) -> Measurement:
    """The 10-K from file to BM25-searchable, in a fresh process."""
    from .bench import Measurement, _child

    name = "pdf_searchable_by_bm25_s"
    if not UBER_PDF.is_file():
        return Measurement(name, None, note="skipped: ../shared/documents absent")
    try:
        got = _child(f"pdf_probe({str(workdir / 'pdf-home')!r}, {str(UBER_PDF)!r})")
    except RuntimeError as exc:
        return Measurement(name, None, note=f"probe failed: {exc}")
    return Measurement(
        name,
        int(got["passages"]),
        value=float(got["seconds"]),
        unit="s",
        note=f"{UBER_PDF.name}, {got['pages']} pages, the Library page's upload in a fresh process: parse "
        f"({got['workers']} workers), chunk, store {got['upload_s']:.1f} s; BM25 index and the first "
        f"search {got['index_s']:.1f} s ({got['hits']} hits); BM25 built before embedding began: "
        f"{'yes' if got['bm25_before_embedding'] else 'no'}",
    )


def bench_embedding(workdir: Path) -> Measurement:
    """Embedding through the library against raw fastembed, both in one fresh process."""
    from .bench import Measurement, _child

    name = "embed_passages_per_s"
    try:
        got = _child(f"embedding_probe({str(workdir / 'embedding')!r})")
    except RuntimeError as exc:
        return Measurement(name, None, note=f"probe failed: {exc}")
    return Measurement(
        name,
        int(got["passages"]),
        value=float(got["ours_per_s"]),
        unit="passages/s",
        baseline="raw fastembed TextEmbedding.embed, batch 8",
        ratio=float(got["ours_per_s"]) / float(got["raw_per_s"]),
        note=f"raw {got['raw_per_s']:.1f}/s, fresh process; "
        f"re-adding unchanged files embedded {got['embedded_again']} passages",
    )


def embedding_probe(workdir: str) -> dict[str, float | int]:
    """Run in a child process: passages/s embedding 256 synthetic passages
    through the library (cache lookups, storage) and through raw fastembed
    (the same model), and how many passages re-adding them embeds."""
    import shutil

    from .corpus import load_corpus
    from .retrieval import Retriever
    from .retrieval.embedding import get_embedder
    from .store import Library

    embedder = get_embedder()
    texts = [t[:800] for t in synthetic_passages(256, seed=21, vocab_size=5000)]
    tmp = Path(workdir)
    shutil.rmtree(tmp, ignore_errors=True)
    folder = tmp / "docs"
    folder.mkdir(parents=True)
    for i in range(0, len(texts), 8):
        (folder / f"doc{i // 8:03d}.md").write_text("\n\n".join(texts[i : i + 8]) + "\n", encoding="utf-8")
    library = Library(tmp / "home")
    corpus = load_corpus(folder, "heading", library)
    n = len(corpus.passages)
    raw = embedder._model  # the fastembed model itself, for the raw rate
    sample = [p.text for p in corpus.passages]
    list(raw.embed(sample[:16], batch_size=8))  # warm-up
    t0 = time.perf_counter()
    list(raw.embed(sample, batch_size=8))
    raw_rate = n / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    embedded = Retriever(corpus, vector_cache=library, embedder=embedder).ensure_dense()
    ours_rate = embedded / (time.perf_counter() - t0)
    again = Retriever(
        load_corpus(folder, "heading", library), vector_cache=library, embedder=embedder
    ).ensure_dense()
    return {"passages": n, "raw_per_s": raw_rate, "ours_per_s": ours_rate, "embedded_again": again}
