"""What an amount prices: the noun phrase before it, the plan its sentence
names, and the billing term stated beside it; the comparison key of a subject."""

from __future__ import annotations

import re

from ragcore.text import stem


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_DETERMINERS = _wordset(
    "a an the our your their its his her my this that these those each every any some all no"
)
_PRONOUNS = _wordset("it this that these those they them which what one everything something")
# Words between a subject and its price ("the Pro plan is priced at $49").
_LINKS = _wordset(
    """is are was were be been being will would shall should can could may might
    now currently still only just also then already even
    cost costs costing priced price prices pricing charged charge charges billed bill bills
    at of for to from about around approximately roughly nearly almost over under up
    starts start starting begins begin beginning runs run comes come makes make made
    sets set goes go sells sell sold pay pays paid quoted quote quotes offered offer offers
    listed list totals totalled amounts equals earn earns earned spend spends spent
    receive receives received get gets got save saves raise raised generate generates
    stays stay remain remains remained moves moved rises rose increases increased
    drops dropped falls fell changes changed becomes became lowered cut
    decreases decreased declines declined improves improved grows reduced
    reached reaches reach hit hits grew grow totaled stood ended added came
    extra additional mere whopping flat fixed low lower higher just only
    we you they i us them he she
    = : - – — ( ~ ≈ ' “ ” ‘ ’"""
) | {'"'}
_STOP = (
    _LINKS
    | _DETERMINERS
    | _wordset("""and or but if when while because so than as with without by into on in per
    not no nor both either neither which who whom whose where there here
    plus minus including includes include excluding annually dollars dollar euros euro cents""")
)
# A phrase made only of these says nothing about what is priced ("the correct
# list price is $999"), nor does one ending in a word for money itself.
_ADJECTIVES = _wordset(
    """correct current new old official actual final effective right wrong best usual normal
    full real true exact same standard regular special introductory discounted net gross
    base average typical quoted agreed approved proposed draft corrected revised updated
    original initial written"""
)
# Words between a subject and its amount that are not part of what is priced:
# "claims above $5,000", "net burn falling below $0.4M", "the fee waived
# above $60,000", "the Essentials tier lists $39" (the subject is the noun before them).
_TRAILERS = _wordset(
    """above below beyond exceeding exceeds exceed falling rising dropping reaching waived capped
    available lists listed sits stands totals totalled totaled"""
)
_JUNK_HEADS = _wordset("period figure figures amount amounts number numbers example total value sum money")
# Head nouns that name what a customer buys; a sentence's plan wins over a
# bare quantity ("5 users for $20") or a pronoun ("it is priced at $6").
_PLAN_NOUNS = _wordset("plan plans tier tiers package packages edition editions subscription bundle license")
# Dropped from the comparison key: "lowest subscription tier" == "lowest tier",
# "Pro" == "Pro plan".
_FILLER = _wordset(
    "plan plans tier tiers subscription package edition level option price pricing cost fee rate"
)
_GENERIC_HEADERS = _wordset(
    "price prices pricing cost costs fee fees amount rate rates total usd eur gbp $ € £ value charge"
)

_BILLING_MONTHLY = re.compile(
    r"\b(?:pa(?:y|id|ying)|bill(?:ed|ing)?|charged|invoiced)\s+(?:\w+\s+)?monthly\b"
    r"|\bmonthly\s+(?:billing|plans?|subscriptions?|payments?|terms?|contracts?|discounts?)\b"
    r"|\bmonth[- ]to[- ]month\b|\bon\s+a\s+monthly\s+basis\b|^\s*monthly\s*$",
    re.IGNORECASE,
)
_BILLING_ANNUAL = re.compile(
    r"\b(?:pa(?:y|id|ying)|bill(?:ed|ing)?|charged|invoiced)\s+(?:\w+\s+)?(?:annually|yearly|once\s+a\s+year)\b"
    r"|\b(?:annual|yearly)\s+(?:billing|plans?|subscriptions?|payments?|terms?|contracts?|commitments?|prepay\w*|discounts?)\b"
    r"|\bon\s+an?\s+(?:annual|yearly)\s+basis\b|^\s*(?:annual(?:ly)?|yearly)\s*$",
    re.IGNORECASE,
)

