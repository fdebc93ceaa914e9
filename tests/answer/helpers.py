"""A toy corpus for answer tests: one passage per non-blank line, ranked in order."""

from __future__ import annotations

from ragcore.records import Document, Hit, Passage, StageTrace, sha256_hex


def line_corpus(docs: dict[str, str]) -> tuple[dict[str, Document], list[Hit]]:
    """Markdown documents by name, and a hit for every non-blank line of each."""
    documents = {n: Document(n, n, "md", t, sha256_hex(t)) for n, t in docs.items()}
    hits: list[Hit] = []
    for doc in documents.values():
        for number, line in enumerate(doc.lines, start=1):
            if not line.strip():
                continue
            start, end = doc.line_span(number, number)
            p = Passage(doc.name, len(hits), number, number, start, end, doc.name, doc.text[start:end], ())
            trace = {"bm25": StageTrace(len(hits) + 1, 1.0), "dense": None, "fused": None, "rerank": None}
            hits.append(Hit(p, len(hits) + 1, 1.0, trace))
    return documents, hits
