"""Normalising, tokenising, stemming and sentence splitting.

One tokeniser serves BM25, the lenses and the groundedness checks, so a word
means the same thing everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Literal

# Money and percentages stay whole tokens ("$999", "99.99%", "€49") because
# users search for exact figures; plain words are Unicode letters/digits.
_TOKEN = re.compile(
    r"[$€£¥]\d[\d,]*(?:\.\d+)?"  # currency amounts
    r"|\d[\d,]*(?:\.\d+)?%"  # percentages
    r"|\d+(?:[.,]\d+)*"  # numbers, 1,299.00 kept whole
    r"|[^\W\d_]+(?:['’][^\W\d_]+)?",  # words, with one inner apostrophe
    re.UNICODE,
)

# A small stop list: function words only, so "not", "no", "never", "all"
# stay searchable (the risk lens and users care about them).
STOP_WORDS = frozenset(
    """a an and are as at be by for from has have in into is it its of on or
    that the their this to was were which with""".split()
)


# A fuller English stop list for BM25 (chosen by cross-validation over the
# collections, docs/decisions.md): function words, pronouns, auxiliaries and
# question words. Negations and quantifiers ("no", "not", "never", "nor",
# "none", "all") are kept: a question about what is *not* covered means it.
ENGLISH_STOP_WORDS = STOP_WORDS | frozenset(
    """about above after again against ago almost along also although am among another any anybody
    anyone anything around because become became been before being below between both but can cannot
    could did do does doing done down during each either else enough etc even ever every few further
    get gets got had having he her here hers herself him himself his how however i if itself just least
    less like made make makes many may me might mine more most much must my myself neither now off often
    once one only onto other others otherwise our ours ourselves out over own per perhaps please quite
    rather really same shall she should since so some somebody someone something sometimes such than
    theirs them themselves then there therefore these they those though through thus too toward towards
    under until up upon us use used uses using very via we well what whatever when whenever where whereas
    wherever whether while who whoever whom whose why will within without would yet you your yours
    yourself yourselves""".split()
)

# Number words read as figures ("within thirty days", "one hour or four"), by the
# answer's claims and disagreements and the risk lens's stated times alike, so
# "thirty days" is the same figure everywhere. Cardinals only; ordinals are the
# lens's own ("the seventh day after").
NUMBER_WORDS: dict[str, int] = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "thirty": 30, "sixty": 60, "ninety": 90,
}  # fmt: skip
# Longest first, so an alternation never stops at "six" inside "sixty".
NUMBER_WORD_PATTERN = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))

StopList = Literal["short", "english"]
STOP_LISTS: dict[str, frozenset[str]] = {"short": STOP_WORDS, "english": ENGLISH_STOP_WORDS}


def normalise(text: str) -> str:
    """Unicode NFKC and lower case; curly quotes become straight ones."""
    text = unicodedata.normalize("NFKC", text)
    return text.replace("\u2019", "'").replace("\u2018", "'").lower()


@lru_cache(maxsize=1)
def _snowball():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Snowball (Porter2) English stem of one lower-case word; numbers and
    money are returned unchanged."""
    if not word[:1].isalpha():
        return word
    return _snowball().stemWord(word)


def _strip_number(token: str) -> str:
    # "1,299.00" and "1299" should meet; keep "$" and "%" markers.
    if token[:1].isdigit() or token[:1] in "$€£¥":
        token = token.replace(",", "")
        if "." in token and not token.endswith("%"):
            whole, _, frac = token.partition(".")
            if set(frac) <= {"0"}:
                token = whole
    return token


def words(text: str) -> list[str]:
    """Lower-case word, number and money tokens, no stop-word removal."""
    return [_strip_number(t.replace("’", "'")) for t in _TOKEN.findall(normalise(text))]


def tokenize(text: str, *, stemming: bool = True, stop_words: frozenset[str] = STOP_WORDS) -> list[str]:
    """Tokens for BM25: lower case, stop words removed, optionally stemmed."""
    out = []
    for token in words(text):
        if token in stop_words:
            continue
        out.append(stem(token) if stemming else token)
    return out


# Identifiers: letters and digits, optionally joined by - _ . or /, holding a
# digit and either a letter or a joiner ("zq3x4w", "ISO-27001", "v2.3.1",
# "ERR_4012", "2021-01-08"). Plain numbers and words never match.
_IDENTIFIER = re.compile(r"(?<![\w$€£¥.])[^\W_]+(?:[-_./][^\W_]+)*")
# "SOC 2", "ISO 27001": an upper-case acronym, one space, a number.
_SPACED_CODE = re.compile(r"(?<![\w-])([A-Z]{2,6}) (\d+(?:\.\d+)*)(?![\w%])")
_JOINERS = str.maketrans("", "", "-_/ ")
_ASCII_DIGIT = re.compile(r"[0-9]")


