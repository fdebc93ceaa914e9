"""How well a sentence or table row answers (one part of) a question.

Term overlap alone picks sentences that merely share a word with the
question ("consistently" for "consistent"). Two general features make the
choice about the question instead:

- **weighted coverage**: the share of the question's topic words the unit
  states, each word weighted by its inverse document frequency over the
  retrieved units (a word every unit has says little; a word no unit has
  weighs most, so a question about something the documents never mention
  scores low everywhere, which is what abstention needs);
- **answer cue**: what kind of answer the question asks for ("how much" an
  amount, "how long" a duration, "which code/version/section" an
  identifier, "who" a person or role, ...), and whether the unit contains
  one (Hovy et al., "Toward Semantics-Based Answer Pinpointing", HLT 2001:
  typing the expected answer is what made early QA systems precise).

A question number that falls inside a range a table row states ("25%"
against "Above 20% and up to 30%") counts as that row stating it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ragcore.answer_types import NUMBER, Cue, answer_cue, states_cue
from ragcore.retrieval.word_neighbours import is_name
from ragcore.text import ENGLISH_STOP_WORDS, content_words, stem, tokenize
from ragcore.text import words as text_words

from .name_forms import other_forms
from .semantic import Similarity
from .units import Unit

# Words a question is made of that say nothing about its topic.
QUESTION_WORDS = content_words(
    """what which who whom whose when where why how do does did done is are was were can could should
    would will shall may might must our your my we you i me us they them there here any some tell show
    give list find explain describe please about know much many there's it's its get gets got happen
    happens apply applies ever really"""
)
# "Above 20% and up to 30%", "Below 99.9% but at least 99.0%", "10 to 20 seats"
_LOWER = re.compile(rf"\b(?:above|over|more than|at least|from|min(?:imum)?)\s+[$€£]?({NUMBER})", re.I)
_UPPER = re.compile(rf"\b(?:up to|below|under|less than|at most|max(?:imum)?)\s+[$€£]?({NUMBER})", re.I)
_NUMBERS = re.compile(rf"[$€£]?({NUMBER})\s?%?")
# Words that ask whether sources agree and never name what they agree on:
# "Is our pricing consistent?" is about pricing; a sentence saying buyers
# "consistently ask" shares the word, not the topic.
AGREEMENT_WORDS = content_words(
    "consistent inconsistent consistency agree agrees disagree disagrees match matches differ"
)


@dataclass(frozen=True)
class Part:
    """One question (or one part of a multi-part question) to answer."""

    text: str
    words: frozenset[str]  # stemmed topic words
    cue: Cue
    numbers: tuple[float, ...]
    # topic words naming a place, period or level, with every way a text may write it ("european": "EU", ...)
    forms: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...] = ()


def _floats(text: str) -> list[float]:
    out = []
    for m in _NUMBERS.finditer(text):
        try:
            out.append(float(m.group(1).replace(",", "")))
        except ValueError:
            continue
    return out


def topic_words(text: str) -> frozenset[str]:
    """Stemmed words that say what a question is about: no function words
    (the English stop list), no question words, no contractions ("we're")."""
    words = tokenize(text, stop_words=ENGLISH_STOP_WORDS)
    return frozenset(w for w in words if (len(w) > 1 or w.isdigit()) and "'" not in w) - QUESTION_WORDS


def topic_phrase(part: Part) -> str:
    """The part's topic words as a phrase, in its order ("What penalty
    applies if we're slow to settle up?" -> "penalty slow settle"): what the
    question is about without how it asks. Empty when its text has none
    (a part whose topic words come from the whole question)."""
    kept = [t for t in text_words(part.text) if t not in ENGLISH_STOP_WORDS and stem(t) in part.words]
    return " ".join(kept)


def make_part(text: str, context: str = "") -> Part:
    """A part's topic words are its own; ``context`` (the whole question)
    supplies the cue when the part alone has none, and the topic words when
    the part has none ("..., and how much is it?")."""
    cue = answer_cue(text)
    if cue == "none" and context:
        cue = answer_cue(context)
    words = topic_words(text) or topic_words(context)
    words = (words - AGREEMENT_WORDS) or words
    forms = tuple(
        (w, patterns)
        for name, patterns in other_forms(text).items()
        for w in content_words(name)
        if w in words
    )
    return Part(text, words, cue, tuple(_floats(text)), forms)


def in_range(text: str, numbers: Sequence[float]) -> bool:
    """Whether a number of the question lies inside a range ``text`` states."""
    if not numbers:
        return False
    lows = [float(m.group(1).replace(",", "")) for m in _LOWER.finditer(text)]
    highs = [float(m.group(1).replace(",", "")) for m in _UPPER.finditer(text)]
    if not lows and not highs:
        return False
    lo = max(lows) if lows else -math.inf
    hi = min(highs) if highs else math.inf
    return any(lo <= n <= hi and (lo != -math.inf or hi != math.inf) for n in numbers)


def _doc_words(name: str, folders: bool = False) -> str:
    """A document's file name as words: "discount-approval-matrix.md" ->
    "discount approval matrix"; with ``folders``, its folders' names too."""
    path = name if folders else name.rsplit("/", 1)[-1]
    stem = path.rsplit(".", 1)[0]
    return re.sub(r"[-_./]+", " ", stem)


