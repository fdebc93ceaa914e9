"""Answer metrics: is the answer a reader gets right, complete, cited and plain?

Each gold-set question with an ``answer`` key (docs/goldset-format.md,
"Answer facts") is scored on the answer the ``ask`` path gives it:

- fact recall: facts stated / facts required (answerable questions);
- complete: every fact stated (Wilson interval);
- abstention: share of unanswerable questions whose answer declines
  (``covered`` false and no quoted answer sentence); wrongly declined: share
  of answerable questions whose answer declines;
- citation support: share of an answer's cited sentences whose cited lines
  hold the sentence's content (exact for quotes and table rows, word overlap
  for what the answer wrote itself or a model wrote);
- contradictions found: share of questions marked ``conflict`` whose answer
  states the disagreement with both sides cited; false contradictions:
  disagreement claims on questions not marked ``conflict``;
- duplicate sentences: sentences repeating an earlier one of the same answer;
- words: answer length, citation marks removed.

A fact is *stated* when its normalised text occurs in the normalised answer
text (``normalise``: the format's rule, applied to both sides).
"""

from __future__ import annotations

import re
import statistics as pystats
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..records import Answer, AnswerSentence, Citation, Document
from ..text import content_words
from . import statistics as st
from .answer_evidence import EvidenceCount, count_evidence
from .answer_key import AnswerKey
from .goldset import JudgedSpan

_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "−": "-"})
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d)")
_SPACE = re.compile(r"\s+")
_CITATION_MARK = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\]")
# Markup a quoted sentence loses on the way into the answer.
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_LINE_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s+", re.MULTILINE)
# A word, or a number with its decimal points and per cent sign ("1.5%",
# "v2.3.1"); a stop between letters separates words, so a quote ending "...
# common stock." is found in a PDF line reading "common stock.Further, ...".
_WORD = re.compile(r"\w+(?:(?<=\d)[.%](?=\d)\w*)*%?")
_DISAGREEMENT = re.compile(
    r"\b(?:contradict\w*|disagree\w*|conflict\w*|inconsisten\w*|differ(?:s|ent)?\s+(?:on|from))\b", re.I
)
# Kinds an extractive answer uses for a disagreement it points out.
CLAIM_KINDS = frozenset({"conflict", "contradiction"})
EXACT_KINDS = frozenset({"quote", "table-row"})
UNSCORED_KINDS = frozenset({"not-covered", "related"})
# A written sentence is supported when at least this share of its content
# words is in its cited lines (a definition of the metric, not a tuned value).
OVERLAP_SUPPORTED = 0.5


def normalise(text: str) -> str:
    """The format's normalisation: NFKC, case-folded, typographic quotes and
    dashes to ASCII, ``*``, ``_`` and backticks removed, commas between digits
    removed, white space collapsed, trimmed."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_QUOTES)
    text = text.replace("*", "").replace("_", "").replace("`", "")
    text = _DIGIT_COMMA.sub("", text)
    return _SPACE.sub(" ", text).strip()


def strip_citations(text: str) -> str:
    """Answer text without its citation marks ``[n]``."""
    return _CITATION_MARK.sub("", text)


def stated_alternative(fact: Sequence[str], answer_text: str) -> str | None:
    """The first accepted alternative of ``fact`` that the answer states, or None."""
    said = normalise(strip_citations(answer_text))
    for alternative in fact:
        if normalise(alternative) in said:
            return alternative
    return None


def abstained(answer: Answer) -> bool:
    """An abstention: ``covered`` false and no quoted answer sentence."""
    return not answer.covered and not any(s.kind in EXACT_KINDS for s in answer.sentences)


def claims_disagreement(sentence: AnswerSentence) -> bool:
    if sentence.kind in CLAIM_KINDS:
        return True
    return sentence.kind == "statement" and _DISAGREEMENT.search(sentence.text) is not None


def _plain(text: str) -> str:
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _LINE_MARK.sub("", _TAG.sub(" ", text)).replace("|", " ")
    return normalise(text)


def _tokens(text: str) -> list[str]:
    return _WORD.findall(_plain(text))


def _contains(haystack: list[str], needle: list[str]) -> bool:
    if not needle:
        return True
    n = len(needle)
    first = needle[0]
    return any(haystack[i : i + n] == needle for i, t in enumerate(haystack) if t == first)


def _cited_text(sentence: AnswerSentence, citations: Mapping[int, Citation], documents) -> str | None:
    parts = []
    for n in sentence.citations:
        c = citations.get(n)
        doc = documents.get(c.doc) if c is not None else None
        if doc is None:
            return None
        parts.append("\n".join(doc.lines[c.first_line - 1 : c.last_line]))
    return "\n".join(parts)


def _pieces(sentence: AnswerSentence) -> list[str]:
    """What must appear verbatim in the cited lines: the whole quote; a table
    row's cells; the quoted parts of a written sentence."""
    text = strip_citations(sentence.text).rstrip(" …").removesuffix("...")
    if sentence.kind == "quote":
        return [text]
    if sentence.kind == "table-row":
        return [p for p in re.split(r"\s*(?:->|→|;|\|)\s*|:\s+", text) if p.strip()]
    return re.findall(r'"([^"]{3,})"', text)


