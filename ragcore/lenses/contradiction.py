"""The contradiction rule, one for the risk lens and the answer.

Two statements contradict each other when

1. both are *assertions*: not a question ("asked whether it never goes
   down"), not an instruction about what to say ("do not say that we never
   go down", "avoid words such as guaranteed"), and not a word merely
   mentioned in quotation marks;
2. they are about the *same subject*: their claims share topic words (the
   content words of the clause that makes the claim, without the absolute
   term itself, negators and generic words); and
3. one *affirms* what the other *denies*.

Two commitments can also contradict by their numbers (``timing_conflict``: a
later time for an act against another document's deadline for it).

So two negated statements never contradict (both deny), a statement and its
restatement never do (both affirm), and a sentence does not contradict
itself. Negation is found as NegEx does (Chapman et al. 2001): a negating
word a few words before the claim's term, within the same clause, or the
term being a negative absolute itself ("never", "none").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ragcore.text import NUMBER_WORD_PATTERN, NUMBER_WORDS, content_words, tokenize

_NEGATORS = frozenset(
    "no not never without nor neither cannot can't don't doesn't didn't isn't aren't wasn't won't "
    "weren't hasn't haven't hadn't mustn't needn't shan't mightn't "
    "shouldn't wouldn't couldn't disclaim disclaims disclaimed none".split()
)
# Negative absolutes: the word itself denies.
_NEGATIVE_TERMS = frozenset({"never", "none", "nothing", "nobody", "nowhere"})
_COPULAS = frozenset({"is", "are", "was", "were"})
_NEGATION_WINDOW = 5  # words looked back from the term, within its clause
_PREDICATE_WORDS = 1  # content words after a negator that say what it denies
_CLAUSE_END = re.compile(r"[;:!?()\n]|,\s+(?:and|but|while|whereas)\b|\.(?!\d)|\s[-–—]\s|\bbut\b", re.I)
_WORD = re.compile(r"[\w'’]+")
_QUESTION = re.compile(r"\?\s*$|\b(?:asked|ask|asks|wonder(?:s|ed)?)\s+(?:whether|if)\b", re.I)
# An instruction about wording, not a claim: "Do not say ...", "Avoid ...".
_INSTRUCTION = re.compile(
    r"^\W*(?:please\s+)?(?:do\s+not|don['’]t|avoid|never)\s+(?:say|claim|promise|imply|suggest|tell|write|"
    r"state|use|call|describe|quote)\b|^\W*avoid\b",
    re.I,
)
_QUOTED = re.compile(r"[\"“]([^\"”]{0,60})[\"”]")
# Words that say nothing about what a claim is about.
_GENERIC = frozenset(
    tokenize(
        "we you they our your their us it its this that these those will would shall can could may might "
        "must make makes made provide provides offer offers any every all each some also only just "
        "customer customers company do does did doing done say says said what which who when where how "
        "about after before from into onto over under with within than then there here is are was were be "
        "been being has have had"
    )
)


@dataclass(frozen=True)
class Statement:
    """A sentence read as a claim: what it is about and whether it denies it."""

    text: str
    subject: frozenset[str]  # stemmed topic words of the claim
    denies: bool
    asserted: bool  # False for questions, instructions and quoted mentions
    predicate: frozenset[str] = frozenset()  # without a term: the words a negator denies


def _term_span(text: str, term: str | None) -> tuple[int, int] | None:
    if term is None:
        return None
    m = re.search(rf"(?<![\w-])(?:{term})(?![\w-])", text, re.I)
    return None if m is None else (m.start(), m.end())


def _clause(text: str, start: int, end: int) -> tuple[int, int]:
    lo = 0
    for m in _CLAUSE_END.finditer(text, 0, start):
        lo = m.end()
    m = _CLAUSE_END.search(text, end)
    return lo, (m.start() if m else len(text))


def _denies(text: str, clause: tuple[int, int], start: int, end: int) -> bool:
    words = [w.group().lower().replace("’", "'") for w in _WORD.finditer(text, clause[0], start)]
    term_words = {w.lower() for w in _WORD.findall(text[start:end])}
    if term_words & _NEGATIVE_TERMS:
        return True
    if any(w in _NEGATORS for w in words[-_NEGATION_WINDOW:]):
        return True
    # "it is not a guarantee": the negator follows a copula right before the term
    after = [w.group().lower() for w in _WORD.finditer(text, end, clause[1])][:2]
    if bool(after) and after[0] in {"not", "no"} and start == clause[0]:
        return True
    # "the line about documents being encrypted at all times is not accurate":
    # the claim holding the term is the subject of a denied copula
    return len(after) == 2 and after[0] in _COPULAS and after[1] in {"not", "no", "never"}


def _mentioned_only(text: str, start: int, end: int) -> bool:
    return any(m.start() <= start and end <= m.end() for m in _QUOTED.finditer(text))


def statement(text: str, term: str | None = None) -> Statement:
    """Read ``text`` (one sentence) as a claim. With ``term`` (a regular
    expression for the absolute, e.g. ``guarantee[sd]?``) the claim is the
    clause holding it; without, the sentence's first clause that has a
    negator, else the whole sentence."""
    span = _term_span(text, term)
    predicate: frozenset[str] = frozenset()
    if span is None:
        found = next(
            (m for m in _WORD.finditer(text) if m.group().lower().replace("’", "'") in _NEGATORS), None
        )
        span = (found.start(), found.end()) if found else (0, 0)
        clause = _clause(text, *span) if found else (0, len(text))
        denies = found is not None
        if found is not None:
            # "are not encrypted": what is denied is the next content word or two
            after = [w.group() for w in _WORD.finditer(text, found.end(), clause[1])]
            denied = [w for w in after if content_words(w) - _GENERIC][:_PREDICATE_WORDS]
            predicate = frozenset(content_words(" ".join(denied)) - _GENERIC)
    else:
        clause = _clause(text, *span)
        denies = _denies(text, clause, *span)
    asserted = not (_QUESTION.search(text) or _INSTRUCTION.search(text) or _mentioned_only(text, *span))
    drop = _GENERIC | set(tokenize(" ".join(_NEGATORS)))
    if term is not None:
        drop |= set(tokenize(text[span[0] : span[1]]))
    topic = _lemmas(content_words(text[clause[0] : clause[1]])) - drop
    if not topic:
        # "it is not a guarantee": the clause names its subject by a pronoun
        topic = _lemmas(content_words(text)) - drop
    return Statement(
        text=text, subject=frozenset(topic), denies=denies, asserted=asserted, predicate=predicate
    )


# A denial about the offering as a whole (a blanket "no guarantee" about the
# service, or the service "provided as is") is about every part of it.
_WHOLE_OFFERING = frozenset(tokenize("service services product products software platform"))


def same_subject(a: Statement, b: Statement, anchored: bool) -> bool:
    """Claims about one thing: with a shared absolute term (``anchored``) one
    shared topic word is enough, and a denial naming the whole offering
    covers every claim of its term; otherwise two shared topic words, or
    half of the smaller claim's."""
    shared = len(a.subject & b.subject)
    if anchored:
        denial = a if a.denies else b
        return shared >= 1 or (a.denies != b.denies and bool(denial.subject & _WHOLE_OFFERING))
    smaller = min(len(a.subject), len(b.subject))
    return shared >= 2 or (smaller > 0 and shared * 2 >= smaller)


