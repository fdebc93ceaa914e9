"""Run a topic file through the configured model, with the Ask page's prompts.

``plan_generation`` retrieves the passages for every topic and builds the
exact messages the Ask page would send (``ragcore.answer.prompt``), so the
worst-case cost is known before any call; ``run_plan`` then makes the calls
under the session's spending cap. Nothing falls back: a refused, cut-off,
invalid or failed reply is recorded as a failure of the model, and the
topic's items are simply absent.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ragcore.answer import checks as text_checks
from ragcore.answer import prompt, study
from ragcore.answer.ailog import AiLog
from ragcore.answer.calls import worst_case_cost
from ragcore.answer.llm import (
    CallResult,
    ModelCallError,
    ModelConfig,
    SpendTracker,
    _read_answer,
    answer_text,
    call_model,
    checked_answer,
    log_call,
)
from ragcore.evaluation.answer_key import parse_answer_key
from ragcore.evaluation.answers import stated_alternative
from ragcore.evaluation.generation import (
    CallKind,
    CallRecord,
    Check,
    GenerationError,
    GenerationRun,
    GenItem,
    Outcome,
    SentPassage,
    TopicFile,
    now,
)
from ragcore.records import Hit

STUDY_MAX_TOKENS = 1600  # as the Ask page's study items
REPLY_KEPT = 4000

Search = Callable[[str], Sequence[Hit]]


def prompts_hash() -> str:
    """Hash of the fixed prompt text (both system prompts), so runs made with
    different prompts are told apart."""
    text = "\n\0".join([prompt.SYSTEM_ANSWER, prompt.SYSTEM_STUDY])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class PlannedCall:
    topic: str
    call: CallKind
    text: str  # the question or the study topic
    hits: tuple[Hit, ...]
    messages: tuple[dict[str, str], ...]
    max_tokens: int
    worst_usd: float
    facts: tuple[tuple[str, ...], ...] = ()  # the topic's answer facts (answer calls only)


@dataclass(frozen=True)
class GenerationPlan:
    spec: TopicFile
    topics_file: str
    model: str
    calls: tuple[PlannedCall, ...]
    n_short: int
    n_mcq: int
    mode: str
    k: int
    skipped: tuple[str, ...]  # topics that retrieved nothing

    @property
    def estimated_usd(self) -> float:
        """Worst case: every prompt in full and every reply at its token limit."""
        return sum(c.worst_usd for c in self.calls)


def plan_generation(
    spec: TopicFile,
    search: Search,
    config: ModelConfig,
    *,
    topics_file: str = "",
    n_short: int = 3,
    n_mcq: int = 3,
    mode: str = "hybrid",
    k: int = 8,
) -> GenerationPlan:
    """Retrieve and build every prompt; nothing is sent."""
    calls, skipped = [], []
    for t in spec.topics:
        key = parse_answer_key(t.answer, f"topic {t.id}") if t.answer is not None else None
        facts = key.facts if key is not None else ()
        answer_hits = tuple(search(t.question))
        study_hits = tuple(search(t.study_topic))
        if not answer_hits or not study_hits:
            skipped.append(t.id)
            continue
        for kind, text, hits, messages, limit in (
            (
                "answer",
                t.question,
                answer_hits,
                prompt.answer_messages(t.question, answer_hits),
                config.max_tokens,
            ),
            (
                "study",
                t.study_topic,
                study_hits,
                prompt.study_messages(t.study_topic, study_hits, n_short=n_short, n_mcq=n_mcq),
                STUDY_MAX_TOKENS,
            ),
        ):
            worst = worst_case_cost(config, prompt.prompt_chars(messages), limit)
            calls.append(
                PlannedCall(
                    t.id, kind, text, hits, tuple(messages), limit, worst, facts if kind == "answer" else ()
                )
            )
    return GenerationPlan(
        spec, topics_file, config.model, tuple(calls), n_short, n_mcq, mode, k, tuple(skipped)
    )


def _classify(err: ModelCallError) -> Outcome:
    cut = err.result is not None and err.result.finish_reason == "length"
    if err.outcome in ("invalid_json", "schema_error"):
        return "cut_off" if cut else "invalid"
    if err.outcome in ("refused", "timeout", "blocked_spend_cap"):
        return err.outcome  # type: ignore[return-value]
    return "call_error"


def _sent(hits: Sequence[Hit]) -> list[SentPassage]:
    return [
        SentPassage(
            n, h.passage.doc, h.passage.first_line, h.passage.last_line, h.passage.label, h.passage.text
        )
        for n, h in enumerate(hits, start=1)
    ]


def _record(planned: PlannedCall, outcome: Outcome, reason: str, result: CallResult | None) -> CallRecord:
    return CallRecord(
        topic=planned.topic,
        call=planned.call,
        outcome=outcome,
        reason=reason,
        reply=(result.text[:REPLY_KEPT] if result else ""),
        cost_usd=result.cost_usd if result else 0.0,
        duration_ms=result.duration_ms if result else None,
        passages=_sent(planned.hits),
    )


def answer_checks(report: dict, sentences: Sequence[str]) -> dict[str, Check]:
    """The automatic checks of a model answer, from ``checked_answer``'s report."""
    removed, uncited = report["removed_citations"], report["uncited_sentences"]
    numbers, grounded = report["unsupported_numbers"], report["groundedness"]
    dupes = [
        (i, j)
        for i in range(len(sentences))
        for j in range(i)
        if text_checks.overlap(sentences[i], sentences[j]) >= study.DUPLICATE_OVERLAP
    ]
    cite_detail = "every sentence cites a passage sent"
    if removed or uncited:
        cite_detail = f"{len(removed)} citation(s) outside the passages, {len(uncited)} uncited sentence(s)"
    return {
        "citations_valid": Check(not removed and not uncited, cite_detail),
        "numbers_present": Check(
            not numbers,
            f"not in the cited passages: {', '.join(numbers)}" if numbers else "all figures cited",
        ),
        "word_overlap": Check(
            grounded >= study.MIN_OVERLAP, f"{grounded:.0%} of the content words are in the cited passages"
        ),
        "answerable": Check(
            bool(report["covered"]),
            "the model found the passages cover the question"
            if report["covered"]
            else "the model said the passages do not cover it",
        ),
        "no_duplicate": Check(
            not dupes,
            f"sentence {dupes[0][0] + 1} repeats sentence {dupes[0][1] + 1}" if dupes else "no repeats",
        ),
    }