def identifiers(text: str) -> list[str]:
    """Whole identifiers in ``text``, lower case, hyphens, underscores,
    slashes and spaces dropped so "ISO-27001", "ISO 27001" and "iso27001"
    meet; dots kept ("v2.3.1"). Sorted by position."""
    return list(_identifiers(text))


# A sentence is often read twice in a row (BM25's answer units test it for a
# code, then index it), so the last few answers are kept.
@lru_cache(maxsize=1024)
def _identifiers(text: str) -> tuple[str, ...]:
    if text.isascii():  # NFKC leaves ASCII as it is
        if not _ASCII_DIGIT.search(text):
            return ()  # every identifier holds a digit: most prose lines have none
    else:
        text = unicodedata.normalize("NFKC", text)
    found: list[tuple[int, str]] = []
    for m in _IDENTIFIER.finditer(text):
        code = m.group()
        # isalpha first: most matches are plain words, and no letter is a digit.
        if code.isalpha() or not any(c.isdigit() for c in code):
            continue
        has_letter = any(c.isalpha() for c in code)
        if not has_letter and not any(c in "-_/" for c in code):
            continue  # a plain number; words() already keeps it whole
        found.append((m.start(), code.lower().translate(_JOINERS)))
    found.extend((m.start(), (m.group(1) + m.group(2)).lower()) for m in _SPACED_CODE.finditer(text))
    return tuple(code for _, code in sorted(found))


IdentifierKind = Literal["code", "number-word", "amount", "percent"]
IDENTIFIER_KINDS: tuple[IdentifierKind, ...] = ("code", "number-word", "amount", "percent")
# A number run into a word or suffix ("1960s", "37signals", "2-d", "64gb", "1.5x"):
# a decade, a name or a measure rather than a code.
_NUMBER_WORD = re.compile(r"\d+(?:\.\d+)?[^\W\d_]+")


def identifier_kind(token: str) -> IdentifierKind:
    """What an index token of a whole identifier or amount is: a currency
    amount ("$1199"), a percentage ("99.9%"), a number run into a word
    ("1960s", "37signals") or a code ("iso27001", "v2.3.1", "lf4290")."""
    if token[:1] in "$€£¥":
        return "amount"
    if token.endswith("%"):
        return "percent"
    return "number-word" if _NUMBER_WORD.fullmatch(token) else "code"


def is_code_token(token: str) -> bool:
    """Whether an identifier token (``identifiers``) is a code that can answer
    "which code / version": a code by ``identifier_kind`` holding a letter and
    a digit ("lf4290", "v2.3.1", "aes256"); dates and other digit runs
    ("20251118") and numbers run into a word ("1960s") are not."""
    return (
        identifier_kind(token) == "code"
        and any(c.isdigit() for c in token)
        and any(c.isalpha() for c in token)
    )


# Question words that ask for an identifier: the head of the wh-phrase names
# a thing answered by a code (the "code" answer type of question
# classification, Li & Roth, COLING 2002; predictive annotation, Prager et
# al., SIGIR 2000). "number" only as the head of a compound ("reference
# number", "serial number"): "the number of seats" asks for a count.
_IDENTIFIER_NOUNS = frozenset(
    "code codes version versions release releases build identifier identifiers id ids ticket sku".split()
    + "advisory advisories".split()
)
# The "extended" cue (BM25Params.answer_type_nouns) adds nouns for things a
# document customarily labels with a code or number: technical names
# ("Which cipher", "Which standard") and the parts of a document ("Which
# clause", "Which exhibit"). Fixed before the cross-validation that decides
# whether it ships (docs/decisions.md, "Answer-type lift"), from general
# answer types, not from the nouns of any one gold set's questions.
_LABEL_NOUNS = frozenset(
    """standard standards protocol protocols cipher ciphers algorithm algorithms model models
    form forms exhibit exhibits item items section sections clause clauses article articles
    schedule schedules annex annexes appendix appendices module modules chapter chapters
    rule rules""".split()
)
AnswerTypeNouns = Literal["core", "extended"]
_NOUN_SETS: dict[str, frozenset[str]] = {
    "core": _IDENTIFIER_NOUNS,
    "extended": _IDENTIFIER_NOUNS | _LABEL_NOUNS,
}
_COMPOUND_ONLY = frozenset({"number", "numbers"})
# Modifiers that make "number" a count or a measure ("the minimum number of hours").
_QUANTITY_WORDS = frozenset(
    """minimum maximum total average mean median exact approximate overall largest smallest highest
    lowest greatest least required expected typical usual estimated actual whole same""".split()
)
_WH_WORDS = frozenset({"which", "what"})
_COPULAS = frozenset({"is", "are", "was", "were"})
_DETERMINERS = frozenset({"the", "a", "an"})
_CLAUSES = re.compile(r"[?.!;,]")
_WH_PHRASE = 4  # words of the wh-phrase looked at
_WH_START = 3  # a wh-word this far into its clause at most ("in which release")


