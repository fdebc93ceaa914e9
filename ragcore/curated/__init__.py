"""The curated layer: what a person wrote at build time, shown as exactly that.

Pinned answers to common questions, plain-words notes on passages, and
hand-made links between passages across documents. Each is labelled
"curated" wherever it is shown, beside what is computed.
"""

from .answer import curated_answer, curated_path_for
from .layer import (
    Anchor,
    CuratedFileError,
    CuratedLayer,
    CuratedProblem,
    Link,
    Note,
    PinnedAnswer,
    load_curated,
    read_curated_file,
    resolve,
)
from .matching import MATCH_THRESHOLD, CuratedMatch, match_question
from .schema import FORMAT, CuratedFile

__all__ = [
    "FORMAT",
    "MATCH_THRESHOLD",
    "Anchor",
    "CuratedFile",
    "CuratedFileError",
    "CuratedLayer",
    "CuratedMatch",
    "CuratedProblem",
    "Link",
    "Note",
    "PinnedAnswer",
    "curated_answer",
    "curated_path_for",
    "load_curated",
    "match_question",
    "read_curated_file",
    "resolve",
]
