"""Answer units' query vectors kept in the library across restarts (#18):
the same vectors as embedding them afresh, none re-embedded after a
restart, questions never stored, and a library that fails costs nothing."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from ragcore.answer.semantic import embedding_similarity
from ragcore.retrieval import text_vectors
from ragcore.store import Library

UNITS = ["Refunds are issued within 30 days.", "The Team plan costs $20 per seat.", "Annual plans renew."]


class CountingEmbedder:
    """Deterministic unit vectors from the text; counts what it embedded."""

    model_id = "fake-model@sha256:0"

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.embedded.append(text)
        rng = np.random.default_rng(sum(map(ord, text)))
        v = rng.standard_normal(8).astype(np.float32)
        return v / np.linalg.norm(v)


@pytest.fixture(autouse=True)
def no_kept_library_after():
    yield
    text_vectors._CACHE.clear()


@pytest.fixture
def library(tmp_path):
    lib = Library(tmp_path / "home")
    text_vectors.keep_in(lib)
    yield lib
    lib.close()


def test_a_restart_embeds_no_unit_again_and_scores_are_identical(library):
    first = CountingEmbedder()
    before = embedding_similarity(first)("How long do refunds take?", UNITS)
    assert first.embedded == ["How long do refunds take?", *UNITS]
    again = CountingEmbedder()  # a new process: the in-memory cache is empty
    after = embedding_similarity(again)("How long do refunds take?", UNITS)
    assert again.embedded == ["How long do refunds take?"]  # only the question
    assert after == before


def test_the_question_is_never_stored(library):
    embedding_similarity(CountingEmbedder())("a private question", UNITS[:1])
    model_id = CountingEmbedder.model_id + text_vectors.MODEL_SUFFIX
    kept = library.get_vectors([text_vectors.text_key("a private question")], model_id)
    assert kept == {}
    assert set(library.get_vectors([text_vectors.text_key(UNITS[0])], model_id)) == {
        text_vectors.text_key(UNITS[0])
    }


def test_unit_vectors_are_kept_apart_from_passage_vectors(library):
    text_vectors.query_vectors(CountingEmbedder(), UNITS)
    assert library.count_vectors(CountingEmbedder.model_id) == 0
    assert library.count_vectors(CountingEmbedder.model_id + text_vectors.MODEL_SUFFIX) == len(UNITS)


def test_repeated_units_are_embedded_once(library):
    embedder = CountingEmbedder()
    vectors = text_vectors.query_vectors(embedder, [UNITS[0], UNITS[1], UNITS[0]])
    assert embedder.embedded == [UNITS[0], UNITS[1]]
    assert np.array_equal(vectors[0], vectors[2])


def test_a_library_that_fails_is_skipped(tmp_path):
    class Broken:
        def get_vectors(self, hashes, model_id):
            import sqlite3

            raise sqlite3.OperationalError("disk I/O error")

        def put_vectors(self, vectors, model_id):
            raise AssertionError("not reached")

    broken = Broken()
    text_vectors.keep_in(broken)
    embedder = CountingEmbedder()
    assert len(text_vectors.query_vectors(embedder, UNITS)) == len(UNITS)
    assert embedder.embedded == UNITS


def test_a_library_that_is_gone_is_not_used(tmp_path):
    lib = Library(tmp_path / "home")
    text_vectors.keep_in(lib)
    lib.close()
    del lib
    gc.collect()
    assert text_vectors._kept() is None
    embedder = CountingEmbedder()
    text_vectors.query_vectors(embedder, UNITS)
    assert embedder.embedded == UNITS
