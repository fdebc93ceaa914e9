"""Risk lens, its first step: absolute wording and commitments found in a
text, with their negation (``find_absolutes``).

Absolute wording is where a policy over-promises or a contract takes on
risk. The documented list (``ABSOLUTES``, one pattern per kind):

- commitments: guarantee(s/d), warranty/warrants (and the verb "warrant"
  before "that"/"and": "Both sides warrant that"), promise(s/d), and the
  disclaimer "as is" / "as available" (which denies a warranty);
- always: always, at all times, at every moment, forever, in perpetuity;
  never, and "nothing ... ever" (negative absolutes: "never share your files"
  asserts it);
- unlimited; 100% / 100 percent; fully; any and all; absolutely; without
  exception; under no circumstances; risk-free / no risk / zero risk.

Bare quantifiers and modals are absolute only inside a commitment: "all",
"every", "any" or "everything" starting a clause's subject that is followed by
is/are/will be (legal English: shall be) and a past participle ("all data is
encrypted", "every access is logged", "(b) any claim ... is settled"), and
must/will/shall with a deadline ("must respond within 4 hours"): a stated time
for the act ("within", "by" a date, "no later than", "30 days after closure",
"after 60 days", also opening the clause: "After 60 days, we'll delete ..."). A word that
names a clause or refers back ("7. Warranties and disclaimers", "breach of
this warranty", "breach of any warranties", "the guarantees these clauses
give", "the warranty of paragraph (c)") is not a claim.

Negation, as NegEx does (Chapman et al. 2001): a negating word a few words
before the term in its clause ("no guarantees", "not always", "does not
warrant"), a quoted claim followed by "is not", and the scope of a denied
commitment: later absolutes in the same sentence are denied too ("does not
warrant that ... content will never be lost").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragcore.lenses.risk_text import (
    GLUED_NEGATOR,
    broken_spans,
    clause_around,
    continues_denial,
    continues_line,
    in_condition,
    is_glued_negator,
    names_an_item,
    unbreak,
)
from ragcore.lenses.spans import collapse, line_bounds, phrase_bounds, sentence_at
from ragcore.text import sentence_spans

# (family, kind, pattern). Kind "denial" is wording that itself denies a
# commitment ("as is"); "negative" is a negative absolute ("never") that is
# not negated by a word before it.
ABSOLUTES: tuple[tuple[str, str, str], ...] = (
    ("guarantee", "plain", r"guarantee[sd]?|guaranteeing"),
    # the verb "warrant" only before "that"/"and" ("Both sides warrant that"): "a warrant" is a court order
    ("warranty", "plain", r"warrant(?:y|ies|s)|warrant(?=\s+(?:that|and)\b)"),
    ("promise", "plain", r"promise[sd]?"),
    # "as is" (or "as-is"): provided with no guarantee of any kind
    ("guarantee", "denial", r"[\"“]?as[\s-]+is[\"”]?(?=\s+(?:and|or|basis)\b|[\"”,.])"),
    ("always", "plain", r"always|at\s+all\s+times|at\s+every\s+moment|forever|in\s+perpetuity"),
    # "never", and "nothing ... ever" written apart ("nothing can ever be lost")
    ("always", "negative", r"never|nothing\s+(?:\w+\s+){0,2}?ever"),
    ("unlimited", "plain", r"unlimited"),
    # PDF text may break the number over lines ("reach 10" / "0% EVs")
    ("100%", "plain", r"1\n?0\n?0(?:\.0+)?\s?%|100\s+percent"),
    ("fully", "plain", r"fully"),
    ("any and all", "plain", r"any\s+and\s+all"),
    ("absolute", "plain", r"absolutely|without\s+exception|under\s+no\s+circumstances"),
    ("no risk", "plain", r"risk[- ]free|no[- ]risk|zero[- ]risk"),
)
_EDGE_L, _EDGE_R = r"(?<![A-Za-z0-9-])", r"(?![A-Za-z0-9-])"  # "_never_" is the word never
# after "%" a letter is the next word glued on by PDF text ("100%EVs")
TERM_PATTERN, _TERM_GLUED = (
    re.compile(
        "|".join(
            rf"(?P<t{i}>{edge}(?:{pattern})(?:(?<=%)|{_EDGE_R}))"
            for i, (_, _, pattern) in enumerate(ABSOLUTES)
        ),
        re.IGNORECASE,
    )
    for edge in (_EDGE_L, "")  # the second: right after a negator glued to it ("notalways")
)
# Bare quantifiers inside a commitment.
_PARTICIPLE = (
    r"(?:(?:\w+-)?\w+ed|written|taken|kept|shown|known|seen|given|held|sent|stored|done|made|paid|built|run)"
)
_QUANTIFIED = re.compile(
    # after a list mark or an opening quote too: "(b) any claim ... is settled", "“Any claim ..."
    # or a Markdown heading's marks ("## All plans are priced ...")
    r"(?:^|(?<=[,;:.*\-–—)“\"#])\s*|\b(?:and|but|that|not)\s+)(?P<q>all|every|any|everything)\b"
    # legal English writes "shall be" for "will be" ("Any claim ... shall be settled by arbitration")
    # not the verb of a relative clause inside the subject ("any action ... that is governed by";
    # "all of which are resolved" is the subject's own verb)
    rf"[^.;:,]{{0,60}}?\b(?<!\bthat )(?<!\bwho )(?<!(?<!\bof) which )"
    rf"(?:is|are|(?:will|shall)\s+be|gets?|get)\s+(?:\w+ly\s+)?{_PARTICIPLE}\b",
    re.IGNORECASE | re.MULTILINE,
)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# A stated time for the committed act (docs/lens-gold-format.md, "a deadline"): "within 30 days",
# "within the first 30 days", "no later than 10 days", "30 days after cancellation", "after 60 days".
_COUNT = r"(?:\d+|one|two|three|four|five|six|seven|ten|fifteen|thirty|sixty|ninety)(?:\s*\(\d+\))?"
_TIME_UNIT = r"(?:business\s+|calendar\s+|working\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)"
_ORDINAL = (
    r"(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"fifteenth|twentieth|thirtieth|sixtieth|ninetieth)"
)
_STATED_TIME = (
    rf"\bwithin\s+(?:the\s+(?:first|next)\s+)?{_COUNT}\b|\bno\s+later\s+than\s+{_COUNT}\s+{_TIME_UNIT}"
    rf"|\b{_COUNT}\s+{_TIME_UNIT}\s+(?:after|following)\b|\bafter\s+{_COUNT}\s+{_TIME_UNIT}"
    # an ordinal day: "on or before the seventh day after signing", "on the eighth day after"
    rf"|\b(?:on\s+or\s+before|on|by|before|no\s+later\s+than)\s+the\s+{_ORDINAL}\s+(?:business\s+)?day\s+"
    r"(?:after|following)\b"
)
_GAP_STOP = r"must|will|shall|would|could|may|can|and|or|but|that|which|who|if|unless|when|while|because"
_DEADLINE = re.compile(
    # "we'll" is "we will": "We'll erase the files ... within 60 days"
    r"(?P<q>\b(?:must|will|shall)\b|\b[A-Za-z]+['’]ll\b)(?:\s+not)?"
    # the time within 60 characters, or within 120 when only the verb's object and place stand
    # between (no comma, no other modal, no word that opens another clause)
    rf"(?:[^.;]{{0,60}}?|(?:(?!\b(?:{_GAP_STOP})\b)[^.;,]){{61,120}}?)"
    rf"(?:{_STATED_TIME}"
    # a date as the deadline: "must run on clean power by the end of 2030", "will ... by March 1, 2025"
    rf"|\bby\s+(?:the\s+end\s+of\s+)?(?:(?:{_MONTHS})\s+(?:\d{{1,2}},\s*)?)?(?:19|20)\d\d\b)"
    # the time may open the clause: "After 60 days, we'll delete ...", "Within 30 days, all content will be"
    rf"|(?:^|(?<=[.;:!?]\s)|(?<=[.;:!?]\s\s))\s*(?P<t>(?:within|after)\s+{_COUNT}\s+{_TIME_UNIT})\s*,"
    r"(?=[^.;]{0,40}?\b(?:must|will|shall|[A-Za-z]+['’]ll)\b)",
    re.IGNORECASE | re.MULTILINE,
)
WEAK_TERMS = frozenset({"all", "must"})  # the commitment families, listed after the rest

_NEGATORS = frozenset(
    "no not never without nor neither cannot can't don't doesn't didn't isn't aren't wasn't won't "
    "weren't hasn't haven't hadn't mustn't needn't shan't mightn't "
    "shouldn't wouldn't couldn't disclaim disclaims disclaimed disclaimer disclaimers "
    "nothing none nobody".split()  # "Nothing is guaranteed", "none of it is warranted"
)
# A clause whose subject is negated denies its verb however long the subject:
# "No data is ever guaranteed to be safe" (NegEx's window would miss the "No").
_NEGATED_SUBJECT = re.compile(r"\s*(?P<neg>no|nothing|none|neither|nobody)\b", re.IGNORECASE)
_TERMINATORS = frozenset({"and", "but", "however", "although", "though"})
_NEGATION_WINDOW = 3  # words before the term, within its clause
_QUOTED_DENIED = re.compile(r"[^\"”]{0,40}[\"”]\s*(?:is|are)\s+(?:not|no)\b", re.IGNORECASE)
_NOUN_TERMS = frozenset({"guarantee", "warranty", "promise"})
# "100% of X" without a verb after X is a share; "100% of data is encrypted" is a claim.
_SHARE_OF = re.compile(r"\s+of\s+(?![^.;,]{0,40}\b(?:is|are|will\s+be)\b)", re.IGNORECASE)
# ... unless a verb commits to it: "a fund to pay 100% of repair costs", "we will refund 100% of"
_COMMITTED_SHARE = re.compile(r"\b(?:to|will|shall|must|we)\s+\w+\s+$", re.IGNORECASE)
# An unticked Markdown task-list box is an option not chosen ("- [ ] In perpetuity."), not a claim.
_UNCHOSEN = re.compile(r"\s*(?:[-*+]|\d+[.)])\s+\[\s\]")
# A listed noun among what an agreement replaces names others' words, not a claim:
# "supersedes all prior ... representations, and warranties".
_SUPERSEDED = re.compile(
    r"\b(?:supersed|replac)\w*\s+(?:all\s+)?(?:prior|previous|earlier)\b[^.;]{0,160}$"
    # ... and what a party did not rely on: "without reliance on any representation, ... or promise"
    r"|\b(?:reliance|rel(?:y|ies|ied|ying))\s+(?:up)?on\s+(?:any|no)\b[^.;]{0,160}$",
    re.I,
)
# "All information is provided "as is"": the quantified clause is the disclaimer, not a claim besides it.
_DISCLAIMED = re.compile(r"[^.;]{0,20}?[\"“]?as[\s-]+is\b", re.IGNORECASE)
_REFERENCE = re.compile(
    r"\b(?:this|that|such|said|these|those)\s+$|\bbreach(?:es|ed)?\s+of\s+(?:any\s+|the\s+|its\s+)?$"
    # the verb: "breaches the promise to keep ...", "breaching its warranty"
    r"|\bbreach(?:es|ed|ing)?\s+(?:the|its|their|his|her|any)\s+$"
    # "the disclaimer of warranties" names the disclaiming clause; the clause itself is the finding
    r"|\bdisclaimers?\s+of\s+(?:all\s+|any\s+|the\s+)?$",
    re.IGNORECASE,
)
# A noun followed by the document's own parts names what they hold, not a claim:
# "the guarantees given under these clauses", "the warranty of paragraph (c)".
_REFERENCE_AFTER = re.compile(
    r"(?:\s+(?:and|or)(?:\s+[\w-]+){1,3}?)?\s+(?:(?:provided|set\s+out|given|made|contained|described)\s+)?"
    r"(?:(?:by\s+it|for)\s+)?(?:in|by|under)\s+(?:(?:these|this|the|such)\s+)?"
    r"(?:clauses?|agreement|addendum|contract|terms|paragraph|section|annex|appendix|schedule)\b",
    re.IGNORECASE,
)
_CLAUSE_TITLE = re.compile(r"^\s*#*\s*(?:\d+(?:\.\d+)*\.?|section\s+\d+\.?)\s+\S", re.IGNORECASE)
_SUBJECT_WORDS = 8
_SUBJECT_SKIP = frozenset("that to you we us they it i our your their the a an is are be".split())


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
    sentence_start: int = 0
    wording_start: int = 0  # where the wording starts (its negator, or the term)


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
        if word in _NEGATORS or is_glued_negator(word):  # "wecannot guarantee" in PDF text
            return clause_start + m.start()
    subject = _NEGATED_SUBJECT.match(text, clause_start, start)
    if subject is None or any(a <= subject.start("neg") < b for a, b in taken):
        return None  # "no risk" is a listed absolute of its own
    words = {m.group().lower() for m in found}
    return None if words & _TERMINATORS else subject.start("neg")


def _subject(text: str, clause: tuple[int, int], start: int, end: int) -> str:
    after = re.findall(r"[\w$€£%.'’-]+", text[end : clause[1]])
    while after and after[0].lower() in _SUBJECT_SKIP:
        after = after[1:]
    words_ = after[:_SUBJECT_WORDS]
    if not [w for w in words_ if any(c.isalnum() for c in w)]:
        # "uptime is guaranteed": the subject comes before the term
        before = re.findall(r"[\w$€£%.'’-]+", text[clause[0] : start])
        while before and before[-1].lower() in _SUBJECT_SKIP | {"is", "are", "be", "been", "was"}:
            before = before[:-1]
        words_ = before[-_SUBJECT_WORDS:]
        while words_ and words_[0].lower() in _SUBJECT_SKIP:
            words_ = words_[1:]
    return " ".join(w.strip("_*").rstrip(".").lower().replace("’", "'") for w in words_)


def _is_claim(text: str, start: int, end: int, family: str, line: tuple[int, int]) -> bool:
    """Whether a matched word makes a claim: not a clause title ("7.
    Warranties and disclaimers") nor a reference back ("this warranty")."""
    row = text[line[0] : line[1]]
    if _CLAUSE_TITLE.match(row) and len(row.split()) <= 6:
        return False
    if family == "100%" and _SHARE_OF.match(text, end):
        # "emails at 80% and 100% of each allowance": a share, not a claim
        return bool(_COMMITTED_SHARE.search(text[max(line[0], start - 40) : start]))
    if family not in _NOUN_TERMS:
        return True
    before = text[max(line[0], start - 24) : start]
    # the sentence may begin on an earlier line (PDF text wraps anywhere): "... without reliance" / "on any"
    if _SUPERSEDED.search(text[max(0, start - 200) : start]) or names_an_item(text, start, end):
        return False
    return not (_REFERENCE.search(before) or _REFERENCE_AFTER.match(text, end))


def _term_matches(text: str) -> list[tuple[re.Match[str], int, int]]:
    """Listed words with their (start, end): as written, across a PDF line
    break inside the word ("nev" / "er"), and right after a glued negator
    ("notalways", "cannotguarantee")."""
    found = [(m, m.start(), m.end()) for m in TERM_PATTERN.finditer(text)]
    found += list(broken_spans(text, TERM_PATTERN))
    for g in GLUED_NEGATOR.finditer(text):
        if (m := _TERM_GLUED.match(text, g.end())) is not None:
            found.append((m, m.start(), m.end()))
    return found


def _candidates(text: str) -> list[tuple[str, str, int, int]]:
    """(family, kind, start, end) of every listed absolute and commitment, in order."""
    found = []
    for m, start, end in _term_matches(text):
        index = int(next(k for k, v in m.groupdict().items() if v is not None)[1:])
        family, kind, _ = ABSOLUTES[index]
        if _is_claim(text, start, end, family, line_bounds(text, start)):
            found.append((family, kind, start, end))
    for pattern, family in ((_QUANTIFIED, "all"), (_DEADLINE, "must")):
        for m in pattern.finditer(text):
            if family == "all" and (_DISCLAIMED.match(text, m.end()) or continues_line(text, m.start("q"))):
                continue
            q = "q" if m.group("q") is not None or family == "all" else "t"
            found.append((family, "plain", m.start(q), m.end(q)))
    return sorted((f for f in found if not _unchosen(text, f[2])), key=lambda f: f[2])


def _unchosen(text: str, at: int) -> bool:
    """Whether ``at`` stands in an unticked task-list item ("- [ ] In perpetuity.")."""
    line = line_bounds(text, at)
    return bool(_UNCHOSEN.match(text, line[0]))


def _denied(
    text: str, clause: tuple[int, int], start: int, end: int, taken: list[tuple[int, int]]
) -> int | None:
    """Where the denial of the absolute at [start, end) starts, or None."""
    neg = _negator_before(text, clause[0], start, taken)
    if neg is not None:
        return neg
    if re.search(r"[\"“][^\"”]{0,40}$", text[max(0, start - 41) : start]) and _QUOTED_DENIED.match(text, end):
        return start  # '"encrypted at all times" is not accurate'
    return None


def find_absolutes(text: str) -> list[TermMatch]:
    """Every absolute wording and commitment in ``text`` with its negation and subject."""
    spans = sentence_spans(text)
    out: list[TermMatch] = []
    candidates = _candidates(text)
    taken = [(a, b) for _, _, a, b in candidates]
    denied_sentences: dict[tuple[int, int], int] = {}  # sentence -> offset where a denied commitment starts
    last_denied: tuple[int, int] | None = None  # the last sentence that denies a commitment
    for family, kind, start, end in candidates:
        line = line_bounds(text, start)
        clause = clause_around(text, start, end, line)
        sentence = sentence_at(spans, start, line)
        if in_condition(text, sentence, start, end):
            continue  # "unless ... our operations are fully compliant" claims nothing
        neg = (
            None
            if kind == "negative"
            else (start if kind == "denial" else _denied(text, clause, start, end, taken))
        )
        scope = denied_sentences.get(sentence)
        negated = neg is not None or (scope is not None and scope < start)
        if family in _NOUN_TERMS and continues_denial(text, sentence, last_denied):
            negated = True  # "... gives no warranties. This covers warranties of fitness"
        if negated and family in _NOUN_TERMS:
            denied_sentences.setdefault(sentence, start)
            last_denied = sentence
        phrase = phrase_bounds(text, sentence, start)
        out.append(
            TermMatch(
                term=family,
                polarity=-1 if negated else 1,
                wording=collapse(unbreak(text[neg if neg is not None else start : end])),
                negated=negated,
                subject=_subject(text, clause, start, end),
                start=start,
                end=end,
                phrase_start=phrase[0],
                phrase_end=phrase[1],
                sentence_start=sentence[0],
                wording_start=neg if neg is not None else start,
            )
        )
    return out