# Irregular forms that stemming leaves apart ("never lose" / "never be lost").
_IRREGULAR = {
    "lost": "lose", "sold": "sell", "kept": "keep", "held": "hold", "sent": "send", "paid": "pay",
    "written": "write", "wrote": "write", "taken": "take", "took": "take", "given": "give", "gave": "give",
    "shown": "show", "known": "know", "made": "make", "built": "build", "run": "run", "ran": "run",
}  # fmt: skip


def _lemmas(words: frozenset[str] | set[str]) -> set[str]:
    return {_IRREGULAR.get(w, w) for w in words}


def _key(text: str) -> str:
    return " ".join(tokenize(text))


def contradicts(a: Statement | str, b: Statement | str, term: str | None = None) -> bool:
    """Whether ``a`` and ``b`` contradict each other by the rule above.

    Strings are read with ``statement(text, term)``; pass Statements read
    with the same ``term`` to compare prepared claims."""
    sa = a if isinstance(a, Statement) else statement(a, term)
    sb = b if isinstance(b, Statement) else statement(b, term)
    if not (sa.asserted and sb.asserted):
        return False
    if sa.denies == sb.denies:
        return False  # two denials agree; so do a claim and its restatement
    if _key(sa.text) == _key(sb.text):
        return False
    if term is None:
        # Without a shared absolute, the affirming side must state what the
        # other denies ("is encrypted" against "is not encrypted").
        denier, affirmer = (sa, sb) if sa.denies else (sb, sa)
        # (a claim read around its own term has no predicate: its term is the anchor)
        if denier.predicate and not denier.predicate & content_words(affirmer.text):
            return False
    return same_subject(sa, sb, anchored=term is not None)