_WORD_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9'’&+.-]*[A-Za-z0-9+]|[A-Za-z]|\d[\d,.]*|[^\sA-Za-z0-9]")
_MARKUP = re.compile(r"\*\*|__|`|\[|\]\([^)]*\)|[*_#>|]")


# Run-together PDF text glues words ("FreightAdjusted EBITDA"): a capital after a
# lower-case letter starts a word (applied alike to every subject, so keys still meet).
_GLUED = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")


def _tokens(text: str) -> list[str]:
    return _WORD_TOKEN.findall(_GLUED.sub(" ", _MARKUP.sub(" ", text)))


def _clean_word(w: str) -> str:
    w = w.lower().replace("’", "'")
    return w[:-2] if w.endswith("'s") else w.rstrip(".")


_PARTICIPLE_LINKS = frozenset({"in", "by", "from"})
_HEAD_MODIFIERS = frozenset({"net", "total"})


def _is_participle(word: str) -> bool:
    """A past participle that can tie a noun to a phrase ("used", "provided", "generated")."""
    return len(word) >= 4 and word.endswith("ed") and word not in _STOP


def _noun_phrase_before(prefix: str) -> tuple[list[str], bool, bool]:
    """The noun phrase nearest the end of ``prefix``; whether a number directly
    precedes it (then it is a quantity, not what is priced); and whether it is
    a proper name (every word capitalised, e.g. a customer)."""
    toks = _tokens(prefix)
    # run-together PDF text ("expense.Adjusted EBITDA loss"): a sentence ends inside the token
    for j in range(len(toks) - 1, -1, -1):
        glued = re.search(r"[a-z][.!?]([A-Z][\w-]*)$", toks[j])
        if glued is not None:
            toks = [glued.group(1), *toks[j + 1 :]]
            break
    i = len(toks) - 1
    while i >= 0 and (_clean_word(toks[i]) in _LINKS | _TRAILERS or _clean_word(toks[i]) in _DETERMINERS):
        i -= 1
    if i > 0 and toks[i] == "." and _clean_word(toks[i - 1]) in _COMPANY_SUFFIXES:
        i -= 1  # "Uber Technologies, Inc. was": the abbreviation's point ends no phrase
    phrase: list[str] = []
    original: list[str] = []
    limit, linked = 5, 0
    while i >= 0 and len(phrase) < limit:
        w = _clean_word(toks[i])
        if w == "," and len(phrase) == 1 and phrase[0] in _COMPANY_SUFFIXES:
            i -= 1  # "Uber Technologies, Inc.": the suffix belongs to the name
            continue
        if w == "to" and i > 0 and _clean_word(toks[i - 1]) == "attributable" and phrase:
            # "Net loss attributable to <owner>": one line item, its owner included
            phrase[:0], original[:0] = ["attributable", "to"], [toks[i - 1], toks[i]]
            i, limit = i - 2, len(phrase) + 3
            continue
        if w in _PARTICIPLE_LINKS and i > 1 and phrase and _is_participle(_clean_word(toks[i - 1])):
            # "Net cash used in operating activities", "cash provided by financing activities":
            # a participle and its preposition tie the head noun to what it is of
            phrase[:0], original[:0] = [_clean_word(toks[i - 1]), w], [toks[i - 1], toks[i]]
            i, limit, linked = i - 2, len(phrase) + 2, len(phrase) + 1
            continue
        if linked and len(phrase) >= linked and w not in _HEAD_MODIFIERS:
            break  # after the head noun ("cash"), only "net" or "total" ("Operating Activities" / "Cash used ...")
        if w in _STOP or not w[:1].isalpha():
            break
        phrase.insert(0, w)
        original.insert(0, toks[i])
        i -= 1
    quantity = i >= 0 and toks[i][:1].isdigit()
    if all(w in _ADJECTIVES for w in phrase) or (phrase and phrase[-1] in _JUNK_HEADS):
        return [], quantity, False
    # a name is Title Case; an acronym ("ARR") is not a name
    proper = bool(original) and i >= 0 and all(t[:1].isupper() and not t.isupper() for t in original)
    return phrase, quantity, proper


