"""The answer without a model: whole sentences and table rows that answer.

Extractive question answering by answer-unit selection (after the TREC QA
systems; Voorhees 1999, "The TREC-8 Question Answering Track Report"):

1. the question is split into its parts ("X, and Y?";
   ``ragcore.retrieval.query.split_question``);
2. the retrieved passages are read as units (``units``): whole sentences,
   and table rows with their header;
3. each part takes the units that best answer it (``relevance``: weighted
   coverage of its topic words, the kind of answer it asks for, retrieval
   rank, dense similarity); a part nothing answers well enough gets "The
   documents do not say ..." (or "do not answer ...", `not_said`) instead;
4. disagreements between the chosen units, and the lens's own price
   conflicts and contradictions re-read by the one contradiction rule, are
   stated with both sides cited (``disagreement``);
5. when no part is answered, the answer says so plainly and lists the
   closest passages as *related*, not as an answer.

Every sentence carries citations [n] that resolve to the exact lines it
came from. Retrieval is not done here: the same hits feed this answer and
the model's, so citations point at the same lines with or without a key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ragcore.lenses import Lens
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

from .answerability import (
    SHIPPED_KIND_CHECK,
    KindCheck,
    anchor,
    collection_texts,
    part_threshold,
    unknown_names,
)
from .claims import SUBJECT_COVERAGE, is_yes_no, question_disagreements
from .cohesion import follows, with_continuations
from .disagreement import Disagreement, agreement_words, asks_agreement, disagreements, lens_conflicts
from .not_said import not_said
from .relevance import Part, Scorer, Weights, answer_cue, make_part, states_cue, topic_words
from .risks import RiskReading, risk_reading
from .selection import (
    CANDIDATE_RATIO,
    MAX_ROWS,
    SHIPPED_QUOTING,
    Quoting,
    choose,
)
from .semantic import Similarity
from .units import Unit, answer_units

HEADER = "Extractive answer (no model)"
DEFAULT_REASON = "no model configured"
NOT_COVERED = "The loaded documents do not answer this question."
RELATED_INTRO = "Closest passages, not an answer:"
NOTHING_RETRIEVED = "Nothing was retrieved for this question, so there is nothing to answer from."
MAX_SENTENCES = 6
# A part is answered when its best unit scores at least this much; chosen on
# the demo and the ../shared development gold sets together, with two-fold,
# leave-one-type-out and leave-one-set-out cross-validation (docs/decisions.md).
ANSWER_MIN_SCORE = 1.0
RELATED = 2  # closest units shown when nothing answers


@dataclass
class _Citations:
    """Citation numbers in order of first use; the same lines reuse a number."""

    items: list[Citation] = field(default_factory=list)
    index: dict[tuple[str, int, int], int] = field(default_factory=dict)

    def cite(self, unit: Unit) -> int:
        key = (unit.doc, unit.first_line, unit.last_line)
        if key not in self.index:
            self.items.append(
                Citation(
                    len(self.items) + 1, unit.doc, unit.first_line, unit.last_line, unit.label, unit.pages
                )
            )
            self.index[key] = len(self.items)
        return self.index[key]


def render(sentences: Sequence[AnswerSentence]) -> str:
    """One sentence a line, each followed by its citation marks."""
    return "\n".join(f"{s.text} {''.join(f'[{n}]' for n in s.citations)}".strip() for s in sentences)


def question_parts(question: str) -> list[Part]:
    try:
        from ragcore.retrieval.query import split_question
    except ImportError:  # the splitter lands with the ranking work; one part until then
        texts = [question]
    else:
        texts = split_question(question) or [question]
    return [make_part(text, question) for text in texts]


def is_covered(
    question: str,
    hits: Sequence[Hit],
    documents: Mapping[str, Document] | None = None,
    min_score: float = ANSWER_MIN_SCORE,
    kind_check: KindCheck = SHIPPED_KIND_CHECK,
) -> bool:
    """Whether some part of the question is answered by a retrieved unit."""
    units = answer_units(hits, documents)
    scorer = Scorer(units)
    parts = question_parts(question)
    unknown = _unknown_names(parts, documents, units)
    return any(
        not missing
        and choose(
            units,
            part,
            scorer,
            set(),
            _threshold(part, units, scorer, min_score, kind_check),
            anchored=anchor(part, documents),
        )
        for part, missing in zip(parts, unknown, strict=True)
    )


def _threshold(
    part: Part, units: Sequence[Unit], scorer: Scorer, min_score: float, check: KindCheck
) -> float:
    """The score the part's best unit must reach (``answerability.part_threshold``)."""
    return part_threshold(part, units, lambda u: scorer.coverage(u, part), min_score, check)


