"""``python -m ragcore bench``: speed and memory figures, printed, never asserted.

Synthetic corpora of Zipf-distributed words (realistic term statistics for
BM25) at each size; dense on real embeddings at 1k and on random unit
vectors beyond (embedding 100k passages takes over half an hour here).
Baselines run in the same process, so ratios compare like with like:
rank_bm25's ``get_scores`` for BM25, raw fastembed for embedding throughput.
Peak memory at 100k is measured in a fresh child process.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Literal

import numpy as np

from .bench_ingest import bench_ingest, embedding_probe, pdf_probe
from .bench_probes import _probe_corpus, current_rss_mb, peak_rss_mb, reopen_probe, rss_probe
from .benchdata import random_unit_vectors, synthetic_passages, synthetic_queries
from .text import tokenize

__all__ = [
    "bench_ingest",
    "current_rss_mb",
    "embedding_probe",
    "pdf_probe",
    "peak_rss_mb",
    "reopen_probe",
    "rss_probe",
    "run",
]


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


RANK_BM25_MAX_SIZE = 100_000  # rank_bm25 scores in pure Python: minutes per query beyond
BM25S_BUILD_MAX_SIZE = 100_000  # bm25s's builder needs every token list in memory


def bench_bm25(
    size: int,
    texts: Sequence[str],
    retriever=None,
    n_queries: int = 200,
    baseline_queries: int = 20,
    build_s: float | None = None,
) -> list[Measurement]:
    """BM25 query times against rank_bm25 (up to 100k) and bm25s. Above
    100k the retriever's own index is timed (building another would double
    the run; ``build_s`` is the time its build took where it was built), and
    bm25s's query engine runs on its weights."""
    from .retrieval.bm25 import BM25Index, BM25Params

    queries = synthetic_queries(texts, n_queries)
    q_tokens = [tokenize(q) for q in queries]
    if size > RANK_BM25_MAX_SIZE and retriever is not None:
        ours = retriever.bm25
        p50, p95 = _percentiles(_time(lambda q: ours.search(q, 100), queries))
        build = retriever.build_seconds["bm25"] if build_s is None else build_s
        where = "" if build_s is None else "built in the memory probe's fresh process"
        return [
            Measurement("bm25_build_s", size, value=build, unit="s", note=where),
            Measurement("bm25_query", size, p50, p95, note="rank_bm25 skipped above 100k"),
            _versus_bm25s(_bonuses_off(ours), None, q_tokens, size),
        ]
    tokens = [tokenize(t) for t in texts]
    t0 = time.perf_counter()
    ours = BM25Index(tokens, [[] for _ in tokens], BM25Params())
    build = time.perf_counter() - t0
    plain = BM25Index(tokens, None, BM25Params().plain())
    p50, p95 = _percentiles(_time(lambda q: ours.search(q, 100), queries))
    return [
        Measurement("bm25_build_s", size, value=build, unit="s"),
        _versus_rank_bm25(ours, plain, tokens, q_tokens[:baseline_queries], size, p50, p95),
        _versus_bm25s(plain, tokens, q_tokens, size),
    ]


def _bonuses_off(index):
    """``index`` searched with its own weights but no heading or adjacency
    bonus (a shallow copy sharing the matrices)."""
    plain = copy.copy(index)
    plain.params = replace(index.params, heading_weight=0.0, adjacency_weight=0.0, identifier_boost=0)
    return plain


def _versus_rank_bm25(ours, plain, tokens, q_tokens, size: int, p50: float, p95: float) -> Measurement:
    from rank_bm25 import BM25Okapi

    ref = BM25Okapi(tokens, k1=plain.params.k1, b=plain.params.b)  # the same k1 and b as ours
    base_t = _time(ref.get_scores, q_tokens)
    ours_same = _time(lambda qt: ours.scores(qt), q_tokens)
    max_diff = max(float(np.abs(plain.scores(qt) - ref.get_scores(qt)).max()) for qt in q_tokens[:5])
    b50, _ = _percentiles(base_t)
    s50, _ = _percentiles(ours_same)
    return Measurement(
        "bm25_query",
        size,
        p50,
        p95,
        baseline="rank_bm25.BM25Okapi.get_scores",
        ratio=b50 / s50 if s50 else None,
        note=f"baseline p50 {b50:.1f} ms; max |score diff| with bonuses off {max_diff:.1e}",
    )


