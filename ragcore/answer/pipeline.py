"""From retrieved hits to what the user reads: lens, then answer.

Retrieval happens before this and is identical with and without a key, so
citations point at the same lines either way. With a model configured the
model writes the answer; anything that goes wrong falls back to the
extractive answer, with the reason in its header.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..lenses import Lens, LensChoice, choose_lens, run_lens
from ..records import Answer, Hit, Passage, SentenceKind
from .extractive import extractive_answer
from .semantic import similarity_for


@dataclass
class AskResult:
    choice: LensChoice
    lens: Lens
    answer: Answer
    notes: list[str] = field(default_factory=list)


def answer_question(
    question: str,
    hits: Sequence[Hit],
    *,
    lens: str = "auto",
    env: Mapping[str, str] | None = None,
    spend=None,
    log=None,
    stream_callback: Callable[[str], None] | None = None,
    completion: Callable[..., Any] | None = None,
    documents=None,
    passages: Sequence[Passage] | None = None,
) -> AskResult:
    """Choose and run the lens, then answer: by model when one is configured
    (``env`` holds the keys), else extractively."""
    from .llm import explain_no_model, find_model

    env = os.environ if env is None else env
    choice = choose_lens(question, lens)
    # with the collection's passages the lens reads all that mention the question's subject
    found = run_lens(choice, hits, collection=passages, question=question)

    def fallback(reason: str) -> Answer:
        return extractive_answer(
            question,
            hits,
            found,
            reason=reason,
            documents=documents,
            similarity=similarity_for(hits),
            passages=passages,
        )

    config = find_model(env)
    notes: list[str] = []
    if config is None:
        answer = fallback(explain_no_model(env))
        return AskResult(choice, found, answer, notes)

    from .llm import SpendTracker, model_answer

    spend = spend if spend is not None else SpendTracker.from_settings()
    answer = model_answer(
        question,
        hits,
        config=config,
        fallback=fallback,
        spend=spend,
        log=log,
        stream_callback=stream_callback,
        completion=completion,
        lens=found,
    )
    if answer.mode != "model":
        notes.append(f"model answer unavailable: {answer.reason}")
    else:
        mark_model_answer(answer)
    return AskResult(choice, found, answer, notes)


def mark_model_answer(answer: Answer) -> None:
    """A model answer's ``covered`` is the model's own ``covered`` flag; its
    sentences are ``statement`` (cited) or, when it declines, ``not-covered``."""
    covered = bool(answer.checks.get("covered", True))
    kind: SentenceKind = "statement" if covered else "not-covered"
    answer.sentences = [replace(s, kind=kind) for s in answer.sentences]
    answer.covered = covered and any(s.citations for s in answer.sentences)
