"""A stand-in model for example runs without a key: LiteLLM's ``mock_response``.

The reply is built from the passages in the prompt by a fixed rule (first
sentences of the first passages, cited), so an example run shows real
prompts, real parsing and real checks, but nothing was judged by a model:
runs made with it are stored with ``"mock": true`` and the page says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from ragcore.answer import prompt

_BLOCK = re.compile(r"<<<PASSAGE (\d+)>>>\n.*?\ntext:\n(.*?)\n<<<END PASSAGE \1>>>", re.DOTALL)
_COUNTS = re.compile(r"Write (\d+) short-answer item\(s\) and (\d+) multiple-choice item\(s\)")
_TOPIC = re.compile(r"^Topic: (.*)$", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_MARKUP = re.compile(r"[#*_`>|]+")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def _first_sentence(text: str, max_words: int = 30) -> str:
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    plain = " ".join(_MARKUP.sub(" ", body or text).split())
    first = _SENTENCE_END.split(plain, maxsplit=1)[0]
    words = first.split()
    return " ".join(words[:max_words]).rstrip(",;:") or plain[:80]


def _passages(user: str) -> list[str]:
    return [body for _n, body in _BLOCK.findall(user)]


def _answer(passages: Sequence[str]) -> dict:
    sentences = [{"text": _first_sentence(p), "citations": [n]} for n, p in enumerate(passages[:2], start=1)]
    return {"sentences": sentences, "covered": True}


def _study(user: str, passages: Sequence[str]) -> dict:
    counts = _COUNTS.search(user)
    n_short, n_mcq = (int(counts.group(1)), int(counts.group(2))) if counts else (1, 1)
    topic_match = _TOPIC.search(user)
    topic = topic_match.group(1) if topic_match else "the topic"
    firsts = [_first_sentence(p, 12) for p in passages]
    items: list[dict[str, Any]] = []
    for i in range(n_short):
        n = i % len(passages) + 1
        items.append(
            {
                "type": "short",
                "question": f"What is the {_ORDINALS[i % 10]} point the passages make about {topic}?",
                "answer": firsts[n - 1],
                "citations": [n],
            }
        )
    for i in range(n_mcq):
        n = (n_short + i) % len(passages) + 1
        others = [f for j, f in enumerate(firsts) if j != n - 1][:3]
        items.append(
            {
                "type": "mcq",
                "question": f"Which statement about {topic} is the {_ORDINALS[i % 10]} one the passages make?",
                "key": firsts[n - 1],
                "distractors": others,
                "citations": [n],
            }
        )
    return {"items": items}


def mock_reply(messages: Sequence[dict[str, str]]) -> str:
    """The JSON reply of the stand-in model to the Ask page's messages."""
    system = messages[0]["content"] if messages else ""
    user = messages[-1]["content"] if messages else ""
    passages = _passages(user) or [""]
    value = _study(user, passages) if system == prompt.SYSTEM_STUDY else _answer(passages)
    return json.dumps(value, ensure_ascii=False)


def mock_completion(base: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """A ``completion`` that asks LiteLLM for a mock response instead of a call."""

    def completion(**kwargs: Any) -> Any:
        from ragcore.answer.calls import load_litellm

        call = base or load_litellm().completion
        return call(**kwargs, mock_response=mock_reply(kwargs["messages"]))

    return completion