def _in_stated_range(word: str, text: str) -> bool:
    """A number of the question ("25%") inside a range the text states
    ("Above 20% and up to 30%") is stated by it."""
    if not word[:1].isdigit() and word[:1] not in "$€£":
        return False
    values = _floats(word)
    return bool(values) and in_range(text, values)


UNKNOWN_CLOSENESS = 0.45  # about the median question-sentence similarity of the units answers quote


@dataclass(frozen=True)
class Weights:
    """The scoring weights (chosen by cross-validation; docs/decisions.md)."""

    cue: float = 0.3  # bonus when the unit has the kind of answer asked for
    rank: float = 0.02  # penalty per retrieval rank below the first
    label: float = 0.5  # weight of a word found only in the unit's heading path
    dense: float = 1.5  # weight of the unit's (or its passage's) dense similarity
    # the similarity also read against the part's topic words alone, the
    # higher one kept: measured, not chosen (docs/decisions.md section 7,
    # session 10; scripts/answer_study.py --phrase)
    topic_phrase: bool = False
    # a document's folders also count as its name's words ("basecamp-policies/
    # cancellation.md" is about Basecamp): measured, not chosen (docs/decisions.md
    # section 7, session 15; scripts/answer_study.py --folders)
    folder_names: bool = False
    # a topic word the unit does not state counts at its similarity to the
    # unit's closest word when that is at least this floor (0: off; needs a
    # similarity); for ordering quotes only (boosts_quote_only), chosen by
    # scripts/answer_study.py --quote-only (--near measured it in the decision too: not chosen)
    near_words: float = 0.8
    # a unit under a heading that asks a question ("What happens when you
    # cancel an account?") is as close as that heading is; for ordering quotes
    # only, chosen by --quote-only (--headings measured it in the decision too: not chosen)
    question_headings: bool = True
    # the two boosts above re-order what a part quotes but do not move the
    # decision to answer, read from the score without them (chosen by
    # scripts/answer_study.py --quote-only; docs/decisions.md section 7)
    boosts_quote_only: bool = True


_PLAIN = re.compile(r"[^\W\d_]{3,}")  # a word of letters: what a near word may be


def asked_words(part: Part) -> dict[str, str]:
    """The part's topic words as written (stem -> surface form), names left
    out: a name's nearest words are other names ("Japan" -> "Canada")."""
    out: dict[str, str] = {}
    for i, raw in enumerate(_PLAIN.findall(part.text)):
        word = raw.lower()
        if is_name(raw, first=not i) or word in ENGLISH_STOP_WORDS:
            continue
        if (s := stem(word)) in part.words:
            out.setdefault(s, word)
    return out


def _plain_words(text: str) -> set[str]:
    return {w for w in (raw.lower() for raw in _PLAIN.findall(text)) if w not in ENGLISH_STOP_WORDS}


def question_heading(label: str) -> str | None:
    """The unit's nearest heading when it asks a question (an FAQ entry)."""
    last = label.rsplit(" > ", 1)[-1].strip()
    return last if last.endswith("?") and len(last) > 1 else None


