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

import re
from collections.abc import Iterable, Sequence

from ragcore.text import content_words, normalise

# A figure: an optional currency sign, then either digits with thousands
# commas in groups of three ("1,299") or plain digits, then optional decimals.
# "1,2,3" is three numbers, not 123, because its groups are not of three.
_NUMBER = re.compile(r"[$€£¥]?\s?(?<![\d.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?")

# Inline citation markers a model may leave in its text: [1], [1, 2], [1][3].
_MARKER = re.compile(r"\s*\[(\d+(?:\s*[,;]\s*\d+)*)\]")


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


def strip_markers(text: str) -> tuple[str, list[int]]:
    """Remove inline [n] markers; return the clean text and the numbers found."""
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