def _plan_phrase(text: str) -> list[str]:
    """The last noun phrase in ``text`` whose head is a plan word ("lowest subscription tier")."""
    toks = _tokens(text)
    for j in range(len(toks) - 1, -1, -1):
        if _clean_word(toks[j]) in _PLAN_NOUNS:
            phrase = [_clean_word(toks[j])]
            i = j - 1
            while i >= 0 and len(phrase) < 5:
                w = _clean_word(toks[i])
                if w in _STOP or not w[:1].isalpha():
                    break
                phrase.insert(0, w)
                i -= 1
            return phrase
    return []


def _plan_phrase_after(text: str, window: int = 8) -> list[str]:
    """The first plan noun phrase in the next few words ("$999 for the Business plan")."""
    toks = _tokens(text)[:window]
    for j, tok in enumerate(toks):
        w = _clean_word(tok)
        if w in (".", ";", "!", "?", ","):
            break
        if w in _PLAN_NOUNS:
            return _plan_phrase(" ".join(toks[: j + 1]))
    return []


_SIGN_WORDS = frozenset({"loss", "profit"})
_COMPANY_SUFFIXES = _wordset("inc llc ltd corp plc co lp")


_FLOW_VERBS = frozenset({"used", "provided", "generated"})
_FLOW_LINKS = frozenset({"in", "by", "from"})


def _cash_flow(words_: list[str]) -> list[str]:
    """ "(Net) cash used in / provided by (used in) X" are one signed line item,
    the cash flow of X: read as "cash flow X"."""
    i = 1 if words_[:1] == ["net"] else 0
    if words_[i : i + 1] != ["cash"]:
        return words_
    j = i + 1
    while j + 1 < len(words_) and words_[j] in _FLOW_VERBS and words_[j + 1] in _FLOW_LINKS:
        j += 2
    return ["cash", "flow", *words_[j:]] if j > i + 1 and j < len(words_) else words_


def subject_key(subject: str) -> str:
    """Comparison key of a subject: stemmed content words without plan filler,
    so "Pro plan" and "pro" meet, and "lowest subscription tier" meets "lowest tier"."""
    base, _, billing = subject.partition(" / billed ")
    base_words = _cash_flow([w for w in re.split(r"[\s/]+", base) if w])
    kept = [stem(w) for w in base_words if w not in _FILLER] or [stem(w) for w in base_words]
    if len(kept) > 1 and kept[-1] in _SIGN_WORDS:
        kept = kept[:-1]  # "Adjusted EBITDA loss" and "Adjusted EBITDA" are one line item, signed
    key = " ".join(kept)
    return f"{key} | {billing}" if billing else key


def _billing_term(text: str, seg_start: int, seg_end: int, start: int, stop: int) -> str | None:
    """The billing term stated in ``text[seg_start:seg_end]`` nearest the
    amount at ``start``-``stop`` (measured from the amount's near edge)."""
    best: tuple[int, str] | None = None
    segment = text[seg_start:seg_end]
    for pattern, term in ((_BILLING_MONTHLY, "monthly"), (_BILLING_ANNUAL, "annually")):
        for m in pattern.finditer(segment):
            a, b = seg_start + m.start(), seg_start + m.end()
            dist = a - stop if a >= stop else start - b if b <= start else 0
            if best is None or dist < best[0]:
                best = (max(dist, 0), term)
    return best[1] if best else None


_LEADING_PREPOSITIONS = _wordset("in on at for to of with by from into")


def _normalise_phrase(words_: list[str]) -> str:
    # "Prices in copy" less its generic word is "copy", not "in copy"
    while words_ and (words_[0] in _DETERMINERS or words_[0] in _LEADING_PREPOSITIONS):
        words_ = words_[1:]
    return " ".join(words_)
