"""The shipped demo vectors cover every demo passage under the default
chunking and were made by the pinned model, so the app's first question
needs no embedding pass. Regenerate with scripts/make_demo_vectors.py."""

from pathlib import Path

import pytest

from ragcore.corpus import load_corpus
from ragcore.store import Library
from tests.vector_files import assert_unit_float32_of_the_pinned_model, load_shipped

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "corpus" / "demo.vectors.npz"


@pytest.fixture(scope="module")
def shipped():
    return load_shipped(VECTORS)


def test_vectors_cover_every_demo_passage(tmp_path, shipped):
    vectors, _ = shipped
    corpus = load_corpus(ROOT / "corpus" / "demo", "auto", Library(tmp_path))
    missing = [p.id for p in corpus.passages if p.content_hash not in vectors]
    assert not missing, (
        f"stale corpus/demo.vectors.npz: run scripts/make_demo_vectors.py ({len(missing)} missing)"
    )


def test_vectors_are_unit_float32_of_the_pinned_model(shipped):
    assert_unit_float32_of_the_pinned_model(*shipped)


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
