"""Risk lens: absolute wording in the retrieved passages, and contradictions.

Absolute claims ("always", "never", "guarantee", "unlimited", "100%") are where
a policy over-promises or a contract takes on risk. Each one is found with a
word pattern, checked for negation with a short look-back window in the same
clause in the manner of NegEx (Chapman et al. 2001, "A simple algorithm for
identifying negated findings and diseases in discharge summaries"), and
given a subject: the words it governs. A plain and a negated absolute of the
same kind about the same subject contradict each other ("we guarantee 99.99%
uptime" against "we make no guarantees ..."). A disclaimer about the
service as a whole ("no guarantees that our Services ...") covers every
specific promise of its kind, so it is compared with all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ragcore.lenses.spans import collapse, line_bounds, passage_lines, phrase_bounds, sentence_at
from ragcore.records import Hit
from ragcore.text import sentence_spans, tokenize

# (family, polarity, pattern). Polarity -1 marks wording that is itself the
# negative absolute ("never" is the opposite of "always"); such terms are
# not checked for further negation.
_TERMS: tuple[tuple[str, int, str], ...] = (
    ("guarantee", 1, r"guarantee[sd]?|guaranteeing"),
    ("warranty", 1, r"warrant(?:y|ies)"),
    ("promise", 1, r"promise[sd]?"),
    ("always", 1, r"always"),
    ("always", -1, r"never"),
    ("unlimited", 1, r"unlimited"),
    ("100%", 1, r"100(?:\.0+)?\s?%|100\s+percent"),
    ("all", 1, r"all"),
    ("none", -1, r"none"),
    ("no risk", -1, r"no[- ]risk|risk[- ]free|zero[- ]risk|without\s+(?:any\s+)?risk"),
    ("at no cost", -1, r"at\s+no\s+(?:extra\s+|additional\s+)?(?:cost|charge)|free\s+of\s+charge"),
    ("will not", -1, r"will\s+not|won['’]t"),
    ("must", 1, r"must(?:\s+not|n['’]t)?"),
    ("forever", 1, r"forever|in\s+perpetuity"),
)
_TERM = re.compile(
    "|".join(rf"(?P<t{i}>(?<![\w-])(?:{pattern})(?![\w-]))" for i, (_, _, pattern) in enumerate(_TERMS)),
    re.IGNORECASE,
)
# "all" in idioms is not a claim about everything.
_ALL_IDIOM_BEFORE = re.compile(
    r"\b(?:at|after|above|first\s+of|all\s+in|once\s+and\s+for)\s+$", re.IGNORECASE
)
_ALL_IDIOM_AFTER = re.compile(r"\s+(?:right|but|of\s+a\s+sudden|in\s+all)\b", re.IGNORECASE)

# NegEx-style triggers that negate an absolute a few words later.
_NEGATORS = frozenset(
    re.split(
        r"\s+",
        "no not never without nor neither cannot can't don't doesn't didn't isn't aren't wasn't won't "
        "shouldn't wouldn't couldn't disclaim disclaims disclaimed",
    )
)
_TERMINATORS = frozenset({"and", "but", "however", "although", "though"})
_NEGATION_WINDOW = 3  # words before the term, within its clause
_CLAUSE_END = re.compile(r"[,;:!?()\n]|\.(?!\d)|\s[-–—]\s|\bbut\b", re.IGNORECASE)
_SUBJECT_WORDS = 8
_SUBJECT_SKIP = frozenset(re.split(r"\s+", "that to you we us they it i our your their the a an is are be"))
# Generic words left out when comparing subjects.
_GENERIC = frozenset(
    tokenize(
        "we you they our your their us will would shall can may make makes made provide provides "
        "any every that this these those not no"
    )
)
# Commitments (not "all" or "always") can be blanket: a disclaimer whose
# subject names the whole offering covers every specific promise.
_COMMITMENTS = frozenset({"guarantee", "warranty", "promise"})
# Wording that is absolute but rarely a risk on its own; listed after the rest.
WEAK_TERMS = frozenset({"all", "none", "must", "will not"})
# A subject naming the whole offering makes a statement blanket.
_BLANKET = frozenset(
    tokenize(
        "service services product products software platform app apps application site website anything everything"
    )
)


@dataclass(frozen=True)
class Finding:
    """One absolute wording at one place in one document."""

    term: str  # the family: "guarantee", "always", "unlimited", ...
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


@dataclass(frozen=True)
class TermMatch:
    """An absolute found in a text (offsets into that text)."""

    term: str
    polarity: int
    wording: str
    negated: bool
    subject: str
    start: int
    end: int
    phrase_start: int
    phrase_end: int


def _negator_before(text: str, clause_start: int, start: int, taken: list[tuple[int, int]]) -> int | None:
    """Offset of a negating word among the few words before ``start``.

    Words inside another absolute ("no" of "no risk") do not count, and "and"
    ends the look-back, as NegEx's termination terms do."""
    found = [
        m
        for m in re.finditer(r"[\w'’]+", text[clause_start:start])
        if not any(a <= clause_start + m.start() < b for a, b in taken)
    ]
    for m in reversed(found[-_NEGATION_WINDOW:]):
        word = m.group().lower().replace("’", "'")
        if word in _TERMINATORS:
            return None
        if word in _NEGATORS:
            return clause_start + m.start()
    return None


