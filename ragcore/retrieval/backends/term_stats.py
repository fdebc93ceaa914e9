"""The BM25 term statistics the default fusion reads, kept beside a Milvus index.

The default hybrid fusion (``fusion.SignalRule``) sets BM25's weight per
query from ``fusion.query_signals``, which asks a BM25 index four things:
the query's tokens, which of them are identifiers the collection holds, the
share of the query's idf mass that a given passage holds, and which of a few
passages hold a term. Milvus scores BM25 itself and exposes none of that, so
``TermStats`` answers the same four questions from document frequencies
(each term's number of passages, with the embedded index's tokens and
rank_bm25 idf) and the passages' own texts, exactly as ``BM25Index`` does:
given the same two rankings, both give the same ``QuerySignals`` (tested).

``Frequencies`` are the persisted part: computed once over the passages,
kept in Milvus beside the collection, and updated by the passages a sync adds
and deletes, so a restart or an unchanged collection reads them back instead
of tokenising every passage again.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from ...records import Passage, sha256_hex
from ..bm25 import BM25Index, BM25Params, heading_texts, rank_bm25_idf

FORMAT = 2  # 2: the bodies' total length (``length``), for table-row scoring's average length


def params_key(params: BM25Params) -> str:
    """What the statistics depend on besides the passages: the tokenising
    settings (a change of stop list or stemming makes them stale)."""
    return sha256_hex(json.dumps(asdict(params), sort_keys=True, default=str))[:16]


@dataclass
class Frequencies:
    """Per-term passage counts over the bodies (``df``) and over the heading
    fields (``heading``: heading words join the vocabulary, not the idf),
    for the passage set whose content key is ``content``; ``length`` is the
    bodies' total number of tokens (their average length scores table rows)."""

    params: str
    content: str = ""
    n_docs: int = 0
    length: int = 0
    df: Counter[str] = field(default_factory=Counter)
    heading: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, passages: Sequence[Passage], params: BM25Params, content: str) -> Frequencies:
        out = cls(params_key(params), content)
        out.add(passages, params)
        return out

    def add(self, passages: Sequence[Passage], params: BM25Params, sign: int = 1) -> None:
        """Count ``passages`` in (``sign`` 1) or out (``sign`` -1)."""
        self.n_docs += sign * len(passages)
        for text, head in zip((p.text for p in passages), heading_texts(passages, params), strict=True):
            terms = params.terms(text)
            self.length += sign * len(terms)
            for term in set(terms):
                self.df[term] += sign
            for term in set(params.terms(head)):
                self.heading[term] += sign
        if sign < 0:  # forget vanished terms
            self.df = Counter({t: n for t, n in self.df.items() if n > 0})
            self.heading = Counter({t: n for t, n in self.heading.items() if n > 0})

    def to_bytes(self) -> bytes:
        data = {
            "format": FORMAT,
            "params": self.params,
            "content": self.content,
            "n_docs": self.n_docs,
            "length": self.length,
            "df": sorted(self.df.items()),
            "heading": sorted(self.heading.items()),
        }
        return zlib.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), 6)

    @classmethod
    def from_bytes(cls, raw: bytes) -> Frequencies | None:
        """The frequencies in ``raw``, or None when unreadable or another format."""
        try:
            data = json.loads(zlib.decompress(raw).decode("utf-8"))
            if data.get("format") != FORMAT:
                return None
            return cls(
                str(data["params"]),
                str(data["content"]),
                int(data["n_docs"]),
                int(data["length"]),
                Counter({str(t): int(n) for t, n in data["df"]}),
                Counter({str(t): int(n) for t, n in data["heading"]}),
            )
        except (zlib.error, ValueError, KeyError, TypeError):
            return None


class TermStats:
    """What ``fusion.query_signals`` reads from a BM25 index, over
    ``Frequencies`` and the passages (row-aligned with the retriever's)."""

    # The very functions of the embedded index: they read only ``params``
    # and ``vocab``, so tokens and identifiers are the embedded ones.
    query_tokens = BM25Index.query_tokens
    known_identifiers = BM25Index.known_identifiers
    priority_identifiers = BM25Index.priority_identifiers
    term_ids = BM25Index.term_ids

    def __init__(self, frequencies: Frequencies, passages: Sequence[Passage], params: BM25Params) -> None:
        self.params = params
        self.passages = passages
        self.size = frequencies.n_docs
        terms = sorted(frequencies.df)
        self.vocab: dict[str, int] = {t: i for i, t in enumerate(terms)}
        for term in sorted(frequencies.heading):
            self.vocab.setdefault(term, len(self.vocab))  # df 0: in the vocabulary, no idf
        df = np.zeros(len(self.vocab), dtype=np.float64)
        df[: len(terms)] = [frequencies.df[t] for t in terms]
        self.idf = rank_bm25_idf(df, self.size, params.epsilon, df > 0, params.floor_zero_idf)
        mean = frequencies.length / frequencies.n_docs if frequencies.n_docs else 0.0
        self.avgdl = np.asarray([mean or 1.0], dtype=np.float64)  # as BM25Index.avgdl
        self._row_terms: dict[int, np.ndarray] = {}

    def _terms_of(self, row: int) -> np.ndarray:
        """Sorted vocabulary ids of the body tokens of passage ``row`` that
        carry weight (a term with idf <= 0 has no entry in the embedded BM25
        matrix); made on first need and kept (4 bytes a term)."""
        found = self._row_terms.get(row)
        if found is None:
            vocab = self.vocab
            ids = {vocab[t] for t in self.params.terms(self.passages[row].text) if t in vocab}
            found = np.asarray(sorted(ids), dtype=np.int32)
            found = found[self.idf[found] > 0] if len(found) else found
            self._row_terms[row] = found
        return found

    def coverage(self, tokens: Sequence[str], rows: Sequence[int]) -> list[float]:
        """For each of ``rows``, the share of the query's idf mass (distinct
        known terms) the passage holds (as ``BM25Index.coverage``)."""
        ids = np.asarray(sorted({self.vocab[t] for t in tokens if t in self.vocab}), dtype=np.int32)
        if not len(ids) or not rows:
            return [0.0] * len(rows)
        weights = self.idf[ids]
        total = weights.sum()
        if total <= 0:
            return [0.0] * len(rows)
        present = np.asarray([np.isin(ids, self._terms_of(row)) for row in rows], dtype=np.float64)
        return [float(x) for x in (present @ weights) / total]

    def asked_type(self, query: str) -> None:
        """No answer-type lift acts on Milvus's BM25 (the embedded index's
        ``asked_type`` for the retriever's notes): it holds no answer units."""
        return None

    def holding(self, term: str, rows: Sequence[int]) -> list[int]:
        """The rows among ``rows`` whose text holds ``term`` (an index token)."""
        col = self.vocab.get(term)
        if col is None:
            return []
        return [row for row in rows if col in set(self._terms_of(row).tolist())]


def removed_passages(rows: Iterable[dict[str, object]]) -> list[Passage]:
    """Passages rebuilt from Milvus rows (text, doc, label) of deleted keys,
    enough to count them out of the frequencies."""
    out = []
    for r in rows:
        text = str(r["text"])
        out.append(
            Passage(str(r["doc"]), int(r.get("passage_index", 0)), 0, 0, 0, len(text), str(r["label"]), text)
        )
    return out
