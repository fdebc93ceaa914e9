"""Question words no passage holds, searched by their nearest collection words.

A question word that occurs in no passage ("cipher", "nonprofits", the
British "transistorised" against an American "transistorized") adds nothing
to BM25. Here each such word is embedded with the dense model and compared
with the collection's own words, embedded the same way; the closest ones at
or above a similarity floor join the BM25 query, each weighted ``weight x
similarity`` (query expansion by word embeddings: Kuzi, Shtok & Kurland,
CIKM 2016; Zamani & Croft, ICTIR 2016). A word the collection holds is
matched as written and never expanded, so a question in the documents' own
words ranks exactly as without this step. Names are not expanded (a
capitalised word after the question's first, or an acronym): their
neighbours are other names ("Japan" -> "Canada"), not the same thing in
other words. Settings are chosen by ``scripts/word_neighbours_cv.py``
(docs/decisions.md, "Unknown words").

The collection's words are read once, on the first question that has an
unknown word (the most frequent surface form of each BM25 term, from at most
``SAMPLE_PASSAGES`` passages spread over the collection, at most
``MAX_WORDS`` terms), and their vectors kept in the vector cache under the
model id with ``MODEL_SUFFIX``, so a restart embeds none of them again.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..records import Passage, sha256_hex
from ..text import words
from .bm25 import BM25Params
from .protocols import EmbedderLike, VectorCache

MODEL_SUFFIX = "#words"
SAMPLE_PASSAGES = 50_000  # a bound on the one-off read of a very large collection
MAX_WORDS = 20_000  # the most frequent terms; about 15 s to embed on two cores, once
MIN_LETTERS = 3
_LETTERS = re.compile(r"[^\W\d_]+")  # a run of letters: a question's words, digits and marks left out
EMBED_BATCH = 64  # single words: small inputs, so a larger batch than passages take


@dataclass(frozen=True)
class Expansion:
    """How unknown question words are expanded; ``weight`` 0 is off."""

    weight: float = 0.0
    min_similarity: float = 0.6
    neighbours: int = 3


@dataclass(frozen=True)
class Neighbour:
    """A collection word searched for a question word no passage holds."""

    word: str  # the question's word
    neighbour: str  # the collection's word (its most frequent surface form)
    term: str  # its BM25 term
    similarity: float


def unknown_words(question: str, params: BM25Params, vocab: Mapping[str, int]) -> list[str]:
    """The question's plain words (letters only, not stop words, not names)
    whose BM25 term no passage holds, in order, each once."""
    out: list[str] = []
    for i, raw in enumerate(_LETTERS.findall(question)):
        if is_name(raw, first=not i):
            continue
        tokens = words(raw)
        word = tokens[0] if tokens else ""
        if len(word) < MIN_LETTERS or word in out:
            continue
        terms = params.terms(word)
        if terms and all(t not in vocab for t in terms):
            out.append(word)
    return out


def is_name(raw: str, first: bool) -> bool:
    """An acronym or a mixed-case name ("SLA", "FedRAMP") anywhere, or a capitalised word after the first."""
    return sum(c.isupper() for c in raw) >= 2 or (not first and raw[:1].isupper())


@dataclass
class WordVectors:
    """The collection's words (one surface form per BM25 term) and their vectors."""

    words: list[str]
    terms: list[str]
    vectors: np.ndarray  # (len(words), dim), L2-normalised

    def nearest(self, vector: np.ndarray, k: int, floor: float) -> list[tuple[int, float]]:
        """Up to ``k`` (index, similarity) at or above ``floor``, closest first."""
        if not len(self.words):
            return []
        sims = self.vectors @ np.asarray(vector, dtype=np.float32)
        top = np.argsort(-sims, kind="stable")[:k]
        return [(int(i), float(sims[i])) for i in top if sims[i] >= floor]


