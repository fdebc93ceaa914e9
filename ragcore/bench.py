"""``python -m ragcore bench``: speed and memory figures, printed, never asserted.

Synthetic corpora of Zipf-distributed words (realistic term statistics for
BM25) at each size; dense on real embeddings at 1k and on random unit
vectors beyond (embedding 100k passages takes over half an hour here).
Baselines run in the same process, so ratios compare like with like:
rank_bm25's ``get_scores`` for BM25, raw fastembed for embedding throughput.
Peak memory at 100k is measured in a fresh child process.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from .text import tokenize

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
UBER_PDF = SHARED / "documents" / "sec-10k" / "uber_2021_10k.pdf"


@dataclass
class Measurement:
    name: str
    size: int | None
    p50_ms: float | None = None
    p95_ms: float | None = None
    baseline: str | None = None
    ratio: float | None = None
    peak_rss_mb: float | None = None
    value: float | None = None
    unit: str | None = None
    note: str = ""


# ------------------------------------------------------------ synthetic text


def _vocabulary(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    syllables = [c + v for c in "bcdfghklmnprstvwz" for v in "aeiou"] + ["ar", "en", "ol", "is", "um"]
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(syllables) for _ in range(rng.choice((2, 2, 3, 3, 4)))))
    return sorted(words)


def synthetic_passages(n: int, seed: int = 11, vocab_size: int = 50_000) -> list[str]:
    """``n`` passages of 60-160 words drawn from a Zipf(1.07) vocabulary."""
    vocab = np.asarray(_vocabulary(vocab_size))
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab_size + 1)
    p = 1.0 / ranks**1.07
    p /= p.sum()
    lengths = rng.integers(60, 160, size=n)
    draws = rng.choice(vocab_size, size=int(lengths.sum()), p=p)
    out, pos = [], 0
    for length in lengths:
        words = vocab[draws[pos : pos + length]]
        pos += length
        out.append(" ".join(words) + ".")
    return out


def synthetic_queries(passages: list[str], n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    queries = []
    for _ in range(n):
        words = rng.choice(passages).rstrip(".").split()
        queries.append(" ".join(rng.sample(words, k=min(len(words), rng.randint(2, 5)))))
    return queries


def _percentiles(samples_s: list[float]) -> tuple[float, float]:
    a = np.asarray(samples_s) * 1000
    return float(np.percentile(a, 50)), float(np.percentile(a, 95))


def _time(fn, args_list) -> list[float]:
    out = []
    for a in args_list:
        t0 = time.perf_counter()
        fn(a)
        out.append(time.perf_counter() - t0)
    return out


# ------------------------------------------------------------- measurements


def bench_bm25(size: int, n_queries: int = 200, baseline_queries: int = 20) -> list[Measurement]:
    from rank_bm25 import BM25Okapi

    from .retrieval.bm25 import BM25Index, BM25Params

    texts = synthetic_passages(size)
    queries = synthetic_queries(texts, n_queries)
    tokens = [tokenize(t) for t in texts]
    t0 = time.perf_counter()
    ours = BM25Index(tokens, [[] for _ in tokens], BM25Params())
    build = time.perf_counter() - t0
    plain = BM25Index(tokens, None, BM25Params().plain())
    ref = BM25Okapi(tokens, k1=1.2, b=0.75)
    del tokens
    q_tokens = [tokenize(q) for q in queries]
    ours_t = _time(lambda q: ours.search(q, 100), queries)
    base_t = _time(ref.get_scores, q_tokens[:baseline_queries])
    ours_same = _time(lambda qt: ours.scores(qt), q_tokens[:baseline_queries])
    max_diff = max(float(np.abs(plain.scores(qt) - ref.get_scores(qt)).max()) for qt in q_tokens[:5])
    p50, p95 = _percentiles(ours_t)
    b50, _ = _percentiles(base_t)
    s50, _ = _percentiles(ours_same)
    return [
        Measurement("bm25_build_s", size, value=build, unit="s"),
        Measurement(
            "bm25_query",
            size,
            p50,
            p95,
            baseline="rank_bm25.BM25Okapi.get_scores",
            ratio=b50 / s50 if s50 else None,
            note=f"baseline p50 {b50:.1f} ms; max |score diff| with bonuses off {max_diff:.1e}",
        ),
    ]


def bench_dense_and_hybrid(size: int, embedder, n_queries: int = 200) -> list[Measurement]:
    from .corpus import Corpus
    from .records import Passage
    from .retrieval import Retriever
    from .retrieval.dense import DenseIndex

    texts = synthetic_passages(size)
    queries = synthetic_queries(texts, n_queries, seed=9)
    if size <= 1000:
        vectors = embedder.embed_passages(texts, batch_size=8)
        note = "real embeddings"
    else:
        rng = np.random.default_rng(3)
        vectors = rng.standard_normal((size, 384), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        note = "random unit vectors"
    passages = [Passage(f"d{i // 10}", i % 10, 1, 1, 0, len(t), "", t) for i, t in enumerate(texts)]
    del texts
    corpus = Corpus("bench", {}, passages)
    retriever = Retriever(corpus, embedder=embedder)
    retriever.set_vectors(vectors)
    index = DenseIndex(vectors)
    # Fresh query texts each time: the per-text cache would hide embedding cost.
    dense_t = _time(lambda q: index.search(embedder.embed_query(q + " x"), 100), queries)
    hybrid_t = _time(lambda q: retriever.search(q + " y", "hybrid", 10), queries)
    d50, d95 = _percentiles(dense_t)
    h50, h95 = _percentiles(hybrid_t)
    return [
        Measurement("dense_query_incl_embedding", size, d50, d95, note=note),
        Measurement("hybrid_query_end_to_end", size, h50, h95, note=note),
        bench_threads(retriever, queries, size, note),
    ]


def _queries_per_s(search, queries: list[str], threads: int) -> float:
    from concurrent.futures import ThreadPoolExecutor

    t0 = time.perf_counter()
    if threads == 1:
        for q in queries:
            search(q)
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(search, queries))
    return len(queries) / (time.perf_counter() - t0)


def bench_threads(retriever, queries: list[str], size: int, note: str, threads: int = 8) -> Measurement:
    """Hybrid searches on one shared retriever from 1 and from ``threads``
    threads (no lock: each search returns its own result). On 2 cores the
    interpreter lock bounds the gain; the figure is reported, not a goal."""
    one = _queries_per_s(lambda q: retriever.search(q + " t1", "hybrid", 10), queries, 1)
    many = _queries_per_s(lambda q: retriever.search(q + " t8", "hybrid", 10), queries, threads)
    return Measurement(
        "search_8_threads_qps",
        size,
        baseline="the same searches from 1 thread",
        ratio=many / one,
        value=many,
        unit="queries/s",
        note=f"hybrid, {len(queries)} queries; 1 thread {one:.1f}/s; {note}",
    )


def bench_ingest(embedder) -> list[Measurement]:
    return [bench_pdf(), bench_embedding(embedder)]


def bench_pdf() -> Measurement:
    """The 307-page 10-K from file to BM25-searchable."""
    from .chunking import chunk_document
    from .documents import load_path
    from .retrieval.bm25 import BM25Index

    if not UBER_PDF.is_file():
        return Measurement("pdf_searchable_by_bm25_s", None, note="skipped: ../shared/documents absent")
    t0 = time.perf_counter()
    doc = load_path(UBER_PDF)
    t_parse = time.perf_counter() - t0
    passages = chunk_document(doc)
    index = BM25Index.from_texts([p.text for p in passages], [p.label for p in passages])
    index.search("total revenue", 10)
    total = time.perf_counter() - t0
    return Measurement(
        "pdf_searchable_by_bm25_s",
        len(passages),
        value=total,
        unit="s",
        note=f"uber_2021_10k.pdf, {len(doc.line_pages and set(doc.line_pages))} pages; parse {t_parse:.1f} s",
    )


def bench_embedding(embedder) -> Measurement:
    """Embedding through the library (cache lookups, storage) against raw fastembed."""
    import tempfile

    from .corpus import load_corpus
    from .retrieval import Retriever
    from .store import Library

    texts = [t[:800] for t in synthetic_passages(256, seed=21, vocab_size=5000)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        for i in range(0, len(texts), 8):
            (folder / f"doc{i // 8:03d}.md").write_text(
                "\n\n".join(texts[i : i + 8]) + "\n", encoding="utf-8"
            )
        library = Library(Path(tmp) / "home")
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
    return Measurement(
        "embed_passages_per_s",
        n,
        value=ours_rate,
        unit="passages/s",
        baseline="raw fastembed TextEmbedding.embed, batch 8",
        ratio=ours_rate / raw_rate,
        note=f"raw {raw_rate:.1f}/s; re-adding unchanged files embedded {again} passages",
    )


def rss_probe(size: int) -> dict:
    """Run in a child process: index ``size`` passages (BM25, then random
    vectors, in the order the app builds them) and report peak RSS."""
    from .corpus import Corpus
    from .records import Passage
    from .retrieval import Retriever

    texts = synthetic_passages(size)
    passages = [Passage(f"d{i // 10}", i % 10, 1, 1, 0, len(t), "", t) for i, t in enumerate(texts)]
    del texts

    class _FixedQuery:
        model_id = "none"
        query = None

        def embed_query(self, text):
            return self.query

    embedder = _FixedQuery()
    r = Retriever(Corpus("rss", {}, passages), embedder=embedder)
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((size, 384), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    embedder.query = vectors[0].copy()
    r.set_vectors(vectors)
    del vectors  # the index keeps its own layout
    r.search("bama kelo", "hybrid", 10)
    return {"size": size, "peak_rss_mb": peak_rss_mb()}


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


# ------------------------------------------------------------------ driver


def run(args) -> int:
    sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    results: list[Measurement] = []

    def emit(ms: list[Measurement]) -> None:
        results.extend(ms)
        for m in ms:
            print(_row(m), file=sys.stderr if args.json else sys.stdout, flush=True)

    from .retrieval.blas import one_blas_thread
    from .retrieval.embedding import get_embedder

    embedder = get_embedder()
    if not args.json:
        print(f"ragcore bench  {time.strftime('%Y-%m-%d')}  {os.cpu_count()} cores  sizes {sizes}")
        print(f"{'name':32} {'size':>7} {'p50 ms':>9} {'p95 ms':>9} {'value':>10} {'ratio':>8}  note")
    for size in sizes:
        emit(bench_bm25(size, baseline_queries=20 if size <= 10_000 else 10))
        with one_blas_thread():
            emit(bench_dense_and_hybrid(size, embedder))
    if not args.skip_ingest:
        emit(bench_ingest(embedder))
    if sizes:
        size = max(sizes)
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import json; from ragcore.bench import rss_probe; print(json.dumps(rss_probe({size})))",
            ],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        if proc.returncode == 0:
            probe = json.loads(proc.stdout.strip().splitlines()[-1])
            emit(
                [
                    Measurement(
                        "peak_rss_indexed", size, peak_rss_mb=probe["peak_rss_mb"], note="fresh process"
                    )
                ]
            )
        else:
            emit([Measurement("peak_rss_indexed", size, note=f"probe failed: {proc.stderr.strip()[-200:]}")])
    if args.json:
        for m in results:
            print(json.dumps(asdict(m)))
    return 0


def _row(m: Measurement) -> str:
    def f(x, spec):
        return format(x, spec) if x is not None else "-"

    value = m.value if m.value is not None else m.peak_rss_mb
    unit = m.unit or ("MB" if m.peak_rss_mb is not None else "")
    return (
        f"{m.name:32} {f(m.size, '>7')} {f(m.p50_ms, '>9.2f')} {f(m.p95_ms, '>9.2f')} "
        f"{(f(value, '>8.1f') + ' ' + unit) if value is not None else '-':>10} {f(m.ratio, '>8.2f')}  {m.note}"
    )
