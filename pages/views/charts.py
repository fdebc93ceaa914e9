"""Altair charts of an evaluation run (``ragcore.evaluation.run``).

Every chart shows a mean with its 95% interval (rule) or the per-question
points behind it, so a difference is read together with its uncertainty.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from ragcore.evaluation.heldout import BASELINES, HeldOutStudy
from ragcore.evaluation.run import ChunkingRun, Comparison, Run
from ragcore.services.run_tables import by_type_rows, per_question_rows, summary_rows

PALETTE = ["#2f6690", "#d1495b", "#3a7d44", "#edae49", "#7b5ea7", "#00798c"]


def _color(rankers: list[str]) -> alt.Color:
    return alt.Color(
        "ranker:N", title="Ranker", scale=alt.Scale(domain=rankers, range=PALETTE[: len(rankers)])
    )


def _interval_layers(
    frame: pd.DataFrame, x: str, x_title: str, rankers: list[str], y_title: str
) -> alt.LayerChart:
    base = alt.Chart(frame).encode(
        x=alt.X(f"{x}:N", title=x_title, sort=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("ranker:N", sort=rankers),
        color=_color(rankers),
        tooltip=[
            alt.Tooltip("ranker:N"),
            alt.Tooltip(f"{x}:N", title=x_title),
            alt.Tooltip("mean:Q", format=".3f"),
            alt.Tooltip("ci_low:Q", title="95% low", format=".3f"),
            alt.Tooltip("ci_high:Q", title="95% high", format=".3f"),
            alt.Tooltip("n:Q", title="questions"),
        ],
    )
    rules = base.mark_rule(strokeWidth=2).encode(
        y=alt.Y("ci_low:Q", title=y_title, scale=alt.Scale(domain=[0, 1])), y2="ci_high:Q"
    )
    points = base.mark_point(filled=True, size=70).encode(y="mean:Q")
    return alt.layer(rules, points)


def metric_means(run: Run, metrics: list[str] | None = None) -> alt.LayerChart:
    """Mean and 95% interval of each metric, per ranker."""
    frame = pd.DataFrame(summary_rows(run))
    if metrics:
        frame = frame[frame["metric"].isin(metrics)]
    rankers = list(run.rankers)
    return _interval_layers(frame, "metric", "Metric", rankers, "Mean (95% interval)").properties(height=320)


def per_question(run: Run, metric: str = "ndcg@10") -> alt.LayerChart:
    """Every question's score per ranker (points), with the ranker's mean and interval."""
    rankers = list(run.rankers)
    points = pd.DataFrame(
        [
            {
                "question": row["question"],
                "type": row["type"],
                "ranker": row["ranker"],
                "value": row.get(metric),
            }
            for row in per_question_rows(run)
        ]
    )
    summary = pd.DataFrame([row for row in summary_rows(run) if row["metric"] == metric])
    x = alt.X("ranker:N", title="Ranker", sort=rankers, axis=alt.Axis(labelAngle=0))
    dots = (
        alt.Chart(points)
        .transform_calculate(jitter="(random() - 0.5) * 0.5")
        .mark_circle(size=28, opacity=0.45)
        .encode(
            x=x,
            xOffset=alt.XOffset("jitter:Q", scale=alt.Scale(domain=[-1, 1])),
            y=alt.Y("value:Q", title=f"{metric} per question", scale=alt.Scale(domain=[0, 1])),
            color=_color(rankers),
            tooltip=["question:N", "type:N", "ranker:N", alt.Tooltip("value:Q", format=".3f")],
        )
    )
    rule = (
        alt.Chart(summary).mark_rule(strokeWidth=3, color="#1f2933").encode(x=x, y="ci_low:Q", y2="ci_high:Q")
    )
    mean = (
        alt.Chart(summary)
        .mark_tick(thickness=3, size=36, color="#1f2933")
        .encode(
            x=x,
            y="mean:Q",
            tooltip=[
                alt.Tooltip("mean:Q", format=".3f"),
                alt.Tooltip("ci_low:Q", format=".3f"),
                alt.Tooltip("ci_high:Q", format=".3f"),
            ],
        )
    )
    return alt.layer(dots, rule, mean).properties(height=320)


def comparisons(rows: Sequence[Comparison]) -> alt.LayerChart:
    """Paired differences (a - b) with their 95% intervals; zero marked."""
    frame = pd.DataFrame([c.to_json() for c in rows])
    frame["pair"] = frame["a"] + " − " + frame["b"]
    if "ranker" in frame:  # chunking comparisons: one row per ranker and pair of chunkings
        frame["pair"] = frame["ranker"] + ": " + frame["pair"]
    # Labels in full (Vega-Lite cuts them at 180 px by default), and an axis that holds every interval.
    y = alt.Y("pair:N", title=None, sort=None, axis=alt.Axis(labelLimit=0))
    low, high = min(0.0, float(frame["ci_low"].min())), max(0.0, float(frame["ci_high"].max()))
    pad = 0.05 * max(high - low, 0.01)
    domain = [low - pad, high + pad]
    base = alt.Chart(frame).encode(
        y=y,
        tooltip=[
            "pair:N",
            alt.Tooltip("diff:Q", format="+.3f"),
            alt.Tooltip("ci_low:Q", format="+.3f"),
            alt.Tooltip("ci_high:Q", format="+.3f"),
            alt.Tooltip("d_z:Q", format=".2f"),
            alt.Tooltip("p:Q", format=".3f"),
            alt.Tooltip("p_holm:Q", title="p (Holm)", format=".3f"),
        ],
    )
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#8a94a3", strokeDash=[4, 3]).encode(x="x:Q")
    rules = base.mark_rule(strokeWidth=2, color="#2f6690").encode(
        x=alt.X("ci_low:Q", title="Difference (95% interval)", scale=alt.Scale(domain=domain, nice=False)),
        x2="ci_high:Q",
    )
    points = base.mark_point(filled=True, size=70, color="#2f6690").encode(
        x=alt.X("diff:Q", scale=alt.Scale(domain=domain, nice=False))
    )
    return alt.layer(zero, rules, points).properties(height=max(80, 34 * len(frame)))


def by_type(run: Run, metric: str = "ndcg@10") -> alt.LayerChart:
    """A metric's mean and interval per question type and ranker."""
    frame = pd.DataFrame(by_type_rows(run, metric))
    rankers = list(run.rankers)
    return _interval_layers(frame, "type", "Question type", rankers, f"{metric} (95% interval)").properties(
        height=300
    )


