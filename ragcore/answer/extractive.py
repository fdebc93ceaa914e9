"""The answer without a model: sentences taken from the retrieved passages.

Extractive question answering in its simplest form (sentence selection by
term overlap with the question, as in the early TREC QA systems; Voorhees
1999, "The TREC-8 Question Answering Track Report"): the lens's findings
come first (price conflicts, contradicting absolutes), then the passages'
sentences that share the most content words with the question. Every
sentence carries numbered citations [n] that resolve to the exact document
lines it came from. When nothing retrieved is about the question, the answer
says so instead of padding.

Retrieval is not done here: the same hits feed this answer and the model's,
so citations point at the same lines with or without a key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ragcore.lenses import Lens
from ragcore.lenses.money import Mention, format_amount
from ragcore.lenses.risk import WEAK_TERMS, Finding
from ragcore.lenses.spans import collapse, passage_lines
from ragcore.records import (
    ANSWERING_KINDS,
    Answer,
    AnswerSentence,
    Citation,
    Document,
    Hit,
    Passage,
    SentenceKind,
)
from ragcore.text import content_words, sentence_spans

HEADER = "Extractive answer (no model)"
DEFAULT_REASON = "no model configured"
NOT_COVERED = "The loaded documents do not seem to cover this question: no retrieved passage is about it."
NOTHING_RETRIEVED = "Nothing was retrieved for this question, so there is nothing to answer from."
# Dense evidence counts as relevant from this cosine similarity (all-MiniLM-L6-v2,
# normalised vectors). Measured on the paragraphs of the shared Basecamp policies
# and Plausible pages (268 passages): the best passage for 9 on-topic questions
# scored 0.38-0.83, for 8 off-topic questions 0.13-0.21.
DENSE_MIN_SCORE = 0.30
MAX_SENTENCES = 6
TOP_PASSAGES = 5  # passages searched for answer sentences
PER_PASSAGE = 2  # sentences taken from one passage at most
QUOTE_CHARS = 180  # longest source sentence quoted whole
SHOWN_DISAGREEMENTS = 3  # conflicts / contradictions spelled out; the lens lists them all

# Words a question is made of that say nothing about its topic.
_QUESTION_WORDS = content_words(
    """what which who whom whose when where why how do does did done is are was were
    can could should would will shall may might must our your my we you i me us they them
    there here any some tell show give list find explain describe please about know
    much many there's it's its"""
)
_MARKUP_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|\[([^\]]*)\]\[[^\]]*\]")
_MARKUP = re.compile(r"\*\*|__|`|<[^>]+>|^\s*(?:[-*+]|\d+[.)]|#+)\s+", re.MULTILINE)
# Lines that are structure, not prose: front matter, link definitions, code/JSX.
_NOT_PROSE = re.compile(r"^\s*(?:---|[a-z_][\w-]*:\s|\[[^\]]+\]:\s|import\s|<|\||```|#)")


@dataclass
class _Citations:
    """Citation numbers in order of first use; the same lines reuse a number."""

    documents: Mapping[str, Document] | None
    items: list[Citation] = field(default_factory=list)
    index: dict[tuple[str, int, int], int] = field(default_factory=dict)

    def cite(self, doc: str, first: int, last: int, label: str, pages: tuple[int, ...]) -> int:
        key = (doc, first, last)
        if key not in self.index:
            document = (self.documents or {}).get(doc)
            if document is not None and document.line_pages:
                pages = document.pages_for(first, last)
            n = len(self.items) + 1
            self.items.append(Citation(n, doc, first, last, label, tuple(pages)))
            self.index[key] = n
        return self.index[key]

    def mention(self, m: Mention) -> int:
        return self.cite(m.doc, m.first_line, m.last_line, m.label, m.pages)

    def finding(self, f: Finding) -> int:
        return self.cite(f.doc, f.first_line, f.last_line, f.label, f.pages)


def _clean(text: str) -> str:
    """A source sentence as prose: links to their text, markup dropped."""
    text = _MARKUP_LINK.sub(lambda m: m.group(1) or m.group(2) or "", text)
    return collapse(_MARKUP.sub("", text))


def _quote(text: str, limit: int = QUOTE_CHARS) -> str:
    text = _clean(text)
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit] + " …"


def question_words(question: str) -> set[str]:
    """Stemmed content words of a question, without question words ("what", "our")."""
    return content_words(question) - _QUESTION_WORDS


def _dense_score(hit: Hit) -> float | None:
    trace = hit.trace.get("dense") if hit.trace else None
    return None if trace is None else float(trace.score)


def is_covered(question: str, hits: Sequence[Hit], dense_min_score: float = DENSE_MIN_SCORE) -> bool:
    """Whether the hits are about the question: some hit shares a content word
    with it, or dense similarity is strong (at least ``dense_min_score``)."""
    if not hits:
        return False
    wanted = question_words(question)
    if wanted and any(wanted & content_words(h.passage.text) for h in hits):
        return True
    return any((s := _dense_score(h)) is not None and s >= dense_min_score for h in hits)


# ---------------------------------------------------------------- lens sentences


def _lens_covers(lens: Lens | None) -> bool:
    """Prices found for a money question, or strong absolutes for a risk
    question, are about the question even without a shared word."""
    if lens is None:
        return False
    if lens.kind == "money":
        return bool(lens.figures)
    if lens.kind == "risk":
        return bool(lens.contradictions) or any(f.term not in WEAK_TERMS for f in lens.findings)
    return False


def _period_text(period: str | None) -> str:
    return f" per {period}" if period else ""


def _money_sentences(lens: Lens, cites: _Citations, budget: int) -> list[AnswerSentence]:
    out: list[AnswerSentence] = []
    used_lines: set[tuple[str, int, int]] = set()
    for conflict in lens.conflicts[:SHOWN_DISAGREEMENTS]:
        if len(out) >= budget:
            break
        parts, numbers = [], []
        for amount in conflict.amounts:
            ms = [m for m in conflict.mentions if round(m.amount, 4) == amount]
            docs = ", ".join(dict.fromkeys(f"{m.doc} line {m.first_line}" for m in ms))
            parts.append(f"{format_amount(amount, conflict.currency)} ({docs})")
            for m in ms:
                numbers.append(cites.mention(m))
                used_lines.add((m.doc, m.first_line, m.last_line))
        what = f"{conflict.subject}{_period_text(conflict.period)}"
        text = f"The sources disagree on {what}: " + " vs ".join(parts)
        out.append(AnswerSentence(text, tuple(dict.fromkeys(numbers)), "conflict"))
    for figure in lens.figures:
        if len(out) >= budget:
            break
        if figure.conflict:
            continue
        m = figure.mentions[0]
        where = (m.doc, m.first_line, m.last_line)
        if where in used_lines:
            continue  # one sentence already quoted holds this figure
        used_lines.add(where)
        kind: SentenceKind = "quote"
        if m.text.lstrip().startswith("|"):
            # a table row reads better as "subject: amount per period"
            amount = format_amount(figure.amount, figure.currency)
            text = f"{(m.subject or m.label).capitalize()}: {amount}{_period_text(m.per)}"
            kind = "table-row"
        else:
            text = _quote(m.text)
        out.append(AnswerSentence(text, (cites.mention(m),), kind))
    return out


def _risk_sentences(lens: Lens, cites: _Citations, budget: int) -> list[AnswerSentence]:
    out: list[AnswerSentence] = []
    used: set[int] = set()
    findings = lens.findings
    for i, j in lens.contradictions[:SHOWN_DISAGREEMENTS]:
        if len(out) >= budget:
            break
        a, b = findings[i], findings[j]
        if a.negated and not b.negated:
            a, b = b, a  # the plain claim first, then its denial
        text = (
            f'These contradict each other: {a.doc} says "{_quote(a.phrase, 120)}", '
            f'while {b.doc} says "{_quote(b.phrase, 120)}"'
        )
        out.append(AnswerSentence(text, (cites.finding(a), cites.finding(b)), "contradiction"))
        used.update((i, j))
    quoted: set[tuple[str, int, int]] = {
        (findings[k].doc, findings[k].first_line, findings[k].last_line) for k in used
    }
    for k, f in enumerate(findings):
        if len(out) >= budget:
            break
        where = (f.doc, f.first_line, f.last_line)
        if k in used or where in quoted:
            continue
        quoted.add(where)
        out.append(AnswerSentence(_quote(f.phrase), (cites.finding(f),)))
    return out


# ---------------------------------------------------------------- passage sentences


@dataclass(frozen=True)
class _Candidate:
    score: int
    hit_rank: int
    position: int
    text: str
    passage: Passage
    first_line: int
    last_line: int


def _candidates(hits: Sequence[Hit], wanted: set[str]) -> list[_Candidate]:
    out = []
    for hit in sorted(hits, key=lambda h: h.rank)[:TOP_PASSAGES]:
        p = hit.passage
        for a, b in sentence_spans(p.text):
            raw = p.text[a:b]
            # judge whole source lines: a sentence may start mid-line in front matter
            line_start = p.text.rfind("\n", 0, a) + 1
            lines = [ln for ln in (p.text[line_start:a] + raw).split("\n") if ln.strip()]
            if not lines or all(_NOT_PROSE.match(ln) for ln in lines):
                continue
            text = _clean(raw)
            if len(text.split()) < 4:
                continue
            while b > a and p.text[b - 1].isspace():
                b -= 1
            first, last = passage_lines(p, a, b)
            out.append(_Candidate(len(wanted & content_words(text)), hit.rank, a, text, p, first, last))
    return out


def _passage_sentences(
    hits: Sequence[Hit],
    wanted: set[str],
    cites: _Citations,
    budget: int,
    skip: set[tuple[str, int, int]],
    dense_min_score: float,
) -> list[AnswerSentence]:
    """The sentences of the top passages sharing the most content words with
    the question, best first (more shared words, then retrieval rank); when
    none shares a word but a passage is close in meaning (dense score at least
    ``dense_min_score``), that passage's opening sentence."""
    candidates = [
        c for c in _candidates(hits, wanted) if (c.passage.doc, c.first_line, c.last_line) not in skip
    ]
    chosen = sorted((c for c in candidates if c.score > 0), key=lambda c: (-c.score, c.hit_rank, c.position))
    if not chosen:
        close = {h.rank for h in hits if (score := _dense_score(h)) is not None and score >= dense_min_score}
        firsts: dict[int, _Candidate] = {}
        for c in candidates:
            if c.hit_rank in close:
                firsts.setdefault(c.hit_rank, c)
        chosen = sorted(firsts.values(), key=lambda c: c.hit_rank)
    picked: list[_Candidate] = []
    per_passage: dict[str, int] = {}
    for c in chosen:
        if len(picked) >= budget:
            break
        if per_passage.get(c.passage.id, 0) >= PER_PASSAGE:
            continue
        per_passage[c.passage.id] = per_passage.get(c.passage.id, 0) + 1
        picked.append(c)
    out = []
    for c in picked:
        n = cites.cite(c.passage.doc, c.first_line, c.last_line, c.passage.label, c.passage.pages)
        out.append(AnswerSentence(_quote(c.text), (n,)))
    return out


