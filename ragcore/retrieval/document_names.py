"""Which documents a question names, for BM25's named-document boost
(``BM25Params.named_document_boost``).

A question names a document by every word of its name ("the refund and
cancellation policy" for refund-and-cancellation-policy.md) or by the name's
initials ("the MSA" for master-services-agreement.pdf, with
``name_acronyms``); a name with no letters (a numbered record) names nothing.
``names_document`` is the rule; the embedded index applies it through a
passages x terms matrix (``document_names``, so a query costs one sparse
sum), and other backends call it directly (backends/milvus_retriever.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from ..records import Passage
from ..text import name_acronym

if TYPE_CHECKING:
    from .bm25 import BM25Params


def name_terms(doc: str, params: BM25Params) -> tuple[frozenset[str], str]:
    """The index terms of a document's name (none when it has no letters)
    and its initials (``text.name_acronym``; "" when ``name_acronyms`` is
    off, the name has none, or they are a word of the name)."""
    stem = PurePosixPath(doc).stem
    words = frozenset(params.terms(stem)) if any(c.isalpha() for c in stem) else frozenset()
    acronym = name_acronym(doc) if params.name_acronyms and words else ""
    return words, "" if acronym in words else acronym


def names_document(terms: Set[str], doc: str, params: BM25Params) -> bool:
    """Whether a question with index ``terms`` names ``doc``: every word of
    its name, or its initials, among them."""
    return names_by_terms(terms, *name_terms(doc, params))


def names_by_terms(terms: Set[str], words: frozenset[str], acronym: str) -> bool:
    """``names_document`` for a name's ``name_terms`` made beforehand."""
    return bool(words) and (words <= terms or (bool(acronym) and acronym in terms))


def document_names(
    passages: Iterable[Passage], vocab: dict[str, int], params: BM25Params
) -> tuple[sparse.csc_matrix, np.ndarray]:
    """For ``named_document_boost``: a passages x terms matrix holding, for
    each passage, 1 for every word of its document's name and, for the
    name's initials (``name_acronym``, with ``name_acronyms``), the number of those words; and that
    number per passage (0: a document that cannot be named, e.g. a numbered
    BEIR record). A query names a passage's document when the matrix's
    entries for the query's terms sum to at least that number."""
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    sizes: list[int] = []
    known: dict[str, tuple[int, list[tuple[int, float]]]] = {}
    for row, p in enumerate(passages):
        if p.doc not in known:
            known[p.doc] = _name_entries(p.doc, vocab, params)
        size, entries = known[p.doc]
        sizes.append(size)
        for col, val in entries:
            rows.append(row)
            cols.append(col)
            vals.append(val)
    shape = (len(sizes), max(len(vocab), 1))
    matrix = sparse.csc_matrix(
        (np.asarray(vals), (np.asarray(rows, np.int32), np.asarray(cols, np.int32))), shape
    )
    return matrix, np.asarray(sizes, dtype=np.float64)


def _name_entries(doc: str, vocab: dict[str, int], params: BM25Params) -> tuple[int, list[tuple[int, float]]]:
    """A document's number of name words (0 when it has none or one is not
    indexed) and its (term id, value) entries for ``document_names``."""
    words, acronym = name_terms(doc, params)
    if not words or not words <= vocab.keys():
        return 0, []
    entries = [(vocab[w], 1.0) for w in sorted(words)]
    if acronym in vocab:
        entries.append((vocab[acronym], float(len(words))))
    return len(words), entries
