"""Asking: search a collection, apply a lens, answer; switch lens without a
new model call; related passages; the last query of each session."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..answer.calls import SpendTracker as SpendTracker  # the session's spending cap
from ..answer.checks import INSTRUCTIONS_NOTE as INSTRUCTIONS_NOTE  # for marking passages on Ask
from ..answer.checks import contains_instructions as contains_instructions
from ..answer.models import ModelConfig, disclosure, find_model
from ..corpus import Corpus
from ..curated import curated_answer
from ..lenses import Lens as Lens  # the lens result a page renders
from ..lenses.money import format_amount as format_amount  # for showing a lens's figures
from ..questions import check_question
from ..records import Answer, Hit, Passage
from ..store import Library
from .collections import isolated
from .common import DEFAULT_K, DEMO_COLLECTION, DEMO_QUESTIONS, AnswerMode, Completion, LensRequest, Mode
from .indexes import Indexes
from .review import open_ai_log

if TYPE_CHECKING:
    from .curation import Curation


@dataclass(frozen=True)
class SearchSnapshot:
    """What one search left behind: its notes and timings, and what it searched."""

    notes: list[str]
    timings_ms: dict[str, float]
    passages: list[Passage]
    corpus: Corpus


@dataclass
class AskOutcome:
    """One question, asked: the hits with their traces, the lens, the answer."""

    question: str
    collection: str
    mode: Mode
    hits: list[Hit]
    answer: Answer | None
    lens: Lens | None
    notes: list[str]
    timings_ms: dict[str, float]
    whole_documents: list[str] = field(default_factory=list)  # docs whose passage is the whole file
    # When a curated answer matched, ``answer`` is it and this is the computed one shown after it.
    computed_answer: Answer | None = None


@dataclass(frozen=True)
class LastQuery:
    """The last question a session asked, for "How it works"."""

    question: str
    collection: str
    mode: Mode
    timings_ms: dict[str, float]
    hits: int
    answer_mode: AnswerMode | None


_ANY_SESSION = "\0any session"  # the key of the last question of any session, never a session id


class Asking:
    """Questions over the indexes; model calls are logged in the AI log."""

    def __init__(self, library: Library, indexes: Indexes, curation: Curation | None = None) -> None:
        self.library = library
        self.indexes = indexes
        self.curation = curation
        self.last_query: LastQuery | None = None
        # Per (session, collection): switching collection and back finds the question asked there.
        self._last_queries: dict[tuple[str | None, str], LastQuery] = {}

    @staticmethod
    def model(env: Mapping[str, str] | None = None) -> ModelConfig | None:
        """The model that writes answers (keys from ``env``), or None: answers are extractive."""
        return find_model(env)

    @staticmethod
    def disclosure(model: ModelConfig | None, spend: SpendTracker | None = None) -> str:
        """What leaves the machine when a question is asked, to show before the first call."""
        return disclosure(model, spend)

    def search(
        self, collection: str, question: str, mode: Mode = "hybrid", k: int = DEFAULT_K
    ) -> tuple[list[Hit], SearchSnapshot]:
        """The top ``k`` hits, and this search's ``notes`` and ``timings_ms``
        (with the searched ``passages`` and ``corpus``)."""
        retriever = self.indexes.retriever(collection)
        waiting = self.indexes.embedding_note(collection) if mode != "bm25" and retriever.passages else None
        if waiting:  # embedding in the background: BM25 answers meanwhile, rather than waiting
            mode = "bm25"
        elif mode != "bm25" and retriever.passages:
            self.indexes.ensure_dense(collection)
        # No lock: the result carries this search's notes and timings, and the
        # retriever holds only index state, so sessions search at once.
        result = retriever.search(question, mode, k)
        snapshot = SearchSnapshot(
            notes=([waiting] if waiting else []) + list(result.notes),
            timings_ms=dict(result.timings_ms),
            passages=retriever.passages,
            corpus=retriever.corpus,
        )
        return result.hits, snapshot

    def ask(
        self,
        collection: str,
        question: str,
        *,
        mode: Mode = "hybrid",
        lens: LensRequest = "auto",
        k: int = DEFAULT_K,
        env: Mapping[str, str] | None = None,
        session: str | None = None,
        spend: SpendTracker | None = None,
        stream_callback: Callable[[str], None] | None = None,
        completion: Completion | None = None,
        curated: bool = True,
    ) -> AskOutcome:
        """Retrieve, then apply the lens (over the collection) and answer: by a model when one is
        configured in ``env`` (logged in the AI log under ``session``), else extractively. With
        ``curated`` and a curated question close to this one, its pinned answer comes first and
        the computed answer (extractive: no model call) follows it."""
        from ..answer.pipeline import answer_question

        question = check_question(question)
        started = time.perf_counter()
        hits, searched = self.search(collection, question, mode, k)
        timings = dict(searched.timings_ms)
        notes = list(searched.notes)
        if not hits:
            if not searched.passages:
                notes.append("this collection has no documents yet: add some on the Library page")
            outcome = AskOutcome(question, collection, mode, [], None, None, notes, timings)
            self._remember(outcome, started, session)
            return outcome
        match = self.curation.match(collection, question) if curated and self.curation else None
        if match is not None:
            env = {}  # the pinned answer leads; the computed one is extractive, no model call
        t0 = time.perf_counter()
        result = answer_question(
            question,
            hits,
            lens=lens,
            env=env if env is not None else os.environ,
            spend=spend,
            log=open_ai_log(self.library, session),
            stream_callback=stream_callback,
            completion=completion,
            documents=searched.corpus.documents,
            passages=searched.passages,
        )
        timings["answer"] = (time.perf_counter() - t0) * 1000
        notes.extend(result.notes)
        whole = sorted({h.passage.doc for h in hits if h.passage.chunking == "whole"})
        outcome = AskOutcome(
            question, collection, mode, hits, result.answer, result.lens, notes, timings, whole
        )
        if match is not None:
            outcome.answer, outcome.computed_answer = curated_answer(match), result.answer
        self._remember(outcome, started, session)
        return outcome

    def relens(self, outcome: AskOutcome, lens: LensRequest) -> AskOutcome:
        """The same hits under another lens, without a new model call: a
        model's answer is kept; an extractive answer is rebuilt, since it
        leads with the lens's findings."""
        from ..answer.extractive import extractive_answer
        from ..lenses import choose_lens, run_lens

        if not outcome.hits:
            return outcome
        found = run_lens(choose_lens(outcome.question, lens), outcome.hits)
        pinned = outcome.answer if outcome.answer is not None and outcome.answer.mode == "curated" else None
        answer = outcome.computed_answer if pinned is not None else outcome.answer
        if answer is None or answer.mode != "model":
            retriever = self.indexes.retriever(outcome.collection)
            rebuilt = extractive_answer(
                outcome.question,
                outcome.hits,
                found,
                reason=answer.reason if answer else "no model configured",
                documents=retriever.corpus.documents,
                passages=retriever.corpus.passages,
            )
            if answer is not None:
                rebuilt.header = answer.header
            answer = rebuilt
        if pinned is not None:  # the pinned answer stays first; only the computed one follows the lens
            return replace(outcome, lens=found, computed_answer=answer)
        return replace(outcome, lens=found, answer=answer)

    def _remember(self, outcome: AskOutcome, started: float, session: str | None = None) -> None:
        outcome.timings_ms["total"] = (time.perf_counter() - started) * 1000
        self.last_query = LastQuery(
            question=outcome.question,
            collection=outcome.collection,
            mode=outcome.mode,
            timings_ms=dict(outcome.timings_ms),
            hits=len(outcome.hits),
            answer_mode=outcome.answer.mode if outcome.answer else None,
        )
        self._last_queries[(session, outcome.collection)] = self.last_query
        self._last_queries[(_ANY_SESSION, outcome.collection)] = self.last_query

    def last_query_of(self, collection: str, session: str | None = None) -> LastQuery | None:
        """The last query over ``collection``: the session's own under session
        isolation (another visitor's question is never shown), else the last of
        any session."""
        return self._last_queries.get((session if isolated() else _ANY_SESSION, collection))

    def example_questions(self, collection: str) -> tuple[str, ...]:
        """Questions to offer as one-click examples: the demo's own, else the
        pinned questions of the collection's curated file (none without one)."""
        if collection == DEMO_COLLECTION:
            return DEMO_QUESTIONS
        layer = self.curation.layer(collection) if self.curation else None
        return tuple(a.question for a in layer.answers[:4]) if layer else ()

    def placeholder(self, collection: str) -> str:
        """The question box's hint, about the collection in view."""
        if collection == DEMO_COLLECTION:
            return "Ask about the documents, e.g. what does the SLA promise?"
        titles = [d.title for d in self.indexes.retriever(collection).corpus.documents.values() if d.title]
        if titles:
            return f"Ask about the documents, e.g. what does {titles[0][:60]} say about …?"
        return "Ask about the documents in this collection"

    def related(self, collection: str, passage: Passage, k: int = 3) -> list[tuple[Passage, float]]:
        """Nearest passages in other documents of the collection."""
        return self.indexes.retriever(collection).related(passage, k)
