"""A pinned answer as the ``Answer`` the pages and ``ask --json`` show."""

from __future__ import annotations

from pathlib import Path

from ..records import Answer, AnswerSentence
from .matching import CuratedMatch


def curated_answer(match: CuratedMatch) -> Answer:
    """``mode`` "curated": a person's answer, its citations resolved to lines."""
    pinned = match.answer
    citations = [a.citation(n) for n, a in enumerate(pinned.cites, start=1)]
    markers = "".join(f"[{c.n}]" for c in citations)
    return Answer(
        mode="curated",
        header="Curated answer: written by a person for a common question",
        text=f"{pinned.answer} {markers}",
        reason=(
            f"your question is close to the curated question {pinned.question!r} "
            f"(similarity {match.similarity:.2f}); retrieved passages follow"
        ),
        citations=citations,
        sentences=[AnswerSentence(pinned.answer, tuple(c.n for c in citations))],
        checks={"curated_id": pinned.id, "similarity": round(match.similarity, 4)},
    )


def curated_path_for(folder: Path | str) -> Path:
    """Where a corpus folder's curated file lives: beside it, as ``<folder>.curated.json``
    (the folder itself holds documents only)."""
    folder = Path(folder)
    return folder.parent / f"{folder.name}.curated.json"
