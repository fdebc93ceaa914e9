"""A run's JSON as flat rows, for tables, charts and CSV downloads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def per_question_rows(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The run's per-question metrics as flat rows (one per question and ranker),
    for a table or a CSV download."""
    rows = []
    for qid, block in run.get("per_question", {}).items():
        for ranker, values in block.get("metrics", {}).items():
            rows.append({"question": qid, "type": block.get("type", ""), "ranker": ranker, **values})
    return rows


def summary_rows(run: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per ranker and metric: mean and 95% interval."""
    rows = []
    for ranker, block in run.get("rankers", {}).items():
        for metric, value in block.get("metrics", {}).items():
            rows.append(
                {
                    "ranker": ranker,
                    "metric": metric,
                    "mean": value.get("mean"),
                    "ci_low": value.get("ci_low"),
                    "ci_high": value.get("ci_high"),
                    "n": value.get("n"),
                }
            )
    return rows


def by_type_rows(run: Mapping[str, Any], metric: str) -> list[dict[str, Any]]:
    rows = []
    for ranker, block in run.get("rankers", {}).items():
        for qtype, metrics in block.get("by_type", {}).items():
            value = metrics.get(metric)
            if value is None:
                continue
            rows.append(
                {
                    "ranker": ranker,
                    "type": qtype,
                    "mean": value.get("mean"),
                    "ci_low": value.get("ci_low"),
                    "ci_high": value.get("ci_high"),
                    "n": value.get("n"),
                }
            )
    return rows