# ------------------------------------------------------------ precedence
# Which document wins when documents conflict is itself a claim two
# documents can contradict: a contract's order of precedence ("If documents
# conflict, the following order applies: the Order Form, then this
# Agreement, then the DPA") against another document's override ("If this
# DPA conflicts with the Agreement ..., this DPA prevails"). Read as ordered
# pairs (winner, loser) of document references, two statements contradict
# when one ranks X above Y and the other Y above X.
_ORDER_LIST = re.compile(
    r"\border(?:\s+of\s+(?:precedence|priority))?\s*(?:applies|apply|governs|is|shall apply)?\s*:\s*(?P<items>[^.]+)"
    r"|\b(?:order\s+of\s+(?:precedence|priority)|precedence)\s*(?:is|:)\s*(?P<items2>[^.]+)",
    re.I,
)
_LIST_SPLIT = re.compile(r"\s*(?:,|;|\bthen\b|\bfollowed by\b|\band\b|\(\w\))\s*", re.I)
_PREVAILS = re.compile(
    r"\b(?P<winner>(?:this|the)\s+[\w-]+(?:\s+[A-Z][\w-]*){0,3})\s+"
    r"(?:shall\s+|will\s+)?(?:prevails?|takes?\s+precedence|controls?|governs?)\b",
    re.I,
)
_REFERENCE = re.compile(r"\b(?:this|the)\s+(?:[A-Z][\w-]*)(?:\s+[A-Z][\w-]*){0,3}")
_ARTICLE = re.compile(r"^(?:the|this|these|any|an?)\s+", re.I)


def _name_words(doc: str) -> set[str]:
    stem = doc.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return set(tokenize(re.sub(r"[-_.]+", " ", stem)))


_SELF = re.compile(r"\bthis\s+((?:[A-Z][\w-]*)(?:\s+[A-Z][\w-]*){0,3})")


def _names(text: str, doc: str) -> list[set[str]]:
    """How a document names itself: its file name's words, its initials and
    what ``text`` calls it ("this Contract", "this DPA")."""
    from ragcore.text import name_acronym

    out = [_name_words(doc)]
    if name_acronym(doc):
        out.append({name_acronym(doc)})
    return out + [set(tokenize(m.group(1))) for m in _SELF.finditer(text)]


def _resolve(reference: str, own: str, names: dict[str, list[set[str]]]) -> str:
    """A document reference as a key: "this X" is the document it is in; a
    reference whose words are one of a document's names (``_names``) is that
    document; anything else is its own words."""
    ref = reference.strip()
    if re.match(r"this\b", ref, re.I):
        return own
    words = set(tokenize(_ARTICLE.sub("", ref)))
    if not words:
        return ""
    named = [d for d, ns in names.items() if any(words == n or (len(n) > 1 and words <= n) for n in ns)]
    return named[0] if len(named) == 1 else " ".join(sorted(words))


