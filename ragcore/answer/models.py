"""Which model answers, if any: provider keys, model names, and what leaves the machine.

RAGCORE_LLM_MODEL wins; else the first provider whose key is set, with a small
default model. Nothing here imports LiteLLM.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragcore.answer.calls import SpendTracker


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


_DISABLED = frozenset({"off", "none", "no", "false", "extractive"})


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
    api_base: str | None = None  # RAGCORE_LLM_BASE_URL: a server LiteLLM calls instead of the provider's

    @property
    def on_this_machine(self) -> bool:
        """Served at a loopback address: nothing leaves the machine (``ragcore.answer.local``)."""
        from ragcore.answer.local import on_this_machine

        return on_this_machine(self.provider, self.api_base)


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


def _timeout(env: Mapping[str, str]) -> float:
    raw = (env.get("RAGCORE_LLM_TIMEOUT_S") or "").strip()
    try:
        value = float(raw) if raw else 30.0
    except ValueError:
        value = 30.0
    return value if value > 0 else 30.0


def _choose_served(chosen: str, base: str, env: Mapping[str, str]) -> tuple[ModelConfig | None, str]:
    """RAGCORE_LLM_MODEL at RAGCORE_LLM_BASE_URL: a server on this machine needs no key."""
    from ragcore.answer.local import is_loopback_url

    if not chosen:
        return None, f"RAGCORE_LLM_BASE_URL={base} needs RAGCORE_LLM_MODEL (e.g. openai/<served model name>)"
    provider = provider_of(chosen)
    key_env = _KEY_OF.get(provider)
    if is_loopback_url(base):
        return ModelConfig(
            chosen, provider, "RAGCORE_LLM_MODEL", None, None, _timeout(env), api_base=base
        ), ""
    if key_env and not env.get(key_env):
        return None, f"RAGCORE_LLM_MODEL={chosen} at {base} needs {key_env}, which is not set"
    key = env.get(key_env) if key_env else None
    return ModelConfig(chosen, provider, "RAGCORE_LLM_MODEL", key_env, key, _timeout(env), api_base=base), ""


def _choose(env: Mapping[str, str]) -> tuple[ModelConfig | None, str]:
    chosen = (env.get("RAGCORE_LLM_MODEL") or "").strip()
    if chosen.lower() in _DISABLED:
        return None, f"the model is turned off (RAGCORE_LLM_MODEL={chosen})"
    base = (env.get("RAGCORE_LLM_BASE_URL") or "").strip()
    if base:
        return _choose_served(chosen, base, env)
    if chosen:
        provider = provider_of(chosen)
        key_env = _KEY_OF.get(provider)
        if key_env and not env.get(key_env):
            return None, f"RAGCORE_LLM_MODEL={chosen} needs {key_env}, which is not set"
        key = env.get(key_env) if key_env else None
        return ModelConfig(chosen, provider, "RAGCORE_LLM_MODEL", key_env, key, _timeout(env)), ""
    for key_env, provider, model in PROVIDERS:
        if env.get(key_env):
            return ModelConfig(model, provider, key_env, key_env, env[key_env], _timeout(env)), ""
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
    if config.on_this_machine:
        from ragcore.answer.local import LOCAL_LABEL

        at = f" at {config.api_base}" if config.api_base else ""
        return (
            f"Answers are written by {config.model}, {LOCAL_LABEL}: the matched passages and your question "
            f"go only to the model server{at}, on this machine.{cap}"
        )
    where = "a model server on your network" if config.provider in LOCAL_PROVIDERS else config.provider
    if config.api_base:
        where = f"the server at {config.api_base}"
    return (
        f"Answers are written by {config.model} ({where}). When you ask, only the matched passages "
        f"(document name, lines, section and text) and your question are sent; nothing else leaves "
        f"this machine.{cap}"
    )
