"""Risk lens: absolute wording and commitments across documents, and the
contradictions between them.

The wording is found by ``risk_terms.find_absolutes`` (the documented list
of absolutes and how negation is read are there).

Contradictions are judged by the shared rule in ``ragcore.lenses.contradiction``
(same subject, one affirms what the other denies), with each finding's own
negation as what it denies. Two affirmed commitments of different documents
that state incompatible times for one act (a later time against a deadline)
contradict too (``contradiction.timing_conflict``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ragcore.lenses.contradiction import Statement, contradicts, statement, timing_conflict
from ragcore.lenses.risk_terms import WEAK_TERMS, find_absolutes  # find_absolutes also re-exported
from ragcore.lenses.risk_text import unbreak
from ragcore.lenses.spans import collapse, passage_lines
from ragcore.records import Hit

# Families that are one kind of claim for the contradiction rule.
# Each family is one kind of claim; commitments (guarantee, warranty, promise)
# are compared on their own term, the others on their topic words.
_CLAIM_PATTERN = {
    "guarantee": r"guarantee[sd]?|guaranteeing|as[\s-]+is",
    "warranty": r"warrant(?:y|ies|s)|warrant(?=\s+(?:that|and)\b)",
    "promise": r"promise[sd]?",
}


@dataclass(frozen=True)
class Finding:
    """One absolute wording at one place in one document."""

    term: str  # the family: "guarantee", "always", "unlimited", "all", "must", ...
    wording: str  # as written, with its negator: "no guarantees"
    negated: bool
    subject: str
    phrase: str  # the surrounding sentence, white space collapsed
    doc: str
    first_line: int  # lines of the phrase
    last_line: int
    label: str
    pages: tuple[int, ...]
    offset: int  # document offset of the term
    hit_rank: int
    polarity: int  # +1 asserts the absolute, -1 denies it
    contradicts: tuple[int, ...] = ()  # indexes into RiskLens.findings
    sentence: int = 0  # document offset of the sentence holding the term
    matched: str = ""  # the term as written, without its negator

    def to_json(self) -> dict:
        return {
            "phrase": self.phrase,
            "wording": self.wording,
            "term": self.term,
            "negated": self.negated,
            "subject": self.subject,
            "doc": self.doc,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "label": self.label,
            "contradicts": list(self.contradicts),
        }


@dataclass(frozen=True)
class RiskLens:
    findings: tuple[Finding, ...]  # findings in a contradiction first
    contradictions: tuple[tuple[int, int], ...]  # index pairs (i < j)
    documents_read: int = 0


@lru_cache(maxsize=8192)
def _statement(phrase: str, matched: str, denies: bool, unquote: bool) -> Statement:
    """The claim a finding makes, read by the shared rule around its own term."""
    if unquote:
        # '"as is"', '"encrypted at all times" is not accurate': the quotes
        # mark a formula that is asserted or denied, not a word mentioned
        phrase = re.sub(r"[\"“”]", "", phrase)
        matched = re.sub(r"[\"“”]", "", matched)
    read = statement(phrase, re.escape(matched).replace(r"\ ", r"\s+"))
    return replace(read, denies=denies)


def _denies(f: Finding) -> bool:
    """What a finding's claim denies: "never" denies ("never lose data"), a
    negated absolute denies, and a negated "never" affirms."""
    return f.negated != bool(re.match(r"(?:never|nothing)\b", f.matched, re.IGNORECASE))


def _quoted_claim(f: Finding) -> bool:
    return bool(re.match(r"[\"“]?as[\s-]+is", f.wording, re.IGNORECASE)) or (
        f.negated and bool(re.search(r"[\"“][^\"”]{0,40}$", f.phrase.split(f.wording)[0]))
    )


def _contradict(a: Finding, b: Finding) -> bool:
    """The shared rule between documents, for claims of one kind, with each
    finding's own negation as what it denies: commitments are compared on
    their term (a denial of the whole offering covers every claim of its
    term), other claims on their topic words."""
    if _denies(a) == _denies(b) or a.doc == b.doc:
        return False  # a document qualifying its own statement ("except as set out ...") is one position
    kind = a.term
    if kind != b.term:
        return False
    term = _CLAIM_PATTERN.get(kind)
    sa = _statement(a.phrase, a.matched, _denies(a), _quoted_claim(a))
    sb = _statement(b.phrase, b.matched, _denies(b), _quoted_claim(b))
    return contradicts(sa, sb, term)


def _findings(hits: Sequence[Hit]) -> list[Finding]:
    """Findings of every passage; a finding's lines are those of its wording
    (negator to term), one finding per kind of claim and polarity per line."""
    findings: list[Finding] = []
    seen: set[tuple] = set()
    for hit in sorted(hits, key=lambda h: h.rank):
        p = hit.passage
        for tm in find_absolutes(p.text):
            first, last = passage_lines(p, tm.wording_start, tm.end)
            key = (p.doc, first, tm.term, tm.polarity)
            if key in seen:
                continue  # "never have, never will"; overlapping passages
            seen.add(key)
            findings.append(
                Finding(
                    tm.term, tm.wording, tm.negated, tm.subject, collapse(p.text[tm.phrase_start : tm.phrase_end]),
                    p.doc, first, last, p.label, p.pages, p.start + tm.start, hit.rank, tm.polarity,
                    sentence=p.start + tm.sentence_start,
                    matched=unbreak(p.text[tm.start : tm.end]),
                )
            )  # fmt: skip
    return findings


def _word(f: Finding) -> str:
    """The term as a word stem ("guarantees" and "guarantee" meet, "as is" does not)."""
    return re.sub(r"\W", "", f.matched.lower())[:6]


def _contradiction_pairs(findings: Sequence[Finding]) -> list[tuple[int, int]]:
    """Contradicting pairs, one per pair of sentences and kind of claim: one
    sentence makes one claim of a kind, however many of its words match."""
    pairs: list[tuple[int, int]] = []
    seen: set[tuple] = set()
    for i, a in enumerate(findings):
        for j in range(i + 1, len(findings)):
            b = findings[j]
            key = (a.doc, a.sentence, b.doc, b.sentence, a.term)
            if key not in seen and _contradict(a, b):
                seen.add(key)
                pairs.append((i, j))
            timed = (a.doc, a.sentence, b.doc, b.sentence, "time")
            if timed not in seen and key not in seen and _timing_conflict(a, b):
                seen.add(timed)
                pairs.append((i, j))
    return pairs


def _timing_conflict(a: Finding, b: Finding) -> bool:
    """Two affirmed commitments of different documents that state
    incompatible times for one act (``contradiction.timing_conflict``)."""
    if a.negated or b.negated:
        return False
    return timing_conflict(a.phrase, a.doc, b.phrase, b.doc)


def risk_lens(hits: Sequence[Hit]) -> RiskLens:
    """Absolute wording in the given passages: findings in a contradiction
    first, then strong absolutes, then commitments ("all data is encrypted",
    "must reply within"), each in reading order."""
    findings = _findings(hits)
    # the plainest contradictions first: one term against its own denial ("guarantee" / "no guarantees")
    pairs = sorted(
        _contradiction_pairs(findings), key=lambda p: (_word(findings[p[0]]) != _word(findings[p[1]]), p)
    )
    rank = {}
    for k, (i, j) in enumerate(pairs):
        rank.setdefault(i, k)
        rank.setdefault(j, k)
    order = sorted(
        range(len(findings)),
        key=lambda i: (i not in rank, rank.get(i, 0), findings[i].term in WEAK_TERMS),
    )
    new_index = {old: new for new, old in enumerate(order)}
    links: dict[int, list[int]] = {}
    for i, j in pairs:
        links.setdefault(new_index[i], []).append(new_index[j])
        links.setdefault(new_index[j], []).append(new_index[i])
    ordered = tuple(
        replace(findings[old], contradicts=tuple(sorted(links.get(new, [])))) for new, old in enumerate(order)
    )
    contradictions = tuple(sorted(tuple(sorted((new_index[i], new_index[j]))) for i, j in pairs))
    return RiskLens(ordered, contradictions, len({h.passage.doc for h in hits}))
