"""The curated file's shape, validated with pydantic.

A curated file is written by a person at build time (see ``docs/curated-format.md``).
Passages are named by a verbatim quote, as in a gold set, so an entry
survives re-chunking; the quote is resolved to lines when the file is loaded.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

FORMAT = "ragcore-curated/1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class QuoteRef(_Strict):
    """A passage named by a document and a verbatim quote from it."""

    doc: str = Field(min_length=1)
    quote: str = Field(min_length=8)

    @field_validator("quote")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("quote is blank")
        return value


class PinnedAnswerEntry(_Strict):
    id: str = Field(min_length=1)
    question: str = Field(min_length=3)
    answer: str = Field(min_length=1)
    cites: tuple[QuoteRef, ...] = Field(min_length=1)


class NoteEntry(_Strict):
    id: str = Field(min_length=1)
    cite: QuoteRef
    note: str = Field(min_length=1)


class LinkEntry(_Strict):
    id: str = Field(min_length=1)
    source: QuoteRef = Field(alias="from")
    target: QuoteRef = Field(alias="to")
    reason: str = Field(min_length=1)


class CuratedFile(_Strict):
    format: str
    corpus: str = ""
    answers: tuple[PinnedAnswerEntry, ...] = ()
    notes: tuple[NoteEntry, ...] = ()
    links: tuple[LinkEntry, ...] = ()

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        if value != FORMAT:
            raise ValueError(f"format must be {FORMAT!r}")
        return value

    def ids(self) -> list[str]:
        return [e.id for e in (*self.answers, *self.notes, *self.links)]
