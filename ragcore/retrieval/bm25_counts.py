"""Term counts gathered while a BM25 index is built (``bm25.BM25Index``):
per passage its distinct term ids and counts, block by block, and the
presence matrix of adjacent term pairs for the adjacency bonus."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from .term_blocks import TermBlock


def bigram_matrix(
    bigram_keys: list[np.ndarray], bigram_rows: list[np.ndarray], n_docs: int
) -> tuple[np.ndarray, sparse.csc_matrix]:
    """The distinct bigram keys and a passages x keys presence matrix (CSC)."""
    if not bigram_keys:
        return np.zeros(0, dtype=np.int64), sparse.csc_matrix((n_docs, 0), dtype=np.float32)
    keys = np.concatenate(bigram_keys)
    brow = np.concatenate(bigram_rows)
    # Sort once by key: the columns of the bigram matrix are the
    # distinct keys, so a stable sort gives a CSC layout directly.
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    brow = brow[order]
    del order
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    distinct = keys[starts]
    del keys
    indptr = np.r_[starts, len(brow)].astype(np.int64)
    matrix = sparse.csc_matrix(
        (np.ones(len(brow), dtype=np.float32), brow, indptr), shape=(n_docs, len(distinct))
    )
    return distinct, matrix


@dataclass
class Counts:
    """Term counts gathered block by block: per passage its distinct term
    ids (int32) and their counts (float32, exact for counts), CSR layout."""

    vocab: dict[str, int]
    lengths: list[np.ndarray]
    terms: list[np.ndarray]
    tfs: list[np.ndarray]
    distinct: list[np.ndarray]  # distinct terms per passage
    bigram_keys: list[np.ndarray]
    bigram_rows: list[np.ndarray]

    def add_block(self, block: TermBlock, first_row: int, bigrams: bool) -> None:
        vocab = self.vocab
        # The block's own term list, in order of first occurrence, fills the
        # vocabulary as a token-by-token pass would: the same ids.
        mapping = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for t in block.terms), dtype=np.int64, count=len(block.terms)
        )
        lengths = block.lengths
        ids = mapping[block.ids] if len(block.ids) else np.zeros(0, dtype=np.int64)
        local = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        # One sort of (passage, term) keys gives each passage's distinct terms
        # in term order with their counts: the CSR layout of the tf matrix.
        keys, tf = np.unique((local << 32) | ids, return_counts=True)
        self.lengths.append(lengths.astype(np.int32))
        self.terms.append((keys & 0xFFFFFFFF).astype(np.int32))
        self.tfs.append(tf.astype(np.float32))
        self.distinct.append(np.bincount((keys >> 32).astype(np.int64), minlength=len(lengths)))
        if bigrams:
            bounds = np.r_[0, np.cumsum(lengths)]
            for row in range(len(lengths)):
                doc = ids[bounds[row] : bounds[row + 1]]
                if len(doc) > 1:
                    self.bigram_keys.append(np.unique(doc[:-1] * (1 << 31) + doc[1:]))
                    self.bigram_rows.append(np.full(len(self.bigram_keys[-1]), first_row + row, np.int32))

    def tf_matrix(self, n_terms: int) -> sparse.csc_matrix:
        """The passages x terms count matrix, CSC (one column per term), int32 indices."""
        n_docs = sum(len(d) for d in self.distinct)
        indptr = np.zeros(n_docs + 1, dtype=np.int64)
        if n_docs:
            np.cumsum(np.concatenate(self.distinct), out=indptr[1:])
        terms = np.concatenate(self.terms) if self.terms else np.zeros(0, np.int32)
        tf = np.concatenate(self.tfs) if self.tfs else np.zeros(0, np.float32)
        self.terms, self.tfs, self.distinct = [], [], []
        csr = sparse.csr_matrix((tf, terms, indptr), shape=(n_docs, n_terms))
        del terms, tf, indptr
        return csr.tocsc()


def rank_bm25_idf(
    df: np.ndarray, n_docs: int, epsilon: float, observed: np.ndarray, floor_zero: bool = False
) -> np.ndarray:
    """rank_bm25's idf: the mean is taken over terms seen in passages, and a
    negative idf becomes epsilon times that mean. With ``floor_zero`` an idf
    of exactly 0 is floored too, to at least 1e-3 so a match always counts."""
    idf = np.zeros(len(df), dtype=np.float64)
    if not observed.any():
        return idf
    raw = np.log(n_docs - df[observed] + 0.5) - np.log(df[observed] + 0.5)
    floor = epsilon * raw.mean()
    if floor_zero:
        raw = np.where(raw <= 0, max(floor, 1e-3), raw)
    else:
        raw = np.where(raw < 0, floor, raw)
    idf[observed] = raw
    return idf