def _bm25s_engine(plain, size: int):
    """bm25s (numpy backend) holding our plain weights in its own layout
    (float32 data, int32 indices, CSC by term): its query engine then scores
    exactly what ours does, so both return the same top 10 and only speed
    differs."""
    import bm25s

    ref = bm25s.BM25(k1=plain.params.k1, b=plain.params.b, method="robertson", backend="numpy")
    m = plain.matrix
    ref.scores = {
        "data": np.asarray(m.data, dtype=np.float32),
        "indices": np.asarray(m.indices, dtype=np.int32),
        "indptr": np.asarray(m.indptr),
        "num_docs": size,
    }
    ref.vocab_dict = dict(plain.vocab)
    ref.nonoccurrence_array = None
    return ref


def _bm25s_built(plain, tokens: list[list[str]]):
    """bm25s's own index over the same tokens and vocabulary ids. Its
    "robertson" idf clamps a negative idf to 0 where rank_bm25 (and we)
    floor it at epsilon times the mean idf, so its scores differ whenever a
    query holds a term of more than half the passages."""
    import bm25s

    ref = bm25s.BM25(k1=plain.params.k1, b=plain.params.b, method="robertson", backend="numpy")
    vocab = dict(plain.vocab)
    ref.index(
        ([[vocab[t] for t in doc] for doc in tokens], vocab), create_empty_token=False, show_progress=False
    )
    return ref


def _bm25s_top(ref, ids: np.ndarray):
    from bm25s.selection import topk

    return topk(ref.get_scores_from_ids(ids), 10, backend="numpy")


def _same_top10(ref, plain, q_ids: list[np.ndarray]) -> tuple[int, int]:
    """On how many queries bm25s's top 10 has the same scores as ours (to
    float32 precision), and on how many the same rows (ties at the tenth
    place may be broken differently)."""
    scores = rows = 0
    for ids in q_ids:
        ref_scores, ref_rows = (np.asarray(a) for a in _bm25s_top(ref, ids))
        ours = plain.search_ids(ids, 10)
        mine = np.asarray([s for _, s in ours])
        theirs = np.sort(ref_scores.astype(np.float64))[::-1][: len(mine)]
        scores += len(mine) == len(theirs) and bool(np.allclose(theirs, mine, rtol=1e-5, atol=1e-6))
        rows += set(ref_rows.tolist()) == {row for row, _ in ours}
    return scores, rows


def _versus_bm25s(plain, tokens: list[list[str]] | None, q_tokens: list[list[str]], size: int) -> Measurement:
    """Both sides from query token ids to the top 10, tokenising excluded,
    our bonuses off (``plain``), timed query by query in turn (a load swing
    hits both alike); bm25s's query engine runs over our weights, so both
    rank the same scores. Up to BM25S_BUILD_MAX_SIZE the note also gives
    bm25s with its own index. ratio = bm25s p50 / ours."""
    ref = _bm25s_engine(plain, size)
    q_ids = [ids for ids in (plain.term_ids(qt) for qt in q_tokens) if len(ids)]
    ref_t: list[float] = []
    ours_t: list[float] = []
    for ids in q_ids:
        ref_t += _time(lambda i: _bm25s_top(ref, i), [ids])
        ours_t += _time(lambda i: plain.search_ids(i, 10), [ids])
    p50, p95 = _percentiles(ours_t)
    b50, _ = _percentiles(ref_t)
    checked = q_ids[:50]
    same, rows = _same_top10(ref, plain, checked)
    note = (
        f"query ids -> top 10, bonuses off; bm25s p50 {b50:.3f} ms, its query engine over our weights "
        f"(same top-10 scores on {same} of {len(checked)} queries, same rows on {rows})"
    )
    if tokens is not None and size <= BM25S_BUILD_MAX_SIZE:
        own = _bm25s_built(plain, tokens)
        o50, _ = _percentiles(_time(lambda i: _bm25s_top(own, i), q_ids))
        note += (
            f"; bm25s with its own index (idf clamped at 0) p50 {o50:.3f} ms, "
            "same top-10 rows on {} of {}: its scores omit the (k1 + 1) factor".format(
                _same_top10(own, plain, checked)[1], len(checked)
            )
        )
    return Measurement(
        "bm25_query", size, p50, p95, baseline="bm25s", ratio=b50 / p50 if p50 else None, note=note
    )


