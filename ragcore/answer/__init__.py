"""Answers: extractive (no model) and, with a key, written by a model.

Both read the same retrieved hits, so their citations point at the same lines.
"""

from __future__ import annotations

from ragcore.answer.extractive import HEADER, extractive_answer, is_covered

__all__ = ["HEADER", "extractive_answer", "is_covered"]
