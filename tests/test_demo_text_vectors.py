"""The shipped query vectors of the demo's answer units and curated questions
(corpus/demo.text-vectors.npz, scripts/make_demo_text_vectors.py): made by
the pinned model, covering today's units, and seeded so that the first
answer in an empty home embeds none of them (#18 cold start)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ragcore.retrieval import text_vectors
from ragcore.services.indexes import DEMO_TEXT_VECTORS
from ragcore.store import Library
from tests.vector_files import assert_unit_float32_of_the_pinned_model, load_shipped

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "corpus" / DEMO_TEXT_VECTORS
MIN_COVERAGE = 0.9  # below this the file is stale enough to cost the cold start: regenerate it


def _script():
    spec = importlib.util.spec_from_file_location(
        "make_demo_text_vectors", ROOT / "scripts" / "make_demo_text_vectors.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def shipped():
    return load_shipped(VECTORS)


@pytest.fixture(scope="module")
def demo_texts(tmp_path_factory):
    return _script().demo_texts(tmp_path_factory.mktemp("home"))


@pytest.fixture(autouse=True)
def no_kept_library_after():
    yield
    text_vectors._CACHE.clear()


def test_the_file_covers_todays_demo_units(shipped, demo_texts):
    vectors, _ = shipped
    covered = sum(text_vectors.text_key(t) in vectors for t in demo_texts)
    assert covered / len(demo_texts) >= MIN_COVERAGE, (
        f"stale {VECTORS.name}: {covered} of {len(demo_texts)} units; run scripts/make_demo_text_vectors.py"
    )


def test_vectors_are_unit_float32_of_the_pinned_model_as_queries(shipped):
    assert_unit_float32_of_the_pinned_model(*shipped)
    assert shipped[1].endswith(text_vectors.MODEL_SUFFIX)


def test_seeded_units_need_no_embedding(tmp_path, shipped, demo_texts):
    from ragcore.retrieval.vectors import seed_from_precomputed

    _, model_id = shipped

    class NoEmbedding:
        model_id = shipped[1].removesuffix(text_vectors.MODEL_SUFFIX)

        def embed_query(self, text):
            raise AssertionError(f"embedded {text[:40]!r}: the shipped vectors should hold it")

    library = Library(tmp_path)
    assert seed_from_precomputed(library, VECTORS, model_id) > 0
    text_vectors.keep_in(library)
    vectors, _ = shipped
    held = [t for t in demo_texts if text_vectors.text_key(t) in vectors]
    out = text_vectors.query_vectors(NoEmbedding(), held)
    assert np.array_equal(out[0], vectors[text_vectors.text_key(held[0])])
