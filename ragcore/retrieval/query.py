"""Questions that ask more than one thing.

"What uptime does the SLA guarantee, and what credits apply?" asks two
questions whose evidence usually sits in different passages; ranked as one
query, the passages that answer neither part well but share words with both
can crowd out each part's answer. ``split_question`` finds the parts, and
``merge_part_rankings`` interleaves the rankings retrieved for each part so
that every part's best passages reach the top of the list (a round-robin
merge, as in query decomposition for multi-hop retrieval, e.g. Min et al.,
"Multi-hop Reading Comprehension through Question Decomposition and
Rescoring", ACL 2019; and rank interleaving, Radlinski et al., CIKM 2008).

The split is conservative: it only cuts where the text after the cut reads
as a new question (it starts with a question word or an auxiliary verb), so
"What are the terms and conditions?" stays whole. Retrieval asks more of a
part (``retrieval_parts``): each must name at least ``MIN_OWN_WORDS`` content
words the other parts do not, so "..., and how much is it?" stays one query;
and the merge can keep the whole question's top ``head`` passages first
(the retriever keeps none), and lets the whole question's ranking lead each
round (``MERGE_LEAD``; docs/decisions.md: all chosen by cross-validation).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal, get_args

from ..text import ENGLISH_STOP_WORDS, tokenize

Carry = Literal["always", "pronoun", "never"]
CARRIES: tuple[Carry, ...] = get_args(Carry)

# Words that open a question (or a clause asking one) in English.
_OPENERS = (
    "what|which|who|whom|whose|when|where|why|how|whether|is|are|was|were|do|does|did|can|could|"
    "will|would|should|shall|may|must|has|have|had"
)
# A first part may also be a request rather than a question.
_FIRST_OPENERS = re.compile(
    rf"^(?:{_OPENERS}|tell|list|explain|describe|give|show|name|summari[sz]e|compare)\b", re.IGNORECASE
)
# A cut: "?" followed by more text; or ", and" / ", but" / ", plus" / ";" /
# " and" directly before a question word (a bare comma there usually opens a
# clause: "What happens, when I cancel?").
_PREPOSITION = r"(?:(?:from|for|in|on|at|by|to|with|under|until|since)\s+)?"
_CUT = re.compile(
    r"\?\s+(?=\S)"
    rf"|,\s*(?:and|also|plus|but)\s+(?:also\s+)?(?={_PREPOSITION}(?:{_OPENERS})\b)"
    rf"|;\s*(?:and\s+|also\s+)?(?={_PREPOSITION}(?:{_OPENERS})\b)"
    rf"|\s+and\s+(?:also\s+)?(?={_PREPOSITION}(?:{_OPENERS})\b)",
    re.IGNORECASE,
)
_LEADING_JOINER = re.compile(r"^(?:and|also|plus|but)\s+(?:also\s+)?", re.IGNORECASE)
_MIN_WORDS = 2  # a part needs at least this many words to stand alone


def split_question(question: str) -> list[str]:
    """The parts of a multi-part question, each ending with "?" when the
    question did; a single-part question comes back as a one-item list
    (stripped). Never returns an empty part.

    >>> split_question("What uptime does the SLA guarantee, and what credits apply?")
    ['What uptime does the SLA guarantee?', 'what credits apply?']
    """
    text = " ".join(question.split())
    if not text:
        return []
    asks = "?" in text
    pieces: list[str] = []
    start = 0
    for m in _CUT.finditer(text):
        pieces.append(text[start : m.start()])
        start = m.end()
    pieces.append(text[start:])
    parts = [_LEADING_JOINER.sub("", p.strip(" ,;?")) for p in pieces]
    if (
        len(parts) < 2
        or any(len(p.split()) < _MIN_WORDS for p in parts)
        or not _FIRST_OPENERS.match(parts[0])
    ):
        return [text]
    return [f"{p}?" if asks else p for p in parts]


def is_multi_part(question: str) -> bool:
    return len(split_question(question)) > 1


# Content words a part must have that no other part has: 3 chosen in 13 of 15
# leave-one-group-out folds (session 7; scripts/part_split_cv.py), was 2.
MIN_OWN_WORDS = 3


def _content(text: str) -> set[str]:
    return set(tokenize(text, stop_words=ENGLISH_STOP_WORDS))


def retrieval_parts(question: str, min_own_words: int = MIN_OWN_WORDS) -> list[str]:
    """``split_question``'s parts when each asks about something of its own
    (at least ``min_own_words`` stemmed content words no other part holds);
    otherwise the question whole, as a one-item list. "What is the fee, and
    how much is it?" stays whole: its second part has no words of its own."""
    parts = split_question(question)
    if len(parts) < 2:
        return parts
    words = [_content(p) for p in parts]
    for i, own in enumerate(words):
        others = set().union(*(w for j, w in enumerate(words) if j != i))
        if len(own - others) < min_own_words:
            return [" ".join(question.split())]
    return parts


