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

import re
from collections.abc import Sequence
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
    from .bm25 import BM25Index


_DIGIT = re.compile(r"\d")
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


_VALUE_NAMES = {
    "amount": "an amount",
    "percent": "a percentage",
    "duration": "a span of time",
    "date": "a date",
    "count": "a number",
}


def lift_note(asked: AskedType) -> str:
    """What a lift did, in words for a search's notes."""
    kind, name = asked
    if kind == "code":
        wanted, holding = "a code", "holding a code"
    elif kind == "label":
        wanted, holding = f"which {name}", f"naming a {name} by its label"
    else:
        wanted = _VALUE_NAMES.get(name, "a value")
        holding = f"stating {wanted}"
    return f"the question asks for {wanted}: BM25 lifted passages {holding} beside its words"


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


def answer_pieces(text: str, wants: tuple[bool, bool, bool]) -> list[tuple[str, tuple[int, int, int]]]:
    """The sentences or table rows of ``text`` that are units of a lift in
    ``wants`` (code, value, label), each with what it holds (``_unit_kinds``)."""
    found = [(piece, _unit_kinds(piece, wants)) for piece in _pieces(text)]
    return [(piece, kinds) for piece, kinds in found if any(kinds)]


def code_units(text: str) -> list[str]:
    """The sentences or table rows of ``text`` that hold a code."""
    return [piece for piece, _ in answer_pieces(text, (True, False, False))]


def value_units(text: str) -> list[tuple[str, int]]:
    """The sentences or table rows of ``text`` that state a value, each with
    the value cues it states (``answer_types.value_kinds``)."""
    return [(piece, kinds[1]) for piece, kinds in answer_pieces(text, (False, True, False))]


class _Units:
    """One lift's units as they are found: each unit's terms, passage and kind bits."""

    def __init__(self) -> None:
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.owner: list[int] = []
        self.kinds: list[int] = []

    def add(self, held: set[int], row: int, kind: int) -> None:
        self.rows.extend([len(self.owner)] * len(held))
        self.cols.extend(held)
        self.owner.append(row)
        self.kinds.append(kind)

    def build(self, n_terms: int) -> tuple[sparse.csc_matrix, np.ndarray, np.ndarray]:
        """The terms (units x index terms, 1.0 where held), each unit's passage, its kind bits."""
        rows, cols = np.asarray(self.rows, dtype=np.int32), np.asarray(self.cols, dtype=np.int32)
        matrix = sparse.csc_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(self.owner), n_terms))
        return matrix, np.asarray(self.owner, dtype=np.int64), np.asarray(self.kinds, dtype=np.uint32)


def _unit_kinds(piece: str, wants: tuple[bool, bool, bool]) -> tuple[int, int, int]:
    """Whether ``piece`` is a code unit, and the value cues and labelled parts it states."""
    # A code token holds a digit (text.is_code_token): a piece with none holds no code.
    has_digit = _DIGIT.search(piece) is not None or not piece.isascii()
    code = int(wants[0] and has_digit and any(is_code_token(c) for c in identifiers(piece)))
    lower = piece.lower()
    return code, value_kinds(piece, lower) if wants[1] else 0, label_kinds(piece, lower) if wants[2] else 0


def add_answer_units(index: BM25Index, passages: Sequence[Passage]) -> None:
    """Build into ``index`` the units of each lift its parameters turn on, in
    one pass over the passages' sentences and rows: each unit's terms are
    its own and its passage's heading field (the index's heading terms)."""
    p = index.params
    wants = (p.answer_code_lift > 0, p.answer_value_lift > 0, p.answer_label_lift > 0)
    if not any(wants):
        return
    heads = index.heading.tocsr()
    found = (_Units(), _Units(), _Units())
    vocab = index.vocab
    for row, passage in enumerate(passages):
        heading = heads.indices[heads.indptr[row] : heads.indptr[row + 1]].tolist()
        for piece, kinds in answer_pieces(passage.text, wants):
            held = {vocab[t] for t in p.terms(piece) if t in vocab}.union(heading)
            for units, kind in zip(found, kinds, strict=True):
                if kind:
                    units.add(held, row, kind)
    n_terms = max(len(vocab), 1)
    if wants[0]:
        index.code_units, index.code_owner, _ = found[0].build(n_terms)
    if wants[1]:
        index.value_units, index.value_owner, index.value_kinds = found[1].build(n_terms)
    if wants[2]:
        index.label_units, index.label_owner, index.label_kinds = found[2].build(n_terms)


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