def supported(sentence: AnswerSentence, citations: Mapping[int, Citation], documents) -> bool:
    """Whether the cited lines hold the sentence's content."""
    cited = _cited_text(sentence, citations, documents)
    if cited is None:
        return False
    haystack = _tokens(cited)
    pieces = _pieces(sentence)
    if pieces:
        return all(_contains(haystack, _tokens(p)) for p in pieces)
    wanted = content_words(strip_citations(sentence.text))
    if not wanted:
        return False
    return len(wanted & content_words(" ".join(haystack))) / len(wanted) >= OVERLAP_SUPPORTED


@dataclass(frozen=True)
class ScoredAnswer:
    """One question's answer against its answer key."""

    id: str
    type: str
    question: str
    text: str
    mode: str
    covered: bool
    answerable: bool
    conflict: bool
    facts_required: tuple[tuple[str, ...], ...]
    facts_stated: tuple[str | None, ...]  # the alternative stated, per fact
    abstained: bool
    claims: int  # sentences claiming a disagreement
    disagreement_stated: bool  # a claim citing two sources or more
    duplicates: int
    cited_sentences: int
    supported_sentences: int
    words: int
    evidence: EvidenceCount | None = None  # None: the question's judgements were not given

    @property
    def fact_recall(self) -> float | None:
        if not self.answerable or not self.facts_required:
            return None
        return sum(s is not None for s in self.facts_stated) / len(self.facts_required)

    @property
    def complete(self) -> bool | None:
        recall = self.fact_recall
        return None if recall is None else recall == 1.0

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "type": self.type,
            "question": self.question,
            "answer": self.text,
            "mode": self.mode,
            "covered": self.covered,
            "answerable": self.answerable,
            "conflict": self.conflict,
            "facts_required": [list(f) for f in self.facts_required],
            "facts_stated": list(self.facts_stated),
            "fact_recall": self.fact_recall,
            "complete": self.complete,
            "abstained": self.abstained,
            "contradiction_claims": self.claims,
            "contradiction_stated": self.disagreement_stated,
            "duplicate_sentences": self.duplicates,
            "citation_support": (
                self.supported_sentences / self.cited_sentences if self.cited_sentences else None
            ),
            "words": self.words,
            "evidence_precision": self.evidence.precision if self.evidence else None,
            "off_evidence_sentences": list(self.evidence.off_sentences) if self.evidence else [],
            "unjudged_sentences": self.evidence.unjudged if self.evidence else 0,
        }


def _duplicates(sentences: Sequence[AnswerSentence]) -> int:
    seen: set[str] = set()
    repeated = 0
    for s in sentences:
        if s.kind in UNSCORED_KINDS:
            continue
        key = " ".join(_tokens(strip_citations(s.text).rstrip(" …")))
        if key in seen:
            repeated += 1
        seen.add(key)
    return repeated


