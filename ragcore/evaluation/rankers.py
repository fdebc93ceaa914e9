"""Rankers from the project's retrieval: one per retrieval mode of a
retriever, and a corpus folder loaded and indexed for a run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..records import Hit
from .metrics import DEPTH
from .run import JsonValue, Run
from .runner import DEFAULT_RANKERS, Progress, RankedItem, Ranker, Unit

if TYPE_CHECKING:
    from ..corpus import Corpus
    from ..retrieval import Retriever
    from ..store import Library


class Searcher(Protocol):
    """What a ranker needs of a retriever."""

    def search(self, question: str, mode: str | None = None, k: int = 10) -> list[Hit]: ...


@dataclass(frozen=True)
class BuiltIndex:
    """A corpus indexed for a run: its passages, a ranker per mode, and the
    details of the index the run records (``settings.index``)."""

    corpus: Corpus
    rankers: dict[str, Ranker]
    details: dict[str, JsonValue]


def retriever_rankers(
    retriever: Searcher,
    modes: Sequence[str] = DEFAULT_RANKERS,
    unit: Unit = "passage",
    depth: int | None = None,
) -> dict[str, Ranker]:
    """One ranker per retrieval mode of a ``ragcore.retrieval.Retriever``.

    A document-level evaluation asks for more passages (``depth``, default
    100) so that ten distinct documents remain after collapsing.
    """
    fetch = depth or (DEPTH if unit == "passage" else 100)

    def make(mode: str) -> Ranker:
        def rank(text: str) -> list[RankedItem]:
            hits = retriever.search(text, mode=mode, k=fetch).hits
            return [
                RankedItem(h.passage.id, h.passage.doc, h.passage.first_line, h.passage.last_line)
                for h in hits
            ]

        return rank

    return {mode: make(mode) for mode in modes}


def index_details(retriever: Retriever, modes: Sequence[str]) -> dict[str, JsonValue]:
    """What a run records of the index: its size, the embedding model and the fusion."""
    corpus = retriever.corpus
    details: dict[str, JsonValue] = {"documents": len(corpus.documents), "passages": len(corpus.passages)}
    if any(mode != "bm25" for mode in modes):
        details["embedding_model"] = getattr(retriever.embedder, "model_id", None)
    fusion = getattr(retriever, "fusion", None)
    if fusion is not None and any(mode not in ("bm25", "dense") for mode in modes):
        details["fusion"] = {"method": fusion.method, "k": fusion.k, "weights": dict(fusion.weights)}
    return details


def build_rankers(
    corpus_dir: Path | str,
    chunking: str,
    modes: Sequence[str],
    unit: Unit,
    progress: Progress | None = None,
    *,
    library: Library | None = None,
    make_retriever: Callable[[Corpus], Retriever] | None = None,
) -> tuple[Corpus, dict[str, Ranker], dict[str, JsonValue]]:
    """Load a corpus folder (documents, or a BEIR folder) under ``chunking``
    and index it; returns (corpus, rankers, details of the index for the run's
    settings). ``library`` caches documents and vectors (default: the user's
    library); ``make_retriever`` builds the retriever (default: a plain one)."""
    # Imported late: evaluating ranked lists needs no index.
    from ..corpus import default_library, load_corpus
    from ..retrieval import Retriever

    if progress:
        progress(f"loading {Path(corpus_dir).name} with {chunking} chunking")
    library = library or default_library()
    corpus = load_corpus(corpus_dir, chunking=chunking, library=library)
    if progress:
        progress(f"indexing {len(corpus.documents)} documents, {len(corpus.passages)} passages")
    # The library caches passage vectors by content, so a second run embeds nothing.
    retriever = make_retriever(corpus) if make_retriever else Retriever(corpus, vector_cache=library)
    if any(mode != "bm25" for mode in modes):
        _ensure_dense(retriever, progress)
    return corpus, retriever_rankers(retriever, modes, unit), index_details(retriever, modes)


def _ensure_dense(retriever: Retriever, progress: Progress | None) -> None:
    last = [-1]

    def embedding(done: int, total: int) -> None:
        if progress and (done - last[0] >= max(1, total // 20) or done == total):
            last[0] = done
            progress(f"embedding passages: {done} of {total}")

    embedded = retriever.ensure_dense(progress=embedding)
    if progress:
        progress(f"dense index ready ({embedded} passages embedded now, the others cached)")


def ranker_note(name: str, reranker_configured: bool) -> str | None:
    """Why a ranker's figures cannot differ from another's, when they cannot; a
    run records it (``rankers.NAME.note``) and the Evaluation page shows it."""
    if name == "widen":
        return (
            "equals dense in the top 10 by construction: BM25's additions to the pool score below every "
            "dense candidate; it exists to give a reranker a mixed pool"
        )
    if name == "rerank" and not reranker_configured:
        return "no cross-encoder is configured (RAGCORE_RERANKER_DIR), so rerank falls back to hybrid's order"
    return None


def with_ranker_notes(run: Run) -> Run:
    """``run`` with each ranker's note set (see ``ranker_note``)."""
    from ..config import settings

    configured = settings().reranker_dir is not None
    blocks = {
        name: replace(block, note=ranker_note(name, configured) or block.note)
        for name, block in run.rankers.items()
    }
    return replace(run, rankers=blocks)
