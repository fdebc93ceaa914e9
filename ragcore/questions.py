"""What counts as a question: not empty, and not longer than the cap.

The cap (``RAGCORE_MAX_QUESTION_CHARS``, default 1,000) keeps a pasted page
from being embedded, searched and echoed back on every page as a "question".
"""

from __future__ import annotations

from . import config, errors


def max_question_chars() -> int:
    raw = config.get("RAGCORE_MAX_QUESTION_CHARS") or "1000"
    try:
        value = int(raw)
    except ValueError as exc:
        raise errors.RagcoreError(f"RAGCORE_MAX_QUESTION_CHARS must be a whole number, not {raw!r}") from exc
    if value < 1:
        raise errors.RagcoreError(f"RAGCORE_MAX_QUESTION_CHARS must be at least 1, not {value}")
    return value


def check_question(question: str) -> str:
    """The question stripped, or a RagcoreError saying what is wrong with it."""
    question = question.strip()
    if not question:
        raise errors.RagcoreError("type a question first")
    limit = max_question_chars()
    if len(question) > limit:
        raise errors.RagcoreError(
            f"the question is {len(question):,} characters long; questions are limited to {limit:,} "
            "characters (RAGCORE_MAX_QUESTION_CHARS). Ask about one thing at a time."
        )
    return question