def _clause(text: str, start: int, end: int, line: tuple[int, int]) -> tuple[int, int]:
    """The clause around [start, end) within its line."""
    lo = line[0]
    for m in _CLAUSE_END.finditer(text, line[0], start):
        lo = m.end()
    m = _CLAUSE_END.search(text, end, line[1])
    hi = m.start() if m else line[1]
    return lo, hi


def _subject(text: str, clause: tuple[int, int], start: int, end: int) -> str:
    after = re.findall(r"[\w$€£%.'’-]+", text[end : clause[1]])
    while after and after[0].lower() in _SUBJECT_SKIP:
        after = after[1:]
    words_ = after[:_SUBJECT_WORDS]
    if not [w for w in words_ if tokenize(w)]:
        # "uptime is guaranteed": the subject comes before the term
        before = re.findall(r"[\w$€£%.'’-]+", text[clause[0] : start])
        while before and before[-1].lower() in _SUBJECT_SKIP | {"is", "are", "be", "been", "was"}:
            before = before[:-1]
        words_ = before[-_SUBJECT_WORDS:]
        while words_ and words_[0].lower() in _SUBJECT_SKIP:
            words_ = words_[1:]
    return " ".join(w.rstrip(".").lower().replace("’", "'") for w in words_)


def find_absolutes(text: str) -> list[TermMatch]:
    """Every absolute wording in ``text`` with its negation and subject."""
    spans = sentence_spans(text)
    out: list[TermMatch] = []
    matches = list(_TERM.finditer(text))
    taken = [(m.start(), m.end()) for m in matches]
    for m in matches:
        index = int(next(k for k, v in m.groupdict().items() if v is not None)[1:])
        family, polarity, _ = _TERMS[index]
        if family == "all" and (
            _ALL_IDIOM_BEFORE.search(text[max(0, m.start() - 20) : m.start()])
            or _ALL_IDIOM_AFTER.match(text, m.end())
        ):
            continue
        line = line_bounds(text, m.start())
        clause = _clause(text, m.start(), m.end(), line)
        negated = False
        wording_start = m.start()
        if polarity > 0:
            neg = _negator_before(text, clause[0], m.start(), taken)
            if neg is not None:
                negated = True
                polarity = -1
                wording_start = neg
        sentence = sentence_at(spans, m.start(), line)
        phrase = phrase_bounds(text, sentence, m.start())
        out.append(
            TermMatch(
                term=family,
                polarity=polarity,
                wording=collapse(text[wording_start : m.end()]),
                negated=negated,
                subject=_subject(text, clause, m.start(), m.end()),
                start=m.start(),
                end=m.end(),
                phrase_start=phrase[0],
                phrase_end=phrase[1],
            )
        )
    return out


@lru_cache(maxsize=4096)
def _subject_words(subject: str) -> frozenset[str]:
    return frozenset(t for t in tokenize(subject) if t not in _GENERIC and not t[:1].isdigit())


def contradict(a: Finding, b: Finding) -> bool:
    """A plain and a denied absolute of one kind about the same subject; for
    commitments, a subject naming the whole service is the same subject as any
    other."""
    if a.term != b.term or a.polarity == b.polarity:
        return False
    if (a.doc, a.first_line, a.phrase) == (b.doc, b.first_line, b.phrase):
        return False  # one sentence qualifying itself is not two sources disagreeing
    wa, wb = _subject_words(a.subject), _subject_words(b.subject)
    if wa & wb:
        return True
    return a.term in _COMMITMENTS and bool((wa | wb) & _BLANKET)


def risk_lens(hits: Sequence[Hit]) -> RiskLens:
    """Absolute wording in the retrieved passages: findings in a contradiction
    first, then strong absolutes, then weak ones ("all", "must", ...), each in
    retrieval order."""
    findings: list[Finding] = []
    seen: set[tuple] = set()
    for hit in sorted(hits, key=lambda h: h.rank):
        p = hit.passage
        for tm in find_absolutes(p.text):
            # one finding per kind of claim per sentence ("never have, never will")
            key = (p.doc, p.start + tm.phrase_start, tm.term, tm.polarity)
            if key in seen:
                continue
            seen.add(key)
            first, last = passage_lines(p, tm.phrase_start, tm.phrase_end)
            findings.append(
                Finding(
                    term=tm.term,
                    wording=tm.wording,
                    negated=tm.negated,
                    subject=tm.subject,
                    phrase=collapse(p.text[tm.phrase_start : tm.phrase_end]),
                    doc=p.doc,
                    first_line=first,
                    last_line=last,
                    label=p.label,
                    pages=p.pages,
                    offset=p.start + tm.start,
                    hit_rank=hit.rank,
                    polarity=tm.polarity,
                )
            )
    pairs = [
        (i, j)
        for i in range(len(findings))
        for j in range(i + 1, len(findings))
        if contradict(findings[i], findings[j])
    ]
    involved = {i for pair in pairs for i in pair}
    # contradictions first, then strong wording, then weak; stable within each
    order = sorted(range(len(findings)), key=lambda i: (i not in involved, findings[i].term in WEAK_TERMS))
    new_index = {old: new for new, old in enumerate(order)}
    links: dict[int, list[int]] = {}
    for i, j in pairs:
        links.setdefault(new_index[i], []).append(new_index[j])
        links.setdefault(new_index[j], []).append(new_index[i])
    ordered = tuple(
        replace(findings[old], contradicts=tuple(sorted(links.get(new, [])))) for new, old in enumerate(order)
    )
    contradictions = tuple(sorted(tuple(sorted((new_index[i], new_index[j]))) for i, j in pairs))
    return RiskLens(ordered, contradictions)
