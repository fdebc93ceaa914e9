"""``bench --backend milvus``: the embedded index and Milvus side by side.

At each size, one fresh child process per backend indexes the same
synthetic passages (``ragcore.bench``'s Zipf text, random unit vectors) and
runs the same queries, reporting ingest rate, query p50/p95 per mode, and its
own peak memory. Both use a fixed query vector per query (no embedding
model), so the figures are the index's cost, not the model's. With
``milvus:PATH`` (or plain ``milvus``, a temporary file) Milvus Lite runs in
the child, so its memory is counted there; with a server URL the server's
memory is its own and is not measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import asdict
from pathlib import Path

import numpy as np

from ... import errors
from ...bench import Measurement, _percentiles, _row, peak_rss_mb, synthetic_passages, synthetic_queries
from . import parse_index

MODES = ("bm25", "dense", "hybrid")
BENCH_QUERY_TIMEOUT_S = 300.0
PROJECT = Path(__file__).resolve().parents[3]


class _VectorQueries:
    """An embedder whose query vectors are fixed per text (no model)."""

    model_id = "bench-random-unit"
    dim = 384

    def embed_query(self, text: str) -> np.ndarray:
        rng = np.random.default_rng(zlib.crc32(text.encode("utf-8")))  # same in every process
        v = rng.standard_normal(self.dim).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        raise RuntimeError("bench hands its vectors in; nothing is embedded")


def probe(size: int, backend: str, n_queries: int = 100) -> dict[str, object]:
    """In a fresh process: index ``size`` passages on ``backend`` and time
    queries; returns the figures as a dict."""
    from ...corpus import Corpus
    from ...records import Passage
    from .select import make_retriever

    texts = synthetic_passages(size)
    queries = synthetic_queries(texts, n_queries, seed=9)
    passages = [Passage(f"d{i // 10}", i % 10, 1, 1, 0, len(t), "", t) for i, t in enumerate(texts)]
    del texts
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((size, 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    corpus = Corpus(f"bench-{size}", {}, passages, kind="collection")
    t0 = time.perf_counter()
    retriever = make_retriever(corpus, backend=backend, embedder=_VectorQueries())
    retriever.set_vectors(vectors)
    del vectors
    retriever.ensure_dense()
    ingest_s = time.perf_counter() - t0
    index = getattr(retriever, "index", None)
    if index is not None:
        # Measure slow queries rather than cut them off at the app's limit
        # (Milvus Lite scores BM25 in Python, segment by segment).
        index.timeout = BENCH_QUERY_TIMEOUT_S
    out: dict[str, object] = {"size": size, "ingest_s": ingest_s, "ingest_per_s": size / ingest_s}
    for mode in MODES:
        times = []
        for q in queries:
            started = time.perf_counter()
            retriever.search(f"{q} {mode}", mode, 10)
            times.append(time.perf_counter() - started)
        out[f"{mode}_p50_ms"], out[f"{mode}_p95_ms"] = _percentiles(times)
    out["peak_rss_mb"] = peak_rss_mb()
    if index is not None:
        index.drop()  # a bench collection is not kept
    return out


def _child(size: int, backend: str) -> dict[str, object]:
    code = (
        "import json; from ragcore.retrieval.backends.milvus_bench import probe; "
        f"print(json.dumps(probe({size}, {backend!r})))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT, env=dict(os.environ)
    )
    lines = proc.stdout.strip().splitlines()
    if lines and lines[-1].startswith("{"):
        # Milvus Lite's background compaction can raise at interpreter exit
        # after the figures were printed; the figures stand.
        return json.loads(lines[-1])
    return {"error": proc.stderr.strip()[-300:]}


def _measurements(label: str, size: int, figures: dict[str, object], note: str) -> list[Measurement]:
    if "error" in figures:
        return [Measurement(f"{label}_failed", size, note=str(figures["error"]))]
    out = [
        Measurement(
            f"{label}_ingest", size, value=float(figures["ingest_per_s"]), unit="passages/s", note=note
        )
    ]
    for mode in MODES:
        p50, p95 = float(figures[f"{mode}_p50_ms"]), float(figures[f"{mode}_p95_ms"])
        out.append(Measurement(f"{label}_{mode}_query", size, p50, p95, note=note))
    out.append(Measurement(f"{label}_peak_rss", size, peak_rss_mb=float(figures["peak_rss_mb"]), note=note))
    return out


def run_backends(args) -> int:
    """Print embedded and Milvus figures side by side for ``--sizes``."""
    sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    backend = str(args.backend)
    scratch = None
    if backend == "milvus":  # a temporary Milvus Lite file, removed after
        scratch = tempfile.TemporaryDirectory(prefix="ragcore-bench-milvus-")
        backend = f"milvus:{scratch.name}/bench.db"
    target = parse_index(backend)
    if not target.is_milvus:
        raise errors.RagcoreError(
            "bench --backend compares the embedded index with Milvus: give milvus, milvus:PATH or a server URL"
        )
    where = "Milvus Lite in-process" if target.kind == "milvus-lite" else f"server {target.shown}"
    results: list[Measurement] = []
    if not args.json:
        print(f"ragcore bench --backend  {time.strftime('%Y-%m-%d')}  {os.cpu_count()} cores  sizes {sizes}")
        print(f"{'name':32} {'size':>7} {'p50 ms':>9} {'p95 ms':>9} {'value':>10} {'ratio':>8}  note")
    try:
        for size in sizes:
            for label, chosen, note in (
                ("embedded", "embedded", "fresh process"),
                ("milvus", backend, f"fresh process; {where}"),
            ):
                ms = _measurements(label, size, _child(size, chosen), note)
                results.extend(ms)
                for m in ms:
                    print(_row(m), file=sys.stderr if args.json else sys.stdout, flush=True)
    finally:
        if scratch is not None:
            scratch.cleanup()
    if args.json:
        for m in results:
            print(json.dumps(asdict(m)))
    return 0