def bench_retriever(size: int, texts: Sequence[str], embedder, index_dir: Path):
    """A retriever over ``texts`` as the app builds it (BM25, then vectors),
    its indexes saved to ``index_dir``; real embeddings at 1k, random unit
    vectors beyond. Returns the retriever and a note on the vectors."""
    from .corpus import Corpus
    from .records import Passage
    from .retrieval import Retriever

    passages = [Passage(f"d{i // 10}", i % 10, 1, 1, 0, len(t), "", t) for i, t in enumerate(texts)]
    retriever = Retriever(Corpus("bench", {}, passages), embedder=embedder, index_dir=index_dir)
    if size <= 1000:
        retriever.set_vectors(embedder.embed_passages(texts, batch_size=8))
        return retriever, "real embeddings"
    retriever.set_vectors(random_unit_vectors(size))
    return retriever, "random unit vectors"


def bench_dense_and_hybrid(
    size: int, texts: Sequence[str], retriever, note: str, n_queries: int = 200
) -> list[Measurement]:
    queries = synthetic_queries(texts, n_queries, seed=9)
    index, embedder = retriever.dense_index(), retriever.embedder
    # Fresh query texts each time: the per-text cache would hide embedding cost.
    dense_t = _time(lambda q: index.search(embedder.embed_query(q + " x"), 100), queries)
    hybrid_t = _time(lambda q: retriever.search(q + " y", "hybrid", 10), queries)
    d50, d95 = _percentiles(dense_t)
    h50, h95 = _percentiles(hybrid_t)
    note = f"{note}; dense {index.prefilter}"
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


# ------------------------------------------------------------------ driver