def _answer_type_words(phrase: list[str], i: int, nouns: frozenset[str]) -> list[str]:
    """The words of ``phrase`` that name an identifier as the answer, when
    ``phrase[i]`` is such a noun: itself, or a compound ending in "number"."""
    if phrase[i] in nouns:
        return [phrase[i]]
    if phrase[i] in _COMPOUND_ONLY and i > 0 and phrase[i - 1] not in _QUANTITY_WORDS:
        return phrase[i - 1 : i + 1]
    return []


def asks_for_identifier(question: str, nouns: AnswerTypeNouns = "core") -> bool:
    """Whether ``question`` asks for a code, version or reference number: a
    clause opening on "which" / "what" (after at most two words: "In which
    release") whose wh-phrase, up to its first function word, holds a noun
    answered by an identifier ("Which error code does ...", "What is the
    reference number of ...", "Which Windows client version stops ...")."""
    return bool(identifier_answer_words(question, nouns))


def identifier_answer_words(question: str, nouns: AnswerTypeNouns = "core") -> list[str]:
    """The words naming the identifier ``question`` asks for ("code",
    "reference number"; lower case, in order), empty when it asks for none
    (``asks_for_identifier``). The answer's code stands for them, so the
    rest of the question is what the code's sentence should hold. ``nouns``
    "extended" also reads the nouns of ``_LABEL_NOUNS`` ("Which clause")."""
    heads = _NOUN_SETS[nouns]
    found: list[str] = []
    for clause in _CLAUSES.split(question):
        tokens = words(clause)
        wh = next((i for i, t in enumerate(tokens[:_WH_START]) if t in _WH_WORDS), None)
        if wh is None:
            continue
        rest = tokens[wh + 1 :]
        if rest[:1] and rest[0] in _COPULAS:
            rest = rest[2:] if rest[1:2] and rest[1] in _DETERMINERS else rest[1:]
        phrase: list[str] = []
        for token in rest[:_WH_PHRASE]:
            if token in ENGLISH_STOP_WORDS:
                break
            phrase.append(token)
        found.extend(w for i in range(len(phrase)) for w in _answer_type_words(phrase, i, heads))
    return list(dict.fromkeys(found))


def search_terms(
    text: str, *, stemming: bool = True, stop_words: frozenset[str] = ENGLISH_STOP_WORDS, whole: bool = True
) -> list[str]:
    """Tokens for BM25: ``tokenize``'s tokens and, with ``whole``, every
    identifier as one more token (its parts stay tokens too), and every
    amount's bare number ("$1,199" gives "$1199" and "1199") so a figure
    written with or without its unit meets."""
    out, amounts, codes = search_term_parts(text, stemming=stemming, stop_words=stop_words, whole=whole)
    return out + amounts + codes


def search_term_parts(
    text: str, *, stemming: bool = True, stop_words: frozenset[str] = ENGLISH_STOP_WORDS, whole: bool = True
) -> tuple[list[str], list[str], list[str]]:
    """``search_terms`` in its three parts: the tokens, the amounts' bare
    numbers, the identifiers (the last two empty without ``whole``). No part
    joins text across a line break, so a text's parts are its lines' parts
    joined (ragcore.retrieval.line_terms relies on it; tests/retrieval/test_line_terms.py)."""
    out = tokenize(text, stemming=stemming, stop_words=stop_words)
    if not whole:
        return out, [], []
    amounts = [t.lstrip("$€£¥").rstrip("%") for t in out if t[:1] in "$€£¥" or t.endswith("%")]
    return out, amounts, [code for code in identifiers(text) if code not in stop_words]


