"""Unknown question words searched by their nearest collection words
(``retrieval.word_neighbours``), with the toy embedder of test_retriever: a
word of a concept group lies on that group's axis, so "availability" is
"uptime"'s neighbour and "cipher" (in no group) is nobody's."""

import numpy as np
import pytest
from test_retriever import ToyEmbedder, make_corpus

from ragcore.errors import ModelError
from ragcore.records import sha256_hex
from ragcore.retrieval import Retriever
from ragcore.retrieval.bm25 import BM25Params
from ragcore.retrieval.word_neighbours import (
    MODEL_SUFFIX,
    Expansion,
    WordNeighbours,
    collection_words,
    unknown_words,
)
from ragcore.store import Library

ON = Expansion(weight=1.0, min_similarity=0.6)


@pytest.fixture
def retriever():
    return Retriever(make_corpus(), embedder=ToyEmbedder())


def _ranking(retriever, question, mode="bm25"):
    return [(h.passage.doc, h.passage.index) for h in retriever.search(question, mode, 6).hits]


def test_unknown_words_skip_known_stop_and_name_words(retriever):
    vocab, params = retriever.bm25.vocab, BM25Params()
    assert unknown_words(
        "What availability does the Japan office promise for SLA uptime?", params, vocab
    ) == [
        "availability",
        "office",
        "promise",
    ]
    # Each word once; a word the collection holds (any inflection) is not unknown.
    assert unknown_words("availability, availability and credit", params, vocab) == ["availability"]
    assert unknown_words("FedRAMP rules", params, vocab) == ["rules"]


def test_collection_words_keep_one_surface_form_per_term(retriever):
    found, terms = collection_words(retriever.passages, BM25Params(), retriever.bm25.vocab)
    assert len(found) == len(terms) == len(set(terms))
    assert "uptime" in found and all(t in retriever.bm25.vocab for t in terms)
    assert "the" not in found  # stop words are not terms


def test_an_unknown_word_finds_the_passage_by_its_neighbour(retriever):
    question = "What availability is promised?"
    assert ("sla.md", 0) not in _ranking(retriever, question)
    retriever.expansion = ON
    result = retriever.search(question, "bm25", 3)
    assert (result.hits[0].passage.doc, result.hits[0].passage.index) == ("sla.md", 0)
    assert any("'availability' as uptime" in note for note in result.notes)


def test_off_by_default_and_questions_without_unknown_words_unchanged(retriever):
    assert retriever.expansion.weight == 0  # not shipped: scripts/word_neighbours_cv.py
    questions = ["Business plan $999", "monthly uptime guarantee", "reset password login"]
    before = {(q, m): _ranking(retriever, q, m) for q in questions for m in ("bm25", "hybrid")}
    calls = retriever.embedder.calls
    retriever.expansion = ON
    assert {(q, m): _ranking(retriever, q, m) for q in questions for m in ("bm25", "hybrid")} == before
    assert retriever.embedder.calls == calls  # no word vectors were made for them


def test_neighbours_below_the_floor_are_not_searched(retriever):
    retriever.expansion = Expansion(weight=1.0, min_similarity=1.01)  # no cosine reaches it
    result = retriever.search("cipher", "bm25", 3)
    assert result.hits == [] and not any("searched" in n for n in result.notes)


def test_word_vectors_are_kept_in_the_vector_cache(tmp_path):
    library = Library(tmp_path)
    first, second = ToyEmbedder(), ToyEmbedder()
    corpus = make_corpus()
    for embedder in (first, second):
        r = Retriever(corpus, embedder=embedder, vector_cache=library)
        r.expansion = ON
        r.search("What availability is promised?", "bm25", 3)
    assert first.calls > 0 and second.calls == 0
    found, _ = collection_words(corpus.passages, BM25Params(), r.bm25.vocab)
    assert first.calls == len(found)  # one vector a collection word, kept under the model's "#words" id

    assert len(library.get_vectors([sha256_hex(w) for w in found], "toy" + MODEL_SUFFIX)) == len(found)


def test_a_missing_model_leaves_bm25_as_written(retriever):
    def unavailable():
        raise ModelError("model files not found")

    neighbours = WordNeighbours(retriever.passages, lambda: BM25Params(), lambda: retriever.bm25.vocab, None)
    notes: list[str] = []
    assert neighbours.weighted_terms("What availability?", unavailable, ON, notes) == []
    assert notes == ["unknown words not expanded: model files not found"]


def test_weights_are_weight_times_similarity(retriever):
    neighbours = retriever.word_neighbours
    found = neighbours.expand("availability", retriever.embedder, ON)
    terms = neighbours.weighted_terms("availability", lambda: retriever.embedder, Expansion(0.5, 0.6), [])
    assert found and {n.neighbour for n in found} <= {"uptime", "guarantee"}
    assert np.allclose([w for _, w in terms], [0.5 * n.similarity for n in found])
