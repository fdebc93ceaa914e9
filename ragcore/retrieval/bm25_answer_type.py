"""The answer-type lift of BM25 (``BM25Params.answer_code_lift``): a question
that asks for a code ("Which error code ...", "What is the reference number
of ...", ``text.asks_for_identifier``) and holds none is answered by a
passage that holds a code (``text.is_code_token``) next to the question's
words. As in predictive annotation (Prager et al., SIGIR 2000: index a
token for the answer type a question asks for) and in ranking answer
candidates by the query words near them (Tellex et al., SIGIR 2003), each
sentence or table row holding a code is a *code unit*, which also carries
its passage's heading field (heading path and document name: a code in a
section headed with the subject answers it). A passage's lift is
``answer_code_lift x the query's best score x`` the share of the query's
idf mass (its distinct known terms but the words naming the answer's type,
"error code", "reference number", which the code itself answers) that its
best code unit holds, so a code standing beside the asked-about words lifts
its passage most, and a code in a running footer or a list of unrelated
codes lifts it little.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from ..records import Passage
from ..text import identifier_answer_words, identifiers, is_code_token, sentence_spans
from .bm25_rows import best_row_scores

if TYPE_CHECKING:
    from .bm25 import BM25Index, BM25Params


def code_units(text: str) -> list[str]:
    """The sentences of ``text`` that hold a code, table rows taken one line
    at a time (the sentence splitter keeps a table's rows together)."""
    out: list[str] = []
    for start, end in sentence_spans(text):
        piece = text[start:end]
        lines = piece.split("\n") if "|" in piece else [piece]
        out.extend(u for u in lines if any(is_code_token(c) for c in identifiers(u)))
    return out


def code_unit_index(
    passages: Sequence[Passage], headings: Sequence[str], index: BM25Index, params: BM25Params
) -> tuple[sparse.csc_matrix, np.ndarray]:
    """The terms (units x index terms, 1.0 where held) of every code unit of
    the passages, each with its passage's heading field, and each unit's passage."""
    rows: list[int] = []
    cols: list[int] = []
    owner: list[int] = []
    vocab = index.vocab
    for row, (p, heading) in enumerate(zip(passages, headings, strict=True)):
        units = code_units(p.text)
        if not units:
            continue
        heading_terms = params.terms(heading)
        for unit in units:
            held = {vocab[t] for t in [*params.terms(unit), *heading_terms] if t in vocab}
            rows.extend([len(owner)] * len(held))
            cols.extend(held)
            owner.append(row)
    matrix = sparse.csc_matrix(
        (np.ones(len(rows)), (np.asarray(rows, dtype=np.int32), np.asarray(cols, dtype=np.int32))),
        shape=(len(owner), max(len(vocab), 1)),
    )
    return matrix, np.asarray(owner, dtype=np.int64)


def code_unit_share(index: BM25Index, ids: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
    """Per passage, the share of the query's idf mass (its distinct known
    term ``ids`` other than ``type_ids``) that its best code unit holds (0
    for a passage with none)."""
    from .bm25 import column_sum

    uniq = np.setdiff1d(np.unique(ids), type_ids)
    weights = index.idf[uniq]
    total = float(weights.sum())
    if not len(uniq) or total <= 0 or not index.code_owner.size:
        return np.zeros(index.size, dtype=np.float64)
    by_unit = column_sum(index.code_units, uniq, weights) / total
    return best_row_scores(index.code_units, index.code_owner, by_unit, index.size)


def answer_lifted(index: BM25Index, scores: np.ndarray, query: str, ids: np.ndarray) -> np.ndarray:
    """``scores`` with each scored passage lifted by ``answer_code_lift x``
    the best score ``x`` its best code unit's share of the query."""
    if not len(scores) or not scores.max() > 0:
        return scores
    type_ids = index.term_ids(
        index.params.terms(" ".join(identifier_answer_words(query, index.params.answer_type_nouns)))
    )
    share = code_unit_share(index, ids, type_ids)
    lift = index.params.answer_code_lift * float(scores.max()) * share
    return np.where(scores > 0, scores + lift, scores)
