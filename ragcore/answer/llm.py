"""Optional model answers, written from the retrieved passages only.

Everything works without a key: with no model configured, or when a call
fails, the extractive answer is shown with a header that says why. With a key,
the same numbered passages go to the model under fixed grounding rules
(``ragcore.answer.prompt``), the reply must be JSON of a fixed shape, and the
result is checked (``ragcore.answer.checks``): citations outside the passages
sent are removed and flagged, figures the cited passages do not state are
flagged, and a groundedness score is computed.

Only the matched passages leave the machine, and only when a model is set.

The parts live beside this module: ``models`` (which model, disclosure),
``calls`` (one LiteLLM call under the spending cap) and ``replies`` (the
reply's JSON shape and its checks). Their public names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ragcore.answer.ailog import AiLog
from ragcore.answer.calls import (
    DEFAULT_RATES,
    CallResult,
    ModelCallError,
    SpendTracker,
    call_model,
    describe_error,
    estimate_cost,
    estimate_tokens,
    load_litellm,
    partial_text,
    token_rates,
)
from ragcore.answer.models import (
    LOCAL_PROVIDERS,
    PROVIDERS,
    ModelConfig,
    disclosure,
    explain_no_model,
    find_model,
    provider_of,
)
from ragcore.answer.prompt import answer_messages, prompt_chars
from ragcore.answer.replies import (
    NOT_COVERED,
    SchemaError,
    answer_text,
    checked_answer,
    citation_list,
    parse_json_reply,
    validate_answer,
)
from ragcore.records import Answer, Hit

__all__ = [
    "DEFAULT_RATES",
    "LOCAL_PROVIDERS",
    "NOT_COVERED",
    "PROVIDERS",
    "CallResult",
    "ModelCallError",
    "ModelConfig",
    "SchemaError",
    "SpendTracker",
    "answer_text",
    "call_model",
    "checked_answer",
    "citation_list",
    "describe_error",
    "disclosure",
    "estimate_cost",
    "estimate_tokens",
    "explain_no_model",
    "fallback_answer",
    "find_model",
    "load_litellm",
    "log_call",
    "model_answer",
    "parse_json_reply",
    "partial_text",
    "provider_of",
    "token_rates",
    "validate_answer",
]


def fallback_answer(fallback: Callable[[str], Answer], reason: str, extra: dict | None = None) -> Answer:
    """The extractive answer, headed with why it is shown instead of a model's."""
    base = fallback(reason)
    return replace(
        base,
        mode="extractive",
        header=f"Extractive answer (no model): {reason}",
        reason=reason,
        model=None,
        checks={**base.checks, **(extra or {})},
    )


def _lens_kind(lens: Any) -> str | None:
    if lens is None:
        return None
    return str(getattr(lens, "kind", lens))


def log_call(
    log: AiLog | None,
    kind: str,
    config: ModelConfig,
    lens_kind: str | None,
    passage_ids: list[str],
    question: str,
    prompt_chars: int,
    outcome: str,
    detail: str,
    result: CallResult | None,
    items: dict | None = None,
) -> int | None:
    """Record one model call (or a call the spending cap blocked, which sent
    nothing) in the AI log; returns its id, or None without a log."""
    if log is None:
        return None
    blocked = outcome == "blocked_spend_cap"
    return log.record_call(
        kind=kind,
        model=config.model,
        lens=lens_kind,
        passage_ids=[] if blocked else passage_ids,
        question=question,
        prompt_chars=0 if blocked else prompt_chars,
        response_chars=len(result.text) if result else 0,
        prompt_tokens=result.prompt_tokens if result else None,
        completion_tokens=result.completion_tokens if result else None,
        cost_usd=result.cost_usd if result else None,
        cost_source=result.cost_source if result else None,
        duration_ms=result.duration_ms if result else None,
        outcome=outcome,
        detail=detail,
        items=items,
    )


