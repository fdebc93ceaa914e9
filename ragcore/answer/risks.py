"""The risks of a named subject: what its documents commit to, exclude or limit.

"What are the risks of the <named deal>?" is rarely answered by a sentence
that says "risk": a contract's or proposal's risks are its liability cap, the
damages it excludes, the clauses it cannot accept, its disclaimers and its
penalties, worded in the document's own terms and sharing no word with the
question (so neither retrieval nor the answer's word coverage finds them).
So when a question asks for risks (``asks_risks``) and names its subject,
the answer reads every passage of the documents about that subject
(``subject_documents``) and quotes the sentences that state a commitment or
a limitation (``LIMITATION_TERMS``, a documented vocabulary of risk
allocation in contracts and policies: liability, damages, caps and limits,
indemnities, exceptions and exclusions, disclaimers and "as is", waivers,
penalties and forfeiture, suspension and termination, refusals such as
"cannot accept", and stated risks). The vocabulary and ``RISK_UNITS`` were
chosen on eval/dev-risks.gold.json (../shared documents), not on the demo.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragcore.records import Document, Hit, Passage
from ragcore.retrieval.bm25 import BM25Params
from ragcore.retrieval.document_names import names_document

from .answerability import names, unknown_names
from .cohesion import with_continuations
from .relevance import Part, Scorer, topic_words
from .units import Unit, answer_units

# A question asking for risks: "What are the risks of ...?", "What risks does
# ... carry?", "What's our exposure under ...?", "What are the downsides of ...?"
# The noun asked for, not an adjective: "When will the risky lines be rewritten?" asks a date.
_ASKS_RISKS = re.compile(
    r"\b(?:what|which)\b(?:\W+\w+){0,3}?\W+(?:risks?|downsides?|pitfalls?|dangers?|exposure)\b", re.IGNORECASE
)
# One pattern per kind of commitment or limitation; a sentence is read as
# stating a risk when it matches one, and ranked by how many kinds it matches.
LIMITATION_TERMS: tuple[str, ...] = (
    r"liab(?:le|ility|ilities)",
    r"damages?",
    r"caps?|capped|limit(?:s|ed|ation|ations)?",
    r"indemni\w+",
    r"exceptions?|exclusions?|exclud\w+|exclusive",
    r"disclaim\w*|as\s+is|without\s+(?:any\s+)?warrant\w*|no\s+(?:guarantee|warrant)\w*",
    r"waive[sdr]?|waiver",
    r"penalt(?:y|ies)|fines?|forfeit\w*",
    r"suspen(?:d|ds|ded|sion)|terminat(?:e|es|ed|ion)",
    r"cannot|can['’]t|can\s+not|unable|not\s+(?:be\s+)?able|will\s+not\s+accept|not\s+accept",
    r"risks?|irreparable|harm",
    r"remed(?:y|ies)",
)
_TERMS = tuple(re.compile(rf"(?<![\w-])(?:{p})(?![\w-])", re.IGNORECASE) for p in LIMITATION_TERMS)
RISK_UNITS = 3  # sentences quoted from the subject's documents (continuations follow them)


def asks_risks(question: str) -> bool:
    """Whether the question asks for the risks of something."""
    return _ASKS_RISKS.search(question) is not None


def limitation_kinds(text: str) -> int:
    """How many kinds of commitment or limitation ``text`` states."""
    return sum(1 for p in _TERMS if p.search(text))


def subject_documents(question: str, documents: Mapping[str, Document]) -> list[str]:
    """The documents the question is about: those it names by file name
    (retrieval's rule, ``names_document``), else those mentioning every name
    it mentions (capitalised words and acronyms, ``answerability.names``);
    none when it names nothing."""
    params = BM25Params()
    terms = set(params.terms(question))
    named = [doc for doc in documents if names_document(terms, doc, params)]
    if named or not names(question):
        return named
    return [doc for doc, d in documents.items() if not unknown_names(question, [f"{doc} {d.text}"])]


def _subject_part(question: str, docs: Sequence[str]) -> Part:
    """The question's topic words beyond those naming the subject's documents
    (a risk word stays: "at your sole risk" states one)."""
    naming = topic_words(" ".join(re.split(r"[/_.-]", " ".join(docs))))
    return Part(question, frozenset(topic_words(question) - naming), "none", ())


@dataclass(frozen=True)
class RiskReading:
    """The subject's documents and the sentences quoted as its risks."""

    documents: tuple[str, ...]
    units: tuple[Unit, ...]


def risk_reading(
    question: str,
    documents: Mapping[str, Document] | None,
    passages: Sequence[Passage] | None,
    limit: int = RISK_UNITS,
) -> RiskReading | None:
    """The sentences of the subject's documents stating a commitment or a
    limitation (most about the question's other words first, then those
    stating most kinds, then in document order), each followed by the
    sentences leaning on it ("Second, ..."); None unless the question asks
    for risks and names its subject."""
    if not documents or not passages or not asks_risks(question):
        return None
    docs = subject_documents(question, documents)
    if not docs:
        return None
    wanted = set(docs)
    hits = [Hit(p, i, 0.0, {}) for i, p in enumerate((p for p in passages if p.doc in wanted), 1)]
    every = answer_units(hits, documents)
    units = [u for u in every if u.kind != "table-row" and limitation_kinds(u.text)]
    if not units:
        return None
    scorer = Scorer(units)
    part = _subject_part(question, docs)
    ranked = sorted(
        units,
        key=lambda u: (-scorer.coverage(u, part), -limitation_kinds(u.text), docs.index(u.doc), u.position),
    )
    quoted = with_continuations(ranked[:limit], every, set())
    # each document's sentences in its own order, documents by their best sentence
    first = {u.doc: i for i, u in reversed(list(enumerate(quoted)))}
    quoted.sort(key=lambda u: (first[u.doc], u.position))
    return RiskReading(tuple(docs), tuple(quoted))
