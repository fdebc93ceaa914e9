"""Table rows as extra vectors of their passage, for dense search (a study,
not shipped: the retriever does not use it; the cross-validation that
measured it is scripts/dense_row_cv.py, docs/decisions.md "Dense table rows").

A passage holding a Markdown table has one vector for all its rows, so a
question about one row ("What does error LF-4290 mean?") meets a blur of
every row; BM25 scores each row on its own (``bm25_rows``), dense did not.
Here each body row, with its table's header row and the passage's
contextual header (``Passage.embedding_text``), is embedded as a vector of
its own, and its passage scores ``max(own cosine, weight x best row's
cosine)``: the dense analogue of scoring a document by its best passage
(MaxP, Dai & Callan, SIGIR 2019; multi-vector passages as in ColBERT,
Khattab & Zaharia, SIGIR 2020, here one vector per row). The weight is
chosen by leave-one-group-out cross-validation (scripts/dense_row_cv.py;
docs/decisions.md, "Dense table rows").

Which passages hold rows is what the BM25 index already knows
(``BM25Index.row_owner``): a library without tables pays nothing. Row
vectors are kept in the vector cache (the library's embeddings) under the
model id plus ``ROW_MODEL_SUFFIX``, keyed by the row text's hash, so a
restart embeds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcore.records import Passage, sha256_hex
from ragcore.retrieval.bm25_rows import continued_headers, table_rows
from ragcore.retrieval.protocols import EmbedderLike, VectorCache

ROW_MODEL_SUFFIX = "#table-rows"
EMBED_BATCH = 8
Ranking = list[tuple[int, float]]


def _context(p: Passage) -> str:
    """What ``embedding_text`` puts before the passage's text ("" or a header and a blank line)."""
    full = p.embedding_text
    return full[: len(full) - len(p.text)] if full.endswith(p.text) else ""


def _chain(passages: Sequence[Passage], row: int) -> list[Passage]:
    """``row``'s passage and the passages before it whose table it continues."""
    first = row
    while (
        first > 0
        and passages[first - 1].doc == passages[row].doc
        and passages[first].text.lstrip().startswith("|")
    ):
        first -= 1
    return list(passages[first : row + 1])


def row_texts(passages: Sequence[Passage], owners: Sequence[int]) -> tuple[list[str], np.ndarray]:
    """The embedding text of every table row of the passages ``owners`` (rows
    of ``passages``), and each row text's passage row."""
    texts: list[str] = []
    owner: list[int] = []
    for row in sorted(set(int(r) for r in owners)):
        p, header = list(continued_headers(_chain(passages, row)))[-1]
        context = _context(p)
        for text in table_rows(p.text, header):
            texts.append(context + text)
            owner.append(row)
    return texts, np.asarray(owner, dtype=np.int64)


@dataclass
class RowVectors:
    """Unit vectors of table rows (m, dim) and each one's passage row."""

    vectors: np.ndarray
    owner: np.ndarray

    @property
    def empty(self) -> bool:
        return not len(self.owner)

    def best(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(passage rows holding table rows, each one's best row cosine with ``query``)."""
        scores = self.vectors @ np.asarray(query, dtype=np.float32)
        rows, slot = np.unique(self.owner, return_inverse=True)
        best = np.full(len(rows), -np.inf)
        np.maximum.at(best, slot, scores.astype(np.float64))
        return rows, best


def row_vectors(
    passages: Sequence[Passage], owners: Sequence[int], embedder: EmbedderLike, cache: VectorCache | None
) -> RowVectors:
    """The row vectors of the passages ``owners``, from ``cache`` when there
    (stored there when embedded now)."""
    texts, owner = row_texts(passages, owners)
    if not texts:
        return RowVectors(np.zeros((0, 0), dtype=np.float32), owner)
    model = embedder.model_id + ROW_MODEL_SUFFIX
    hashes = [sha256_hex(t) for t in texts]
    cached = cache.get_vectors(list(set(hashes)), model) if cache is not None else {}
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}
    if missing:
        vecs = embedder.embed_passages(list(missing.values()), batch_size=EMBED_BATCH)
        new = dict(zip(missing, (np.asarray(v, dtype=np.float32) for v in vecs), strict=True))
        if cache is not None:
            cache.put_vectors(new, model)
        cached = {**cached, **new}
    return RowVectors(np.vstack([cached[h] for h in hashes]).astype(np.float32), owner)


def with_rows(
    ranking: Ranking, own: np.ndarray, rows: np.ndarray, best: np.ndarray, weight: float, k: int
) -> Ranking:
    """The dense top ``k`` with each passage of ``rows`` (own cosine ``own``,
    best row cosine ``best``) scored ``max(own, weight x best)``. ``ranking``
    is the plain top ``k`` (or more): a passage without rows keeps its
    score, so the combined top ``k`` is among ``ranking`` and ``rows``."""
    scores = dict(ranking)
    for row, o, b in zip(rows.tolist(), own.tolist(), best.tolist(), strict=True):
        scores[row] = max(o, weight * b)
    ordered = sorted(scores.items(), key=lambda rs: (-rs[1], rs[0]))
    return [(int(r), float(s)) for r, s in ordered[:k]]
