"""Reading a model's reply: the JSON shape, citation numbers, and the checks
that flag removed citations, unsupported figures and groundedness."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ragcore.answer import checks
from ragcore.answer.prompt import SYSTEM_ANSWER
from ragcore.records import AnswerSentence, Citation, Hit


class SchemaError(ValueError):
    """A JSON reply of the wrong shape; the message names the field."""


_FENCE = re.compile(r"^```[a-zA-Z]*\s*(.*?)\s*```$", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def parse_json_reply(text: str) -> dict:
    """The JSON object in a reply; a ```json fence, prose around it and trailing
    commas are tolerated.
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
        candidate = text[start : end + 1]
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            # Small local models often leave a comma before a closing bracket.
            value = json.loads(_TRAILING_COMMA.sub(r"\1", candidate))
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
    raw: Sequence[tuple[str, list[int]]],
    covered: bool,
    hits: Sequence[Hit],
    system_prompt: str = SYSTEM_ANSWER,
) -> tuple[list[AnswerSentence], list[Citation], dict]:
    """Sentences (defanged) with invalid citations removed, the citations
    used, and the checks: removed citations, unsupported figures, figures
    only instruction-like passages state, and an echo of ``system_prompt``."""
    texts = [h.passage.text for h in hits]
    # Passages with instruction-like text are data; a figure only they state
    # may have been planted for the model to repeat.
    plain = [t if not checks.contains_instructions(t) else "" for t in texts]
    sentences: list[AnswerSentence] = []
    flags: list[dict] = []
    removed_all: list[int] = []
    numbers_all: list[str] = []
    instructed_all: list[str] = []
    found_sum = total_sum = 0
    for i, (text, cites) in enumerate(raw or [(NOT_COVERED, [])]):
        clean, inline = checks.strip_markers(checks.defang(text))
        kept, removed = checks.split_citations([*cites, *inline], len(hits))
        sources = checks.cited_texts(kept, texts)
        numbers = checks.unsupported_numbers(clean, sources)
        instructed = [
            n for n in checks.unsupported_numbers(clean, checks.cited_texts(kept, plain)) if n not in numbers
        ]
        found, total = checks.word_support(clean, sources)
        found_sum, total_sum = found_sum + found, total_sum + total
        sentences.append(AnswerSentence(clean, tuple(kept)))
        removed_all += [n for n in removed if n not in removed_all]
        numbers_all += [n for n in numbers if n not in numbers_all]
        instructed_all += [n for n in instructed if n not in instructed_all]
        flags.append(
            {
                "sentence": i,
                "removed_citations": removed,
                "unsupported_numbers": numbers,
                "numbers_from_instructions": instructed,
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
        "numbers_from_instructions": instructed_all,
        "instruction_passages": [n for n, t in enumerate(texts, start=1) if not plain[n - 1] and t],
        "echoes_system_prompt": checks.echoes_prompt(" ".join(t for t, _ in raw), system_prompt),
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
