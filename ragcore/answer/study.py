"""Study items from a topic: retrieve, have a model write items, check each one.

Items are short-answer questions and multiple-choice questions with one key
and three distractors, each citing the passages it comes from. Beside every
item sit automatic checks, the kind of item-quality screens proposed for
automatic question generation (e.g. Mulla and Gharpure, "Automatic question
generation: a review of methodologies, datasets, evaluation metrics, and
applications", 2023; the item-writing guidelines of Haladyna, Downing and
Rodriguez, 2002, for distractors): valid citations, figures present in the
passages, word overlap with the passages, answerable from them, proper
multiple-choice form, and no duplicates. A check is a heuristic flag for the
reviewer, not a verdict: people accept, edit or reject each item.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ragcore.answer import checks
from ragcore.answer.ailog import AiLog
from ragcore.answer.llm import (
    CallResult,
    ModelCallError,
    ModelConfig,
    SchemaError,
    SpendTracker,
    call_model,
    citation_list,
    log_call,
    parse_json_reply,
)
from ragcore.answer.prompt import prompt_chars, study_messages
from ragcore.records import Citation, Hit
from ragcore.text import stem, words

KINDS = ("short", "mcq")

# Thresholds of the heuristic checks (shares of content words, 0..1).
MIN_OVERLAP = 0.5  # question + answer words found in the cited passages
MIN_ANSWER_SUPPORT = 0.75  # answer (or key) words found in the cited passages
DUPLICATE_OVERLAP = 0.8  # question overlap that makes two items the same
SAME_ANSWER_OVERLAP = 0.4  # lower bar when the two answers are the same

# Question words say how something is asked, not what: "What does X cost?" and
# "How much is X?" ask the same thing. Stemmed, as content_words gives them.
_ASKING = frozenset(
    stem(w) for w in "what which who whom whose when where why how does do did much many".split()
)


@dataclass
class StudyItem:
    """One study item. For "mcq", ``answer`` is the key and ``distractors``
    the three wrong options; ``citations`` are the numbers the model gave
    (checked by ``check_item``), ``sources`` the valid ones resolved to lines."""

    kind: str  # "short" | "mcq"
    question: str
    answer: str
    citations: tuple[int, ...]
    distractors: tuple[str, ...] = ()
    sources: tuple[Citation, ...] = ()
    ref: str = ""
    call_id: int | None = None
    checks: dict[str, tuple[bool, str]] = field(default_factory=dict)

    @property
    def options(self) -> tuple[str, ...]:
        """Key and distractors in a fixed shuffled order (the key's place is
        taken from a hash of the question, so it is stable across runs)."""
        if self.kind != "mcq":
            return ()
        spot = int(hashlib.sha256(self.question.encode("utf-8")).hexdigest(), 16) % (
            len(self.distractors) + 1
        )
        opts = list(self.distractors)
        opts.insert(spot, self.answer)
        return tuple(opts)

    @property
    def passed(self) -> bool:
        return all(ok for ok, _ in self.checks.values())

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "question": self.question,
            "answer": self.answer,
            "distractors": list(self.distractors),
            "options": list(self.options),
            "citations": list(self.citations),
            "sources": [c.to_json() for c in self.sources],
            "ref": self.ref,
            "call_id": self.call_id,
            "checks": {name: {"passed": ok, "detail": detail} for name, (ok, detail) in self.checks.items()},
        }


def parse_items(value: Mapping[str, Any]) -> tuple[list[StudyItem], list[str]]:
    """Items from a reply ``{"items": [...]}``, and a note for each entry that
    could not be read as an item (not an object, unknown type, no question).

    Missing or malformed fields inside an item (say, two distractors) are
    kept, so the checks can flag them for the reviewer instead of hiding them.
    """
    raw = value.get("items")
    if not isinstance(raw, list):
        raise SchemaError('"items" must be a list')
    items: list[StudyItem] = []
    dropped: list[str] = []
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            dropped.append(f"items[{i}] is not an object")
            continue
        kind = entry.get("type")
        question = entry.get("question")
        if kind not in KINDS:
            dropped.append(f"items[{i}].type is {kind!r}, not 'short' or 'mcq'")
            continue
        if not isinstance(question, str) or not question.strip():
            dropped.append(f"items[{i}] has no question")
            continue
        answer = entry.get("answer" if kind == "short" else "key")
        distractors = entry.get("distractors", []) if kind == "mcq" else []
        if not isinstance(distractors, list):
            distractors = []
        try:
            cites = citation_list(entry.get("citations", []), f"items[{i}].citations")
        except SchemaError as err:
            dropped.append(str(err))
            continue
        items.append(
            StudyItem(
                kind=kind,
                question=question.strip(),
                answer=answer.strip() if isinstance(answer, str) else "",
                citations=tuple(cites),
                distractors=tuple(d.strip() if isinstance(d, str) else "" for d in distractors),
                ref=f"item-{len(items) + 1}",
            )
        )
    return items, dropped


# ---------------------------------------------------------------- checks


def _norm(text: str) -> str:
    return " ".join(words(text))


def _check_citations(item: StudyItem, count: int) -> tuple[bool, str]:
    if not item.citations:
        return False, "cites no passage"
    kept, removed = checks.split_citations(item.citations, count)
    if removed:
        return False, f"cites {', '.join(f'[{n}]' for n in removed)}, outside passages 1-{count}"
    return True, f"cites {', '.join(f'[{n}]' for n in kept)}"


def _check_numbers(item: StudyItem, sources: list[str]) -> tuple[bool, str]:
    missing = checks.unsupported_numbers(f"{item.question}\n{item.answer}", sources)
    if missing:
        return False, f"not in the cited passages: {', '.join(missing)}"
    found = checks.numbers_in(f"{item.question}\n{item.answer}")
    return True, f"{len(found)} figure(s), all in the cited passages" if found else "no figures"


def _check_overlap(item: StudyItem, sources: list[str]) -> tuple[bool, str]:
    share = checks.groundedness(f"{item.question}\n{item.answer}", sources)
    return share >= MIN_OVERLAP, f"{share:.0%} of the item's content words are in the cited passages"


def _check_answerable(item: StudyItem, sources: list[str]) -> tuple[bool, str]:
    if not item.answer:
        return False, "the item has no answer" if item.kind == "short" else "the item has no key"
    if not sources:
        return False, "no valid cited passage to answer from"
    found, total = checks.word_support(item.answer, sources)
    q_found, _ = checks.word_support(item.question, sources)
    if total == 0:
        return False, "the answer has no content words to look for"
    share = found / total
    if share < MIN_ANSWER_SUPPORT:
        return False, f"only {share:.0%} of the answer's words are in the cited passages"
    if q_found == 0:
        return False, "the cited passages share no word with the question"
    return True, f"{share:.0%} of the answer's words are in the cited passages"


def _check_mcq(item: StudyItem) -> tuple[bool, str]:
    problems = []
    if not item.answer:
        problems.append("no key")
    if len(item.distractors) != 3:
        problems.append(f"{len(item.distractors)} distractors, not 3")
    if any(not d for d in item.distractors):
        problems.append("an empty distractor")
    options = [_norm(o) for o in (item.answer, *item.distractors) if o]
    if item.answer and _norm(item.answer) in [_norm(d) for d in item.distractors if d]:
        problems.append("a distractor repeats the key, so more than one option is correct")
    elif len(set(options)) != len(options):
        problems.append("two distractors are the same")
    key_figure = bool(checks.numbers_in(item.answer))
    key_len = max(1, len(words(item.answer)))
    for d in item.distractors:
        if not d:
            continue
        if key_figure and not checks.numbers_in(d):
            problems.append(f"distractor {d!r} is not a figure like the key")
        n = len(words(d))
        if n > 3 * key_len + 2 or 3 * n + 2 < key_len:
            problems.append(f"distractor {d!r} is far longer or shorter than the key")
    if problems:
        return False, "; ".join(problems)
    return True, "one key and three distinct distractors of the same form"


def _check_duplicates(item: StudyItem, others: Sequence[StudyItem]) -> tuple[bool, str]:
    for other in others:
        if other is item:
            continue
        q = checks.overlap(item.question, other.question, ignore=_ASKING)
        same_answer = bool(item.answer) and _norm(item.answer) == _norm(other.answer)
        if q >= DUPLICATE_OVERLAP or (same_answer and q >= SAME_ANSWER_OVERLAP):
            name = other.ref or repr(other.question[:40])
            why = (
                "same answer and similar question"
                if same_answer and q < DUPLICATE_OVERLAP
                else "same question"
            )
            return False, f"duplicates {name} ({why}, {q:.0%} word overlap)"
    return True, "no other item asks the same"


def check_item(
    item: StudyItem, hits: Sequence[Hit], others: Sequence[StudyItem]
) -> dict[str, tuple[bool, str]]:
    """The automatic checks of one item: name -> (passed, detail).

    Checks: ``citations_valid``, ``numbers_present``, ``word_overlap``,
    ``answerable``, ``no_duplicate`` and, for multiple-choice items only,
    ``mcq_form``. ``others`` are the other items of the set (the item itself
    may be among them; it is skipped).
    """
    texts = [h.passage.text for h in hits]
    kept, _ = checks.split_citations(item.citations, len(hits))
    sources = checks.cited_texts(kept, texts)
    result = {
        "citations_valid": _check_citations(item, len(hits)),
        "numbers_present": _check_numbers(item, sources),
        "word_overlap": _check_overlap(item, sources),
        "answerable": _check_answerable(item, sources),
    }
    if item.kind == "mcq":
        result["mcq_form"] = _check_mcq(item)
    result["no_duplicate"] = _check_duplicates(item, others)
    return result


# ---------------------------------------------------------------- generation


def generate_study_items(
    topic: str,
    hits: Sequence[Hit],
    *,
    config: ModelConfig,
    spend: SpendTracker,
    log: AiLog | None = None,
    completion: Callable[..., Any] | None = None,
    n_short: int = 3,
    n_mcq: int = 3,
    lens: Any = None,
    max_tokens: int = 1600,
) -> list[StudyItem]:
    """Have the model write items on ``topic`` from ``hits``, and check each.

    Raises ``ModelCallError`` (with a reason to show) when the call is refused
    by the cap, fails, or the reply is not JSON of the item shape; study items
    have no extractive stand-in. Entries that are not items at all are left
    out and counted in the log's detail.
    """
    if not hits:
        raise ModelCallError(
            "no_passages", f"no passages matched {topic!r}, so there is nothing to write items from"
        )
    messages = study_messages(topic, hits, n_short=n_short, n_mcq=n_mcq)
    chars = prompt_chars(messages)
    ids = [h.passage.id for h in hits]

    lens_kind = None if lens is None else str(getattr(lens, "kind", lens))

    def record(outcome: str, detail: str, result: CallResult | None) -> int | None:
        return log_call(log, "study", config, lens_kind, ids, topic, chars, outcome, detail, result)

    try:
        result = call_model(
            messages, config=config, spend=spend, completion=completion, max_tokens=max_tokens
        )
        items, dropped = _read_items(result, config)
    except ModelCallError as err:
        record(err.outcome, err.detail, err.result)
        raise

    checked = []
    for item in items:
        kept, _ = checks.split_citations(item.citations, len(hits))
        sources = tuple(Citation.of(n, hits[n - 1].passage) for n in kept)
        checked.append(replace(item, sources=sources, checks=check_item(item, hits, items)))
    detail = (
        f"{len(dropped)} entr{'y' if len(dropped) == 1 else 'ies'} dropped: {'; '.join(dropped)}"
        if dropped
        else ""
    )
    call_id = record("ok", detail, result)
    if call_id is not None and log is not None:
        for item in checked:
            item.call_id = call_id
        log.attach_items(call_id, {item.ref: {**item.to_json(), "topic": topic} for item in checked})
    return checked


def _read_items(result: CallResult, config: ModelConfig) -> tuple[list[StudyItem], list[str]]:
    """The items of a reply and why entries were dropped; ModelCallError when
    the reply is refused, not JSON, or holds no usable item."""
    if result.refusal or result.finish_reason == "content_filter" or not result.text.strip():
        raise ModelCallError("refused", f"the model {config.model} refused to write items", result=result)
    try:
        items, dropped = parse_items(parse_json_reply(result.text))
    except SchemaError as err:
        raise ModelCallError(
            "schema_error", f"the model's reply did not match the item format ({err})", result=result
        ) from None
    except ValueError as err:
        raise ModelCallError(
            "invalid_json", "the model's reply was not valid JSON", detail=str(err)[:300], result=result
        ) from None
    if not items:
        why = "; ".join(dropped) or "the list was empty"
        raise ModelCallError("schema_error", f"the model's reply held no usable item ({why})", result=result)
    return items, dropped


def study_from_topic(
    topic: str, retriever: Any, *, k: int = 8, mode: str = "hybrid", **kwargs: Any
) -> list[StudyItem]:
    """Retrieve ``k`` passages for ``topic`` with ``retriever.search`` and
    write items from them (keyword arguments go to ``generate_study_items``)."""
    hits = retriever.search(topic, mode=mode, k=k).hits
    return generate_study_items(topic, hits, **kwargs)
