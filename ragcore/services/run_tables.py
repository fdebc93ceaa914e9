"""A run as flat rows, for tables, charts and CSV downloads."""

from __future__ import annotations

from ..evaluation.run import MetricSummary, Run

Row = dict[str, str | int | float | None]


def _interval_row(value: MetricSummary) -> Row:
    return {"mean": value.mean, "ci_low": value.ci_low, "ci_high": value.ci_high, "n": value.n}


def per_question_rows(run: Run, texts: dict[str, str] | None = None) -> list[Row]:
    """The run's per-question metrics as flat rows (one per question and ranker),
    for a table or a CSV download; with ``texts`` (id -> question) each row
    also carries the question's text."""
    rows: list[Row] = []
    for qid, result in run.per_question.items():
        for ranker, values in result.metrics.items():
            row: Row = {"question": qid}
            if texts is not None:
                row["text"] = texts.get(qid, "")
            rows.append({**row, "type": result.type, "ranker": ranker, **values})
    return rows


def summary_rows(run: Run) -> list[Row]:
    """One row per ranker and metric: mean and 95% interval."""
    return [
        {"ranker": ranker, "metric": metric, **_interval_row(value)}
        for ranker, block in run.rankers.items()
        for metric, value in block.metrics.items()
    ]


def by_type_rows(run: Run, metric: str) -> list[Row]:
    """One row per ranker and question type: ``metric``'s mean and interval."""
    return [
        {"ranker": ranker, "type": qtype, **_interval_row(metrics[metric])}
        for ranker, block in run.rankers.items()
        for qtype, metrics in block.by_type.items()
        if metric in metrics
    ]
