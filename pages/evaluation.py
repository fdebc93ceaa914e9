"""Evaluation: stored or fresh runs of the rankers on a gold set, with
intervals, paired comparisons and a per-question drill-down."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from pages.views import charts, geneval, heldout, ui
from pages.views.answers import show_answers
from ragcore import errors
from ragcore.evaluation.run import ChunkingRun, Comparison, MetricSummary, RankedEntry, Run
from ragcore.services.evaluation import question_texts
from ragcore.services.run_progress import RunProgress
from ragcore.services.run_tables import per_question_rows

RANKERS = ["bm25", "dense", "hybrid", "widen", "rerank"]
METRIC_HELP = (
    "nDCG@10 rewards relevant passages near the top (graded); MRR@10 is 1/rank of the first relevant one; "
    "Recall@k is the share of relevant passages in the top k; Success@k is whether any relevant one is in the top k."
)

ui.require_frame()  # a first run may start here without app.py
ws = ui.workspace()
coll = ui.collection()
ui.style()

st.title("Evaluation")
st.caption("How well each ranker finds the passages a gold set marks as relevant, with 95% intervals.")

source = st.segmented_control(
    "Run",
    ["Stored run", "Held out", "Run now", "My gold set", "Generation"],
    default="Stored run",
    key="eval-source",
    label_visibility="collapsed",
)


def _progress_reporter(rankers: list[str], rounds: int = 1):
    """A progress bar fed by the runner's messages; ``rounds`` counts the
    chunkings scored one after the other."""
    bar = st.progress(0.0, text="Starting…")
    progress = RunProgress(rankers, rounds)

    def report(message: str) -> None:
        bar.progress(progress.update(message), text=message)

    return bar, report


run = None
if source == "Stored run":
    stored = ws.evaluation.stored_runs()
    if not stored:
        st.info(
            "No stored runs yet (eval/results/*.json). Make one with "
            "`python -m ragcore eval --gold FILE --out eval/results/NAME.json`, or use Run now."
        )
    else:
        titles = {r.title: r for r in stored}
        pick = st.selectbox(
            "Stored run", list(titles), index=ws.evaluation.preferred_run(stored, coll), key="eval-stored"
        )
        run = ws.evaluation.load_run(titles[pick].path)
elif source == "Held out":  # the default ranker on groups it was not tuned on (pages/views/heldout.py)
    try:
        heldout.show(ws.evaluation.heldout())
    except errors.RagcoreError as exc:
        st.error(ui.md(exc))
elif source == "Run now":
    golds = ws.evaluation.gold_sets()
    if not golds:
        st.info("No gold set ships with this copy (eval/*.json). Upload one under My gold set.")
    else:
        with st.form("eval-run"):
            gold = st.selectbox("Gold set", golds, format_func=lambda p: p.name, key="eval-run-gold")
            cols = st.columns(2)
            rankers = cols[0].multiselect(
                "Rankers", RANKERS, default=["bm25", "dense", "hybrid"], key="eval-run-rankers"
            )
            chunking = cols[1].selectbox(
                "Chunking",
                ["auto", "heading", "sentence", "whole", "compare"],
                format_func=lambda c: "compare heading, sentence and whole" if c == "compare" else c,
                key="eval-run-chunking",
            )
            go = st.form_submit_button("Run evaluation", type="primary")
        if go:
            bar, report = _progress_reporter(rankers, 3 if chunking == "compare" else 1)
            try:
                st.session_state["eval-fresh"] = ws.evaluation.evaluate_stored_goldset(
                    gold, rankers, chunking, progress=report
                )
                bar.progress(1.0, text="Done")
            except (errors.RagcoreError, ValueError) as exc:
                bar.empty()
                st.error(ui.md(exc))
        run = st.session_state.get("eval-fresh")
elif source == "Generation":  # what a model writes, rated blind (pages/views/geneval.py)
    geneval.show(ws.generation, ui.session_id(), coll)
else:
    st.caption(
        f"Upload a gold-set JSON (see docs/goldset-format.md); it is scored against the loaded collection "
        f"(**{ui.md(coll)}**), whose documents its judgements must name; its corpus may be left out."
    )
    with st.form("eval-upload"):
        upload = st.file_uploader("Gold set (JSON)", type=["json"])
        rankers = st.multiselect(
            "Rankers", RANKERS, default=["bm25", "dense", "hybrid"], key="eval-up-rankers"
        )
        go = st.form_submit_button("Evaluate", type="primary")
    if go and upload is None:
        st.warning("Choose a gold-set file first.")
    elif go:
        bar, report = _progress_reporter(rankers)
        try:
            st.session_state["eval-mine"] = ws.evaluation.evaluate_goldset(
                upload.getvalue(), coll, rankers, name=upload.name, progress=report
            )
            bar.progress(1.0, text="Done")
        except (errors.RagcoreError, ValueError, json.JSONDecodeError) as exc:
            bar.empty()
            message = str(exc)
            st.error(ui.md(message if upload.name in message else f"{upload.name}: {message}"))
    run = st.session_state.get("eval-mine")

if run is None:
    st.stop()


# ------------------------------------------------------------------ display


def fmt_interval(value: MetricSummary) -> str:
    return f"{value.mean:.3f} [{value.ci_low:.3f}, {value.ci_high:.3f}]"


def run_caption(run: Run) -> str:
    settings, q = run.settings, run.questions
    bits = [
        f"{q.scored} questions scored" + (f", {q.dropped} without a relevant judgement" if q.dropped else ""),
        f"unit: {settings.unit or 'passage'}",
    ]
    if settings.chunking:
        bits.append(f"chunking: {settings.chunking}")
    if settings.resamples:
        bits.append(f"{settings.resamples:,} bootstrap resamples, seed {settings.seed}")
    return " · ".join(bits)


def show_summary(run: Run) -> None:
    st.subheader("Summary")
    st.caption("Mean and 95% interval per ranker. " + METRIC_HELP)
    # Metrics as rows and rankers as columns: a handful of rankers fit the page's width at 1,400 px,
    # where nine metric columns of "0.694 [0.635, 0.750]" did not.
    table = pd.DataFrame(
        {
            ranker: {metric: fmt_interval(block.metrics[metric]) for metric in run.metric_names}
            for ranker, block in run.rankers.items()
        }
    )
    table.index.name = "metric"
    st.dataframe(table, width="stretch")
    for ranker, block in run.rankers.items():
        if block.note:
            st.caption(ui.md(f"{ranker}: {block.note}"))


def _number(value: float | None, spec: str) -> str:
    """A figure, or a dash where the test has none (d_z is undefined for McNemar's test)."""
    return "—" if value is None else format(value, spec)


def comparison_row(c: Comparison) -> dict[str, object]:
    return {
        "Comparison": f"{c.a} − {c.b}",
        "Difference": c.diff,
        "95% interval": f"[{c.ci_low:+.3f}, {c.ci_high:+.3f}]",
        "d_z": _number(c.d_z, ".2f"),
        "p": _number(c.p, ".4f"),
        "p (Holm)": _number(c.p_holm, ".4f"),
        "Family": c.family or "",
        "Test": c.test or "",
    }


def show_comparisons(run: Run, key: str) -> None:
    if not run.comparisons:
        st.caption("One ranker only: nothing to compare.")
        return
    metric = st.selectbox("Metric", run.metric_names, key=f"{key}-cmp-metric")
    chosen = [c for c in run.comparisons if c.metric == metric]
    st.altair_chart(charts.comparisons(chosen), width="stretch")
    st.dataframe(
        pd.DataFrame([comparison_row(c) for c in chosen]),
        hide_index=True,
        width="stretch",
        column_config={
            "Difference": st.column_config.NumberColumn(format="%+.3f"),
        },
    )
    st.caption(
        "Paired on the same questions. d_z is the mean difference over its standard deviation; "
        "Holm's adjustment runs over the primary family (the default ranker against each other on nDCG@10) "
        "and separately over the rest."
    )


def top_table(entries: tuple[RankedEntry, ...]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "#": i + 1,
                "Document": e.doc,
                "Lines": ui.span_text(e.first_line, e.last_line) if e.first_line else "",
                "Grade": "—" if e.grade is None else str(e.grade),
            }
            for i, e in enumerate(entries)
        ]
    )