def _disagreement_sentence(d: Disagreement, cites: _Citations) -> AnswerSentence:
    verb = {"conflict": "differ", "change": "record a change", "contradiction": "contradict each other"}[
        d.kind
    ]
    text = f'The documents {verb}: {d.first.doc} says "{d.first.text}", while {d.second.doc} says "{d.second.text}"'
    kind: SentenceKind = d.kind
    return AnswerSentence(text, (cites.cite(d.first), cites.cite(d.second)), kind)


def _unknown_names(
    parts: Sequence[Part], documents: Mapping[str, Document] | None, units: Sequence[Unit]
) -> list[list[str]]:
    """Per part, the names it mentions that no document of the collection does."""
    return [unknown_names(p.text, collection_texts(documents, [u.text for u in units])) for p in parts]


def _declined(
    units: Sequence[Unit],
    parts: Sequence[Part],
    scorer: Scorer,
    unknown: Sequence[str] = (),
    documents: Mapping[str, Document] | None = None,
) -> list[tuple[AnswerSentence, Unit | None]]:
    """What the documents cannot say, then the closest units as related: first
    those of documents that name what the question names (a question about
    "Plausible" is shown Plausible's pages, not a filing's sentence that
    happens to score higher), then by score."""
    out: list[tuple[AnswerSentence, Unit | None]] = [(AnswerSentence(NOT_COVERED, (), "not-covered"), None)]
    if unknown:
        named = ", ".join(unknown)
        out.append((AnswerSentence(f"No loaded document mentions {named}.", (), "not-covered"), None))
    anchors = [a for a in (anchor(p, documents) for p in parts) if a is not None]

    def closeness(u: Unit) -> tuple[bool, float, int]:
        return (not all(a(u) for a in anchors), -max(scorer.score(u, p) for p in parts), u.hit_rank)

    closest = sorted(units, key=closeness)[:RELATED]
    if closest:
        out.append((AnswerSentence(RELATED_INTRO, (), "related"), None))
        out += [(AnswerSentence(u.text, (), "related"), u) for u in closest]
    return out


def extractive_answer(
    question: str,
    hits: Sequence[Hit],
    lens: Lens | None = None,
    *,
    reason: str = DEFAULT_REASON,
    documents: Mapping[str, Document] | None = None,
    max_sentences: int = MAX_SENTENCES,
    min_score: float = ANSWER_MIN_SCORE,
    weights: Weights | None = None,
    similarity: Similarity | None = None,
    check_names: bool = True,
    subject_coverage: float = SUBJECT_COVERAGE,
    follow_on: bool = True,
    quoting: Quoting = SHIPPED_QUOTING,
    anchor_names: bool = True,
    passages: Sequence[Passage] | None = None,
    read_risks: bool = True,
    kind_check: KindCheck = SHIPPED_KIND_CHECK,
) -> Answer:
    """The answer assembled from the retrieved passages' sentences and table rows.

    Disagreements are found among the chosen units by the shared rules; the
    money lens's price conflicts are added when the question asks whether
    sources agree ("Is our pricing consistent?"). Given the collection's
    ``passages``, a question asking for the risks of a named subject quotes
    its documents' commitments and limitations (``risks``; off with
    ``read_risks=False``).
    """
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, not {max_sentences}")
    if not hits:
        return _finish([AnswerSentence(NOTHING_RETRIEVED, (), "not-covered")], _Citations(), reason)
    units = answer_units(hits, documents)
    scorer = Scorer(units, weights or Weights(), similarity)
    parts = question_parts(question)
    unknown = _unknown_names(parts, documents, units) if check_names else [[] for _ in parts]
    anchors = documents if anchor_names and check_names else None
    selected = _select(units, parts, scorer, min_score, quoting, unknown, follow_on, anchors, kind_check)
    reading = risk_reading(question, documents, passages) if read_risks and check_names else None
    per_part_units, answered = selected if reading is None else _with_risks(reading, *selected)
    cites = _Citations()
    chosen = [u for us in per_part_units for u in us]
    names = sorted({n for ns in unknown for n in ns})
    pointed = [] if names else _pointed(question, units, parts, scorer, chosen, subject_coverage)
    if not any(answered) and pointed:
        # the disagreement the question points at answers it ("Does Starter
        # really include unlimited workflows?"), whatever the best unit scores
        answered = [True] * len(parts)
    if not any(answered):
        return _declined_answer(_declined(units, parts, scorer, names, anchors), cites, reason)
    extra = _lens_conflicts(question, lens, scorer, subject_coverage)
    sentences = _stated(
        question, units, parts, scorer, (per_part_units, answered), cites, max_sentences, [*pointed, *extra]
    )
    return _finish(sentences, cites, reason)


