"""Recall@10 of the compact dense search against exact float32 search.

    python scripts/dense_recall.py [--beir ../shared/benchmarks/vaswani] [--json]

Embeds the collection's documents with the app's model (once: vectors are
cached in the library under RAGCORE_HOME), then, for every query of the
collection, compares the top 10 of exact search with the top 10 of the
three-step search (sign bits keep a fraction of the rows, int8 codes keep
``rescore`` of those, exact float32 rescoring picks the 10) for each setting
in the sweep. The minimum candidate count is set to 0, so the fraction acts
as it does on a collection of a million passages. The setting used by
``ragcore.retrieval.dense`` was chosen from this output (docs/decisions.md).
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

from ragcore.corpus import default_library, load_corpus  # noqa: E402
from ragcore.retrieval import dense  # noqa: E402
from ragcore.retrieval.dense import DenseIndex  # noqa: E402
from ragcore.retrieval.embedding import get_embedder  # noqa: E402
from ragcore.retrieval.vectors import passage_vectors  # noqa: E402

FRACTIONS = (0.005, 0.01, 0.02, 0.05, 0.1)
RESCORE = (50, 100)
K = 10


def recall(index: DenseIndex, queries: np.ndarray, truth: list[set[int]]) -> float:
    found = [len({row for row, _ in index.search(q, K)} & t) / K for q, t in zip(queries, truth, strict=True)]
    return float(np.mean(found))


def sweep(vectors: np.ndarray, queries: np.ndarray) -> list[dict[str, float | str]]:
    exact = DenseIndex(vectors, prefilter="exact")
    truth = [{row for row, _ in exact.search(q, K)} for q in queries]
    index = DenseIndex(vectors, prefilter="sign")
    dense.PREFILTER_MIN_CANDIDATES = 0
    dense.PREFILTER_FACTOR = 0
    dense.RESCORE_FACTOR = 0
    rows: list[dict[str, float | str]] = []
    for fraction in FRACTIONS:
        dense.PREFILTER_FRACTION = fraction
        for rescore in (*RESCORE, len(vectors)):  # the last: no int8 step, all candidates exact
            dense.RESCORE_MIN = rescore
            label = "all (float32 only)" if rescore == len(vectors) else str(rescore)
            rows.append(
                {"fraction": fraction, "int8_keeps": label, "recall@10": recall(index, queries, truth)}
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", default=str(ROOT / ".." / "shared" / "benchmarks" / "vaswani"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    folder = Path(args.beir)
    library = default_library()
    started = time.perf_counter()
    corpus = load_corpus(folder, library=library)
    embedder = get_embedder()

    def progress(done: int, total: int) -> None:
        print(f"embedding {done} of {total}", file=sys.stderr, flush=True)

    vectors, embedded = passage_vectors(corpus.passages, embedder, library, progress=progress)
    with open(folder / "queries.jsonl", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh if line.strip()]
    queries = np.stack([embedder.embed_query(t) for t in texts])
    rows = sweep(vectors, queries)
    summary = {
        "collection": folder.name,
        "passages": len(vectors),
        "queries": len(queries),
        "model": embedder.model_id,
        "embedded_now": embedded,
        "seconds": round(time.perf_counter() - started, 1),
        "rows": rows,
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{folder.name}: {len(vectors)} passages, {len(queries)} queries, recall@10 against exact search")
    print(f"{'sign keeps':>10}  {'int8 keeps':>18}  recall@10")
    for row in rows:
        print(f"{row['fraction']:>10.1%}  {row['int8_keeps']:>18}  {row['recall@10']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