def score_answer(
    qid: str,
    qtype: str,
    question: str,
    key: AnswerKey,
    answer: Answer,
    documents: Mapping[str, Document],
    spans: Sequence[JudgedSpan] | None = None,
) -> ScoredAnswer:
    """Score one answer against its question's answer key (and, given the
    question's judged ``spans``, where its cited sentences fall: answer_evidence)."""
    citations = {c.n: c for c in answer.citations}
    cited = [s for s in answer.sentences if s.citations and s.kind not in UNSCORED_KINDS]
    claims = [s for s in answer.sentences if claims_disagreement(s)]
    return ScoredAnswer(
        id=qid,
        type=qtype,
        question=question,
        text=answer.text,
        mode=answer.mode,
        covered=answer.covered,
        answerable=key.answerable,
        conflict=key.conflict,
        facts_required=key.facts,
        facts_stated=tuple(stated_alternative(f, answer.text) for f in key.facts),
        abstained=abstained(answer),
        claims=len(claims),
        disagreement_stated=any(len(set(s.citations)) >= 2 for s in claims),
        duplicates=_duplicates(answer.sentences),
        cited_sentences=len(cited),
        supported_sentences=sum(supported(s, citations, documents) for s in cited),
        words=len(strip_citations(answer.text).split()),
        evidence=None if spans is None else count_evidence(cited, citations, spans, documents),
    )


# ------------------------------------------------------------------ aggregates

EMPTY = {"mean": None, "ci_low": None, "ci_high": None, "n": 0}


def _mean_block(values: Sequence[float], resamples: int, seed: int) -> dict:
    if not values:
        return dict(EMPTY)
    iv = st.bootstrap_ci(np.asarray(values, dtype=float), resamples, seed)
    return {"mean": iv.mean, "ci_low": iv.low, "ci_high": iv.high, "interval": iv.method, "n": len(values)}


def _rate_block(hits: Sequence[bool]) -> dict:
    if not hits:
        return dict(EMPTY)
    iv = st.hit_rate_interval(np.asarray(hits, dtype=float))
    return {"mean": iv.mean, "ci_low": iv.low, "ci_high": iv.high, "interval": iv.method, "n": len(hits)}


def aggregate(scored: Sequence[ScoredAnswer], resamples: int = st.RESAMPLES, seed: int = st.SEED) -> dict:
    """The answer metrics over ``scored``, each with its interval and ``n``."""
    answerable = [s for s in scored if s.answerable]
    recalls = [r for s in answerable if (r := s.fact_recall) is not None]
    support = [s.supported_sentences / s.cited_sentences for s in scored if s.cited_sentences]
    precision = [p for s in scored if s.evidence and (p := s.evidence.precision) is not None]
    words = [s.words for s in scored]
    block = {
        "fact_recall": _mean_block(recalls, resamples, seed),
        "complete": _rate_block([bool(s.complete) for s in answerable if s.complete is not None]),
        "abstention": _rate_block([s.abstained for s in scored if not s.answerable]),
        "wrongly_declined": _rate_block([s.abstained for s in answerable]),
        "citation_support": _mean_block(support, resamples, seed),
        "evidence_precision": _mean_block(precision, resamples, seed),
        "off_evidence_sentences": sum(s.evidence.off for s in scored if s.evidence),
        "unjudged_sentences": sum(s.evidence.unjudged for s in scored if s.evidence),
        "words": _mean_block(words, resamples, seed),
        "contradictions_found": _rate_block([s.disagreement_stated for s in scored if s.conflict]),
        "false_contradictions": sum(s.claims for s in scored if not s.conflict),
        "false_contradiction_questions": sum(1 for s in scored if s.claims and not s.conflict),
        "duplicate_sentences": sum(s.duplicates for s in scored),
        "questions": len(scored),
    }
    block["words"]["median"] = float(pystats.median(words)) if words else None
    return block


def answers_block(scored: Sequence[ScoredAnswer], resamples: int = st.RESAMPLES, seed: int = st.SEED) -> dict:
    """The run's ``answers`` key: aggregates, ``by_type`` and ``per_question``."""
    block = aggregate(scored, resamples, seed)
    types = sorted({s.type for s in scored})
    block["by_type"] = {t: aggregate([s for s in scored if s.type == t], resamples, seed) for t in types}
    block["per_question"] = [s.to_json() for s in scored]
    return block