# ---------------------------------------------------------------- answer


def render(sentences: Sequence[AnswerSentence]) -> str:
    """One sentence a line, each followed by its citation marks."""
    return "\n".join(f"{s.text} {''.join(f'[{n}]' for n in s.citations)}".strip() for s in sentences)


def extractive_answer(
    question: str,
    hits: Sequence[Hit],
    lens: Lens | None = None,
    *,
    reason: str = DEFAULT_REASON,
    documents: Mapping[str, Document] | None = None,
    max_sentences: int = MAX_SENTENCES,
    dense_min_score: float = DENSE_MIN_SCORE,
) -> Answer:
    """The answer assembled from the lens's findings and the retrieved passages.

    Lens sentences come first (conflicts for money, contradictions for risk),
    then the passage sentences sharing the most content words with the
    question. Citations are numbered in order of first use and give the
    document lines of the cited sentence; with ``documents`` a PDF citation
    carries the exact pages of those lines.
    """
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, not {max_sentences}")

    def answer(sentences: list[AnswerSentence], cites: list[Citation]) -> Answer:
        covered = any(s.kind in ANSWERING_KINDS for s in sentences)
        return Answer("extractive", HEADER, render(sentences), reason, cites, sentences, covered=covered)

    if not hits:
        return answer([AnswerSentence(NOTHING_RETRIEVED, (), "not-covered")], [])
    if not is_covered(question, hits, dense_min_score) and not _lens_covers(lens):
        return answer([AnswerSentence(NOT_COVERED, (), "not-covered")], [])

    cites = _Citations(documents)
    sentences: list[AnswerSentence] = []
    if lens is not None and lens.kind == "money":
        sentences += _money_sentences(lens, cites, max_sentences)
        if not lens.figures:
            sentences.append(
                AnswerSentence("No prices or amounts appear in the retrieved passages.", (), "not-covered")
            )
    elif lens is not None and lens.kind == "risk":
        sentences += _risk_sentences(lens, cites, max_sentences)
        if not lens.findings:
            sentences.append(
                AnswerSentence(
                    "No absolute wording (always, never, guarantee, ...) appears in the retrieved passages.",
                    (),
                    "not-covered",
                )
            )
    budget = max_sentences - sum(1 for s in sentences if s.citations)
    if budget > 0:
        # lens answers add at most two context sentences; plain answers fill the budget
        if lens is not None and lens.kind != "none" and not lens.empty:
            budget = min(budget, 2)
        wanted = question_words(question)
        sentences += _passage_sentences(hits, wanted, cites, budget, set(cites.index), dense_min_score)
    if not cites.items:
        # the shared words were outside the passages read, or only in markup
        return answer([AnswerSentence(NOT_COVERED, (), "not-covered")], [])
    return answer(sentences, cites.items)