# Which ranking opens each round of the merge: the whole question's ("whole":
# its first passage, then each part's first, then its second, ...) or the
# parts' ("parts": the whole question's passage last in each round). "whole"
# chosen by leave one group out in session 8 (scripts/part_split_cv.py):
# it keeps the whole question's passages that answer both parts near the top.
Lead = Literal["whole", "parts"]
LEADS: tuple[Lead, ...] = get_args(Lead)
MERGE_LEAD: Lead = "whole"


def merge_part_rankings(
    rankings: Sequence[Sequence[tuple[int, float]]],
    whole: Sequence[tuple[int, float]] = (),
    head: int = 0,
    lead: Lead = MERGE_LEAD,
) -> list[tuple[int, float]]:
    """Round-robin merge: the whole question's first ``head`` passages, then
    rounds of the next passage of the whole question's ranking and of each
    part's (the whole question's first in each round with ``lead`` "whole",
    last with "parts"), skipping rows already taken. Scores are replaced by
    a rank-based score (1 / position) so the merged list stays sorted."""
    parts = [list(r) for r in rankings]
    own = [list(whole)] if whole else []
    lists = own + parts if lead == "whole" else parts + own
    merged: list[int] = list(dict.fromkeys(row for row, _ in whole[:head]))
    seen: set[int] = set(merged)
    depth = max((len(r) for r in lists), default=0)
    for i in range(depth):
        for ranking in lists:
            if i < len(ranking) and ranking[i][0] not in seen:
                seen.add(ranking[i][0])
                merged.append(ranking[i][0])
    return [(row, 1.0 / position) for position, row in enumerate(merged, start=1)]


def rank_by_parts(
    question: str,
    rank: Callable[[str], Sequence[tuple[int, float]]],
    carry: Carry = "always",
    *,
    head: int = 0,
    min_own_words: int = 0,
    whole: Sequence[tuple[int, float]] | None = None,
    lead: Lead = MERGE_LEAD,
) -> list[tuple[int, float]] | None:
    """For a multi-part question (``retrieval_parts`` with ``min_own_words``),
    ``rank`` each part and the whole question (or use ``whole``, its ranking
    already made) and merge them (``merge_part_rankings`` with ``head`` and
    ``lead``); None for a single question, so the caller keeps its own ranking."""
    parts = retrieval_parts(question, min_own_words)
    if len(parts) < 2:
        return None
    ranked_parts = [rank(query) for query in part_queries(parts, carry)]
    return merge_part_rankings(ranked_parts, whole if whole is not None else rank(question), head, lead)


# Words by which a later part refers back to the first part's subject.
_BACK_REFERENCE = re.compile(
    r"\b(?:it|its|they|them|their|this|that|these|those|he|she|his|her)\b", re.IGNORECASE
)


def part_queries(parts: Sequence[str], carry: Carry = "always") -> list[str]:
    """The query searched for each part: the first part as it is; a later
    part followed by the first, whose subject it often leaves out or names
    by a pronoun ("..., and which error code says it was hit?"): always,
    only when the later part holds such a pronoun ("pronoun"), or never.
    (Which, is chosen by cross-validation: docs/decisions.md.)"""
    out = [parts[0]]
    for part in parts[1:]:
        joined = carry == "always" or (carry == "pronoun" and _BACK_REFERENCE.search(part) is not None)
        out.append(f"{part} {parts[0]}" if joined else part)
    return out