def chunkings(result: ChunkingRun) -> alt.LayerChart:
    """nDCG@10 per chunking and ranker, with intervals."""
    rows = [
        {"chunking": chunking, "ranker": ranker, **value.to_json()}
        for chunking, block in result.summary.items()
        for ranker, value in block.items()
    ]
    frame = pd.DataFrame(rows)
    rankers = list(dict.fromkeys(frame["ranker"])) if len(frame) else []
    return _interval_layers(frame, "chunking", "Chunking", rankers, "nDCG@10 (95% interval)").properties(
        height=300
    )


HELDOUT_RANKERS = ["bm25", "dense", "rrf k=60", "hybrid"]


def heldout_scores(study: HeldOutStudy) -> alt.Chart:
    """Held-out nDCG@10 per group: each single signal, plain RRF and the default."""
    frame = pd.DataFrame(
        [
            {"group": row.collection, "ranker": name, "ndcg@10": value, "questions": row.questions}
            for row in study.rows
            for name, value in zip(HELDOUT_RANKERS, (row.bm25, row.dense, row.rrf, row.hybrid), strict=True)
        ]
    )
    return (
        alt.Chart(frame)
        .mark_point(filled=True, size=80)
        .encode(
            y=alt.Y("group:N", title=None, sort=None, axis=alt.Axis(labelLimit=0)),
            yOffset=alt.YOffset("ranker:N", sort=HELDOUT_RANKERS),
            x=alt.X(
                "ndcg@10:Q",
                title="Held-out nDCG@10",
                scale=alt.Scale(domain=[0, 1]),
                axis=alt.Axis(values=[i / 10 for i in range(11)], format=".1f"),
            ),
            color=_color(HELDOUT_RANKERS),
            tooltip=["group:N", "ranker:N", alt.Tooltip("ndcg@10:Q", format=".3f"), "questions:Q"],
        )
        .properties(height=max(120, 42 * len(study.rows)))
    )


def heldout_differences(study: HeldOutStudy) -> alt.LayerChart:
    """The default minus each baseline per group, with paired 95% intervals; zero marked."""
    frame = pd.DataFrame(
        [
            {"group": row.collection, "baseline": name, **vars(row.minus[name])}
            for row in study.rows
            for name in BASELINES
        ]
    )
    low, high = min(0.0, float(frame["low"].min())), max(0.0, float(frame["high"].max()))
    domain = [low - 0.02, high + 0.02]
    base = alt.Chart(frame).encode(
        y=alt.Y("group:N", title=None, sort=None, axis=alt.Axis(labelLimit=0)),
        yOffset=alt.YOffset("baseline:N", sort=list(BASELINES)),
        color=alt.Color(
            "baseline:N", title="hybrid minus", scale=alt.Scale(domain=list(BASELINES), range=PALETTE[:3])
        ),
        tooltip=[
            "group:N",
            "baseline:N",
            alt.Tooltip("diff:Q", format="+.3f"),
            alt.Tooltip("low:Q", title="95% low", format="+.3f"),
            alt.Tooltip("high:Q", title="95% high", format="+.3f"),
            alt.Tooltip("p:Q", format=".4f"),
        ],
    )
    x_scale = alt.Scale(domain=domain, nice=False)
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="#8a94a3", strokeDash=[4, 3]).encode(x="x:Q")
    rules = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("low:Q", title="hybrid minus baseline, nDCG@10 (paired 95% interval)", scale=x_scale),
        x2="high:Q",
    )
    points = base.mark_point(filled=True, size=60).encode(x=alt.X("diff:Q", scale=x_scale))
    return alt.layer(zero, rules, points).properties(height=max(120, 42 * len(study.rows)))
