"""Precompute the demo corpus's passage vectors into corpus/demo.vectors.npz,
so the app's first question needs no embedding pass.

    python scripts/make_demo_vectors.py

Run it again whenever the demo corpus or the default chunking changes;
tests/test_demo_vectors.py fails while the shipped file is stale.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.corpus import load_corpus  # noqa: E402
from ragcore.retrieval.embedding import get_embedder  # noqa: E402
from ragcore.retrieval.vectors import EMBED_BATCH, save_precomputed  # noqa: E402
from ragcore.store import Library  # noqa: E402

DEMO = ROOT / "corpus" / "demo"
OUT = ROOT / "corpus" / "demo.vectors.npz"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        corpus = load_corpus(DEMO, "auto", Library(Path(tmp)))
    embedder = get_embedder()
    vectors = embedder.embed_passages([p.embedding_text for p in corpus.passages], batch_size=EMBED_BATCH)
    save_precomputed(OUT, corpus.passages, vectors, embedder.model_id)
    print(f"{OUT.relative_to(ROOT)}: {len(corpus.passages)} passages, model {embedder.model_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
