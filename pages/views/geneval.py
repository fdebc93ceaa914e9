"""The Evaluation page's generation section: stored generation runs, their
figures, blind rating of each item, and a new run with its cost shown first.

A helper module, not a page: app.py's navigation lists the pages, and the
leading underscore keeps it apart from them. Work happens in
``ragcore.evaluation.generation_service``.
"""

from __future__ import annotations

import html
import os

import pandas as pd
import streamlit as st

from pages.views import ui
from ragcore import errors
from ragcore.services.generation import (
    LOCAL_LABEL,
    GenerationEvaluations,
    GenerationFigures,
    GenerationRun,
    ItemView,
)

MOCK_NOTE = (
    "Mock run: made with LiteLLM's mock response (`mock_response`), so no model wrote these outputs. "
    "It shows the page's parts without a key; run the topic file with a model for real figures."
)
CHECK_NAMES = {
    "citations_valid": "Citations valid",
    "numbers_present": "Figures in the passages",
    "word_overlap": "Word overlap",
    "answerable": "Answerable from the passages",
    "mcq_form": "Multiple-choice form and distractors",
    "no_duplicate": "No duplicate",
}


def _pct(rate: float) -> str:
    return f"{rate:.0%}"


def _figures(figures: GenerationFigures) -> None:
    st.markdown(
        f"**Model failures:** {figures.failures} of {figures.calls} calls (refused, cut off, invalid, timed out)"
    )
    rows = [
        {
            "Calls": name,
            "Failure rate": _pct(r.rate),
            "95% interval": f"{_pct(r.low)} – {_pct(r.high)}",
            "n": r.n,
            "Design effect": round(r.design.deff, 2),
        }
        for name, r in figures.failure_rate.items()
    ]
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.markdown("**Automatic checks** (share of items that pass)")
    checks = [
        {
            "Check": CHECK_NAMES.get(name, name),
            "Pass rate": _pct(r.rate),
            "95% interval": f"{_pct(r.low)} – {_pct(r.high)}",
            "Items": r.n,
            "Topics": r.design.topics,
            "ICC": round(r.design.icc, 3),
            "Design effect": round(r.design.deff, 2),
            "Effective n": round(r.design.effective_n, 1),
        }
        for name, r in figures.check_rates.items()
    ]
    if checks:
        st.dataframe(pd.DataFrame(checks), hide_index=True, width="stretch")
    if figures.fact_recall is not None:
        r = figures.fact_recall
        st.markdown(f"**Fact recall** of the answers: {_pct(r.mean)} ({_pct(r.low)} – {_pct(r.high)})")
    _ratings(figures)
    for note in figures.notes:
        st.caption(ui.md(note))


def _ratings(figures: GenerationFigures) -> None:
    st.markdown(f"**Ratings:** {figures.rated} of {figures.items} items rated, {figures.blind} of them blind")
    if figures.faithful_rate is not None:
        r = figures.faithful_rate
        st.markdown(f"Rated faithful (blind): {_pct(r.rate)} ({_pct(r.low)} – {_pct(r.high)}, n={r.n})")
    if figures.useful_mean is not None:
        st.markdown(f"Mean usefulness: {figures.useful_mean:.2f} of 5")
    rows = [
        {
            "Check": CHECK_NAMES.get(name, name),
            "Items": a.n,
            "Agreement": _pct(a.agreement),
            "95% interval": f"{_pct(a.agreement_low)} – {_pct(a.agreement_high)}",
            "Kappa": None if a.kappa is None else round(a.kappa, 2),
            "Kappa interval": "" if a.kappa_low is None else f"{a.kappa_low:.2f} – {a.kappa_high:.2f}",
        }
        for name, a in figures.agreement.items()
    ]
    if rows:
        st.caption(
            "Each check against the person's faithful yes/no, blind ratings only; intervals resample topics."
        )
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def _item(view: ItemView) -> None:
    item = view.item
    kind = {"answer": "Answer", "short": "Short-answer item", "mcq": "Multiple-choice item"}[item.kind]
    st.markdown(f"**{kind}** · topic `{ui.md(item.topic)}`")
    st.markdown(f"**Question:** {ui.md(item.question)}")
    # Model text and document text are data: HTML-escaped here, never given to Markdown.
    st.html(
        ui.answer_html(item.text)
        if item.kind == "answer"
        else f"<p class='rc-answer'>{html.escape(item.text)}</p>"
    )
    if item.options:
        st.markdown("Options: " + " · ".join(ui.md(o) for o in item.options))
    for p in view.passages:
        st.caption(ui.md(f"[{p.n}] {p.doc}, lines {p.first_line}-{p.last_line} ({p.label})"))
        st.html(f"<div class='rc-passage'>{html.escape(p.text)}</div>")


def _checks(view: ItemView) -> None:
    rows = [
        {"Check": CHECK_NAMES.get(name, name), "Passed": c.passed, "Detail": c.detail}
        for name, c in view.item.checks.items()
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key=f"gen-checks-{view.item.id}")