def show_question(run: Run, key: str) -> None:
    texts = question_texts(run.settings)
    qid = st.selectbox(
        "Question",
        list(run.per_question),
        format_func=lambda q: f"{q}: {texts[q]}" if q in texts else q,
        key=f"{key}-drill",
    )
    result = run.per_question[qid]
    st.caption(f"Type: {ui.md(result.type)} · grades from the gold set; — is not judged relevant")
    tops = list(result.top10.items())
    for start in range(0, len(tops), 2):
        cols = st.columns(2)
        for col, (ranker, entries) in zip(cols, tops[start : start + 2], strict=False):
            with col:
                score = result.metrics[ranker].get("ndcg@10")
                st.markdown(f"**{ui.md(ranker)}** · nDCG@10 {score:.3f}")
                st.dataframe(top_table(entries), hide_index=True, width="stretch")


def show_downloads(run: Run, key: str) -> None:
    name = run.settings.label
    frame = pd.DataFrame(per_question_rows(run, question_texts(run.settings)))
    cols = st.columns(2)
    cols[0].download_button(
        "Per-question results (CSV)",
        frame.to_csv(index=False).encode("utf-8"),
        file_name=f"{name}-per-question.csv",
        mime="text/csv",
        key=f"{key}-csv",
        icon=":material/download:",
    )
    cols[1].download_button(
        "Run (JSON)",
        json.dumps(run.to_json(), indent=1).encode("utf-8"),
        file_name=f"{name}.json",
        mime="application/json",
        key=f"{key}-json",
        icon=":material/download:",
    )


