"""Models served on this machine, and structured output that degrades gracefully.

A model is *on this machine* when LiteLLM reaches it at a loopback address:
``RAGCORE_LLM_BASE_URL`` naming localhost, 127.0.0.0/8 or ::1 (an Ollama,
llama.cpp server, vLLM or any OpenAI-compatible endpoint), or an Ollama model
with no base URL (LiteLLM's default for Ollama is localhost:11434). Such a
model needs no key, and the passages never leave the machine.

Small local models and their servers differ in what structured output they
support. A local call first asks for the reply's JSON schema
(``response_format`` of type ``json_schema``); a server that rejects that
(HTTP 400 naming the response format) is asked again once with the prompt's
JSON instructions only, and remembered, so later calls go straight to the
prompt. Whatever comes back goes through the tolerant parser and validation
in ``ragcore.answer.replies``; invalid output becomes an ``invalid_json`` or
``schema_error`` outcome, counted in the AI log, never a crash.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field

from ragcore.answer import prompt

if TYPE_CHECKING:
    from ragcore.answer.models import ModelConfig

LOCAL_LABEL = "on this machine: nothing leaves it"
# LiteLLM's OpenAI client wants some key; a local server ignores it. A real
# provider key is never sent to a local endpoint.
PLACEHOLDER_KEY = "no-key-needed-on-this-machine"
_DEFAULT_LOOPBACK_PROVIDERS = frozenset({"ollama", "ollama_chat"})

FormatMode = Literal["schema", "prompt"]


def is_loopback_url(url: str | None) -> bool:
    """Whether ``url`` names this machine (localhost, 127.0.0.0/8, ::1)."""
    if not url:
        return False
    host = (urlparse(url if "//" in url else f"//{url}").hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def on_this_machine(provider: str, api_base: str | None) -> bool:
    if api_base:
        return is_loopback_url(api_base)
    return provider in _DEFAULT_LOOPBACK_PROVIDERS


# ---------------------------------------------------------------- schemas


class _Sentence(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    citations: list[int]


class AnswerReply(BaseModel):
    """The answer shape of ``prompt.ANSWER_FORMAT``, as a JSON schema for the server."""

    model_config = ConfigDict(extra="forbid")
    sentences: list[_Sentence]
    covered: bool


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["short", "mcq"]
    question: str
    answer: str | None = None
    key: str | None = None
    distractors: list[str] = Field(default_factory=list)
    citations: list[int]


class StudyReply(BaseModel):
    """The study-item shape of ``prompt.STUDY_FORMAT``."""

    model_config = ConfigDict(extra="forbid")
    items: list[_Item]


def response_schema(messages: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """``response_format`` asking for the JSON schema of the reply these messages ask for."""
    study = bool(messages) and messages[0].get("content") == prompt.SYSTEM_STUDY
    model = StudyReply if study else AnswerReply
    return {
        "type": "json_schema",
        "json_schema": {"name": "study_items" if study else "answer", "schema": model.model_json_schema()},
    }


# ---------------------------------------------------------------- negotiation

_prompt_only: set[tuple[str, str]] = set()
_lock = threading.Lock()


def format_mode(api_base: str | None, model: str) -> FormatMode:
    with _lock:
        return "prompt" if (api_base or "", model) in _prompt_only else "schema"


def forget_formats() -> None:
    """Forget which servers lacked schema support (for tests)."""
    with _lock:
        _prompt_only.clear()


def _rejects_format(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = str(exc).lower()
    bad_request = bool(names & {"BadRequestError", "UnprocessableEntityError"}) or "400" in text
    return bad_request and any(w in text for w in ("response_format", "json_schema", "schema", "grammar"))


def served_at(config: ModelConfig, kwargs: dict[str, Any]) -> bool:
    """Point the call at ``config.api_base`` (a placeholder key on this machine,
    never a provider's); True when the model is served there or locally."""
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.on_this_machine and "api_key" not in kwargs:
        kwargs["api_key"] = PLACEHOLDER_KEY
    return config.api_base is not None or config.on_this_machine


def complete_structured(completion: Callable[..., Any], kwargs: dict[str, Any], config: ModelConfig) -> Any:
    """Call ``completion`` asking for the reply's schema where the server takes
    it, else (and from then on) with the prompt's JSON instructions only."""
    api_base, model = config.api_base, config.model
    if format_mode(api_base, model) == "schema":
        try:
            return completion(**kwargs, response_format=response_schema(kwargs["messages"]))
        except Exception as exc:
            if not _rejects_format(exc):
                raise
            with _lock:
                _prompt_only.add((api_base or "", model))
    return completion(**kwargs)
