"""BM25 over passages, vectorised, with heading and adjacent-word bonuses.

Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
BM25 and Beyond", 2009) with rank_bm25's conventions so the plain scores are
equal to ``rank_bm25.BM25Okapi.get_scores`` on the same tokens:

    idf(t) = ln(N - n_t + 0.5) - ln(n_t + 0.5), and a negative idf is
    replaced by epsilon * mean(idf) (rank_bm25's floor);
    w(t, d) = idf(t) * tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl)).

Per-term weights are precomputed into a sparse passage x term matrix
(the approach of bm25s, Lù 2024, arXiv:2407.03618), so a query is a sum of
a few columns. Two bonuses, off in the equality test:

- heading: ``heading_weight * idf(t)`` for each distinct query term that
  occurs in the passage's heading path;
- adjacency: ``adjacency_weight * (idf(a) + idf(b)) / 2`` for each pair of
  consecutive query terms that also occur consecutively in the passage.

Token lists are not kept once the matrices are built.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import islice, pairwise
from pathlib import PurePosixPath

import numpy as np
from scipy import sparse

from ..records import Passage
from ..text import (
    STOP_LISTS,
    AnswerTypeNouns,
    StopList,
    identifier_kind,
    identifiers,
    name_acronym,
    phrase_initials,
    search_terms,
)
from .bm25_answer_type import AskedType, add_answer_units, asked_type, type_lifted
from .bm25_counts import Counts, bigram_matrix, rank_bm25_idf
from .bm25_rows import best_row_scores, continued_headers, table_row_index
from .bm25_topk import column_sum, search_top_k, top_k
from .document_names import document_names
from .line_terms import LineTerms
from .term_blocks import TermBlock, term_block, text_blocks


@dataclass(frozen=True)
class BM25Params:
    """Defaults chosen by measurement: see docs/decisions.md."""

    k1: float = 1.2  # k1, b, stop list and heading field: chosen by cross-validation
    b: float = 0.6
    epsilon: float = 0.25  # rank_bm25's floor for negative idf
    heading_weight: float = 0.5
    adjacency_weight: float = 0.0  # off by cross-validation; docs/decisions.md
    stemming: bool = True
    # rank_bm25 floors only negative idf, so a term in exactly half the
    # passages (idf 0) can never be found: in a two-passage upload, half the
    # words. We floor idf <= 0; plain() restores rank_bm25's rule exactly.
    floor_zero_idf: bool = True
    stop_list: StopList = "english"
    # Identifiers and amounts are indexed whole as well as by their parts
    # (text.search_terms), so an exact code outranks passages sharing a fragment.
    whole_identifiers: bool = True
    # The heading field also carries the document's name ("sla.md" ->
    # "sla"), the only title a passage of a Markdown or PDF file keeps
    # (the heading path leaves the document title out).
    name_in_heading: bool = True
    # Extra copies of each identifier or amount of a query that the index
    # holds: an exact code outweighs several shared ordinary words.
    identifier_boost: int = 1
    # Passages holding a known identifier of the query whole rank before
    # those that do not (each one held lifts a passage by the query's best
    # score), for the kinds named here, space-separated (text.IDENTIFIER_KINDS:
    # "code", "number-word", "amount", "percent"; "" is off), so an exact code
    # leads whatever the question's other words match. docs/decisions.md,
    # "Identifier priority" (kinds chosen by scripts/identifier_priority_cv.py).
    identifier_priority: str = "code amount"
    # The heading field also holds the initials of a document name of 3-5
    # words ("master-services-agreement.pdf" -> "msa", text.name_acronym).
    # Chosen by cross-validation (docs/decisions.md, "Identifier questions").
    name_acronyms: bool = True
    # A passage that continues a Markdown table is indexed with the table's
    # header row before its rows (body text, not the heading field), as a
    # table chunk repeating its header would (index_texts; docs/decisions.md,
    # "Table headers"). The passage's own text is unchanged.
    table_headers: bool = True
    # A question that names a document, by every word of its name or by its
    # initials ("the SLA" for sla.md, "the MSA"), is about that document: its
    # passages' scores are multiplied by 1 + this. Chosen by leave-one-group-
    # out cross-validation (docs/decisions.md, "Named documents").
    named_document_boost: float = 1.0
    # A query's runs of 3-5 words also search their initials when those are
    # a word of a document's name or its initials ("request for proposal" ->
    # "rfp" for rfp-response.md; "service level agreement" -> "sla"), so a
    # document is named by its spelled-out abbreviation too. Needs the names
    # of named_document_boost. Off: cross-validation chose it in 1 of 10
    # folds (demo multi-part loses; docs/decisions.md, "Named documents").
    name_initials_in_queries: bool = False
    # Each body row of a Markdown table is also scored as a small passage
    # of its own (the table's header row and that row, bm25_rows), and its
    # passage scores max(own score, this x its best row's); 0 is off.
    # Chosen in every leave-one-group-out fold (scripts/table_row_cv.py;
    # docs/decisions.md, "Table rows").
    table_row_weight: float = 1.25
    # A question asking for a code that it does not hold ("Which error code
    # ...", text.asks_for_identifier) lifts each scored passage by this x the
    # query's best score x the share of the query its best sentence or row
    # holding a code covers (bm25_answer_type); 0 is off. Chosen by
    # scripts/answer_code_cv.py (docs/decisions.md, "Answer-type lift").
    answer_code_lift: float = 0.5
    # The cue's wh-phrase nouns: "core" (code, version, "X number", ...) or "extended"
    # (also text._LABEL_NOUNS); chosen by scripts/answer_code_cv.py (decisions.md).
    answer_type_nouns: AnswerTypeNouns = "core"
    # The same lift for a question asking for a value it does not state ("How
    # long ...", answer_types.asked_value) by units stating one of that kind, and
    # for one asking which document part ("Which clause ...", asked_label) by units
    # naming it by a label ("Clause 7"); 0 is off. Chosen by scripts/answer_value_cv.py.
    answer_value_lift: float = 0.25
    answer_label_lift: float = 0.1

    def plain(self) -> BM25Params:
        """rank_bm25's conventions exactly: both bonuses off, only negative
        idf floored (tokenisation unchanged)."""
        return replace(
            self,
            heading_weight=0.0,
            adjacency_weight=0.0,
            floor_zero_idf=False,
            identifier_boost=0,
            identifier_priority="",
            name_acronyms=False,
            table_headers=False,
            named_document_boost=0.0,
            name_initials_in_queries=False,
            table_row_weight=0.0,
            answer_code_lift=0.0,
            answer_value_lift=0.0,
            answer_label_lift=0.0,
        )

    def terms(self, text: str) -> list[str]:
        """The tokens these settings index and search with."""
        return search_terms(
            text, stemming=self.stemming, stop_words=STOP_LISTS[self.stop_list], whole=self.whole_identifiers
        )


def heading_texts(passages: Iterable[Passage], params: BM25Params | None = None) -> list[str]:
    """The text of each passage's heading field: its heading path, and with
    ``name_in_heading`` its document's name when that has letters (BEIR ids
    are numbers)."""
    params = params or BM25Params()
    out = []
    for p in passages:
        name = PurePosixPath(p.doc).stem if params.name_in_heading else ""
        acronym = name_acronym(p.doc) if params.name_acronyms and name else ""
        name = f"{name} {acronym}" if acronym else name
        out.append(f"{name} {p.label}" if any(c.isalpha() for c in name) else p.label)
    return out


def index_texts(passages: Iterable[Passage], params: BM25Params | None = None) -> Iterator[str]:
    """The body text BM25 indexes for each passage, in order: its text,
    preceded (with ``table_headers``) by the header row of the Markdown table
    it continues, when it opens on a table row and the passage before it in
    the same document ends inside a table (or continues one itself)."""
    params = params or BM25Params()
    if not params.table_headers:
        yield from (p.text for p in passages)
        return
    for p, header in continued_headers(passages):
        yield f"{header}\n{p.text}" if header else p.text


BUILD_BLOCK = 20_000  # passages tokenised and counted at a time while building


def _weights(
    tf: sparse.csc_matrix, idf: np.ndarray, norm: np.ndarray, k1: float, block: int = 1 << 22
) -> np.ndarray:
    """BM25 weight of every stored (passage, term) count, float64, computed
    a slice of entries at a time (no full-size temporaries)."""
    out = np.empty(tf.nnz, dtype=np.float64)
    term_of = np.repeat(np.arange(tf.shape[1], dtype=np.int32), np.diff(tf.indptr))
    for s in range(0, tf.nnz, block):
        data = tf.data[s : s + block].astype(np.float64)
        out[s : s + block] = (
            idf[term_of[s : s + block]] * data * (k1 + 1) / (data + norm[tf.indices[s : s + block]])
        )
    return out


class BM25Index:
    """Scores every passage for a query in one sparse product."""

    def __init__(
        self,
        token_lists: Iterable[Sequence[str]],
        heading_token_lists: Iterable[Sequence[str]] | None = None,
        params: BM25Params | None = None,
        *,
        blocks: Iterable[TermBlock] | None = None,
    ) -> None:
        """``blocks`` (term blocks, e.g. tokenised in worker processes by
        ``from_texts``) stand in for ``token_lists`` when given."""
        self.params = params or BM25Params()
        # Passages are counted in blocks, so no per-token array of the whole
        # collection exists at once; the bigram matrix is made only when the
        # adjacency bonus is on (it is the largest structure).
        counts = Counts({}, [], [], [], [], [], [])
        bigrams = bool(self.params.adjacency_weight)
        if blocks is None:
            iterator = iter(token_lists)
            blocks = (term_block(b) for b in iter(lambda: list(islice(iterator, BUILD_BLOCK)), []))
        n_docs = 0
        for block in blocks:
            counts.add_block(block, n_docs, bigrams)
            n_docs += len(block)
        self.size = n_docs
        vocab = counts.vocab
        # Heading tokens join the vocabulary too (a heading word may occur
        # nowhere in bodies), but they do not count towards tf or df.
        heading_rows: list[int] = []
        heading_cols: list[int] = []
        if heading_token_lists is not None:
            for row, tokens in enumerate(heading_token_lists):
                for t in set(tokens):
                    heading_rows.append(row)
                    heading_cols.append(vocab.setdefault(t, len(vocab)))
        self.vocab = vocab
        n_terms = max(len(vocab), 1)
        doc_len = np.concatenate(counts.lengths).astype(np.float64) if n_docs else np.zeros(0)
        tf = counts.tf_matrix(n_terms)
        df = np.diff(tf.indptr).astype(np.float64)  # passages containing each term
        self.idf = rank_bm25_idf(df, n_docs, self.params.epsilon, df > 0, self.params.floor_zero_idf)
        avgdl = doc_len.mean() if n_docs and doc_len.sum() > 0 else 1.0
        self.avgdl = np.asarray([avgdl], dtype=np.float64)
        k1, b = self.params.k1, self.params.b
        norm = k1 * (1 - b + b * doc_len / avgdl)  # per passage
        weights = _weights(tf, self.idf, norm, k1)
        self.matrix = sparse.csc_matrix((weights, tf.indices, tf.indptr), shape=(n_docs, n_terms))
        del tf
        self.heading = sparse.csc_matrix(
            (
                np.ones(len(heading_rows)),
                (np.asarray(heading_rows, dtype=np.int32), np.asarray(heading_cols, dtype=np.int32)),
            ),
            shape=(n_docs, n_terms),
        )
        self.bigram_keys, self.bigrams = bigram_matrix(counts.bigram_keys, counts.bigram_rows, n_docs)
        self._no_passage_fields(n_docs, n_terms)

    def _no_passage_fields(self, n_docs: int, n_terms: int) -> None:
        """The structures only ``from_passages`` fills, empty: document names (document_names),
        table rows (table_row_index) and sentences or rows holding a code (code_unit_index)."""
        self.names = sparse.csc_matrix((n_docs, n_terms), dtype=np.float64)
        self.name_size = np.zeros(n_docs, dtype=np.float64)
        self.rows = sparse.csc_matrix((0, n_terms), dtype=np.float64)
        self.row_owner = np.zeros(0, dtype=np.int64)
        self.code_units = sparse.csc_matrix((0, n_terms), dtype=np.float64)
        self.code_owner = np.zeros(0, dtype=np.int64)
        self.value_units = sparse.csc_matrix((0, n_terms), dtype=np.float64)
        self.value_owner = np.zeros(0, dtype=np.int64)
        self.value_kinds = np.zeros(0, dtype=np.uint32)
        self.label_units = sparse.csc_matrix((0, n_terms), dtype=np.float64)
        self.label_owner = np.zeros(0, dtype=np.int64)
        self.label_kinds = np.zeros(0, dtype=np.uint32)

    @classmethod
    def from_passages(cls, passages: Sequence[Passage], params: BM25Params | None = None) -> BM25Index:
        """An index over passages' texts, with their heading fields."""
        params = params or BM25Params()
        headings = heading_texts(passages, params)
        index = cls.from_texts(index_texts(passages, params), headings, params)
        add_answer_units(index, passages)
        if params.named_document_boost:
            index.names, index.name_size = document_names(passages, index.vocab, params)
        if params.table_row_weight:
            index.rows, index.row_owner = table_row_index(passages, index, params)
        return index

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], headings: Iterable[str] | None = None, params: BM25Params | None = None
    ) -> BM25Index:
        params = params or BM25Params()
        heading_lists = None if headings is None else [params.terms(h) for h in headings]
        # The same terms as params.terms, from lines tokenised ahead when there are (line_terms).
        bodies = LineTerms(params.stemming, params.stop_list, params.whole_identifiers)
        return cls([], heading_lists, params, blocks=text_blocks(texts, bodies, BUILD_BLOCK))

    def query_tokens(self, query: str) -> list[str]:
        tokens = self.params.terms(query) + self.known_identifiers(query) * self.params.identifier_boost
        # (Milvus's TermStats shares this method and holds no document names.)
        return tokens + self.name_initials(query) if self.params.name_initials_in_queries else tokens

    def name_initials(self, query: str) -> list[str]:
        """The initials of the query's runs of words that are a word of a
        document's name or its initials (``name_initials_in_queries``)."""
        if not self.params.name_initials_in_queries or not self.names.nnz:
            return []
        held = self.names.indptr
        cols = ((t, self.vocab.get(t)) for t in phrase_initials(query))
        return [t for t, col in cols if col is not None and held[col + 1] > held[col]]

    def term_ids(self, tokens: Sequence[str]) -> np.ndarray:
        """Vocabulary ids of the known ``tokens``, in order (unknown ones dropped)."""
        vocab = self.vocab
        return np.fromiter((vocab[t] for t in tokens if t in vocab), dtype=np.int64)

    def scores_from_ids(self, ids: np.ndarray) -> np.ndarray:
        """Score of every passage for query term ids (repeats count), with the
        heading bonus but not the adjacency one (which needs token order)."""
        if not len(ids) or not self.size:
            return np.zeros(self.size, dtype=np.float64)
        uniq, counts = np.unique(ids, return_counts=True)
        # Each occurrence of a query term counts, as in rank_bm25.
        out = column_sum(self.matrix, uniq, counts.astype(np.float64))
        if self._rows_hit(uniq):
            by_row = column_sum(self.rows, uniq, counts.astype(np.float64))
            best = best_row_scores(self.rows, self.row_owner, by_row, self.size)
            out = np.maximum(out, self.params.table_row_weight * best)
        if self.params.heading_weight:
            out += self.params.heading_weight * column_sum(self.heading, uniq, self.idf[uniq])
        named = self.named_rows(uniq)
        if len(named):
            out[named] *= 1.0 + self.params.named_document_boost
        return out

    def named_rows(self, ids: np.ndarray) -> np.ndarray:
        """The passages whose document the query's term ``ids`` name (every
        word of the document's name, or its initials); empty when the boost
        is off or no document is named."""
        if not self.params.named_document_boost or not self.names.nnz or not len(ids):
            return np.zeros(0, dtype=np.int64)
        # Only the passages in the query's name columns can be named: summed
        # there alone (the same sums in the same order), not over every passage.
        cols = np.unique(ids)
        starts, ends = self.names.indptr[cols], self.names.indptr[cols + 1]
        if not np.any(ends > starts):
            return np.zeros(0, dtype=np.int64)
        rows = np.concatenate([self.names.indices[s:e] for s, e in zip(starts, ends, strict=True)])
        vals = np.concatenate([self.names.data[s:e] for s, e in zip(starts, ends, strict=True)])
        candidates, slot = np.unique(rows, return_inverse=True)
        held = np.bincount(slot, weights=vals, minlength=len(candidates))
        size = self.name_size[candidates]
        return candidates[(size > 0) & (held >= size)].astype(np.int64, copy=False)

    def _rows_hit(self, ids: np.ndarray) -> bool:
        """Whether some table row (``table_row_weight``) holds one of the term ``ids``."""
        if not self.params.table_row_weight or not self.row_owner.size or not len(ids):
            return False
        held = self.rows.indptr
        return bool(np.any(held[ids + 1] > held[ids]))

    def search_ids(self, ids: np.ndarray, k: int = 100) -> list[tuple[int, float]]:
        """``search`` from query term ids (no adjacency bonus). The same as
        ``top_k(self.scores_from_ids(ids), k)``, summed into a reused
        per-thread array when only body and heading columns score (bm25_topk)."""
        if len(self.named_rows(ids)) or self._rows_hit(ids):  # a named document's boost, table rows
            return top_k(self.scores_from_ids(ids), k)
        return search_top_k(self, ids, k)

    def scores(self, tokens: Sequence[str]) -> np.ndarray:
        """Score of every passage for already-tokenised query ``tokens``."""
        out = self.scores_from_ids(self.term_ids(tokens))
        p = self.params
        if p.adjacency_weight and len(tokens) > 1 and self.size:
            pairs = [
                (self.vocab[a], self.vocab[b])
                for a, b in pairwise(tokens)
                if a in self.vocab and b in self.vocab
            ]
            if pairs:
                keys = np.asarray([a * (1 << 31) + b for a, b in pairs], dtype=np.int64)
                pos = np.searchsorted(self.bigram_keys, keys)
                found = (pos < len(self.bigram_keys)) & (
                    self.bigram_keys[np.minimum(pos, len(self.bigram_keys) - 1)] == keys
                )
                if found.any():
                    weights = np.asarray(
                        [(self.idf[a] + self.idf[b]) / 2 for (a, b), f in zip(pairs, found, strict=True) if f]
                    )
                    out += p.adjacency_weight * (self.bigrams[:, pos[found]] @ weights)
        return out

    def coverage(self, tokens: Sequence[str], rows: Sequence[int]) -> list[float]:
        """For each of ``rows``, the share of the query's idf mass (distinct
        known terms) that the passage contains: 1.0 when it holds every
        query term, small when it matches only incidental words."""
        ids = sorted({self.vocab[t] for t in tokens if t in self.vocab})
        if not ids or not rows:
            return [0.0] * len(rows)
        weights = self.idf[ids]
        total = weights.sum()
        if total <= 0:
            return [0.0] * len(rows)
        present = self._present(rows, ids)
        return [float(x) for x in (present @ weights) / total]

    def _present(self, rows: Sequence[int], cols: Sequence[int]) -> np.ndarray:
        """Whether each of ``rows`` holds each term of ``cols`` (a positive
        weight), shape (rows, cols), bool. Looked up in each column's sorted
        rows: slicing rows out of the CSC matrix scans all of it (about 40
        ms at 50k passages)."""
        m = self.matrix
        # Rows in the columns' own dtype (int32): numpy would otherwise cast
        # each whole column to int64 to search it (the same positions).
        wanted = np.asarray(rows, dtype=np.int64).astype(m.indices.dtype)
        out = np.zeros((len(wanted), len(cols)), dtype=bool)
        for j, col in enumerate(cols):
            start, end = int(m.indptr[col]), int(m.indptr[col + 1])
            if end == start:
                continue
            held = m.indices[start:end]
            pos = np.minimum(np.searchsorted(held, wanted), end - start - 1)
            found = held[pos] == wanted
            out[found, j] = m.data[start + pos[found]] > 0
        return out

    def known_identifiers(self, query: str) -> list[str]:
        """Whole identifiers ("ERR-4012", "SOC 2") and amounts ("$1,199")
        of ``query`` that some passage holds, as index tokens."""
        if not self.params.whole_identifiers:
            return []
        amounts = [t for t in self.params.terms(query) if t[:1] in "$€£¥" or t.endswith("%")]
        return [code for code in dict.fromkeys(identifiers(query) + amounts) if code in self.vocab]

    def holding(self, term: str, rows: Sequence[int]) -> list[int]:
        """The rows among ``rows`` whose text holds ``term`` (an index token)."""
        col = self.vocab.get(term)
        if col is None or not rows:
            return []
        present = self._present(rows, [col])[:, 0]
        return [row for row, hit in zip(rows, present, strict=True) if hit]

    def search(
        self, query: str, k: int = 100, extra: Sequence[tuple[str, float]] = ()
    ) -> list[tuple[int, float]]:
        """Top ``k`` (row, score) with a positive score, best first; ties
        broken by row so results are reproducible. ``extra``: more terms,
        each with its query weight (word_neighbours)."""
        tokens = self.query_tokens(query)
        codes = self.priority_identifiers(query)
        asked = None if codes else self.asked_type(query)
        if not (self.params.adjacency_weight or codes or asked or extra):
            return self.search_ids(self.term_ids(tokens), k)  # scores(tokens) is scores_from_ids
        scores = self.scores(tokens)
        if extra:
            ids = self.term_ids([t for t, _ in extra])
            weights = np.asarray([w for t, w in extra if t in self.vocab], dtype=np.float64)
            scores = scores + column_sum(self.matrix, ids, weights) if len(ids) else scores
        if asked:
            scores = type_lifted(self, scores, query, asked, self.term_ids(tokens))
        return top_k(self.identifiers_first(scores, codes), k)

    def asks_for_code(self, query: str) -> bool:
        """Whether the answer-type lift acts on ``query`` (it asks for a code some passage holds)."""
        return (self.asked_type(query) or ("",))[0] == "code"

    def asked_type(self, query: str) -> AskedType | None:
        """The answer type a lift of ``bm25_answer_type`` acts on for ``query``, if any."""
        return asked_type(self, query)

    def priority_identifiers(self, query: str) -> list[str]:
        """The known identifiers of ``query`` whose kind ``identifier_priority`` names."""
        kinds = self.params.identifier_priority.split()
        if not kinds:
            return []
        return [code for code in self.known_identifiers(query) if identifier_kind(code) in kinds]

    def identifiers_first(self, scores: np.ndarray, codes: Sequence[str]) -> np.ndarray:
        """``scores`` with each passage lifted by the best of them once per
        index token of ``codes`` it holds, so passages holding more of the
        query's identifiers rank first, in score order among themselves."""
        if not codes or not len(scores):
            return scores
        lift = float(scores.max())
        out = scores.copy()
        m = self.matrix
        for col in {self.vocab[code] for code in codes}:
            start, end = int(m.indptr[col]), int(m.indptr[col + 1])
            held = m.indices[start:end][m.data[start:end] > 0]
            out[held] += lift
        return out