def precedence(text: str, own: str, names: dict[str, list[set[str]]]) -> set[tuple[str, str]]:
    """The (winner, loser) pairs of document references ``text`` ranks, its
    documents known by ``names`` (document -> its names)."""
    pairs: set[tuple[str, str]] = set()
    m = _ORDER_LIST.search(text)
    if m:
        items = [i for i in _LIST_SPLIT.split(m.group("items") or m.group("items2")) if i and i.strip()]
        keys = [k for k in (_resolve(i, own, names) for i in items) if k]
        pairs |= {(keys[i], keys[j]) for i in range(len(keys)) for j in range(i + 1, len(keys))}
    for p in _PREVAILS.finditer(text):
        winner = _resolve(p.group("winner"), own, names)
        others = {_resolve(r.group(), own, names) for r in _REFERENCE.finditer(text)}
        pairs |= {(winner, o) for o in others if o and o != winner}
    return {(a, b) for a, b in pairs if a != b}


def precedence_conflict(a: str, a_doc: str, b: str, b_doc: str) -> bool:
    """Whether two sentences of different documents rank two documents in
    opposite orders of precedence."""
    if a_doc == b_doc or not (_MAY_RANK.search(a) and _MAY_RANK.search(b)):
        return False
    names = {a_doc: _names(a, a_doc), b_doc: _names(b, b_doc)}
    pa, pb = precedence(a, a_doc, names), precedence(b, b_doc, names)
    return any((y, x) in pb for x, y in pa)


_MAY_RANK = re.compile(r"\border\b|\bprecedence\b|\bprevail|\bcontrols?\b|\bgoverns?\b", re.I)


# ------------------------------------------------------------ stated times
# Two commitments can contradict by their numbers: "all content is deleted within 30 days of
# cancellation" against "after 60 days, we'll delete the account's data". Each commitment is read
# as (act, kind, amount, unit): the verb the modal governs, and whether the time is a deadline
# ("within 30 days", "no later than 10 days": done by then) or the time the act happens ("30
# days after cancellation", "after 60 days"). A later time against a deadline, or two different
# times at which the act happens, cannot both hold; two deadlines always can (done in 30 days is
# done within 60).
_NUMBER = r"(?P<n>\d+|" + NUMBER_WORD_PATTERN + r")(?:\s*\(\d+\))?"
_UNIT = r"(?P<u>(?:business\s+|calendar\s+|working\s+)?(?:minute|hour|day|week|month|year))s?"
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "fifteenth": 15, "twentieth": 20, "thirtieth": 30, "sixtieth": 60, "ninetieth": 90,
}  # fmt: skip
_ORDINAL_DAY = (
    r"(?P<n>\d+(?=st|nd|rd|th)|" + "|".join(_ORDINALS) + r")(?:st|nd|rd|th)?\s+"
    r"(?P<u>(?:business\s+)?day)\s+(?:after|following)\b"
)
_TIMES = (
    ("by", re.compile(rf"\bwithin\s+(?:the\s+(?:first|next)\s+)?{_NUMBER}\s+{_UNIT}\b", re.I)),
    ("by", re.compile(rf"\bno\s+later\s+than\s+{_NUMBER}\s+{_UNIT}\b", re.I)),
    ("at", re.compile(rf"\b{_NUMBER}\s+{_UNIT}\s+(?:after|following)\b", re.I)),
    ("at", re.compile(rf"\bafter\s+{_NUMBER}\s+{_UNIT}\b", re.I)),
    # an ordinal day: "on or before the seventh day after signing" (by), "on the eighth day after" (at)
    ("by", re.compile(rf"\b(?:on\s+or\s+before|by|before|no\s+later\s+than)\s+the\s+{_ORDINAL_DAY}", re.I)),
    ("at", re.compile(rf"(?<!\bor\s)(?<!\bbefore\s)\bon\s+the\s+{_ORDINAL_DAY}", re.I)),
)
_MODAL = re.compile(r"\b(?:must|will|shall)\b|\b[A-Za-z]+['’]ll\b", re.I)
# words between a modal and its verb: "will not", "will be", "we'll permanently", "shall also"
_AUXILIARY = re.compile(r"(?:\s+(?:not|be|been|also|then|still|\w+ly))*\s+(?P<verb>[A-Za-z]+)")
_TIME_WORDS = frozenset(
    tokenize("minute minutes hour hours day days week weeks month months year years first next")
)


