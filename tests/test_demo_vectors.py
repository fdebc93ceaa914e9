"""The shipped demo vectors cover every demo passage under the default
chunking and were made by the pinned model, so the app's first question
needs no embedding pass. Regenerate with scripts/make_demo_vectors.py."""

from pathlib import Path

import numpy as np
import pytest

from ragcore.corpus import load_corpus
from ragcore.store import Library

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "corpus" / "demo.vectors.npz"


@pytest.fixture(scope="module")
def shipped():
    with np.load(VECTORS, allow_pickle=False) as data:
        return {str(h): v for h, v in zip(data["hashes"], data["vectors"], strict=True)}, str(
            data["model_id"]
        )


def test_vectors_cover_every_demo_passage(tmp_path, shipped):
    vectors, _ = shipped
    corpus = load_corpus(ROOT / "corpus" / "demo", "auto", Library(tmp_path))
    missing = [p.id for p in corpus.passages if p.content_hash not in vectors]
    assert not missing, (
        f"stale corpus/demo.vectors.npz: run scripts/make_demo_vectors.py ({len(missing)} missing)"
    )


def test_vectors_are_unit_float32_of_the_pinned_model(shipped):
    from ragcore.retrieval.model_registry import DEFAULT_MODEL

    vectors, model_id = shipped
    matrix = np.stack(list(vectors.values()))
    assert matrix.dtype == np.float32 and matrix.shape[1] == DEFAULT_MODEL.dim
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-4)
    assert model_id.startswith(DEFAULT_MODEL.name)


def test_seeding_the_library_means_no_embedding(tmp_path, shipped):
    from ragcore.retrieval import Retriever
    from ragcore.retrieval.vectors import seed_from_precomputed

    _, model_id = shipped

    class NoEmbedding:
        def __init__(self):
            self.model_id = model_id

        def embed_passages(self, texts, batch_size=8):
            raise AssertionError("the demo should need no embedding pass")

    library = Library(tmp_path)
    assert seed_from_precomputed(library, VECTORS, model_id) > 0
    corpus = load_corpus(ROOT / "corpus" / "demo", "auto", library)
    assert Retriever(corpus, vector_cache=library, embedder=NoEmbedding()).ensure_dense() == 0
