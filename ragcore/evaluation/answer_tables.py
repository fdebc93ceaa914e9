"""Rows the Evaluation page shows for a stored answer run (no streamlit here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .answers import EMPTY, strip_citations

METRICS = (
    ("fact_recall", "fact recall"),
    ("complete", "complete answers"),
    ("abstention", "abstention (unanswerable)"),
    ("wrongly_declined", "wrongly declined (answerable)"),
    ("citation_support", "citation support"),
    ("evidence_precision", "evidence precision"),
    ("contradictions_found", "contradictions found"),
    ("words", "words"),
)


def summary_rows(block: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per answer metric: mean, interval, n (and the counts)."""
    rows = [
        {
            "metric": label,
            "mean": metric(block, key)["mean"],
            "ci_low": metric(block, key)["ci_low"],
            "ci_high": metric(block, key)["ci_high"],
            "n": metric(block, key)["n"],
        }
        for key, label in METRICS
    ]
    rows.append({"metric": "median words", "mean": block["words"].get("median"), "n": block["words"]["n"]})
    rows.append({"metric": "false contradictions", "mean": block["false_contradictions"]})
    rows.append({"metric": "duplicate sentences", "mean": block["duplicate_sentences"]})
    if "off_evidence_sentences" in block:
        rows.append({"metric": "sentences off evidence", "mean": block["off_evidence_sentences"]})
    return rows


# Rows whose figure is a count (or a word count), shown whole.
_WHOLE_ROWS = frozenset(
    {"median words", "false contradictions", "duplicate sentences", "sentences off evidence"}
)


def shown_rows(block: Mapping[str, Any]) -> list[dict[str, str]]:
    """``summary_rows`` as the page shows them: shares to three places, words
    to one, counts whole, nothing where a row has no figure."""

    def cell(value: float | None, places: int) -> str:
        if value is None:
            return ""
        return f"{value:.{places}f}" if places else str(round(value))

    out = []
    for row in summary_rows(block):
        places = 0 if row["metric"] in _WHOLE_ROWS else 1 if row["metric"] == "words" else 3
        shown = {"metric": row["metric"]}
        shown |= {k: cell(row.get(k), places) for k in ("mean", "ci_low", "ci_high")}
        shown["n"] = cell(row.get("n"), 0)
        out.append(shown)
    return out


def metric(block: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """One metric's block; empty for a metric a run stored before it existed (evidence precision)."""
    return block.get(key, EMPTY)


def question_rows(block: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per question: its type, recall, completeness, and whether it declined."""
    return [
        {
            "id": q["id"],
            "type": q["type"],
            "question": q["question"],
            "fact recall": q["fact_recall"],
            "complete": q["complete"],
            "declined": q["abstained"],
            "on evidence": q.get("evidence_precision"),
            "words": q["words"],
        }
        for q in block["per_question"]
    ]


def fact_marks(question: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """Each required fact (its alternatives joined by " / ") and whether it is stated."""
    return [
        (" / ".join(alternatives), stated is not None)
        for alternatives, stated in zip(question["facts_required"], question["facts_stated"], strict=True)
    ]


def answer_text(question: Mapping[str, Any]) -> str:
    """The answer as the metric read it (citation marks removed)."""
    return strip_citations(question["answer"])
