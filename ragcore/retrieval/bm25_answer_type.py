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

The value lift (``BM25Params.answer_value_lift``) is the same rule for a
question that asks for a value it does not state ("What uptime does the SLA
promise?" a percentage, "How long ..." a duration, "How much ..." an
amount; ``answer_types.asked_value``): its units are the sentences and
table rows stating a value of that kind (``answer_types.value_kinds``), and
no word of the question is set aside as naming the type. The label lift
(``BM25Params.answer_label_lift``) is the rule once more for a question asking
which document part ("Which clause ...", "Under which exhibit ...";
``answer_types.asked_label``): its units name that part by a label ("Clause
7", "Exhibit 23.1", ``answer_types.label_kinds``), and the part's noun is set
aside, since the label answers it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np
from scipy import sparse

from ..answer_types import (
    DOCUMENT_PARTS,
    VALUE_CUES,
    ValueCue,
    asked_label,
    asked_value,
    label_kinds,
    value_kinds,
)
from ..records import Passage
from ..text import asks_for_identifier, identifier_answer_words, identifiers, is_code_token, sentence_spans
from .bm25_rows import best_row_scores
from .bm25_topk import column_sum

if TYPE_CHECKING:
    from .bm25 import BM25Index, BM25Params


# What a lift acts on: ("code", ""), ("label", a document part) or ("value", a value cue).
AskedType = tuple[Literal["code", "label", "value"], str]


def asked_type(index: BM25Index, query: str) -> AskedType | None:
    """The answer type of ``query`` that a lift which is on, over units the
    index holds, acts on: a code first, then a labelled part, then a value."""
    p = index.params
    if p.answer_code_lift and index.code_owner.size and asks_for_identifier(query, p.answer_type_nouns):
        return ("code", "")
    if p.answer_label_lift and index.label_owner.size and (part := asked_label(query)):
        return ("label", part)
    if p.answer_value_lift and index.value_owner.size and (cue := asked_value(query)):
        return ("value", cue)
    return None


def type_lifted(
    index: BM25Index, scores: np.ndarray, query: str, asked: AskedType, ids: np.ndarray
) -> np.ndarray:
    """``scores`` with the lift of the ``asked`` type applied."""
    kind, name = asked
    if kind == "code":
        return answer_lifted(index, scores, query, ids)
    if kind == "label":
        return label_lifted(index, scores, name, ids)
    return value_lifted(index, scores, name, ids)  # type: ignore[arg-type]


def _pieces(text: str) -> list[str]:
    """The sentences of ``text``, table rows taken one line at a time (the
    sentence splitter keeps a table's rows together)."""
    out: list[str] = []
    for start, end in sentence_spans(text):
        piece = text[start:end]
        out.extend(piece.split("\n") if "|" in piece else [piece])
    return out


def code_units(text: str) -> list[str]:
    """The sentences or table rows of ``text`` that hold a code."""
    return [u for u in _pieces(text) if any(is_code_token(c) for c in identifiers(u))]


def value_units(text: str) -> list[tuple[str, int]]:
    """The sentences or table rows of ``text`` that state a value, each with
    the value cues it states (``answer_types.value_kinds``)."""
    kinds = [(u, value_kinds(u)) for u in _pieces(text)]
    return [(u, k) for u, k in kinds if k]


def label_units(text: str) -> list[tuple[str, int]]:
    """The sentences or table rows of ``text`` that name a document part by
    its label ("Clause 7"), each with the parts it names (``answer_types.label_kinds``)."""
    kinds = [(u, label_kinds(u)) for u in _pieces(text)]
    return [(u, k) for u, k in kinds if k]


def _unit_matrix(
    passages: Sequence[Passage],
    headings: Sequence[str],
    index: BM25Index,
    params: BM25Params,
    units_of: Callable[[str], list[tuple[str, int]]],
) -> tuple[sparse.csc_matrix, np.ndarray, np.ndarray]:
    """The terms (units x index terms, 1.0 where held) of every unit
    ``units_of`` finds in the passages, each with its passage's heading
    field; each unit's passage, and its kind bits."""
    rows: list[int] = []
    cols: list[int] = []
    owner: list[int] = []
    kinds: list[int] = []
    vocab = index.vocab
    for row, (p, heading) in enumerate(zip(passages, headings, strict=True)):
        units = units_of(p.text)
        if not units:
            continue
        heading_terms = params.terms(heading)
        for unit, kind in units:
            held = {vocab[t] for t in [*params.terms(unit), *heading_terms] if t in vocab}
            rows.extend([len(owner)] * len(held))
            cols.extend(held)
            owner.append(row)
            kinds.append(kind)
    matrix = sparse.csc_matrix(
        (np.ones(len(rows)), (np.asarray(rows, dtype=np.int32), np.asarray(cols, dtype=np.int32))),
        shape=(len(owner), max(len(vocab), 1)),
    )
    return matrix, np.asarray(owner, dtype=np.int64), np.asarray(kinds, dtype=np.uint32)


def code_unit_index(
    passages: Sequence[Passage], headings: Sequence[str], index: BM25Index, params: BM25Params
) -> tuple[sparse.csc_matrix, np.ndarray]:
    """The terms of every code unit of the passages, and each unit's passage."""
    matrix, owner, _ = _unit_matrix(
        passages, headings, index, params, lambda t: [(u, 1) for u in code_units(t)]
    )
    return matrix, owner


def value_unit_index(
    passages: Sequence[Passage], headings: Sequence[str], index: BM25Index, params: BM25Params
) -> tuple[sparse.csc_matrix, np.ndarray, np.ndarray]:
    """The terms of every value unit of the passages, each unit's passage and its value cues."""
    return _unit_matrix(passages, headings, index, params, value_units)


def label_unit_index(
    passages: Sequence[Passage], headings: Sequence[str], index: BM25Index, params: BM25Params
) -> tuple[sparse.csc_matrix, np.ndarray, np.ndarray]:
    """The terms of every label unit of the passages, each unit's passage and the parts it names."""
    return _unit_matrix(passages, headings, index, params, label_units)


def add_answer_units(index: BM25Index, passages: Sequence[Passage], headings: Sequence[str]) -> None:
    """Build into ``index`` the units of each lift its parameters turn on."""
    params = index.params
    if params.answer_code_lift:
        index.code_units, index.code_owner = code_unit_index(passages, headings, index, params)
    if params.answer_value_lift:
        index.value_units, index.value_owner, index.value_kinds = value_unit_index(
            passages, headings, index, params
        )
    if params.answer_label_lift:
        index.label_units, index.label_owner, index.label_kinds = label_unit_index(
            passages, headings, index, params
        )


def unit_share(
    index: BM25Index,
    units: sparse.csc_matrix,
    owner: np.ndarray,
    ids: np.ndarray,
    type_ids: np.ndarray,
    keep: np.ndarray | None = None,
) -> np.ndarray:
    """Per passage, the share of the query's idf mass (its distinct known
    term ``ids`` other than ``type_ids``) that its best unit holds (0 for a
    passage with none); only the units ``keep`` marks count, when given."""
    uniq = np.setdiff1d(np.unique(ids), type_ids)
    weights = index.idf[uniq]
    total = float(weights.sum())
    if not len(uniq) or total <= 0 or not owner.size:
        return np.zeros(index.size, dtype=np.float64)
    by_unit = column_sum(units, uniq, weights) / total
    if keep is not None:
        by_unit = np.where(keep, by_unit, 0.0)
    return best_row_scores(units, owner, by_unit, index.size)


def code_unit_share(index: BM25Index, ids: np.ndarray, type_ids: np.ndarray) -> np.ndarray:
    """``unit_share`` over the code units."""
    return unit_share(index, index.code_units, index.code_owner, ids, type_ids)


def _lifted(scores: np.ndarray, lift: float, share: np.ndarray) -> np.ndarray:
    """Each scored passage lifted by ``lift x`` the best score ``x`` its share."""
    return np.where(scores > 0, scores + lift * float(scores.max()) * share, scores)


def answer_lifted(index: BM25Index, scores: np.ndarray, query: str, ids: np.ndarray) -> np.ndarray:
    """``scores`` with each scored passage lifted by ``answer_code_lift x``
    the best score ``x`` its best code unit's share of the query."""
    if not len(scores) or not scores.max() > 0:
        return scores
    type_ids = index.term_ids(
        index.params.terms(" ".join(identifier_answer_words(query, index.params.answer_type_nouns)))
    )
    return _lifted(scores, index.params.answer_code_lift, code_unit_share(index, ids, type_ids))


def value_lifted(index: BM25Index, scores: np.ndarray, cue: ValueCue, ids: np.ndarray) -> np.ndarray:
    """``scores`` with each scored passage lifted by ``answer_value_lift x``
    the best score ``x`` the share of the query held by its best unit stating
    a value of kind ``cue``."""
    if not len(scores) or not scores.max() > 0:
        return scores
    keep = (index.value_kinds & (1 << VALUE_CUES.index(cue))) > 0
    none = np.zeros(0, dtype=np.int64)
    share = unit_share(index, index.value_units, index.value_owner, ids, none, keep)
    return _lifted(scores, index.params.answer_value_lift, share)


def label_lifted(index: BM25Index, scores: np.ndarray, part: str, ids: np.ndarray) -> np.ndarray:
    """``scores`` with each scored passage lifted by ``answer_label_lift x``
    the best score ``x`` the share of the query (but the part's own noun,
    which the label answers) held by its best unit naming a ``part`` by label."""
    if not len(scores) or not scores.max() > 0:
        return scores
    keep = (index.label_kinds & (1 << DOCUMENT_PARTS.index(part))) > 0
    type_ids = index.term_ids(index.params.terms(part))
    share = unit_share(index, index.label_units, index.label_owner, ids, type_ids, keep)
    return _lifted(scores, index.params.answer_label_lift, share)