def fact_recall(facts: Sequence[Sequence[str]], text: str) -> float | None:
    """Facts stated / facts required, by the answer metrics' rule
    (``ragcore.evaluation.answers.stated_alternative``); None without facts."""
    if not facts:
        return None
    return sum(stated_alternative(f, text) is not None for f in facts) / len(facts)


def _answer_call(planned: PlannedCall, config: ModelConfig, spend: SpendTracker, completion, log):
    chars = prompt.prompt_chars(planned.messages)
    ids = [h.passage.id for h in planned.hits]
    try:
        result = call_model(
            list(planned.messages),
            config=config,
            spend=spend,
            completion=completion,
            max_tokens=planned.max_tokens,
        )
        raw, covered = _read_answer(result, config)
        if result.finish_reason == "length":
            raise ModelCallError("invalid_json", "the reply was cut off at the token limit", result=result)
    except ModelCallError as err:
        log_call(log, "answer", config, None, ids, planned.text, chars, err.outcome, err.detail, err.result)
        return _record(planned, _classify(err), err.reason, err.result), []
    sentences, _citations, report = checked_answer(raw, covered, planned.hits)
    log_call(log, "answer", config, None, ids, planned.text, chars, "ok", "evaluation", result)
    item = GenItem(
        id=f"{planned.topic}/answer",
        topic=planned.topic,
        call="answer",
        kind="answer",
        question=planned.text,
        text=answer_text(sentences),
        citations=sorted({n for s in sentences for n in s.citations}),
        checks=answer_checks(report, [s.text for s in sentences]),
        fact_recall=fact_recall(planned.facts, answer_text(sentences)),
    )
    return _record(planned, "ok", "", result), [item]