def _declined_answer(
    pairs: Sequence[tuple[AnswerSentence, Unit | None]], cites: _Citations, reason: str
) -> Answer:
    """The declined answer: what it cannot say, then the closest units as related, cited."""
    sentences = [AnswerSentence(s.text, (cites.cite(u),), s.kind) if u is not None else s for s, u in pairs]
    return _finish(sentences, cites, reason)


def _lens_conflicts(
    question: str, lens: Lens | None, scorer: Scorer, subject_coverage: float
) -> list[Disagreement]:
    """The lens's conflicts about the question's subject, when it asks whether sources agree."""
    if lens is None or not asks_agreement(question):
        return []
    return _about_question(lens_conflicts(lens), question, scorer, subject_coverage)


def _stated(
    question: str,
    units: Sequence[Unit],
    parts: Sequence[Part],
    scorer: Scorer,
    selected: tuple[Sequence[list[Unit]], Sequence[bool]],
    cites: _Citations,
    budget: int,
    disagreements: Sequence[Disagreement],
) -> list[AnswerSentence]:
    """The sentences of an answer that answers: each part's units (``selected``:
    per part, its units and whether it is answered) and ``disagreements``; a
    question that weighs sources (agreement, yes/no) also reads the units
    near each part's best for the other side of a contradiction."""
    per_part, answered = selected
    agreement = asks_agreement(question)
    weighs = agreement or is_yes_no(question)
    chosen = [u for us in per_part for u in us]
    near = _near(units, parts, scorer, chosen) if weighs else []
    return _answer_sentences(parts, per_part, answered, cites, budget, disagreements, agreement, weighs, near)


_MONEY_WORDS = topic_words(
    "price prices pricing cost costs fee fees charge charges bill billing pay paid amount money"
)


def _about_question(
    found: Sequence[Disagreement], question: str, scorer: Scorer, min_coverage: float
) -> list[Disagreement]:
    """The lens's conflicts one of whose sides states ``min_coverage`` of the
    question's topic words: a price conflict elsewhere in the collection does
    not answer "Do the billing procedure and the MSA agree on suspension?"."""
    # the question's subject beyond asking about money and agreement: "Is our
    # pricing consistent?" has none, so every price conflict answers it
    words = topic_words(question) - topic_words(agreement_words(question)) - _MONEY_WORDS
    if not words:
        return list(found)
    subject = Part(question, frozenset(words), "none", ())
    return [
        d
        for d in found
        if max(scorer.coverage(d.first, subject), scorer.coverage(d.second, subject)) >= min_coverage
    ]


def _pointed(
    question: str,
    units: Sequence[Unit],
    parts: Sequence[Part],
    scorer: Scorer,
    chosen: Sequence[Unit],
    subject_coverage: float,
) -> list[Disagreement]:
    """The disagreement the question points at (``claims``), units read in order of relevance."""
    by_relevance = sorted(units, key=lambda u: (-max(scorer.score(u, p) for p in parts), u.hit_rank))
    whole = make_part(question)
    return question_disagreements(
        question,
        by_relevance,
        chosen,
        answer_cue(question),
        lambda u: scorer.coverage(u, whole),
        subject_coverage,
    )


def _near(units: Sequence[Unit], parts: Sequence[Part], scorer: Scorer, chosen: Sequence[Unit]) -> list[Unit]:
    """Units not quoted that score ``CANDIDATE_RATIO`` of their part's best: the
    other side of a contradiction need not be among the best answers."""
    ids = {id(u) for u in chosen}
    out: list[Unit] = []
    for part in parts:
        scores = [(scorer.score(u, part), u) for u in units]
        best = max((sc for sc, _ in scores), default=0.0)
        out += [u for sc, u in scores if id(u) not in ids and best > 0 and sc >= CANDIDATE_RATIO * best]
    return list({id(u): u for u in out}.values())


def _select(
    units: Sequence[Unit],
    parts: Sequence[Part],
    scorer: Scorer,
    min_score: float,
    quoting: Quoting,
    unknown: Sequence[list[str]],
    follow: bool = True,
    documents: Mapping[str, Document] | None = None,
    kind_check: KindCheck = SHIPPED_KIND_CHECK,
) -> tuple[list[list[Unit]], list[bool]]:
    """Each part's units, and whether each part is answered (``choose`` with
    ``min_score``, moved per part by ``kind_check``, and ``quoting``)."""
    taken: set[int] = set()
    per_part: list[list[Unit]] = []
    answered: list[bool] = []
    for part, missing in zip(parts, unknown, strict=True):
        if missing:  # a name no document mentions: this part cannot be answered here
            answered.append(False)
            per_part.append([])
            continue
        threshold = _threshold(part, units, scorer, min_score, kind_check)
        chosen = choose(units, part, scorer, taken, threshold, quoting, anchored=anchor(part, documents))
        if follow:
            chosen = with_continuations(chosen, units, taken)
        # a part whose answer another part already quotes ("..., and how much
        # is it?") is answered, with nothing more to add
        answered.append(
            bool(chosen) or any(scorer.decision_score(u, part) >= threshold for u in units if id(u) in taken)
        )
        taken.update(id(u) for u in chosen)
        per_part.append(chosen)
    return per_part, answered