def content_words(text: str) -> set[str]:
    """Stemmed content words (for overlap checks between texts)."""
    return {t for t in tokenize(text) if len(t) > 1 or t.isdigit()}


# Sentence ends: . ! ? (optionally followed by closing quotes/brackets) then
# white space; a line break followed by a blank line; or a list item start.
_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs mr mrs ms dr inc ltd co corp no fig approx art sec st jr sr u.s".split()
)
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s)|\n(?=\s*\n)|\n(?=\s*(?:[-*+]|\d+[.)])\s)|\n(?=#)")


_SPACES = re.compile(r"[ \t\r\n]*")
_WORD_WINDOW = 64  # characters looked back for the word before a full stop


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Character spans (start, end) of the sentences in ``text[start:end]``.

    Spans cover the range without gaps (trailing white space belongs to the
    sentence before it), so packing sentences never loses characters.
    """
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in _SENTENCE_END.finditer(text, start, end):
        stop = m.end()
        if text[m.start()] == ".":
            # "e.g." or "U.S." or "3." in "Section 3. " are not sentence ends.
            # Looked for within a short window: an abbreviation or number is a
            # short word, and an unbounded look-back makes a run of "x." lines quadratic.
            floor = max(cursor, m.start() - _WORD_WINDOW)
            word_start = max(
                floor, text.rfind(" ", floor, m.start()) + 1, text.rfind("\n", floor, m.start()) + 1
            )
            prev = text[word_start : m.start()].lower().lstrip("(\"'")
            if prev in _ABBREVIATIONS or (len(prev) == 1 and prev.isalpha()) or prev.isdigit():
                continue
        # swallow following white space into this sentence
        stop = min(_SPACES.match(text, stop, end).end(), end) if stop < end else stop
        if stop > cursor:
            spans.append((cursor, stop))
            cursor = stop
    if cursor < end:
        spans.append((cursor, end))
    return spans


# ------------------------------------------------------------ acronyms
# A document is often named by its initials ("MSA" for a master services
# agreement). Acronyms of fewer than three letters are too often ordinary
# words to be kept. (Searching a query's runs of words as acronyms too,
# "request for proposal" -> "rfp", lost on Vaswani by cross-validation:
# "see", "dot", "add" are words; docs/decisions.md.)
MIN_ACRONYM = 3
MAX_ACRONYM = 5


def name_acronym(doc: str) -> str:
    """The initials of a document name's words ("master-services-agreement.pdf"
    -> "msa"); "" when the name has fewer than ``MIN_ACRONYM`` words."""
    stem = doc.rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    parts = [w for w in re.split(r"[-_\s]+", stem) if w[:1].isalpha()]
    return "".join(w[0] for w in parts).lower() if MIN_ACRONYM <= len(parts) <= MAX_ACRONYM else ""


# ------------------------------------------------------------ tables
def open_table_header(text: str) -> str:
    """The header row of the Markdown pipe table that ``text`` ends inside
    (its last table, when nothing but blank lines follows that table), as
    its cells joined by " | "; "" otherwise. A passage cut from the middle of
    a table holds rows whose column names are only in the header, which the
    passage before it holds (docs/decisions.md, "Table headers")."""
    if "|" not in text:
        return ""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    tables = [t for t in tokens if t.type == "table_open" and t.map]
    if not tables or any(line.strip() for line in text.split("\n")[tables[-1].map[1] :]):
        return ""
    first = tokens.index(tables[-1])
    cells: list[str] = []
    for tok in tokens[first:]:
        if tok.type == "thead_close":
            break
        if tok.type == "inline":
            cells.append(tok.content.strip())
    return " | ".join(c for c in cells if c)


def starts_with_table_row(text: str) -> bool:
    """Whether the first non-blank line of ``text`` is a pipe-table row."""
    stripped = text.lstrip()
    return stripped.startswith("|")


def phrase_initials(text: str) -> list[str]:
    """The initials of every run of ``MIN_ACRONYM``-``MAX_ACRONYM``
    consecutive words of ``text`` ("request for proposal" -> "rfp"), stop
    words included as in ``name_acronym``; a number or amount breaks a run."""
    found: dict[str, None] = {}
    run: list[str] = []
    for token in [*words(text), ""]:
        if token[:1].isalpha():
            run.append(token[0])
            for size in range(MIN_ACRONYM, min(len(run), MAX_ACRONYM) + 1):
                found.setdefault("".join(run[-size:]))
        else:
            run = []
    return list(found)