def show_run(run: Run, key: str) -> None:
    st.caption(ui.md(run_caption(run)))
    show_summary(run)
    metrics = run.metric_names
    tabs = st.tabs(["Metrics", "Per question", "Comparisons", "By question type", "Drill into a question"])
    with tabs[0]:
        st.altair_chart(charts.metric_means(run), width="stretch")
    with tabs[1]:
        metric = st.selectbox("Metric", metrics, key=f"{key}-pq-metric")
        st.altair_chart(charts.per_question(run, metric), width="stretch")
        st.caption("Each dot is one question; the black tick and bar are the mean and its 95% interval.")
    with tabs[2]:
        show_comparisons(run, key)
    with tabs[3]:
        metric = st.selectbox("Metric", metrics, key=f"{key}-type-metric")
        st.altair_chart(charts.by_type(run, metric), width="stretch")
        st.caption(ui.md(", ".join(f"{t}: {n} questions" for t, n in run.questions.by_type.items())))
    with tabs[4]:
        show_question(run, key)
    show_downloads(run, key)


CHUNKING_COLUMNS = ["ranker", "a", "b", "diff", "ci_low", "ci_high", "d_z", "p", "p_holm", "n"]


def show_chunking_run(run: ChunkingRun) -> None:
    st.header(f"{ui.md(run.settings.label)}: chunking comparison")
    st.caption(
        "The same gold set scored under each chunking; judgements map onto each chunking's passages by line span."
    )
    st.altair_chart(charts.chunkings(run), width="stretch")
    if run.comparisons:
        st.altair_chart(charts.comparisons(list(run.comparisons)), width="stretch")
        st.dataframe(
            pd.DataFrame([c.to_json() for c in run.comparisons])[CHUNKING_COLUMNS],
            hide_index=True,
            width="stretch",
        )
    chunking = st.selectbox("Chunking in detail", list(run.chunkings), key="eval-chunking-detail")
    show_run(run.chunkings[chunking], key=f"chunk-{chunking}")


if isinstance(run, ChunkingRun):
    show_chunking_run(run)
else:
    st.header(ui.md(run.settings.label))
    if source == "Stored run" and ws.evaluation.tuned_on(run.settings.label):
        st.caption(
            "In-sample: the default ranker's constants were chosen with these questions among others. "
            "**Held out** scores it on questions they were not chosen on."
        )
    show_run(run, key="run")
    if isinstance(run.extra.get("answers"), dict):
        show_answers(run.extra["answers"], key="run")
