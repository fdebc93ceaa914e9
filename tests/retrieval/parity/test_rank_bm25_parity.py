"""With both bonuses off, our vectorised BM25 equals rank_bm25.BM25Okapi on
the same tokens, including its floor for negative idf (kept apart, as bm25s
keeps its comparisons with other libraries)."""

import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from ragcore.retrieval.bm25 import BM25Index, BM25Params
from ragcore.text import tokenize


def _random_corpus(seed: int, n_docs: int = 300, vocab: int = 60) -> list[list[str]]:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(vocab)]
    # Skewed draws make some words occur in most documents (negative idf).
    return [
        [rng.choice(words[: rng.randint(1, vocab)]) for _ in range(rng.randint(1, 40))] for _ in range(n_docs)
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.9, 0.4), (1.5, 1.0)])
def test_scores_equal_rank_bm25(seed, k1, b):
    docs = _random_corpus(seed)
    ours = BM25Index(docs, params=BM25Params(k1=k1, b=b).plain())
    ref = BM25Okapi(docs, k1=k1, b=b, epsilon=0.25)
    rng = random.Random(seed + 100)
    for _ in range(20):
        query = [f"w{rng.randint(0, 70)}" for _ in range(rng.randint(1, 5))]  # some unseen words
        np.testing.assert_allclose(ours.scores(query), ref.get_scores(query), rtol=0, atol=1e-9)


def test_negative_idf_floor_matches():
    # "common" is in 15 of 20 documents: its raw idf is negative and gets
    # rank_bm25's floor (epsilon times the mean idf), which is positive here.
    docs = [[f"rare{i}", "common"] if i < 15 else [f"rare{i}"] for i in range(20)]
    ours = BM25Index(docs, params=BM25Params().plain())
    ref = BM25Okapi(docs, k1=BM25Params().k1, b=BM25Params().b)
    assert ref.idf["common"] == pytest.approx(0.25 * ref.average_idf) and ref.idf["common"] > 0
    np.testing.assert_allclose(ours.scores(["common"]), ref.get_scores(["common"]), atol=1e-12)
    assert ours.scores(["common"])[0] > 0


def test_real_text_tokens_equal_rank_bm25():
    texts = [
        "The Business plan costs $999/month, billed monthly.",
        "Refunds are issued within 30 days of a cancelled subscription.",
        "Our uptime guarantee is 99.99% for every paid plan.",
        "Cleaning schedules: the office is cleaned every Friday.",
        "",
    ]
    tokens = [tokenize(t) for t in texts]
    ours = BM25Index(tokens, params=BM25Params().plain())
    ref = BM25Okapi(tokens, k1=BM25Params().k1, b=BM25Params().b)
    for q in ("how much is the business plan", "when is it clean", "99.99% uptime", "$999"):
        qt = tokenize(q)
        np.testing.assert_allclose(ours.scores(qt), ref.get_scores(qt), atol=1e-12)


def test_two_document_corpus_equals_rank_bm25_in_plain_mode():
    # A term in exactly half the documents has idf 0 under rank_bm25.
    docs = [["alpha", "beta"], ["gamma"]]
    ours = BM25Index(docs, params=BM25Params().plain())
    ref = BM25Okapi(docs, k1=BM25Params().k1, b=BM25Params().b)
    np.testing.assert_allclose(ours.scores(["alpha"]), ref.get_scores(["alpha"]), atol=1e-12)
    assert ours.scores(["alpha"]).max() == 0.0


def test_default_analyser_tokens_equal_rank_bm25():
    # The default analyser (English stop list, whole identifiers) changes the
    # tokens, not the scoring: from_texts in plain mode equals rank_bm25 on them.
    texts = [
        "Error ERR-4012 means the ISO-27001 audit failed on v2.3.1.",
        "The SOC 2 report costs $1,199; a SOC 1 report is cheaper.",
        "What should we do when the error ERR-4013 appears?",
        "Nothing here but ordinary words about lunch.",
    ]
    params = BM25Params().plain()
    tokens = [params.terms(t) for t in texts]
    ours = BM25Index.from_texts(texts, params=params)
    ref = BM25Okapi(tokens, k1=BM25Params().k1, b=BM25Params().b)
    for q in ("ERR-4012", "what does SOC 2 cost", "$1,199", "iso 27001 audit"):
        qt = params.terms(q)
        np.testing.assert_allclose(ours.scores(qt), ref.get_scores(qt), atol=1e-12)