def _child(call: str) -> dict:
    """Run ``ragcore.bench.<call>`` in a fresh process; its JSON answer."""
    proc = subprocess.run(
        [sys.executable, "-c", f"import json; from ragcore import bench; print(json.dumps(bench.{call}))"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[-300:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def bench_memory(size: int, workdir: Path) -> list[Measurement]:
    """Peak RSS while indexing in a fresh process, then the time to reopen
    those indexes from disk in another one (passages in memory)."""
    folder = workdir / f"probe-{size}"
    try:
        probe = _child(f"rss_probe({size}, {str(folder)!r})")
    except RuntimeError as exc:
        return [Measurement("peak_rss_indexed", size, note=f"probe failed: {exc}")]
    rows = [Measurement("peak_rss_indexed", size, peak_rss_mb=probe["peak_rss_mb"], note="fresh process")]
    return [*rows, _reopen(size, folder, "")]


def _reopen(size: int, folder: Path, disk_args: str) -> Measurement:
    try:
        again = _child(f"reopen_probe({size}, {str(folder)!r}{disk_args})")
    except RuntimeError as exc:
        return Measurement("library_reopen_s", size, note=f"probe failed: {exc}")
    what = "passage file opened in the timed span" if disk_args else "passage records excluded"
    return Measurement(
        "library_reopen_s",
        size,
        value=again["seconds"],
        unit="s",
        peak_rss_mb=None,
        note=f"BM25 + dense indexes memory-mapped to first hybrid hit, fresh process; "
        f"embedded {again['embedded']}; RSS after {again['rss_mb']:.0f} MB ({what})",
    )


def bench_at_scale(size: int, embedder, workdir: Path) -> tuple[list[Measurement], list[Measurement]]:
    """Above RANK_BM25_MAX_SIZE: one build, in a fresh child process that
    writes the passages (texts on disk), the BM25 index and the vectors
    (block by block) and reports its peak RSS; this process then opens those
    files and times the queries, and another child times the reopen.
    Returns (query rows, memory rows)."""
    from .passage_file import PassageTexts
    from .retrieval import Retriever
    from .retrieval.blas import one_blas_thread

    folder = workdir / f"probe-{size}"
    disk_args = f", True, {embedder.model_id!r}"
    try:
        probe = _child(f"rss_probe({size}, {str(folder)!r}{disk_args})")
    except RuntimeError as exc:
        return [], [Measurement("peak_rss_indexed", size, note=f"probe failed: {exc}")]
    memory = [
        Measurement(
            "peak_rss_indexed",
            size,
            peak_rss_mb=probe["peak_rss_mb"],
            note="fresh process; passage texts on disk (PassageFile), vectors written block by block",
        )
    ]
    corpus = _probe_corpus(size, folder / "passages")
    retriever = Retriever(corpus, embedder=embedder, index_dir=folder)
    texts = PassageTexts(corpus.passages)  # type: ignore[arg-type]
    rows = bench_bm25(size, texts, retriever, build_s=probe["bm25_build_s"])
    with one_blas_thread():
        rows += bench_dense_and_hybrid(size, texts, retriever, "random unit vectors, memory-mapped")
    del retriever
    return rows, [*memory, _reopen(size, folder, disk_args)]


Phase = Literal["ingest", "size", "memory"]
REPORT_ORDER: dict[Phase, int] = {"size": 0, "ingest": 1, "memory": 2}  # the JSON lines' order


@dataclass(frozen=True)
class Step:
    phase: Phase
    size: int | None = None


def plan(sizes: Sequence[int], skip_ingest: bool = False) -> list[Step]:
    """The order the bench measures in. The ingest rows (the 10-K, embedding
    throughput) come first, each in its own fresh process, before any size
    has built an index: a user's upload runs in the app's own process, not in
    the wake of a million-passage build (session 7 measured the 10-K at 6.4 s
    after the 1M size against 3.1-3.6 s apart). Memory probes come last."""
    steps = [] if skip_ingest else [Step("ingest")]
    steps += [Step("size", s) for s in sizes]
    memory = {s for s in sizes if s >= 100_000} | ({max(sizes)} if sizes else set())
    return steps + [Step("memory", s) for s in sorted(memory)]


def report_order(steps: Sequence[Step]) -> list[Step]:
    """Measured steps in the order their rows are printed as JSON lines: the
    sizes, then the ingest rows, then memory, as before ingest moved first."""
    return sorted(steps, key=lambda step: REPORT_ORDER[step.phase])


@dataclass
class _Bench:
    embedder: object
    workdir: Path
    memory: dict[int, list[Measurement]] = field(default_factory=dict)

    def measure(self, step: Step) -> list[Measurement]:
        if step.phase == "ingest":
            return bench_ingest(self.workdir)
        assert step.size is not None
        if step.phase == "memory":
            return self.memory.pop(step.size, None) or bench_memory(step.size, self.workdir)
        return self.size(step.size)

    def size(self, size: int) -> list[Measurement]:
        from .retrieval.blas import one_blas_thread

        if size > RANK_BM25_MAX_SIZE:
            started = time.perf_counter()
            rows, self.memory[size] = bench_at_scale(size, self.embedder, self.workdir)
            note = "wall time of this size: build in the probe, queries, reopen (issue: within 20 min)"
            return [
                *rows,
                Measurement("bench_size_s", size, value=time.perf_counter() - started, unit="s", note=note),
            ]
        texts = synthetic_passages(size)
        retriever, note = bench_retriever(size, texts, self.embedder, self.workdir / f"index-{size}")
        rows = bench_bm25(size, texts, retriever, baseline_queries=20 if size <= 10_000 else 10)
        with one_blas_thread():
            rows += bench_dense_and_hybrid(size, texts, retriever, note)
        return rows


def run(args) -> int:
    if getattr(args, "backend", None):  # embedded and Milvus side by side
        from .retrieval.backends.milvus_bench import run_backends

        return run_backends(args)
    import tempfile

    from .retrieval.embedding import get_embedder

    sizes = [int(s) for s in str(args.sizes).split(",") if s.strip()]
    if not args.json:
        print(f"ragcore bench  {time.strftime('%Y-%m-%d')}  {os.cpu_count()} cores  sizes {sizes}")
        print(f"{'name':32} {'size':>7} {'p50 ms':>9} {'p95 ms':>9} {'value':>10} {'ratio':>8}  note")
    measured: dict[Step, list[Measurement]] = {}
    with tempfile.TemporaryDirectory(prefix="ragcore-bench-") as tmp:
        bench = _Bench(get_embedder(), Path(tmp))
        for step in plan(sizes, args.skip_ingest):
            measured[step] = bench.measure(step)
            for m in measured[step]:
                print(_row(m), file=sys.stderr if args.json else sys.stdout, flush=True)
    if args.json:
        for step in report_order(list(measured)):
            for m in measured[step]:
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