def _rate(svc: GenerationEvaluations, path, run: GenerationRun) -> None:
    queue = svc.queue(run)
    if not queue:
        return
    st.subheader("Rate the items")
    st.caption(
        "Is the item faithful to the passages it cites, and how useful is it? The automatic checks stay "
        "hidden until you rate, so your rating is blind."
    )
    pick = st.selectbox(
        "Item", queue, key="gen-item", format_func=lambda i: f"{i} {'(rated)' if i in run.ratings else ''}"
    )
    view = svc.view(run, pick)
    _item(view)
    with st.form(f"gen-rate-{pick}"):
        faithful = st.radio(
            "Faithful to its passages?",
            ["yes", "no"],
            index=None,
            horizontal=True,
            key=f"gen-faithful-{pick}",
        )
        useful = st.slider("Useful (1-5)", 1, 5, 3, key=f"gen-useful-{pick}")
        note = st.text_input("Note", key=f"gen-note-{pick}")
        if st.form_submit_button("Save rating", type="primary"):
            if faithful is None:
                st.warning("Say whether the item is faithful first.")
            else:
                svc.rate(path, pick, faithful == "yes", useful, note)
                st.rerun()
    if view.checks_shown:
        if view.rated:
            r = run.ratings[pick]
            st.caption(
                f"Your rating: faithful {'yes' if r.faithful else 'no'}, useful {r.useful}"
                f"{'' if r.blind else ' (not blind: checks were shown first)'}"
            )
        _checks(view)
    elif st.button(
        "Show the checks without rating (this item's rating will not count as blind)", key="gen-reveal"
    ):
        svc.reveal(path, pick)
        st.rerun()


def _run_now(svc: GenerationEvaluations, session: str, coll: str) -> None:
    model, why = svc.model(os.environ)
    files = svc.topic_files()
    if model is None:
        st.info(
            f"A new run needs a model: {why}. Without one, `python -m ragcore geneval --mock` makes a mock run."
        )
        return
    if not files:
        st.info("No topic file ships with this copy (eval/*.geneval.json).")
        return
    topics = st.selectbox("Topic file", files, format_func=lambda p: p.name, key="gen-topics")
    where = f" ({LOCAL_LABEL})" if model.on_this_machine else ""
    st.caption(f"Model: {model.model}{where}. Passages are retrieved from the open collection ({coll}).")
    if "spend" not in st.session_state:
        st.session_state["spend"] = svc.spend_tracker(session)
    spend = st.session_state["spend"]
    if st.button("Estimate the cost", key="gen-estimate"):
        try:
            st.session_state["gen-plan"] = svc.plan(topics, coll, model, mode=ui.mode())
        except errors.RagcoreError as exc:
            st.error(str(exc))
    plan = st.session_state.get("gen-plan")
    if plan is None:
        return
    st.markdown(
        f"**Estimated cost:** up to ${plan.estimated_usd:.4f} for {len(plan.calls)} calls to {plan.model} "
        f"(every prompt in full, every reply at its token limit). This session has spent "
        f"${spend.spent_usd:.4f} of its ${spend.cap_usd:.2f} cap; the run counts against it."
    )
    if st.button("Start the run", type="primary", key="gen-start"):
        bar = st.progress(0.0, text="Starting…")
        done = {"n": 0}

        def progress(message: str) -> None:
            done["n"] += 1
            bar.progress(min(done["n"] / max(len(plan.calls), 1), 1.0), text=message)

        try:
            path = svc.start(plan, model, spend, session=session, progress=progress)
        except errors.RagcoreError as exc:
            st.error(str(exc))
            return
        st.session_state.pop("gen-plan", None)
        st.session_state["gen-run"] = str(path)
        st.rerun()


def show(svc: GenerationEvaluations, session: str, coll: str) -> None:
    """The generation section of the Evaluation page."""
    st.header("Generation evaluation")
    st.caption(
        "What the model writes (answers and study items) on a fixed topic file, with automatic checks, "
        "a person's blind ratings, and intervals that allow for items of one topic being alike."
    )
    with st.expander("Run a topic file now"):
        _run_now(svc, session, coll)
    stored = svc.runs()
    if not stored:
        st.info("No stored generation runs yet: `python -m ragcore geneval --topics eval/demo.geneval.json`.")
        return
    paths = [str(s.path) for s in stored]
    titles = {str(s.path): s.title for s in stored}
    chosen = st.session_state.get("gen-run")
    index = paths.index(chosen) if chosen in paths else 0
    path = st.selectbox("Generation run", paths, index=index, format_func=titles.get, key="gen-stored")
    try:
        run = svc.load(path)
    except errors.RagcoreError as exc:
        st.error(str(exc))
        return
    if run.mock:
        st.warning(MOCK_NOTE)
    st.caption(
        ui.md(
            f"Model {run.model} · prompts {run.prompts_hash} · made {run.created} · "
            f"estimated ${run.estimated_usd:.4f}, spent ${run.spent_usd:.4f}"
        )
    )
    st.download_button(
        "Download the run (JSON)",
        svc.download(path),
        file_name=os.path.basename(path),
        mime="application/json",
        key="gen-download",
    )
    _figures(svc.figures(run))
    failed = [c for c in run.calls if c.failed]
    if failed:
        with st.expander(f"Failed calls ({len(failed)})"):
            for c in failed:
                st.markdown(f"**{ui.md(c.topic)}** · {c.call} · {c.outcome}: {ui.md(c.reason)}")
                if c.reply:
                    st.code(c.reply[:1500], language=None)
    _rate(svc, path, run)