# Checks that mark a model's answer "flagged" in the AI log.
FLAGS = ("removed_citations", "unsupported_numbers", "numbers_from_instructions", "echoes_system_prompt")


def model_answer(
    question: str,
    hits: Sequence[Hit],
    *,
    config: ModelConfig | None,
    fallback: Callable[[str], Answer],
    spend: SpendTracker,
    log: AiLog | None = None,
    stream_callback: Callable[[str], None] | None = None,
    completion: Callable[..., Any] | None = None,
    lens: Any = None,
) -> Answer:
    """The model's grounded answer to ``question`` from ``hits``, checked; or
    ``fallback(reason)`` (the extractive answer) headed with the reason.

    Falls back, without raising, when no model is configured, nothing matched,
    the spending cap stops the call, or the call times out, fails, is refused,
    or returns invalid JSON. ``checks["call_id"]`` is the AI-log row of the
    call (None without a log), for recording a review against it.
    """
    if config is None:
        return fallback_answer(fallback, explain_no_model() or "no model is configured")
    if not hits:
        return fallback_answer(fallback, "no passages matched the question, so nothing was sent to the model")
    messages = answer_messages(question, hits)
    chars = prompt_chars(messages)
    ids = [h.passage.id for h in hits]
    lens_kind = _lens_kind(lens)

    def record(outcome: str, detail: str, result: CallResult | None, answer: Answer | None) -> int | None:
        items = {"answer": {**answer.to_json(), "question": question}} if answer else None
        return log_call(
            log, "answer", config, lens_kind, ids, question, chars, outcome, detail, result, items
        )

    try:
        result = call_model(
            messages, config=config, spend=spend, completion=completion, stream_callback=stream_callback
        )
        raw, covered = _read_answer(result, config)
    except ModelCallError as err:
        extra = {
            "schema_ok": err.outcome not in ("invalid_json", "schema_error"),
            "fallback_outcome": err.outcome,
        }
        answer = fallback_answer(fallback, err.reason, extra)
        answer.checks["call_id"] = record(err.outcome, err.detail, err.result, answer)
        return answer

    answer = _checked_model_answer(raw, covered, hits, config)
    flagged = any(answer.checks[k] for k in FLAGS)
    answer.checks["call_id"] = record("flagged" if flagged else "ok", "", result, answer)
    return answer


def _checked_model_answer(
    raw: Sequence[tuple[str, list[int]]], covered: bool, hits: Sequence[Hit], config: ModelConfig
) -> Answer:
    sentences, citations, report = checked_answer(raw, covered, hits)
    return Answer(
        mode="model",
        header=f"Model answer ({config.model})",
        text=answer_text(sentences),
        reason=f"a model is configured ({config.source}); it wrote this answer from the {len(hits)} matched passages",
        citations=citations,
        sentences=sentences,
        model=config.model,
        checks=report,
    )


def _read_answer(result: CallResult, config: ModelConfig) -> tuple[list[tuple[str, list[int]]], bool]:
    """The validated sentences of a reply, or ModelCallError with the reason."""
    if result.refusal or result.finish_reason == "content_filter":
        raise ModelCallError(
            "refused",
            f"the model {config.model} refused to answer",
            detail=str(result.refusal or "")[:300],
            result=result,
        )
    if not result.text.strip():
        raise ModelCallError(
            "refused",
            f"the model {config.model} returned an empty reply",
            result=result,
        )
    try:
        return validate_answer(parse_json_reply(result.text))
    except SchemaError as err:
        raise ModelCallError(
            "schema_error",
            f"the model's reply did not match the answer format ({err})",
            result=result,
        ) from None
    except ValueError as err:
        cut = " (the reply was cut off at the token limit)" if result.finish_reason == "length" else ""
        raise ModelCallError(
            "invalid_json",
            f"the model's reply was not valid JSON{cut}",
            detail=str(err)[:300],
            result=result,
        ) from None
