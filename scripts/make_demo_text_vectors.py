"""Precompute the query vectors of every demo answer unit (each sentence and
table row an extractive answer may quote, ``answer.units.answer_units``) and
of the demo's curated questions into corpus/demo.text-vectors.npz, so the
first answer after the app's first start ever (an empty library home, as on
a fresh Streamlit Community Cloud container) embeds none of them (#18).

    python scripts/make_demo_text_vectors.py

The vectors are ``embed_query``'s, the same the answer would make; a unit
missing from the file (the demo or the unit rules changed) is embedded when
needed, so a stale file costs time only. tests/test_demo_text_vectors.py
fails when it covers less than ``MIN_COVERAGE`` of today's units.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragcore.retrieval.text_vectors import MODEL_SUFFIX, text_key  # noqa: E402

OUT = ROOT / "corpus" / "demo.text-vectors.npz"


def demo_texts(home: Path) -> list[str]:
    """Every answer unit of every demo passage, and the curated questions."""
    from ragcore.answer.units import answer_units
    from ragcore.records import Hit
    from ragcore.services.common import DEMO_COLLECTION
    from ragcore.services.workspace import Workspace

    ws = Workspace(home=home)
    ws.collections.ensure_demo()
    retriever = ws.indexes.retriever(DEMO_COLLECTION)
    documents = retriever.corpus.documents
    texts: dict[str, None] = {}
    for passage in retriever.passages:
        for unit in answer_units([Hit(passage, 1, 1.0, {})], documents):
            texts[unit.text] = None
    layer = ws.curation.layer(DEMO_COLLECTION)
    for pinned in layer.answers if layer is not None else ():
        texts[pinned.question] = None
    return list(texts)


def main() -> int:
    from ragcore.retrieval.embedding import get_embedder

    with tempfile.TemporaryDirectory(dir=ROOT / ".scratch" if (ROOT / ".scratch").is_dir() else None) as tmp:
        texts = demo_texts(Path(tmp))
    embedder = get_embedder()
    vectors = np.stack([embedder.embed_query(t) for t in texts]).astype(np.float32)
    np.savez_compressed(
        OUT,
        hashes=np.asarray([text_key(t) for t in texts], dtype="U64"),
        vectors=vectors,
        model_id=np.asarray(embedder.model_id + MODEL_SUFFIX),
    )
    print(f"{OUT.relative_to(ROOT)}: {len(texts)} texts, model {embedder.model_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
