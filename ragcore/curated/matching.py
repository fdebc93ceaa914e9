"""Is a question close enough to a curated one to show its pinned answer?

Closeness is the cosine similarity of the two questions' dense vectors (the
same model as retrieval). The threshold was chosen by two-fold
cross-validation over held-out paraphrases of the curated questions, with
near-miss questions that must not match, by ``scripts/curated_threshold.py``
(figures in ``docs/decisions.md``, section "Curated answers").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from ..retrieval.text_vectors import query_vectors
from .layer import CuratedLayer, PinnedAnswer

MatchRule = Literal["dense", "dense+terms"]

# Both chosen by scripts/curated_threshold.py on eval/curated-paraphrases.json (docs/decisions.md).
MATCH_THRESHOLD = 0.51
MATCH_RULE: MatchRule = "dense+terms"

# A number (with its % or currency), or a capitalised word that does not open the question.
_NUMBER = re.compile(r"\d[\d,.]*%?")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]*")


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> np.ndarray: ...


@dataclass(frozen=True)
class CuratedMatch:
    answer: PinnedAnswer
    similarity: float


def similarities(question: str, questions: Sequence[str], embedder: QueryEmbedder) -> np.ndarray:
    """Cosine similarity of ``question`` to each of ``questions`` (vectors are unit length)."""
    if not questions:
        return np.zeros(0, dtype=np.float32)
    query = np.asarray(embedder.embed_query(question), dtype=np.float32)
    # The curated questions' vectors persist in the library (retrieval/text_vectors.py).
    rows = np.vstack([np.asarray(v, dtype=np.float32) for v in query_vectors(embedder, questions)])
    return rows @ query


def _numbers(text: str) -> set[str]:
    # "20%", "20 percent" and "20" name the same figure; "1,500" and "1500" too.
    return {m.group().rstrip(".,%").replace(",", "") for m in _NUMBER.finditer(text)}


def key_terms(text: str) -> set[str]:
    """Numbers and capitalised words (not the first word): the terms that make two
    similar-sounding questions different ("discounts up to 10%" vs "above 20%";
    "the Starter plan" vs "the Business plan"). Lower-cased."""
    terms = _numbers(text)
    words = _WORD.findall(text)
    terms.update(w.lower() for w in words[1:] if w[0].isupper() and len(w) > 1)
    return terms


def terms_agree(question: str, pinned: PinnedAnswer) -> bool:
    """Every key term of ``question`` occurs in the pinned question or answer, as a
    word or as the start of one ("Sev" for "Severity")."""
    words = [w.lower() for w in _WORD.findall(f"{pinned.question} {pinned.answer}")]
    numbers = _numbers(f"{pinned.question} {pinned.answer}")
    for term in key_terms(question):
        if term[0].isdigit():
            if term not in numbers:
                return False
        elif not any(w.startswith(term) or (len(w) >= 3 and term.startswith(w)) for w in words):
            return False
    return True


def match_question(
    question: str,
    layer: CuratedLayer,
    embedder: QueryEmbedder,
    threshold: float = MATCH_THRESHOLD,
    rule: MatchRule = MATCH_RULE,
) -> CuratedMatch | None:
    """The closest pinned answer when its question is at least ``threshold`` similar
    (and, under "dense+terms", the question's key terms agree with it)."""
    if not layer.answers or not question.strip():
        return None
    scores = similarities(question, [a.question for a in layer.answers], embedder)
    best = int(np.argmax(scores))
    pinned = layer.answers[best]
    if float(scores[best]) < threshold:
        return None
    if rule == "dense+terms" and not terms_agree(question, pinned):
        return None
    return CuratedMatch(pinned, float(scores[best]))
