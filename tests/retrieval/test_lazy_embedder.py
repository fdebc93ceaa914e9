"""The app's lazily loaded embedder (#18 cold start): its model id without a
load, known query vectors answered without a load, everything else from the
loaded model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragcore.retrieval import embedding, lazy_embedder
from ragcore.retrieval.lazy_embedder import LazyEmbedder, read_known
from ragcore.retrieval.model_registry import DEFAULT_MODEL
from ragcore.retrieval.text_vectors import MODEL_SUFFIX, text_key

PINNED_ID = f"{DEFAULT_MODEL.name}@sha256:{DEFAULT_MODEL.files[DEFAULT_MODEL.model_file][:16]}"


class FakeModel:
    model_id = PINNED_ID
    load_seconds = 0.25
    source = "package"

    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return np.full(DEFAULT_MODEL.dim, 0.5, dtype=np.float32)

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        return np.ones((len(texts), DEFAULT_MODEL.dim), dtype=np.float32)


@pytest.fixture
def loads(monkeypatch) -> list[FakeModel]:
    """Each model load, in order (a fake model: these tests never load the real one)."""
    made: list[FakeModel] = []

    def fake_get_embedder(spec=DEFAULT_MODEL, threads=None):
        made.append(FakeModel())
        return made[-1]

    monkeypatch.setattr(embedding, "get_embedder", fake_get_embedder)
    return made


def _known_file(path: Path, texts: list[str], model_id: str = PINNED_ID + MODEL_SUFFIX) -> Path:
    vectors = np.stack([np.eye(DEFAULT_MODEL.dim, dtype=np.float32)[i] for i in range(len(texts))])
    np.savez_compressed(
        path, hashes=np.asarray([text_key(t) for t in texts], dtype="U64"), vectors=vectors, model_id=model_id
    )
    return path


def test_the_model_id_is_the_loaded_models_without_a_load(loads) -> None:
    lazy = LazyEmbedder()
    assert lazy.model_id == PINNED_ID
    assert lazy.dim == DEFAULT_MODEL.dim
    assert loads == [] and lazy.loaded is None and lazy.load_seconds is None


def test_a_known_question_is_answered_from_the_file_without_a_load(tmp_path, loads) -> None:
    lazy = LazyEmbedder()
    lazy.know(_known_file(tmp_path / "q.npz", ["Is our pricing consistent?", "What is the SLA?"]))
    vector = lazy.embed_query("What is the SLA?")
    assert vector[1] == 1.0 and vector.sum() == 1.0
    assert not vector.flags.writeable
    assert loads == []


def test_any_other_text_loads_the_model_once_and_asks_it(tmp_path, loads) -> None:
    lazy = LazyEmbedder()
    lazy.know(_known_file(tmp_path / "q.npz", ["What is the SLA?"]))
    assert lazy.embed_query("something else")[0] == 0.5
    assert lazy.embed_passages(["a", "b"]).shape == (2, DEFAULT_MODEL.dim)
    assert len(loads) == 1 and lazy.loaded is loads[0]
    assert loads[0].queries == ["something else"]
    assert lazy.load_seconds == 0.25 and lazy.source == "package"  # the rest from the loaded model


def test_once_loaded_the_model_answers_known_questions_too(tmp_path, loads) -> None:
    lazy = LazyEmbedder()
    lazy.know(_known_file(tmp_path / "q.npz", ["What is the SLA?"]))
    lazy.load()
    assert lazy.embed_query("What is the SLA?")[0] == 0.5
    assert loads[0].queries == ["What is the SLA?"]


def test_a_file_of_another_model_or_a_broken_file_is_not_used(tmp_path, loads) -> None:
    lazy = LazyEmbedder()
    lazy.know(_known_file(tmp_path / "other.npz", ["What is the SLA?"], model_id="other-model#query-text"))
    (tmp_path / "broken.npz").write_bytes(b"not a zip")
    lazy.know(tmp_path / "broken.npz")
    lazy.know(tmp_path / "missing.npz")
    assert read_known(tmp_path / "broken.npz", PINNED_ID + MODEL_SUFFIX) == {}
    lazy.embed_query("What is the SLA?")
    assert len(loads) == 1


def test_the_shared_embedder_is_one_per_process(monkeypatch) -> None:
    monkeypatch.setattr(lazy_embedder, "_SHARED", {})
    assert lazy_embedder.shared_embedder() is lazy_embedder.shared_embedder()