@dataclass(frozen=True)
class StatedTime:
    """The time a commitment states for its act."""

    act: str  # stem of the committed verb: "delet" for "will be deleted" and "we'll delete"
    kind: Literal["by", "at"]  # "by": a deadline; "at": when the act happens
    amount: int
    unit: str  # "day", "business day", ...


def _act(text: str, clause: tuple[int, int], at: int) -> str | None:
    """The verb the modal of the clause governs: the nearest modal before the
    time, else the first after it (the time opens the clause: "After 60 days, we'll delete")."""
    before = list(_MODAL.finditer(text, clause[0], at))
    modal = before[-1] if before else _MODAL.search(text, at, clause[1])
    if modal is None:
        return None
    verb = _AUXILIARY.match(text, modal.end(), clause[1])
    if verb is None:
        return None
    stems = tokenize(verb.group("verb"), stop_words=frozenset())
    return stems[0] if stems else None


def stated_times(text: str) -> tuple[StatedTime, ...]:
    """Every stated time of a commitment in ``text`` (one sentence), with its act."""
    out: list[StatedTime] = []
    for kind, pattern in _TIMES:
        for m in pattern.finditer(text):
            clause = _time_clause(text, m.start(), m.end())
            act = _act(text, clause, m.start())
            if act is None:
                continue
            n = m.group("n").lower()
            amount = NUMBER_WORDS.get(n) or _ORDINALS.get(n) or int(n)
            out.append(StatedTime(act, kind, amount, " ".join(m.group("u").lower().split())))
    return tuple(out)


_TIME_CLAUSE_END = re.compile(r"[;!?()\n]|\.(?!\d)")


def _time_clause(text: str, start: int, end: int) -> tuple[int, int]:
    """The clause of a time: as ``_clause``, but a comma right after an opening time does not end it."""
    lo, _ = _clause(text, start, end)
    m = _TIME_CLAUSE_END.search(text, end)
    return lo, (m.start() if m else len(text))


def _incompatible(a: StatedTime, b: StatedTime) -> bool:
    if a.act != b.act or a.unit != b.unit:
        return False
    if a.kind == "at" and b.kind == "at":
        return a.amount != b.amount
    if a.kind == b.kind:
        return False  # two deadlines both hold when the act is done by the earlier
    deadline, when = (a, b) if a.kind == "by" else (b, a)
    return when.amount > deadline.amount


def _topic(text: str) -> set[str]:
    words = _lemmas(content_words(text)) - _GENERIC - _TIME_WORDS
    return {w for w in words if not w.isdigit()}


def timing_conflict(a: str, a_doc: str, b: str, b_doc: str) -> bool:
    """Whether two sentences of different documents commit to incompatible
    times for the same act, about one thing (one shared topic word besides the
    act, as for claims anchored on a shared term)."""
    if a_doc == b_doc:
        return False
    sa, sb = statement(a), statement(b)
    if not (sa.asserted and sb.asserted) or sa.denies or sb.denies:
        return False
    pairs = [(x, y) for x in stated_times(a) for y in stated_times(b) if _incompatible(x, y)]
    if not pairs:
        return False
    acts = {x.act for x, _ in pairs}
    return bool((_topic(a) & _topic(b)) - acts)
