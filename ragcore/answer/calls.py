"""One model call through LiteLLM, under the session's spending cap.

LiteLLM is imported lazily (its import takes seconds) with its price map read
from the installed package, never fetched. Provider errors become
``ModelCallError`` with a reason a reader can act on.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ragcore import config as ragconfig
from ragcore.answer import checks
from ragcore.answer.ailog import redact
from ragcore.answer.local import complete_structured, served_at
from ragcore.answer.models import ModelConfig
from ragcore.answer.prompt import prompt_chars
from ragcore.errors import RagcoreError

# Providers whose OpenAI-compatible API takes response_format json_object.
_JSON_MODE = frozenset({"openai", "azure", "mistral", "deepseek", "groq"})

# Per-token prices (input, output) assumed when the price map does not know a
# model: high on purpose, so the spending cap errs on the side of stopping.
DEFAULT_RATES = (5e-6, 20e-6)


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


def worst_case_cost(config: ModelConfig, prompt_chars: int, max_tokens: int) -> float:
    """The most one call may cost: its prompt and ``max_tokens`` of reply at the
    model's prices; nothing for a model on this machine."""
    if config.on_this_machine:
        return 0.0
    return estimate_cost(config.model, estimate_tokens(prompt_chars), max_tokens)


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
    cost_source: str  # "reported" (provider's token counts) | "estimate" | "local" (free)
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
    projected = worst_case_cost(config, chars, max_tokens)
    refused = spend.refusal(projected)
    if refused:
        raise ModelCallError("blocked_spend_cap", refused)
    if completion is None:
        completion = load_litellm().completion
    kwargs = _request(messages, config, max_tokens, streamed=stream_callback is not None)
    served = config.api_base is not None or config.on_this_machine
    started = time.perf_counter()
    secrets = [config.api_key] if config.api_key else []
    # A reply that quotes a configured key is masked before anyone sees it (ragcore.answer.checks).
    keys = checks.configured_secrets(secrets)
    try:
        # A served model gets the reply's JSON schema where it takes one (ragcore.answer.local).
        response = complete_structured(completion, kwargs, config) if served else completion(**kwargs)
        if stream_callback is not None:
            shown = stream_callback
            text, usage, finish, refusal = _read_stream(
                response, lambda so_far: shown(checks.redact_stream(so_far, keys))
            )
        else:
            text, usage, finish, refusal = _read_reply(response)
    except Exception as exc:
        outcome, reason = describe_error(exc, config)
        detail = redact(f"{type(exc).__name__}: {str(exc)[:300]}", secrets)
        raise ModelCallError(outcome, reason, detail=detail) from None
    duration_ms = (time.perf_counter() - started) * 1000
    prompt_tokens, completion_tokens = _usage_tokens(usage)
    cost, source = (
        (0.0, "local")  # a model on this machine costs no provider money
        if config.on_this_machine
        else _cost(response, config.model, prompt_tokens, completion_tokens, chars, len(text))
    )
    spend.add(cost)
    text = checks.redact_secrets(text, keys)
    return CallResult(text, prompt_tokens, completion_tokens, cost, source, duration_ms, finish, refusal)


def _request(
    messages: list[dict[str, str]], config: ModelConfig, max_tokens: int, *, streamed: bool
) -> dict[str, Any]:
    """The keyword arguments of one completion call."""
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
    served = served_at(config, kwargs)  # a base URL or a model on this machine (ragcore.answer.local)
    if config.provider in _JSON_MODE and not served:
        kwargs["response_format"] = {"type": "json_object"}
    if streamed:
        kwargs["stream"] = True
        kwargs["stream_options"] = {"include_usage": True}
    return kwargs


def _read_reply(response: Any) -> tuple[str, Any, str | None, str | None]:
    """(text, usage, finish reason, refusal) of a whole (not streamed) reply."""
    choice = response.choices[0]
    text = choice.message.content or ""
    refusal = getattr(choice.message, "refusal", None)
    finish = getattr(choice, "finish_reason", None)
    return text, getattr(response, "usage", None), finish, refusal


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
