"""The answer facts of a gold-set question (docs/goldset-format.md, "Answer facts").

A question may say what a correct answer must state: ``{"facts": [...]}``
(each item a string, or a list of accepted alternatives), optionally with
``"conflict": true`` when the documents disagree, or ``{"answerable":
false}`` when the documents do not answer it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import GoldSetError

_ANSWER_KEYS = frozenset({"facts", "answerable", "conflict"})


@dataclass(frozen=True)
class AnswerKey:
    """What a correct answer must state (the format's "Answer facts").

    ``facts``: each item is a tuple of accepted alternatives, one of which
    must be stated. ``answerable`` false: the documents do not answer the
    question. ``conflict``: the documents disagree on what it asks.
    """

    facts: tuple[tuple[str, ...], ...] = ()
    answerable: bool = True
    conflict: bool = False


def parse_answer_key(a: object, label: str) -> AnswerKey:
    """``{"facts": [...], "conflict": bool}`` or ``{"answerable": false}``."""
    where = f"{label}, answer"
    if not isinstance(a, dict):
        raise GoldSetError(f"{where}: 'answer' must be a JSON object")
    unknown = sorted(set(a) - _ANSWER_KEYS)
    if unknown:
        raise GoldSetError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; use 'facts', 'answerable' or 'conflict'"
        )
    answerable = a.get("answerable", True)
    conflict = a.get("conflict", False)
    if not isinstance(answerable, bool) or not isinstance(conflict, bool):
        raise GoldSetError(f"{where}: 'answerable' and 'conflict' must be true or false")
    facts_raw = a.get("facts", [])
    if not isinstance(facts_raw, list):
        raise GoldSetError(f"{where}: 'facts' must be a list of strings or of lists of alternatives")
    facts = tuple(_parse_fact(f, i, where) for i, f in enumerate(facts_raw, 1))
    if not answerable and (facts or conflict):
        raise GoldSetError(
            f"{where}: an unanswerable question ('answerable': false) has no facts and no conflict"
        )
    if answerable and not facts:
        raise GoldSetError(f"{where}: give the 'facts' a correct answer states, or 'answerable': false")
    return AnswerKey(facts=facts, answerable=answerable, conflict=conflict)


def _parse_fact(f: object, number: int, where: str) -> tuple[str, ...]:
    alternatives = [f] if isinstance(f, str) else f
    if (
        not isinstance(alternatives, list)
        or not alternatives
        or not all(isinstance(x, str) and x.strip() for x in alternatives)
    ):
        raise GoldSetError(
            f"{where}: fact {number} must be a non-empty string or a non-empty list of non-empty strings"
        )
    return tuple(alternatives)
