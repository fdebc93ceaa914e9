"""Pure checks that hold a model's text to its passages.

Shared by model answers (``ragcore.answer.llm``) and study items
(``ragcore.answer.study``). None of these calls a model: they compare strings.

- Citation validity: a citation [n] must name one of the passages sent.
- Numbers: every figure in the text must occur in the cited passages, after
  normalising the way people write figures ("1,299" = "1299.00", "$999" = "999").
  This is the "unsupported number" check used in attribution work such as
  Rashkin et al., "Measuring Attribution in Natural Language Generation Models"
  (AIS, 2023): a figure the sources do not state is not attributable.
- Groundedness: the share of the text's content words (stemmed, stop words
  out, as ``ragcore.text.content_words``) that occur in the cited passages,
  a lexical stand-in for the token-overlap groundedness scores of RAG
  evaluation suites (e.g. Es et al., "RAGAS", 2023, faithfulness).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from ragcore.text import content_words, normalise

# A figure: an optional currency sign, then either digits with thousands
# commas in groups of three ("1,299") or plain digits, then optional decimals.
# "1,2,3" is three numbers, not 123, because its groups are not of three.
_NUMBER = re.compile(r"[$€£¥]?\s?(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")

# Inline citation markers a model may leave in its text: [1], [1, 2], [1][3],
# also written with inner spaces ("[ 99 ]"), CJK or full-width brackets
# ("【99】", "［99］", "〔99〕") or full-width digits; normalised to [n] first.
_MARKER = re.compile(r"\s*\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_ANY_MARKER = re.compile(
    r"[\[\u3010\uFF3B\u3014\u3016]\s*(\d+(?:\s*[,;\u3001\uFF0C\uFF1B]\s*\d+)*)\s*[\]\u3011\uFF3D\u3015\u3017]"
)


def normalise_number(whole: str, fraction: str = "") -> str:
    """Canonical form of a figure: no thousands commas, no leading zeros, no
    trailing decimal zeros ("1,299.00" -> "1299", "0.50" -> "0.5")."""
    digits = whole.replace(",", "").lstrip("0") or "0"
    frac = fraction.lstrip(".").rstrip("0")
    return f"{digits}.{frac}" if frac else digits


def numbers_in(text: str) -> dict[str, str]:
    """Figures in ``text``: canonical form -> first surface form seen.

    Currency signs and percent signs are dropped for matching, so "$999" in an
    answer matches "999" in a passage; the surface form is kept for display.
    """
    found: dict[str, str] = {}
    for m in _NUMBER.finditer(normalise(text)):
        key = normalise_number(m.group(1), m.group(2) or "")
        found.setdefault(key, m.group(0).strip())
    return found


def unsupported_numbers(text: str, sources: Iterable[str]) -> list[str]:
    """Surface forms of the figures in ``text`` that no source states."""
    available: set[str] = set()
    for source in sources:
        available.update(numbers_in(source))
    return [surface for key, surface in numbers_in(text).items() if key not in available]


def normalise_markers(text: str) -> str:
    """Citation markers in any of the bracket and digit forms as plain [n, m]."""
    return _ANY_MARKER.sub(
        lambda m: "[" + ", ".join(str(int(n)) for n in re.split(r"\D+", m.group(1)) if n) + "]", text
    )


def strip_markers(text: str) -> tuple[str, list[int]]:
    """Remove inline [n] markers (any bracket form); return the clean text and
    the numbers found."""
    text = normalise_markers(text)
    cited: list[int] = []
    for m in _MARKER.finditer(text):
        cited.extend(int(n) for n in re.split(r"\s*[,;]\s*", m.group(1)))
    return _MARKER.sub("", text).strip(), cited


def split_citations(cited: Iterable[int], passage_count: int) -> tuple[list[int], list[int]]:
    """(kept, removed): citations that name a passage 1..passage_count, and the
    rest. Duplicates are dropped; order of first appearance is kept."""
    kept: list[int] = []
    removed: list[int] = []
    for n in cited:
        target = kept if 1 <= n <= passage_count else removed
        if n not in target:
            target.append(n)
    return kept, removed


def _support_words(text: str) -> set[str]:
    # Content words with figures in canonical form, so "$999" meets "999".
    out = set()
    for word in content_words(text):
        m = _NUMBER.fullmatch(word.replace("%", ""))
        out.add(normalise_number(m.group(1), m.group(2) or "") if m else word)
    return out


def word_support(text: str, sources: Iterable[str]) -> tuple[int, int]:
    """(found, total): content words of ``text`` that occur in any source, and
    all content words of ``text`` (each word counted once)."""
    words = _support_words(text)
    if not words:
        return 0, 0
    available: set[str] = set()
    for source in sources:
        available |= _support_words(source)
    return len(words & available), len(words)


def groundedness(text: str, sources: Iterable[str]) -> float:
    """Share of the content words of ``text`` found in ``sources``, 0..1.

    A text with no content words scores 0.0: there is nothing to ground.
    """
    found, total = word_support(text, sources)
    return found / total if total else 0.0


def overlap(a: str, b: str, ignore: frozenset[str] = frozenset()) -> float:
    """Jaccard overlap of the content words of two texts, 0..1 (for duplicates);
    stemmed words in ``ignore`` do not count."""
    wa, wb = _support_words(a) - ignore, _support_words(b) - ignore
    if not wa or not wb:
        return 1.0 if normalise(a).strip() == normalise(b).strip() else 0.0
    return len(wa & wb) / len(wa | wb)


def cited_texts(citations: Iterable[int], passages: Sequence[str]) -> list[str]:
    """Texts of the cited passages (1-based numbers; invalid ones skipped)."""
    return [passages[n - 1] for n in citations if 1 <= n <= len(passages)]


# ------------------------------------------------------- model output as data

# Instruction-like text inside a passage: the phrasing of indirect prompt
# injection (Greshake et al., 2023) and chat-template role tags. A passage
# that has it is shown as "contains instructions: treated as data".
_INSTRUCTION_LIKE = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*"
    r"(?:previous|prior|above|earlier|preceding|system|original)\b"
    r"|\bsystem\s+prompt\b|\bnew\s+instructions?\b|\byou\s+are\s+now\b"
    r"|<\|?(?:im_start|im_end|system|assistant|user|endoftext)\|?>|\[/?(?:INST|SYS)\]|<</?SYS>>"
    r"|^\s*(?:#{1,6}\s*)?(?:system|assistant)\s*:",
    re.IGNORECASE | re.MULTILINE,
)
INSTRUCTIONS_NOTE = "contains instructions: treated as data"


def contains_instructions(text: str) -> bool:
    """Whether ``text`` holds instruction-like wording aimed at a model."""
    return _INSTRUCTION_LIKE.search(text) is not None


_WORD = re.compile(r"\w+")
ECHO_WORDS = 8  # a run of this many words of the system prompt is an echo, not a coincidence


def echoes_prompt(text: str, prompt: str, n: int = ECHO_WORDS) -> bool:
    """Whether ``text`` repeats ``n`` consecutive words of ``prompt``."""
    words = _WORD.findall(text.lower())
    if len(words) < n:
        return False
    prompt_words = _WORD.findall(prompt.lower())
    grams = {tuple(prompt_words[i : i + n]) for i in range(len(prompt_words) - n + 1)}
    return any(tuple(words[i : i + n]) in grams for i in range(len(words) - n + 1))


# Active Markdown and HTML in model text: images (which load a remote URL by
# themselves), links to script or data URLs, and raw HTML tags.
_TARGET = r"(?:[^()\n]|\([^()\n]*\))*"  # a link target, one level of parentheses inside
_IMAGE = re.compile(rf"!\[([^\]\n]*)\]\s*(?:\({_TARGET}\)|\[[^\]\n]*\])")
_UNSAFE_LINK = re.compile(
    rf"\[([^\]\n]*)\]\(\s*<?\s*(?:javascript|vbscript|data|file)\s*:{_TARGET}\)", re.IGNORECASE
)
_HTML = re.compile(r"<!--.*?-->|</?[A-Za-z][^<>]*>", re.DOTALL)
_UNSAFE_SCHEME = re.compile(r"\b(javascript|vbscript)\s*:", re.IGNORECASE)


def defang(text: str) -> str:
    """Model text with images reduced to their alt text, script and data links
    to their text, HTML tags removed and script URL schemes broken."""
    text = _IMAGE.sub(lambda m: f"(image removed: {m.group(1)})" if m.group(1) else "(image removed)", text)
    text = _UNSAFE_LINK.sub(r"\1", text)
    text = _HTML.sub("", text)
    return _UNSAFE_SCHEME.sub(lambda m: f"{m.group(1)} (link removed):", text)


_MD_ACTIVE = re.compile(r"([\\`*_\[\]<>!|#])")


def markdown_text(text: str) -> str:
    """``text`` defanged and with Markdown's active characters escaped, so it
    renders as the words it is: no image, link, HTML or emphasis can form."""
    return _MD_ACTIVE.sub(r"\\\1", defang(text)).replace("\n", "  \n")


# ------------------------------------------------------------ configured keys

_SECRET_NAME = re.compile(r"(?:_API_KEY|_KEY|_TOKEN|_SECRET)$")
REDACTED = "[redacted]"


def configured_secrets(extra: Iterable[str | None] = ()) -> list[str]:
    """Keys this process is configured with (provider keys and other
    ``*_KEY``/``*_TOKEN``/``*_SECRET`` variables of 8+ characters), longest
    first, so a reply that quotes one can have it masked."""
    found = {v for k, v in os.environ.items() if _SECRET_NAME.search(k) and len(v) >= 8}
    found |= {v for v in extra if v and len(v) >= 8}
    return sorted(found, key=len, reverse=True)


def redact_secrets(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every given secret masked."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def redact_stream(text: str, secrets: Sequence[str]) -> str:
    """Text streamed so far, masked, with a tail that could be the start of a
    secret held back until the next chunk shows whether it is one."""
    text = redact_secrets(text, secrets)
    for secret in secrets:
        for k in range(min(len(secret) - 1, len(text)), 3, -1):
            if text.endswith(secret[:k]):
                return text[:-k]
    return text