def collection_words(
    passages: Sequence[Passage], params: BM25Params, vocab: Mapping[str, int]
) -> tuple[list[str], list[str]]:
    """(surface words, their terms): the most frequent surface form of each
    known term, the ``MAX_WORDS`` most frequent terms, from an even sample of
    at most ``SAMPLE_PASSAGES`` passages."""
    step = max(1, len(passages) // SAMPLE_PASSAGES)
    counts: Counter[str] = Counter()
    for row in range(0, len(passages), step):
        counts.update(w for w in words(passages[row].text) if w.isalpha() and len(w) >= MIN_LETTERS)
    surface: dict[str, str] = {}
    term_counts: Counter[str] = Counter()
    for word, n in counts.most_common():
        terms = params.terms(word)
        if len(terms) != 1 or terms[0] not in vocab:
            continue  # a stop word, or a word that is not one term
        surface.setdefault(terms[0], word)
        term_counts[terms[0]] += n
    kept = [term for term, _ in term_counts.most_common(MAX_WORDS)]
    return [surface[t] for t in kept], kept


def word_vectors(found_words: list[str], embedder: EmbedderLike, cache: VectorCache | None) -> np.ndarray:
    """Vectors of ``found_words``, read from ``cache`` where kept, the rest embedded and kept."""
    kept: dict[str, np.ndarray] = {}
    model_id = embedder.model_id + MODEL_SUFFIX
    keys = [sha256_hex(w) for w in found_words]
    if cache is not None:
        try:
            kept = cache.get_vectors(keys, model_id)
        except (sqlite3.Error, OSError):  # an unreadable library: embedded afresh
            kept = {}
    missing = [i for i, key in enumerate(keys) if key not in kept]
    new: dict[str, np.ndarray] = {}
    if missing:
        embedded = embedder.embed_passages([found_words[i] for i in missing], batch_size=EMBED_BATCH)
        new = {keys[i]: embedded[j] for j, i in enumerate(missing)}
        if cache is not None:
            try:
                cache.put_vectors(new, model_id)
            except (sqlite3.Error, OSError):  # a full disk costs the next restart only
                pass
    rows = [kept.get(key, new.get(key)) for key in keys]
    if not rows:
        return np.zeros((0, 1), dtype=np.float32)
    return np.vstack(rows).astype(np.float32, copy=False)


class WordNeighbours:
    """One collection's word vectors, made on first need, and the neighbours
    of a question's unknown words."""

    def __init__(
        self,
        passages: Sequence[Passage],
        params: Callable[[], BM25Params],
        vocab: Callable[[], Mapping[str, int]],
        cache: VectorCache | None,
    ) -> None:
        self._passages = passages
        self._params = params
        self._vocab = vocab
        self._cache = cache
        self._vectors: WordVectors | None = None
        self._lock = threading.Lock()

    def vectors(self, embedder: EmbedderLike) -> WordVectors:
        with self._lock:
            if self._vectors is None:
                found, terms = collection_words(self._passages, self._params(), self._vocab())
                self._vectors = WordVectors(found, terms, word_vectors(found, embedder, self._cache))
            return self._vectors

    def expand(self, question: str, embedder: EmbedderLike, settings: Expansion) -> list[Neighbour]:
        """The collection words searched for ``question``'s unknown words (none when off)."""
        if settings.weight <= 0:
            return []
        return self._neighbours(unknown_words(question, self._params(), self._vocab()), embedder, settings)

    def _neighbours(self, unknown: list[str], embedder: EmbedderLike, settings: Expansion) -> list[Neighbour]:
        if not unknown:
            return []
        table = self.vectors(embedder)
        out = []
        for word in unknown:
            for i, sim in table.nearest(
                embedder.embed_query(word), settings.neighbours, settings.min_similarity
            ):
                out.append(Neighbour(word, table.words[i], table.terms[i], round(sim, 4)))
        return out

    def weighted_terms(
        self, question: str, embedder: Callable[[], EmbedderLike], settings: Expansion, notes: list[str]
    ) -> list[tuple[str, float]]:
        """BM25 terms for ``question``'s unknown words with their query weights
        (``weight x similarity``); what was searched is added to ``notes``. The
        embedder is asked for only when a word is unknown."""
        unknown = unknown_words(question, self._params(), self._vocab()) if settings.weight > 0 else []
        if not unknown:
            return []
        try:
            found = self._neighbours(unknown, embedder(), settings)
        except ModelError as exc:  # BM25 still answers, with the words as written
            notes.append(f"unknown words not expanded: {exc}")
            return []
        if found:
            notes.append(expansion_note(found))
        return [(n.term, settings.weight * n.similarity) for n in found]


def expansion_note(found: Sequence[Neighbour]) -> str:
    """What a search says when it expanded unknown words."""
    by_word: dict[str, list[str]] = {}
    for n in found:
        by_word.setdefault(n.word, []).append(f"{n.neighbour} ({n.similarity:.2f})")
    parts = [f"'{word}' as {', '.join(near)}" for word, near in by_word.items()]
    return "words no passage holds: BM25 also searched " + "; ".join(parts)
