"""Collection-wide reading: the passages a lens reads for a question.

The retrieved top k can miss the one passage that matters (the terms' "no
guarantees" when the question finds the SLA's "we guarantee"), so a lens
reads every passage of the collection that mentions the question's subject:
BM25 over the whole collection on the question's subject words (its content
words without the words that chose the lens and without question words; for
risk, with the question's absolute terms too, so that a terms page denying any
guarantee about the service as a whole is read for "do they guarantee uptime?"),
keeping the passages the lens can read at all (a currency amount for money,
a listed absolute for risk). Retrieved hits come first, in their order; the
others follow by BM25 score. A question with no subject words ("are our
prices consistent?") reads every such passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ragcore.lenses.money.amounts import _AMOUNT
from ragcore.lenses.risk_terms import TERM_PATTERN
from ragcore.records import Hit, Passage
from ragcore.retrieval.bm25 import BM25Index
from ragcore.text import tokenize

# Words of a question that name no subject.
_QUESTION_WORDS = frozenset(
    tokenize(
        "what which who whom whose when where why how is are was were do does did can could should would will "
        "we our us you your they their it its the a an of for to in on at by with about any all there this that "
        "these those much many consistent same different differ agree say says said tell mention mentions"
    )
)
_COMMITMENT_WORD = re.compile(r"\b(?:all|every|any|everything|must|will|shall)\b", re.IGNORECASE)


def can_read(kind: str, text: str) -> bool:
    """Whether a lens of ``kind`` can find anything in ``text`` at all."""
    if kind == "money":
        return _AMOUNT.search(text) is not None
    if kind == "risk":
        return TERM_PATTERN.search(text) is not None or _COMMITMENT_WORD.search(text) is not None
    return False


# Trigger words that say what kind of statement is asked for, not what it is
# about; the others ("uptime", "SLA", "invoice", "discount") name the subject.
_LENS_WORDS = frozenset(
    tokenize(
        "price prices pricing priced cost costs costly fee fees charge charges charged pay paid payment spend "
        "spending money dollar dollars euro euros expensive cheap cheaper afford affordable much per "
        "month monthly year yearly annual annually week weekly day daily hour hourly "
        "risk risks risky guarantee guaranteed guarantees promise promises promised always never commitment "
        "commitments committed warranty warranties unlimited forever absolute absolutes assurance"
    )
)


# Risk words of a question that the passages to read must share when they do
# not name the subject: a blanket denial of guarantees for "do they guarantee uptime?"
_RISK_TERMS = frozenset(
    tokenize(
        "guarantee guarantees guaranteed warranty warranties promise promises always never unlimited forever"
    )
)


def subject_words(question: str) -> list[str]:
    """The question's stemmed content words without lens and question words."""
    return [t for t in tokenize(question) if t not in _LENS_WORDS and t not in _QUESTION_WORDS]


@lru_cache(maxsize=8)
def _index(texts: tuple[str, ...], labels: tuple[str, ...]) -> BM25Index:
    return BM25Index.from_texts(texts, labels)


def collection_hits(kind: str, question: str, hits: Sequence[Hit], passages: Sequence[Passage]) -> list[Hit]:
    """The hits a lens of ``kind`` reads: the retrieved ``hits``, then every
    other passage of the collection that mentions the question's subject and
    that the lens can read."""
    if kind not in ("money", "risk") or not passages:
        return list(hits)
    readable = [p for p in passages if can_read(kind, p.text)]
    words = subject_words(question)
    if kind == "risk":
        words += [t for t in tokenize(question) if t in _RISK_TERMS]
    if words and readable:
        index = _index(tuple(p.text for p in readable), tuple(p.label for p in readable))
        scores = index.scores(words)
        ranked = [
            readable[i] for i in sorted(range(len(readable)), key=lambda i: -scores[i]) if scores[i] > 0
        ]
    else:
        ranked = readable
    seen = {h.passage.id for h in hits}
    out = list(hits)
    for p in ranked:
        if p.id not in seen:
            seen.add(p.id)
            out.append(Hit(p, len(out) + 1, 0.0, {}))
    return out
