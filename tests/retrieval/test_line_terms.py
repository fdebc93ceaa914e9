"""Terms joined from lines tokenised ahead are the terms of the whole text,
and a BM25 index built from them is the index built without them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ragcore.chunking import chunk_document
from ragcore.documents import load_path
from ragcore.retrieval import line_terms
from ragcore.retrieval.bm25 import BM25Index, BM25Params, index_texts
from ragcore.retrieval.line_terms import LineTerms
from ragcore.services.common import DEMO_DIR
from ragcore.text import search_terms
from tests.conftest import SHARED_DIR, require_shared

# Line edges that matter to the tokeniser: identifiers and spaced codes broken
# over a line, amounts, apostrophes, a final sigma, a combining mark opening a
# line, NFKC ligatures and full-width digits, CR inside a line, empty lines.
TRICKY = [
    "Refunds within 30 days: $1,199.00 or 99.9% of ISO-",
    "27001 and SOC",
    "2 audits; ERR_4012 / v2.3.1 and 2021-01-08.",
    "ΟΔΟΣ ΚΑΙ ΛΟΓΟΣ",
    "\u0301accented start, caf\u00e9 and cafe\u0301",
    "ﬁnance ﬂow １２３ ½ don’t can't",
    "trailing\rcarriage return | LF-4290 | 429 |",
    "",
    "   indented SOC 2 Type II ",
    "Σ",
    "ISO 27001",
]


@pytest.fixture(autouse=True)
def _no_lines_left() -> None:
    line_terms.forget()
    yield
    line_terms.forget()


def _tokeniser(params: BM25Params) -> LineTerms:
    return LineTerms(params.stemming, params.stop_list, params.whole_identifiers)


@pytest.mark.parametrize(
    "params", [BM25Params(), BM25Params(stemming=False, stop_list="short", whole_identifiers=False)]
)
def test_joined_lines_give_the_whole_texts_terms(params: BM25Params) -> None:
    text = "\n".join(TRICKY)
    line_terms.prefill(text, _tokeniser(params))
    rng = random.Random(7)
    for _ in range(300):  # passages of these lines, some starting or ending inside one
        start = rng.randrange(len(text))
        piece = text[start : start + rng.randrange(1, 160)]
        assert _tokeniser(params).terms(piece) == params.terms(piece), piece
    assert _tokeniser(params).terms(text) == params.terms(text)


def test_other_settings_do_not_use_the_lines() -> None:
    line_terms.prefill("Refunds refunded\nrefunding", _tokeniser(BM25Params()))
    plain = BM25Params(stemming=False)
    assert _tokeniser(plain).terms("Refunds refunded\nrefunding") == ["refunds", "refunded", "refunding"]


def _same_index(a: BM25Index, b: BM25Index) -> None:
    assert a.vocab == b.vocab and np.array_equal(a.idf, b.idf)
    for name in ("matrix", "heading", "bigrams", "rows", "names"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.shape == y.shape and (x != y).nnz == 0, name
    assert np.array_equal(a.row_owner, b.row_owner)


def _check_build(docs) -> int:
    passages = [p for doc in docs for p in chunk_document(doc, "auto")]
    params = BM25Params()
    without = BM25Index.from_passages(passages, params)
    used = 0
    for doc in docs:
        used += line_terms.prefill(doc.text, _tokeniser(params))
        mine = [p for p in passages if p.doc == doc.name]
        for text in index_texts(mine, params):
            assert _tokeniser(params).terms(text) == search_terms(text), doc.name
    _same_index(BM25Index.from_passages(passages, params), without)  # the last file's lines in use
    return used


def test_demo_corpus_builds_the_same_index() -> None:
    docs = [load_path(p) for p in sorted(DEMO_DIR.iterdir()) if p.suffix in {".md", ".txt", ".pdf"}]
    assert _check_build(docs) > 500


def test_a_10k_builds_the_same_index() -> None:
    path = require_shared(SHARED_DIR / "documents" / "sec-10k" / "uber_2021_10k.pdf")
    assert _check_build([load_path(path)]) > 5000


def test_a_large_file_is_not_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(line_terms, "MAX_LINES", 2)
    assert line_terms.prefill("a\nb\nc", _tokeniser(BM25Params())) == 0
    assert line_terms._memo is None
