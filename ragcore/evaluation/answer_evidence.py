"""Evidence precision: whether an answer's quoted sentences sit on the
question's judged evidence, or on passages judged not to answer it.

Fact recall says whether an answer states what it must; it does not see a
sentence quoted because it shares a word with the question ("Is our pricing
consistent?" answered with "customers consistently ask for ISO/IEC 27001").
The gold set's judgements do: pooling judges every passage the rankers put in
their top 10, so most quoted sentences fall on judged text. A cited answer
sentence (any kind but "not-covered" and "related") is **on evidence** when
its cited lines overlap a judgement of the question graded 1 or more, **off
evidence** when the judgements they overlap are all graded 0, and
**unjudged** when they overlap none. Evidence precision = on / (on + off),
per question; unjudged sentences are counted, not guessed. (A definition of
the metric, not a tuned value: grade 1, "related", is enough, since context
around an answer is fair to quote.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..records import AnswerSentence, Citation, Document
from .goldset import JudgedSpan, overlaps

ON_EVIDENCE_GRADE = 1


@dataclass(frozen=True)
class EvidenceCount:
    """One answer's cited sentences by where their cited lines fall."""

    on: int = 0
    off: int = 0
    unjudged: int = 0
    off_sentences: tuple[str, ...] = ()

    @property
    def precision(self) -> float | None:
        judged = self.on + self.off
        return self.on / judged if judged else None


def sentence_grade(
    sentence: AnswerSentence,
    citations: Mapping[int, Citation],
    spans: Sequence[JudgedSpan],
    documents: Mapping[str, Document],
) -> int | None:
    """The highest grade of the judgements the sentence's cited lines overlap (None: none)."""
    grades = []
    for n in sentence.citations:
        c = citations.get(n)
        doc = documents.get(c.doc) if c is not None else None
        if c is None or doc is None:
            continue
        start, end = doc.line_span(c.first_line, c.last_line)
        grades += [s.grade for s in spans if s.doc == c.doc and overlaps(s, start, end)]
    return max(grades) if grades else None


def count_evidence(
    sentences: Sequence[AnswerSentence],
    citations: Mapping[int, Citation],
    spans: Sequence[JudgedSpan],
    documents: Mapping[str, Document],
) -> EvidenceCount:
    """On, off and unjudged counts over ``sentences`` (already the cited, scored ones)."""
    on = off = unjudged = 0
    off_texts: list[str] = []
    for sentence in sentences:
        grade = sentence_grade(sentence, citations, spans, documents)
        if grade is None:
            unjudged += 1
        elif grade >= ON_EVIDENCE_GRADE:
            on += 1
        else:
            off += 1
            off_texts.append(sentence.text)
    return EvidenceCount(on, off, unjudged, tuple(off_texts))
