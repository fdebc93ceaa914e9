"""Table rows scored as passages of their own, for BM25 (``BM25Params.table_row_weight``).

A row of a Markdown pipe table ("| LF-4290 | 429 | Too many requests ... |")
answers a question on its own, yet its passage holds many rows and often the
words of other rows' questions, so the passage's score can trail passages
that share more of the question's words in passing. As in scoring a document
by its best passage (Callan, SIGIR 1994; MaxP, Dai & Callan, SIGIR 2019),
each body row is scored as a small passage holding the table's header row and
that row, with the collection's idf and average length, and its passage
scores ``max(own score, weight x best row's score)`` (bm25.BM25Index).
Rows are not counted in any term's document frequency or in the average
length, so collections without tables score exactly as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from ..records import Passage
from ..text import open_table_header, starts_with_table_row

if TYPE_CHECKING:
    from .bm25 import BM25Index, BM25Params

_SEPARATOR_CELL = frozenset("-: ")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_separator(line: str) -> bool:
    cells = _cells(line)
    return bool(cells) and all(c and set(c) <= _SEPARATOR_CELL and "-" in c for c in cells)


def table_rows(text: str, continued_header: str = "") -> list[str]:
    """Each body row of each pipe table in ``text``, as "header | row" text
    (the table's header row's cells, then the row's). A run of pipe lines
    with no separator line under its first (a table continued from the
    passage before) takes ``continued_header`` as its header, when given;
    otherwise its lines are rows with no header."""
    out: list[str] = []
    block: list[str] = []
    for line in [*text.split("\n"), ""]:
        if line.lstrip().startswith("|"):
            block.append(line)
            continue
        if block:
            out.extend(_block_rows(block, continued_header))
            block = []
    return out


def _block_rows(block: Sequence[str], continued_header: str) -> list[str]:
    if len(block) >= 2 and _is_separator(block[1]):
        header, rows = " | ".join(_cells(block[0])), block[2:]
    else:
        header, rows = continued_header, block
    body = (" | ".join(_cells(r)) for r in rows if not _is_separator(r))
    return [f"{header} | {row}" if header else row for row in body if row.strip(" |")]


def row_weights(
    token_lists: Iterable[Sequence[str]],
    vocab: dict[str, int],
    idf: np.ndarray,
    avgdl: float,
    k1: float,
    b: float,
) -> sparse.csc_matrix:
    """BM25 weights (rows x terms, CSC) of each row's tokens with the
    collection's ``idf`` and ``avgdl``; tokens the vocabulary lacks are dropped."""
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    n_rows = 0
    for n_rows, tokens in enumerate(token_lists, start=1):
        counts: dict[int, int] = {}
        for t in tokens:
            col = vocab.get(t)
            if col is not None:
                counts[col] = counts.get(col, 0) + 1
        norm = k1 * (1 - b + b * len(tokens) / avgdl)
        for col, tf in counts.items():
            rows.append(n_rows - 1)
            cols.append(col)
            vals.append(float(idf[col]) * tf * (k1 + 1) / (tf + norm))
    shape = (n_rows, max(len(vocab), 1))
    return sparse.csc_matrix(
        (np.asarray(vals, dtype=np.float64), (np.asarray(rows, np.int32), np.asarray(cols, np.int32))),
        shape=shape,
    )


def best_row_scores(
    rows: sparse.csc_matrix, owner: np.ndarray, scores_of_rows: np.ndarray, size: int
) -> np.ndarray:
    """Per passage, the best score among its rows (0 for a passage with none)."""
    best = np.zeros(size, dtype=np.float64)
    if len(scores_of_rows):
        np.maximum.at(best, np.asarray(owner), scores_of_rows)
    return best


def continued_headers(passages: Iterable[Passage]) -> Iterator[tuple[Passage, str]]:
    """Each passage with the header row of the Markdown table it continues
    (it opens on a table row and the passage before it in the same document
    ends inside a table, or continues one itself), or ""."""
    header, prev = "", None
    for p in passages:
        continues = prev is not None and prev.doc == p.doc and starts_with_table_row(p.text)
        header = (open_table_header(prev.text) or header) if continues and prev is not None else ""
        yield p, header
        prev = p


def table_row_index(
    passages: Iterable[Passage], index: BM25Index, params: BM25Params
) -> tuple[sparse.csc_matrix, np.ndarray]:
    """For ``table_row_weight``: the BM25 weights of every table row of the
    passages (``bm25_rows.table_rows``, rows x terms) and each row's passage."""
    owner: list[int] = []
    token_lists: list[list[str]] = []
    for row, (p, header) in enumerate(continued_headers(passages)):
        if "|" not in p.text:
            continue
        for text in table_rows(p.text, header if params.table_headers else ""):
            owner.append(row)
            token_lists.append(params.terms(text))
    weights = row_weights(token_lists, index.vocab, index.idf, float(index.avgdl[0]), params.k1, params.b)
    return weights, np.asarray(owner, dtype=np.int64)
