"""Precompute the query vectors of the Ask page's example questions
(``services.common.DEMO_QUESTIONS``) into corpus/demo.question-vectors.npz,
so the first demo answer after a start needs no model load (#18 cold start:
``retrieval.lazy_embedder``). Each example is asked as the Ask page asks it
(hybrid, auto lens, no model key) in a fresh home, and every text the answer
embeds as a query is kept: the question, its parts when it splits, and any
unit the shipped unit vectors miss.

    python scripts/make_demo_question_vectors.py

The vectors are the pinned model's ``embed_query``, the ones the retriever
and the answer would make; the file has the format of
corpus/demo.text-vectors.npz (text sha256, vectors, model id + "#query-text").
A question missing from the file (the examples changed) is embedded by the
model, so a stale file costs time only; tests/test_demo_question_vectors.py
fails when an example is missing or its vector is not the model's.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.retrieval.text_vectors import MODEL_SUFFIX, text_key  # noqa: E402
from ragcore.services.common import DEMO_QUESTIONS  # noqa: E402
from ragcore.services.indexes import DEMO_QUESTION_VECTORS  # noqa: E402

OUT = ROOT / "corpus" / DEMO_QUESTION_VECTORS


class Recording:
    """An embedder that notes each text embedded as a query."""

    def __init__(self, embedder) -> None:
        self.embedder = embedder
        self.model_id = embedder.model_id
        self.dim = embedder.dim
        self.queries: dict[str, np.ndarray] = {}

    def embed_query(self, text: str) -> np.ndarray:
        vector = self.queries[text] = self.embedder.embed_query(text)
        return vector

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        return self.embedder.embed_passages(texts, batch_size=batch_size)


def example_queries(home: Path, embedder) -> dict[str, np.ndarray]:
    """Every text embedded as a query while the examples are answered in ``home``."""
    from ragcore.answer import semantic
    from ragcore.services.common import DEMO_COLLECTION
    from ragcore.services.workspace import Workspace

    recording = Recording(embedder)
    semantic._SHARED[:] = [semantic.embedding_similarity(recording)]  # the answer's sentence scores too
    ws = Workspace(home=home, embedder=recording)
    ws.collections.ensure_demo()
    ws.indexes.ensure_dense(DEMO_COLLECTION)
    for question in DEMO_QUESTIONS:
        ws.asking.ask(DEMO_COLLECTION, question, mode="hybrid", lens="auto", env={})
    semantic._SHARED.clear()
    return recording.queries


def main() -> int:
    from ragcore.retrieval.embedding import get_embedder

    embedder = get_embedder()
    scratch = ROOT / ".scratch" if (ROOT / ".scratch").is_dir() else None
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        queries = example_queries(Path(tmp), embedder)
    texts = list(queries)
    vectors = np.stack([queries[t] for t in texts]).astype(np.float32)
    np.savez_compressed(
        OUT,
        hashes=np.asarray([text_key(t) for t in texts], dtype="U64"),
        vectors=vectors,
        model_id=np.asarray(embedder.model_id + MODEL_SUFFIX),
    )
    print(
        f"{OUT.relative_to(ROOT)}: {len(texts)} texts for {len(DEMO_QUESTIONS)} examples, model {embedder.model_id}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
