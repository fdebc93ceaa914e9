"""Query embedding with and without onnxruntime's spinning, under the hybrid search (#18).

    python scripts/spin_ab.py --index-dir DIR [--size 1000000] [--queries 80] [--rounds 2]

Opens (or first builds, as ``bench``'s memory probe does: synthetic passages,
random unit vectors) a probe index of ``--size`` passages in DIR, then, in
alternating rounds, times p50 wall of the query embedding, dense search incl.
embedding and hybrid search for: fastembed's session spinning (onnxruntime's
default), the same session made without spinning (``embedding.SPIN_WAIT =
False``) and a second one-thread query session (``QUERY_THREADS = 1``); and
passages/s for the two fastembed sessions. One JSON line per setting and
round. ``embedding.SPIN_WAIT`` was chosen from this output (docs/decisions.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.bench_probes import _probe_corpus, rss_probe  # noqa: E402
from ragcore.benchdata import synthetic_passages, synthetic_queries  # noqa: E402
from ragcore.passage_file import PassageTexts  # noqa: E402
from ragcore.retrieval import Retriever, embedding  # noqa: E402
from ragcore.retrieval.blas import one_blas_thread  # noqa: E402
from ragcore.retrieval.embedding import Embedder  # noqa: E402


def _p50(fn, queries: list[str], tag: str) -> float:
    out = []
    for q in queries:
        t0 = time.perf_counter()
        fn(q + tag)
        out.append(time.perf_counter() - t0)
    return round(float(np.percentile(out, 50) * 1000), 2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index-dir", type=Path, required=True)
    ap.add_argument("--size", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=80)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    embedding.SPIN_WAIT = True
    spin = Embedder()
    embedding.SPIN_WAIT = False
    quiet = Embedder()
    if not (args.index_dir / "passages" / "meta.json").is_file():
        rss_probe(args.size, str(args.index_dir), True, spin.model_id)
    corpus = _probe_corpus(args.size, args.index_dir / "passages")
    retriever = Retriever(corpus, embedder=spin, index_dir=args.index_dir)
    queries = synthetic_queries(PassageTexts(corpus.passages), 200, seed=9)[: args.queries]
    texts = synthetic_passages(48, seed=3)
    settings = (("spin", spin, None), ("no-spin", quiet, None), ("1-thread", spin, 1))
    with one_blas_thread():
        index = retriever.dense_index()
        for q in queries[:10]:
            retriever.search(q + " w", "hybrid", 10)
        for rnd in range(args.rounds):
            for name, emb, threads in settings:
                embedding.QUERY_THREADS, emb._query_session, retriever._embedder = threads, None, emb
                emb.embed_query(f"warm {rnd} {name}")
                tag = f" {rnd}{name}"
                row: dict[str, object] = {
                    "setting": name,
                    "rep": rnd,
                    "embed": _p50(emb.embed_query, queries, " e" + tag),
                    "dense": _p50(lambda q, e=emb: index.search(e.embed_query(q), 100), queries, " d" + tag),
                    "hybrid": _p50(lambda q: retriever.search(q, "hybrid", 10), queries, " h" + tag),
                }
                if threads is None:
                    t0 = time.perf_counter()
                    emb.embed_passages(texts, batch_size=8)
                    row["passages_per_s"] = round(len(texts) / (time.perf_counter() - t0), 1)
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