def _litellm_completion() -> Callable[..., Any]:
    from ragcore.answer.calls import load_litellm

    return load_litellm().completion


def _study_call(
    planned: PlannedCall, plan: GenerationPlan, config: ModelConfig, spend: SpendTracker, completion, log
):
    seen: list[Any] = []
    before = spend.spent_usd
    started = time.perf_counter()

    def keep(**kwargs: Any) -> Any:
        # The raw reply is kept for the run, also when it does not parse.
        response = (completion or _litellm_completion())(**kwargs)
        seen.append(response)
        return response

    try:
        items = study.generate_study_items(
            planned.text,
            planned.hits,
            config=config,
            spend=spend,
            log=log,
            completion=keep,
            n_short=plan.n_short,
            n_mcq=plan.n_mcq,
            max_tokens=planned.max_tokens,
        )
    except ModelCallError as err:
        return _record(planned, _classify(err), err.reason, err.result), []
    reply = (seen[0].choices[0].message.content or "") if seen else ""
    cut = bool(seen) and getattr(seen[0].choices[0], "finish_reason", None) == "length"
    record = replace(
        _record(planned, "cut_off", "the reply was cut off at the token limit", None)
        if cut
        else _record(planned, "ok", "", None),
        reply=reply[:REPLY_KEPT],
        cost_usd=spend.spent_usd - before,
        duration_ms=(time.perf_counter() - started) * 1000,
    )
    out = [
        GenItem(
            id=f"{planned.topic}/{it.ref}",
            topic=planned.topic,
            call="study",
            kind="mcq" if it.kind == "mcq" else "short",
            question=it.question,
            text=it.answer,
            citations=list(it.citations),
            options=list(it.options),
            checks={name: Check(ok, detail) for name, (ok, detail) in it.checks.items()},
        )
        for it in items
    ]
    return record, [] if cut else out


def run_plan(
    plan: GenerationPlan,
    config: ModelConfig,
    spend: SpendTracker,
    *,
    name: str,
    corpus: str,
    mock: bool = False,
    local: bool = False,
    completion: Callable[..., Any] | None = None,
    log: AiLog | None = None,
    progress: Callable[[str], None] | None = None,
) -> GenerationRun:
    """Make every planned call and check what comes back.

    Refuses to start when the plan's worst case does not fit in what is left
    of the spending cap (the estimate is the one shown before the run).
    """
    refusal = spend.refusal(plan.estimated_usd)
    if refusal:
        raise GenerationError(f"the run is not started: {refusal}")
    calls: list[CallRecord] = []
    items: list[GenItem] = []
    for i, planned in enumerate(plan.calls, start=1):
        if progress:
            progress(f"{planned.topic}: {planned.call} (call {i} of {len(plan.calls)})")
        if planned.call == "answer":
            record, found = _answer_call(planned, config, spend, completion, log)
        else:
            record, found = _study_call(planned, plan, config, spend, completion, log)
        calls.append(record)
        items.extend(found)
    notes = [f"topic {t} retrieved no passages and was not sent" for t in plan.skipped]
    return GenerationRun(
        name=name,
        created=now(),
        model=config.model,
        mock=mock,
        local=local,
        prompts_hash=prompts_hash(),
        topics_file=plan.topics_file,
        corpus=corpus,
        settings={"mode": plan.mode, "k": plan.k, "n_short": plan.n_short, "n_mcq": plan.n_mcq},
        estimated_usd=round(plan.estimated_usd, 6),
        spent_usd=round(sum(c.cost_usd for c in calls), 6),
        calls=calls,
        items=items,
        topics=list(plan.spec.topics),
        notes=notes,
    )