def _with_risks(
    reading: RiskReading, per_part: Sequence[list[Unit]], answered: Sequence[bool]
) -> tuple[list[list[Unit]], list[bool]]:
    """The subject's risk sentences answer the first part in place of what it
    chose (what shares the question's words is rarely a risk: "Prepared for
    Northgate Health Partners"); another part keeps only what it chose from
    the subject's documents (the risks of other things do not answer "the
    risks of X")."""
    keys = {u.key for u in reading.units}
    kept = [[u for u in us if u.doc in reading.documents and u.key not in keys] for us in per_part]
    kept[0] = list(reading.units)
    return kept, [True, *answered[1:]]


def _answer_sentences(
    parts: Sequence[Part],
    per_part: Sequence[list[Unit]],
    answered: Sequence[bool],
    cites: _Citations,
    budget: int,
    extra: Sequence[Disagreement] = (),
    relaxed: bool = False,
    asks_whether: bool = True,
    near: Sequence[Unit] = (),
) -> list[AnswerSentence]:
    chosen = [u for units in per_part for u in units]
    found: list[Disagreement] = []
    quoted = {id(u) for u in chosen}
    # figures conflict among the quoted units; a contradiction needs one side
    # among them, the other may be near them
    weighed = disagreements(chosen, relaxed, contradictions=False)
    weighed += [
        d
        for d in disagreements([*chosen, *near], relaxed, relaxed or asks_whether)
        if d.kind == "contradiction" and (id(d.first) in quoted or id(d.second) in quoted)
    ]
    # A contradiction between quoted sentences answers a question that asks
    # whether something holds (yes/no) or whether sources agree; for a "what"
    # question it pairs statements the question did not ask to weigh.
    for d in list(extra) + weighed:
        # a unit stands on one side of one disagreement at most
        if not any({id(d.first), id(d.second)} & {id(f.first), id(f.second)} for f in found):
            found.append(d)
    # a side of a disagreement is not quoted again (the lens's sides are units of their own: compare text)
    pair_keys = {u.key for d in found for u in (d.first, d.second)}
    sentences = [_disagreement_sentence(d, cites) for d in found]
    for part, units, done in zip(parts, per_part, answered, strict=True):
        if not done:
            sentences.append(AnswerSentence(not_said(part.text), (), "not-covered"))
            continue
        shown_in_pair = ""  # the document of the unit just shown inside a disagreement
        for u in by_kind(units, part):
            # a sentence leaning on one shown only inside a disagreement ("Rosa
            # asked whether that is the best we can do.") would stand alone
            if u.key in pair_keys or (u.doc == shown_in_pair and _leans_back(u)):
                shown_in_pair = u.doc
                continue
            shown_in_pair = ""
            kind: SentenceKind = "table-row" if u.kind == "table-row" else "quote"
            sentences.append(AnswerSentence(u.text, (cites.cite(u),), kind))
    cited = [s for s in sentences if s.citations]
    if len(cited) > budget + MAX_ROWS:
        keep = {id(s) for s in cited[: budget + MAX_ROWS]}
        sentences = [s for s in sentences if not s.citations or id(s) in keep]
    return sentences


def _leans_back(u: Unit) -> bool:
    return u.kind == "sentence" and follows(u.text)


def by_kind(units: Sequence[Unit], part: Part) -> list[Unit]:
    """A part's units with those stating the kind of answer it asks for
    (a figure for "What uptime ...?", a date for "When ...?") first, each
    kept with the units that lean on it (a continuation, the rows of its
    table); otherwise in the order chosen."""
    if part.cue == "none":
        return list(units)
    groups: list[list[Unit]] = []
    for u in units:
        joins = groups and (
            (u.table is not None and u.table == groups[-1][-1].table)
            or (u.kind == "sentence" and follows(u.text))
        )
        if joins:
            groups[-1].append(u)
        else:
            groups.append([u])
    groups.sort(key=lambda g: not any(states_cue(u.text, part.cue) for u in g))
    return [u for g in groups for u in g]


def _finish(sentences: list[AnswerSentence], cites: _Citations, reason: str) -> Answer:
    used = sorted({n for s in sentences for n in s.citations})
    citations = [c for c in cites.items if c.n in used]
    covered = any(s.kind in ANSWERING_KINDS for s in sentences)
    return Answer("extractive", HEADER, render(sentences), reason, citations, sentences, covered=covered)
