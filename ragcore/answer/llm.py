"""Optional model answers, written from the retrieved passages only.

Everything works without a key: with no model configured, or when a call
fails, the extractive answer is shown with a header that says why. With a key,
the same numbered passages go to the model under fixed grounding rules
(``ragcore.answer.prompt``), the reply must be JSON of a fixed shape, and the
result is checked (``ragcore.answer.checks``): citations outside the passages
sent are removed and flagged, figures the cited passages do not state are
flagged, and a groundedness score is computed.

Providers are reached through LiteLLM, imported lazily (its import takes
seconds) with its price map read from the installed package, never fetched.
Only the matched passages leave the machine, and only when a model is set.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ragcore import config as ragconfig
from ragcore.answer import checks
from ragcore.answer.ailog import AiLog, redact
from ragcore.answer.prompt import answer_messages, prompt_chars
from ragcore.errors import RagcoreError
from ragcore.records import Answer, AnswerSentence, Citation, Hit

# Key variable -> (provider, default model), in the order they are tried.
# Defaults are small, cheap models that LiteLLM's bundled price map knows.
PROVIDERS: tuple[tuple[str, str, str], ...] = (
    ("OPENAI_API_KEY", "openai", "gpt-4o-mini"),
    ("ANTHROPIC_API_KEY", "anthropic", "claude-haiku-4-5"),
    ("GEMINI_API_KEY", "gemini", "gemini/gemini-2.5-flash"),
    ("MISTRAL_API_KEY", "mistral", "mistral/mistral-small-latest"),
    ("GROQ_API_KEY", "groq", "groq/openai/gpt-oss-20b"),
    ("DEEPSEEK_API_KEY", "deepseek", "deepseek/deepseek-chat"),
    (
        "TOGETHERAI_API_KEY",
        "together_ai",
        "together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo",
    ),
    ("COHERE_API_KEY", "cohere", "command-r-08-2024"),
    ("OPENROUTER_API_KEY", "openrouter", "openrouter/openai/gpt-4o-mini"),
)
_KEY_OF = {provider: key for key, provider, _ in PROVIDERS}

# Providers that run on the user's own machine or network and need no key.
LOCAL_PROVIDERS = frozenset({"ollama", "ollama_chat", "lm_studio", "llamafile", "vllm", "hosted_vllm"})

# Bare model names LiteLLM maps to a provider without a "provider/" prefix.
_BARE_PREFIXES = (
    ("gpt-", "openai"),
    ("chatgpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude", "anthropic"),
    ("command", "cohere"),
)

# Providers whose OpenAI-compatible API takes response_format json_object.
_JSON_MODE = frozenset({"openai", "azure", "mistral", "deepseek", "groq"})

# Per-token prices (input, output) assumed when the price map does not know a
# model: high on purpose, so the spending cap errs on the side of stopping.
DEFAULT_RATES = (5e-6, 20e-6)

_DISABLED = frozenset({"off", "none", "no", "false", "extractive"})


class ModelCallError(RagcoreError):
    """A model call that did not produce a usable reply; ``reason`` says why
    in words a reader can act on, ``outcome`` is a short code for the log."""

    def __init__(
        self,
        outcome: str,
        reason: str,
        *,
        detail: str = "",
        result: CallResult | None = None,
    ) -> None:
        self.outcome = outcome
        self.reason = reason
        self.detail = detail
        self.result = result
        super().__init__(reason)


@dataclass(frozen=True)
class ModelConfig:
    """Which model to call. The key is held only to pass it to the provider:
    it is left out of repr, equality and everything logged."""

    model: str
    provider: str
    source: str  # "RAGCORE_LLM_MODEL" or the key variable that chose it
    key_env: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    timeout_s: float = 30.0
    max_tokens: int = 800
    temperature: float = 0.0


def provider_of(model: str) -> str:
    """The LiteLLM provider of a model name ("anthropic/x" -> "anthropic")."""
    if "/" in model:
        return model.split("/", 1)[0].lower()
    lower = model.lower()
    for prefix, provider in _BARE_PREFIXES:
        if lower.startswith(prefix):
            return provider
    if lower.startswith("gemini"):
        return "vertex_ai"
    return "unknown"


def _choose(env: Mapping[str, str]) -> tuple[ModelConfig | None, str]:
    chosen = (env.get("RAGCORE_LLM_MODEL") or "").strip()
    if chosen.lower() in _DISABLED:
        return None, f"the model is turned off (RAGCORE_LLM_MODEL={chosen})"
    if chosen:
        provider = provider_of(chosen)
        key_env = _KEY_OF.get(provider)
        if key_env and not env.get(key_env):
            return None, f"RAGCORE_LLM_MODEL={chosen} needs {key_env}, which is not set"
        key = env.get(key_env) if key_env else None
        return ModelConfig(chosen, provider, "RAGCORE_LLM_MODEL", key_env, key), ""
    for key_env, provider, model in PROVIDERS:
        if env.get(key_env):
            return ModelConfig(model, provider, key_env, key_env, env[key_env]), ""
    return None, "no model is configured (set a provider API key, or RAGCORE_LLM_MODEL)"


def find_model(env: Mapping[str, str] | None = None) -> ModelConfig | None:
    """The model to call, or None when none is configured.

    RAGCORE_LLM_MODEL wins (any LiteLLM model name; "off" turns models off);
    else the first provider in ``PROVIDERS`` whose key is present, with its
    default model. Streamlit secrets reach here through the environment
    (``ragcore.config.apply_overrides``).
    """
    return _choose(os.environ if env is None else env)[0]


def explain_no_model(env: Mapping[str, str] | None = None) -> str:
    """Why ``find_model`` found nothing, in a sentence (empty when it found one)."""
    return _choose(os.environ if env is None else env)[1]


def disclosure(config: ModelConfig | None, spend: SpendTracker | None = None) -> str:
    """What leaves the machine, to show before the first call."""
    if config is None:
        return "No model is configured: answers are extractive and nothing leaves this machine."
    cap = (
        f" Spending cap for this session: ${spend.cap_usd:.2f} ({spend.spent_usd:.4f} spent)."
        if spend
        else ""
    )
    where = "a model server on your network" if config.provider in LOCAL_PROVIDERS else config.provider
    return (
        f"Answers are written by {config.model} ({where}). When you ask, only the matched passages "
        f"(document name, lines, section and text) and your question are sent; nothing else leaves "
        f"this machine.{cap}"
    )


# ---------------------------------------------------------------- LiteLLM


_litellm_module: Any = None
_litellm_lock = threading.Lock()


def load_litellm() -> Any:
    """Import LiteLLM once, with its network price-map fetch turned off."""
    global _litellm_module
    with _litellm_lock:
        if _litellm_module is None:
            # Must be set before the import: LiteLLM reads it at import time.
            os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            # LiteLLM's types make pydantic warn about "ReadOnly" items on import
            # and first call; the warnings say nothing about ragcore, so hide them.
            warnings.filterwarnings("ignore", message=r".*`ReadOnly` qualifier", category=UserWarning)
            import litellm

            litellm.suppress_debug_info = True
            _litellm_module = litellm
    return _litellm_module


def token_rates(model: str) -> tuple[float, float, bool]:
    """(input, output) USD per token from LiteLLM's bundled price map, and
    whether the model was known; ``DEFAULT_RATES`` otherwise."""
    try:
        cost_in, cost_out = load_litellm().cost_per_token(
            model=model, prompt_tokens=1_000_000, completion_tokens=1_000_000
        )
        return cost_in / 1e6, cost_out / 1e6, True
    except Exception:
        return DEFAULT_RATES[0], DEFAULT_RATES[1], False


def estimate_tokens(chars: int) -> int:
    # About 3.5 characters per token for English; round towards more tokens.
    return math.ceil(chars / 3)


def estimate_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    rate_in, rate_out, _ = token_rates(model)
    return prompt_tokens * rate_in + completion_tokens * rate_out


class SpendTracker:
    """Per-session spending cap in USD.

    A call is refused before it is made when the session has reached the cap,
    or when its worst case (the prompt plus ``max_tokens`` of reply) would
    pass it. Costs are LiteLLM's figure from the tokens the provider reports,
    or an estimate from sizes when it reports none.
    """

    def __init__(self, cap_usd: float, spent_usd: float = 0.0) -> None:
        """``spent_usd`` seeds the total, e.g. from ``AiLog.spent(session)``
        when a session resumes after a restart."""
        if cap_usd < 0 or math.isnan(cap_usd):
            raise ValueError(f"RAGCORE_SPEND_CAP_USD must be 0 or more, not {cap_usd}")
        self.cap_usd = float(cap_usd)
        self.spent_usd = max(0.0, float(spent_usd))
        self.calls = 0
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, spent_usd: float = 0.0) -> SpendTracker:
        return cls(ragconfig.settings().spend_cap_usd, spent_usd)

    @property
    def remaining_usd(self) -> float:
        return max(0.0, self.cap_usd - self.spent_usd)

    def refusal(self, projected_usd: float) -> str | None:
        """Why a call costing up to ``projected_usd`` may not run, or None."""
        with self._lock:
            if self.spent_usd >= self.cap_usd:
                return (
                    f"the session spending cap of ${self.cap_usd:.2f} is reached "
                    f"(${self.spent_usd:.4f} spent; RAGCORE_SPEND_CAP_USD)"
                )
            if self.spent_usd + projected_usd > self.cap_usd:
                return (
                    f"the next call could pass the session spending cap of ${self.cap_usd:.2f} "
                    f"(${self.spent_usd:.4f} spent, up to ${projected_usd:.4f} more; RAGCORE_SPEND_CAP_USD)"
                )
            return None

    def add(self, usd: float) -> None:
        with self._lock:
            self.spent_usd += max(0.0, usd)
            self.calls += 1


@dataclass(frozen=True)
class CallResult:
    """One completed model call."""

    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float
    cost_source: str  # "reported" (provider's token counts) | "estimate"
    duration_ms: float
    finish_reason: str | None
    refusal: str | None = None


def describe_error(exc: BaseException, config: ModelConfig) -> tuple[str, str]:
    """(outcome, reason) for an exception from a provider call.

    Matched by class name along the MRO, so injected completions and LiteLLM's
    own exception classes are read the same way without importing LiteLLM.
    """
    names = {cls.__name__ for cls in type(exc).__mro__}
    failed = f"the model call to {config.model} failed"
    if names & {
        "Timeout",
        "APITimeoutError",
        "TimeoutError",
        "ReadTimeout",
        "ConnectTimeout",
    }:
        return "timeout", f"{failed} (timeout after {config.timeout_s:g} s)"
    if "ContentPolicyViolationError" in names:
        return (
            "refused",
            f"the model {config.model} refused the request (content policy)",
        )
    if "AuthenticationError" in names:
        return "provider_error", f"{failed} (the provider rejected the API key)"
    if "RateLimitError" in names:
        return "provider_error", f"{failed} (rate limited by the provider)"
    if "ContextWindowExceededError" in names:
        return "provider_error", f"{failed} (the passages are too long for this model)"
    if "NotFoundError" in names:
        return "provider_error", f"{failed} (the provider does not know this model)"
    if "APIConnectionError" in names:
        return "provider_error", f"{failed} (the provider could not be reached)"
    return "provider_error", f"{failed} (provider error: {type(exc).__name__})"


_TEXT_FIELD = re.compile(r'"text"\s*:\s*"((?:[^"\\]|\\.)*)"')


def partial_text(buffer: str) -> str:
    """The readable part of a JSON reply still arriving: the sentence texts
    completed so far, joined (for showing a streamed answer as it comes)."""
    out = []
    for m in _TEXT_FIELD.finditer(buffer):
        try:
            out.append(json.loads(f'"{m.group(1)}"'))
        except ValueError:
            break
    return " ".join(out)


def _usage_tokens(usage: Any) -> tuple[int | None, int | None]:
    if usage is None:
        return None, None
    return getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None)


def call_model(
    messages: list[dict[str, str]],
    *,
    config: ModelConfig,
    spend: SpendTracker,
    completion: Callable[..., Any] | None = None,
    stream_callback: Callable[[str], None] | None = None,
    max_tokens: int | None = None,
) -> CallResult:
    """One chat completion under the spending cap; raise ``ModelCallError``.

    ``completion`` defaults to ``litellm.completion``; tests inject their own
    or pass LiteLLM's ``mock_response``. With ``stream_callback`` the reply is
    streamed and the callback gets the readable text so far.
    """
    max_tokens = max_tokens or config.max_tokens
    chars = prompt_chars(messages)
    projected = estimate_cost(config.model, estimate_tokens(chars), max_tokens)
    refused = spend.refusal(projected)
    if refused:
        raise ModelCallError("blocked_spend_cap", refused)
    if completion is None:
        completion = load_litellm().completion
    kwargs: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "timeout": config.timeout_s,
        "temperature": config.temperature,
        "max_tokens": max_tokens,
        "drop_params": True,  # a provider that lacks a parameter ignores it instead of failing
        # No silent retries: the user waits at most timeout_s, then sees the fallback.
        "num_retries": 0,
    }
    if config.api_key:
        kwargs["api_key"] = config.api_key
    if config.provider in _JSON_MODE:
        kwargs["response_format"] = {"type": "json_object"}
    if stream_callback is not None:
        kwargs["stream"] = True
        kwargs["stream_options"] = {"include_usage": True}
    started = time.perf_counter()
    secrets = [config.api_key] if config.api_key else []
    try:
        response = completion(**kwargs)
        if stream_callback is not None:
            text, usage, finish, refusal = _read_stream(response, stream_callback)
        else:
            choice = response.choices[0]
            text = choice.message.content or ""
            refusal = getattr(choice.message, "refusal", None)
            finish = getattr(choice, "finish_reason", None)
            usage = getattr(response, "usage", None)
    except Exception as exc:
        outcome, reason = describe_error(exc, config)
        detail = redact(f"{type(exc).__name__}: {str(exc)[:300]}", secrets)
        raise ModelCallError(outcome, reason, detail=detail) from None
    duration_ms = (time.perf_counter() - started) * 1000
    prompt_tokens, completion_tokens = _usage_tokens(usage)
    cost, source = _cost(response, config.model, prompt_tokens, completion_tokens, chars, len(text))
    spend.add(cost)
    return CallResult(
        text,
        prompt_tokens,
        completion_tokens,
        cost,
        source,
        duration_ms,
        finish,
        refusal,
    )


def _read_stream(
    stream: Iterable[Any], callback: Callable[[str], None]
) -> tuple[str, Any, str | None, str | None]:
    parts: list[str] = []
    usage = finish = refusal = None
    shown = ""
    for chunk in stream:
        usage = getattr(chunk, "usage", None) or usage
        choices = getattr(chunk, "choices", None) or []
        if not choices:
            continue
        delta = choices[0].delta
        if getattr(delta, "content", None):
            parts.append(delta.content)
            readable = partial_text("".join(parts))
            if readable != shown:
                shown = readable
                callback(readable)
        refusal = getattr(delta, "refusal", None) or refusal
        finish = getattr(choices[0], "finish_reason", None) or finish
    return "".join(parts), usage, finish, refusal


def _cost(
    response: Any,
    model: str,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    chars: int,
    reply: int,
) -> tuple[float, str]:
    hidden = getattr(response, "_hidden_params", None) or {}
    reported = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if isinstance(reported, (int, float)) and not isinstance(reported, bool):
        return float(reported), "reported"
    if prompt_tokens is not None and completion_tokens is not None:
        return estimate_cost(model, prompt_tokens, completion_tokens), "reported"
    return estimate_cost(model, estimate_tokens(chars), estimate_tokens(reply)), "estimate"


# ---------------------------------------------------------------- replies


class SchemaError(ValueError):
    """A JSON reply of the wrong shape; the message names the field."""


_FENCE = re.compile(r"^```[a-zA-Z]*\s*(.*?)\s*```$", re.DOTALL)


def parse_json_reply(text: str) -> dict:
    """The JSON object in a reply; a ```json fence or prose around it is tolerated.
    Raises ``json.JSONDecodeError`` (a ValueError) when there is none."""
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise
        value = json.loads(text[start : end + 1])
    if not isinstance(value, dict):
        raise SchemaError(f"the reply is a JSON {type(value).__name__}, not an object")
    return value


def citation_list(value: Any, where: str) -> list[int]:
    """A list of citation numbers; digit strings like "2" or "[2]" are accepted."""
    if not isinstance(value, list):
        raise SchemaError(f"{where} must be a list of passage numbers")
    out = []
    for item in value:
        if isinstance(item, int) and not isinstance(item, bool):
            out.append(item)
        elif isinstance(item, str) and re.fullmatch(r"\s*\[?\s*\d+\s*\]?\s*", item):
            out.append(int(re.sub(r"\D", "", item)))
        else:
            raise SchemaError(f"{where} must hold passage numbers, not {item!r}")
    return out


def validate_answer(
    value: Mapping[str, Any],
) -> tuple[list[tuple[str, list[int]]], bool]:
    """Check ``{"sentences": [{"text": str, "citations": [int]}], "covered": bool}``."""
    sentences = value.get("sentences")
    if not isinstance(sentences, list):
        raise SchemaError('"sentences" must be a list')
    covered = value.get("covered", True)
    if not isinstance(covered, bool):
        raise SchemaError('"covered" must be true or false')
    out = []
    for i, sentence in enumerate(sentences):
        if not isinstance(sentence, dict):
            raise SchemaError(f"sentences[{i}] must be an object with text and citations")
        text = sentence.get("text")
        if not isinstance(text, str) or not text.strip():
            raise SchemaError(f"sentences[{i}].text must be a non-empty string")
        out.append(
            (
                text.strip(),
                citation_list(sentence.get("citations", []), f"sentences[{i}].citations"),
            )
        )
    if not out and covered:
        raise SchemaError('"sentences" is empty although "covered" is true')
    return out, covered


NOT_COVERED = "The retrieved passages do not cover this question."


def checked_answer(
    raw: Sequence[tuple[str, list[int]]], covered: bool, hits: Sequence[Hit]
) -> tuple[list[AnswerSentence], list[Citation], dict]:
    """Sentences with invalid citations removed, the citations used, and the checks."""
    texts = [h.passage.text for h in hits]
    sentences: list[AnswerSentence] = []
    flags: list[dict] = []
    removed_all: list[int] = []
    numbers_all: list[str] = []
    found_sum = total_sum = 0
    for i, (text, cites) in enumerate(raw or [(NOT_COVERED, [])]):
        clean, inline = checks.strip_markers(text)
        kept, removed = checks.split_citations([*cites, *inline], len(hits))
        sources = checks.cited_texts(kept, texts)
        numbers = checks.unsupported_numbers(clean, sources)
        found, total = checks.word_support(clean, sources)
        found_sum, total_sum = found_sum + found, total_sum + total
        sentences.append(AnswerSentence(clean, tuple(kept)))
        removed_all += [n for n in removed if n not in removed_all]
        numbers_all += [n for n in numbers if n not in numbers_all]
        flags.append(
            {
                "sentence": i,
                "removed_citations": removed,
                "unsupported_numbers": numbers,
                "uncited": not kept,
                "groundedness": round(found / total, 3) if total else 0.0,
            }
        )
    used = sorted({n for s in sentences for n in s.citations})
    citations = [Citation.of(n, hits[n - 1].passage) for n in used]
    report = {
        "removed_citations": removed_all,
        "unsupported_numbers": numbers_all,
        "groundedness": round(found_sum / total_sum, 3) if total_sum else 0.0,
        "schema_ok": True,
        "covered": covered,
        "uncited_sentences": [f["sentence"] for f in flags if f["uncited"]],
        "sentences": flags,
    }
    return sentences, citations, report


def answer_text(sentences: Iterable[AnswerSentence]) -> str:
    """One sentence a line with its citation marks, as the extractive answer renders."""
    parts = []
    for s in sentences:
        marks = "".join(f"[{n}]" for n in s.citations)
        parts.append(f"{s.text} {marks}".strip())
    return "\n".join(parts)


# ---------------------------------------------------------------- answers


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
        return fallback_answer(
            fallback,
            "no passages matched the question, so nothing was sent to the model",
        )
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
            messages,
            config=config,
            spend=spend,
            completion=completion,
            stream_callback=stream_callback,
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

    sentences, citations, report = checked_answer(raw, covered, hits)
    answer = Answer(
        mode="model",
        header=f"Model answer ({config.model})",
        text=answer_text(sentences),
        reason=f"a model is configured ({config.source}); it wrote this answer from the {len(hits)} matched passages",
        citations=citations,
        sentences=sentences,
        model=config.model,
        checks=report,
    )
    flagged = report["removed_citations"] or report["unsupported_numbers"]
    answer.checks["call_id"] = record("flagged" if flagged else "ok", "", result, answer)
    return answer


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
