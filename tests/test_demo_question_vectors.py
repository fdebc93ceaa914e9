"""The shipped query vectors of the Ask page's example questions
(corpus/demo.question-vectors.npz, scripts/make_demo_question_vectors.py):
every text the examples' answers embed, each the pinned model's own vector,
so the first demo answer after a start needs no model load and answers the
same (#18 cold start)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ragcore.retrieval.text_vectors import MODEL_SUFFIX, text_key
from ragcore.services.common import DEMO_COLLECTION, DEMO_QUESTIONS
from ragcore.services.indexes import DEMO_QUESTION_VECTORS
from tests.vector_files import assert_unit_float32_of_the_pinned_model, load_shipped

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "corpus" / DEMO_QUESTION_VECTORS


@pytest.fixture(scope="module")
def shipped():
    return load_shipped(VECTORS)


@pytest.fixture(scope="module")
def model():
    from ragcore.retrieval.embedding import get_embedder

    return get_embedder()


def _script():
    spec = importlib.util.spec_from_file_location(
        "make_demo_question_vectors", ROOT / "scripts" / "make_demo_question_vectors.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_file_holds_the_examples_as_the_pinned_models_queries(shipped, model) -> None:
    vectors, model_id = shipped
    assert_unit_float32_of_the_pinned_model(vectors, model_id)
    assert model_id == model.model_id + MODEL_SUFFIX
    assert {text_key(q) for q in DEMO_QUESTIONS} <= set(vectors)


def test_every_text_the_examples_embed_is_in_the_file_with_the_models_vector(
    tmp_path, shipped, model
) -> None:
    vectors, _ = shipped
    queries = _script().example_queries(tmp_path, model)
    assert len(queries) >= len(DEMO_QUESTIONS)
    for text, vector in queries.items():
        assert text_key(text) in vectors, f"not in {VECTORS.name}: {text!r} (re-run the script)"
        np.testing.assert_allclose(vectors[text_key(text)], vector, atol=1e-5)


def test_the_examples_are_answered_without_loading_the_model(tmp_path, monkeypatch) -> None:
    from ragcore.answer import semantic
    from ragcore.retrieval import lazy_embedder
    from ragcore.services.workspace import Workspace

    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path))
    monkeypatch.setattr(lazy_embedder, "_SHARED", {})  # a process-wide model not yet loaded
    monkeypatch.setattr(semantic, "_SHARED", [])
    ws = Workspace(tmp_path)
    ws.collections.ensure_demo()
    ws.indexes.ensure_dense(DEMO_COLLECTION)
    for question in DEMO_QUESTIONS:
        outcome = ws.asking.ask(DEMO_COLLECTION, question, mode="hybrid", env={})
        assert outcome.answer is not None and outcome.hits
        assert any(h.trace.get("dense") is not None for h in outcome.hits)
    assert ws.indexes.loaded_embedder is None