class Scorer:
    """Scores units for parts, with word weights from the units retrieved and,
    given ``similarity``, each unit's own similarity to the part."""

    def __init__(
        self, units: Sequence[Unit], weights: Weights = Weights(), similarity: Similarity | None = None
    ) -> None:
        self.weights = weights
        self.units = list(units)
        self.similarity = similarity
        self._sims: dict[str, dict[int, float]] = {}
        self._near: dict[str, dict[int, dict[str, float]]] = {}
        self._heads: dict[str, dict[str, float]] = {}
        self.words = {id(u): content_words(u.text) for u in units}
        # a unit's heading path and its document's name say what it is about
        # (a table row's cells rarely repeat the table's subject)
        folders = weights.folder_names
        self.labels = {id(u): content_words(f"{u.label} {_doc_words(u.doc, folders)}") for u in units}
        df: dict[str, int] = {}
        for ws in self.words.values():
            for w in ws:
                df[w] = df.get(w, 0) + 1
        self.df = df
        self.n = max(1, len(units))

    def idf(self, word: str) -> float:
        return math.log((self.n + 1) / (self.df.get(word, 0) + 0.5))

    def _found(self, unit: Unit, part: Part) -> dict[str, bool]:
        """The part's topic words the unit states, in the part's order: True
        for one in its text (or a range it states), False for one only in its
        heading path or its document's name."""
        words = self.words.get(id(unit))
        if words is None:  # a unit not among the retrieved ones (a lens mention)
            words = content_words(unit.text)
        label = self.labels.get(id(unit), set())
        found: dict[str, bool] = {}
        for w in part.words:
            if w in words or _in_stated_range(w, unit.text):
                found[w] = True
            elif any(p.search(unit.text) for form, patterns in part.forms if form == w for p in patterns):
                found[w] = True  # "EU" states the question's "European"
            elif w in label:
                found[w] = False
        return found

    def coverage(self, unit: Unit, part: Part) -> float:
        """The idf-weighted share of the part's topic words the unit states
        (a word only in its heading path counts ``weights.label``)."""
        if not part.words:
            return 0.0
        total = sum(self.idf(w) for w in part.words)
        # a row's subject is its table's heading: a heading word counted in full there
        label = 1.0 if unit.kind == "table-row" else self.weights.label
        got = 0.0
        for w, in_text in self._found(unit, part).items():
            got += self.idf(w) if in_text else self.idf(w) * label
        return got / total if total else 0.0

    def stated(self, unit: Unit, part: Part) -> frozenset[str]:
        """The part's topic words the unit states, in its text (or a range it
        states) or in its heading path or document name."""
        return frozenset(self._found(unit, part))

    def closeness(self, unit: Unit, part: Part, headings: bool = True) -> float | None:
        """The unit's similarity to the part (sentence level when a similarity
        is given, else its passage's dense score); with ``headings``, its
        question heading's when higher (``weights.question_headings``)."""
        if self.similarity is None:
            return unit.dense
        sims = self._sims.get(part.text)
        if sims is None:
            texts = [u.text for u in self.units]
            values = self.similarity(part.text, texts)
            phrase = topic_phrase(part) if self.weights.topic_phrase else ""
            if phrase:
                # how an everyday-words question asks ("if we're slow to
                # settle up") is part of its embedding; its topic words alone
                # can be nearer the sentence that states the answer
                values = [max(a, b) for a, b in zip(values, self.similarity(phrase, texts), strict=True)]
            sims = {id(u): v for u, v in zip(self.units, values, strict=True)}
            self._sims[part.text] = sims
        close = sims.get(id(unit), unit.dense)
        if headings and self.weights.question_headings and close is not None:
            return max(close, self._heading_closeness(part).get(question_heading(unit.label) or "", close))
        return close

    def near_coverage(self, unit: Unit, part: Part) -> float:
        """The idf-weighted share of the part's topic words the unit states
        only in other words: each such word counts its similarity to the
        unit's closest word, when at least ``weights.near_words`` (soft term
        matching by word embeddings, as in Kuzi, Shtok & Kurland, CIKM 2016:
        "yearly" is stated by "annual", 0.82 with MiniLM)."""
        floor = self.weights.near_words
        if not floor or self.similarity is None or not part.words:
            return 0.0
        nearest = self._nearest(part).get(id(unit))
        if not nearest:
            return 0.0
        found = self._found(unit, part)
        total = sum(self.idf(w) for w in part.words)
        got = sum(self.idf(w) * sim for w, sim in nearest.items() if w not in found and sim >= floor)
        return got / total if total else 0.0

    def _nearest(self, part: Part) -> dict[int, dict[str, float]]:
        """Per retrieved unit: each asked word's similarity to the unit's closest word."""
        near = self._near.get(part.text)
        if near is None:
            assert self.similarity is not None
            asked = asked_words(part)
            plain = {id(u): _plain_words(u.text) for u in self.units}
            vocab = sorted(set().union(*plain.values())) if asked else []
            rows = {
                s: dict(zip(vocab, self.similarity(word, vocab), strict=True)) for s, word in asked.items()
            }
            near = (
                {
                    uid: {s: max((row[w] for w in ws), default=0.0) for s, row in rows.items()}
                    for uid, ws in plain.items()
                }
                if vocab
                else {}
            )
            self._near[part.text] = near
        return near

    def _heading_closeness(self, part: Part) -> dict[str, float]:
        """The part's similarity to each question heading of the units: an FAQ
        entry's heading says what the sentences below it answer, which they
        seldom repeat."""
        heads = self._heads.get(part.text)
        if heads is None:
            assert self.similarity is not None
            asked = sorted({h for u in self.units if (h := question_heading(u.label))})
            heads = dict(zip(asked, self.similarity(part.text, asked), strict=True)) if asked else {}
            self._heads[part.text] = heads
        return heads

    def decision_score(self, unit: Unit, part: Part) -> float:
        """The score the decision to answer reads: without the quoting boosts
        (near words, question headings) when ``weights.boosts_quote_only``."""
        return self.score(unit, part, boosts=not self.weights.boosts_quote_only)

    def score(self, unit: Unit, part: Part, boosts: bool = True) -> float:
        w = self.weights
        s = self.coverage(unit, part) + (self.near_coverage(unit, part) if boosts else 0.0)
        if states_cue(unit.text, part.cue) or in_range(unit.text, part.numbers):
            s += w.cue
        s -= w.rank * (unit.hit_rank - 1)
        close = self.closeness(unit, part, headings=boosts)
        # Without dense retrieval the similarity is unknown: a middling value
        # keeps the scale (and so the answer threshold) the same.
        s += w.dense * (UNKNOWN_CLOSENESS if close is None else close)
        return s
