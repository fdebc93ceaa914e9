"""Ask: a question, its answer with [n] citations, the lens, and the passages
with their retrieval trace."""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

from pages import _ui as ui
from ragcore import errors
from ragcore.records import STAGES
from ragcore.service import DEMO_COLLECTION, DEMO_QUESTIONS, AskOutcome

ws = ui.workspace()
coll = ui.collection()
ui.style()

st.title("Ask")
st.caption("Answers come from the documents of the chosen collection; every claim cites the exact lines.")

with st.spinner("Loading the demo documents…"):
    ws.ensure_demo()

documents = ws.documents(coll)
if not documents:
    st.info("This collection has no documents yet. Add PDF, TXT or Markdown files on the Library page.")
    st.page_link("pages/library.py", label="Go to the Library", icon=":material/folder_open:")
    st.stop()

whole = ws.whole_document_names(coll)
if whole:
    st.warning(
        f"Whole-document mode: {len(whole)} document(s) are one passage each "
        f"({', '.join(whole[:4])}{', …' if len(whole) > 4 else ''}). A citation to them points at the whole file, "
        "and a model would be sent the whole file.",
        icon=":material/description:",
    )


def _ask_example() -> None:
    example = st.session_state.get("example")
    if example:
        st.session_state["question"] = example
        st.session_state["pending"] = True


def _lens_changed() -> None:
    if st.session_state.get("outcome") is not None:
        st.session_state["pending"] = True


if coll == DEMO_COLLECTION:
    st.pills("Examples", DEMO_QUESTIONS, key="example", on_change=_ask_example, label_visibility="collapsed")

with st.form("ask-form", border=False):
    left, right = st.columns([6, 1], vertical_alignment="bottom")
    left.text_input(
        "Question", key="question", placeholder="Ask about the documents, e.g. what does the SLA promise?"
    )
    submitted = right.form_submit_button("Ask", type="primary", width="stretch")

st.segmented_control(
    "Lens",
    list(ui.LENSES),
    format_func=ui.LENSES.get,
    default="auto",
    key="lens",
    on_change=_lens_changed,
    help="Money lists figures and conflicts between them; Risk lists absolute wording (always, never, guarantee) "
    "and whether it is negated. Auto picks one from the question's words.",
)

if submitted or st.session_state.pop("pending", False):
    question = st.session_state.get("question", "")
    if not question.strip():
        st.warning("Type a question first.")
    else:
        missing = ws.missing_vectors(coll) if ui.mode() != "bm25" else 0
        if missing:
            bar = st.progress(0.0, text=f"Embedding {missing} passages once (cached in the library)…")
            ws.ensure_dense(
                coll,
                lambda done, total: bar.progress(done / max(total, 1), text=f"Embedded {done} of {total}"),
            )
            bar.empty()
        with st.spinner("Searching…"):
            try:
                st.session_state["outcome"] = ws.ask(
                    coll,
                    question,
                    mode=ui.mode(),
                    lens=st.session_state.get("lens") or "auto",
                    env=os.environ,
                )
            except errors.RagcoreError as exc:
                st.session_state["outcome"] = None
                st.error(str(exc))


@st.dialog("Source", width="large")
def source_dialog(doc: str, first: int, last: int) -> None:
    ui.show_source(ws, coll, doc, first, last, key="source")


def _open(doc: str, first: int, last: int) -> None:
    st.session_state["open_source"] = (doc, first, last)


outcome: AskOutcome | None = st.session_state.get("outcome")
if outcome is not None and outcome.collection != coll:
    outcome = None  # asked in another collection: its citations do not resolve here

if outcome is not None:
    for note in outcome.notes:
        st.caption(f"Note: {note}")

    if not outcome.hits:
        st.info("Nothing matched this question in the collection.")
    else:
        answer = outcome.answer
        st.divider()
        head, badge = st.columns([5, 1], vertical_alignment="center")
        head.subheader("Answer")
        if answer.mode == "model":
            badge.badge(f"Model: {answer.model}", icon=":material/smart_toy:", color="violet")
        else:
            badge.badge("Extractive", icon=":material/format_quote:", color="gray")
        st.caption(
            answer.header
            + (f" · {answer.reason}" if answer.reason and answer.reason not in answer.header else "")
        )
        st.html(ui.CSS + ui.answer_html(answer.text))
        if answer.mode == "model" and answer.checks:
            checks = answer.checks
            cols = st.columns(3)
            cols[0].metric(
                "Groundedness",
                f"{checks.get('groundedness', 0):.0%}",
                help="Share of the answer's words found in the passages it cites.",
            )
            cols[1].metric("Figures not in sources", len(checks.get("unsupported_numbers", [])))
            cols[2].metric("Citations removed", len(checks.get("removed_citations", [])))

        if answer.citations:
            st.caption("Citations: open one to read its lines in the source.")
            with st.container(horizontal=True, gap="small"):
                for c in answer.citations:
                    label = f"[{c.n}] {c.doc} · {ui.span_text(c.first_line, c.last_line)}"
                    if c.pages:
                        label += f" · p. {c.pages[0]}"
                    st.button(
                        label,
                        key=f"cite-{c.n}",
                        help=c.label,
                        on_click=_open,
                        args=(c.doc, c.first_line, c.last_line),
                    )

        lens = outcome.lens
        if lens is not None and lens.kind != "none":
            st.divider()
            by = (
                "you"
                if lens.chosen_by == "user"
                else (
                    f"the question's words: {', '.join(lens.triggers)}" if lens.triggers else "the question"
                )
            )
            st.subheader(f"{lens.kind.capitalize()} lens")
            st.caption(f"Chosen by {by}.")
            if lens.kind == "money":
                if lens.conflicts:
                    for k, conflict in enumerate(lens.conflicts):
                        from ragcore.lenses.money import format_amount

                        amounts = " vs ".join(format_amount(a, conflict.currency) for a in conflict.amounts)
                        period = f" per {conflict.period}" if conflict.period else ""
                        with st.container(border=True):
                            st.markdown(
                                f":red[**Conflict**] · {conflict.subject or 'same item'}{period}: **{amounts}**"
                            )
                            with st.container(horizontal=True, gap="small"):
                                for j, m in enumerate(conflict.mentions):
                                    st.button(
                                        f"{format_amount(m.amount, m.currency)} · {m.doc} · "
                                        f"{ui.span_text(m.first_line, m.last_line)}",
                                        key=f"conf-{k}-{j}",
                                        on_click=_open,
                                        args=(m.doc, m.first_line, m.last_line),
                                        help=m.text,
                                    )
                else:
                    st.success("No conflicting amounts for the same item in the retrieved passages.")
                rows = []
                for f in lens.figures:
                    from ragcore.lenses.money import format_amount

                    rows.append(
                        {
                            "Amount": format_amount(f.amount, f.currency),
                            "Conflict": "yes" if f.conflict else "",
                            "Item": "; ".join(dict.fromkeys(m.subject for m in f.mentions if m.subject)),
                            "Period": "; ".join(dict.fromkeys(m.period for m in f.mentions if m.period)),
                            "Sources": "; ".join(
                                f"{m.doc}:{ui.span_text(m.first_line, m.last_line)}" for m in f.mentions
                            ),
                        }
                    )
                if rows:
                    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
                else:
                    st.caption("No amounts in the retrieved passages.")
            elif lens.kind == "risk":
                if lens.findings:
                    rows = [
                        {
                            "Wording": f.wording,
                            "Negated": "negated" if f.negated else "",
                            "About": f.subject,
                            "Contradicts": ", ".join(str(i + 1) for i in f.contradicts),
                            "Source": f"{f.doc}:{ui.span_text(f.first_line, f.last_line)}",
                            "Sentence": f.phrase,
                        }
                        for f in lens.findings
                    ]
                    frame = pd.DataFrame(rows, index=range(1, len(rows) + 1))
                    st.dataframe(frame, width="stretch")
                    picked = st.selectbox(
                        "Open a finding's source",
                        range(len(lens.findings)),
                        format_func=lambda i: f"{i + 1}. {lens.findings[i].wording} — {lens.findings[i].doc}",
                        index=None,
                        key="finding-open",
                    )
                    if picked is not None:
                        f = lens.findings[picked]
                        st.button(
                            "Open",
                            key="finding-open-btn",
                            on_click=_open,
                            args=(f.doc, f.first_line, f.last_line),
                        )
                else:
                    st.caption(
                        "No absolute wording (always, never, guarantee, unlimited…) in the retrieved passages."
                    )

        st.divider()
        st.subheader("Retrieved passages")
        st.caption(
            f"Mode: {ui.MODES.get(outcome.mode, outcome.mode)}. Rank under each stage; — means the passage was "
            "outside that stage's candidates or the stage did not run."
        )
        trace_rows = []
        for h in outcome.hits:
            row = {
                "#": h.rank,
                "Document": h.passage.doc,
                "Lines": ui.span_text(h.passage.first_line, h.passage.last_line),
            }
            for stage in STAGES:
                t = h.trace.get(stage)
                row[{"bm25": "BM25", "dense": "Dense", "fused": "Fused", "rerank": "Reranked"}[stage]] = (
                    f"#{t.rank} ({t.score:.3g})" if t is not None else "—"
                )
            row["Section"] = h.passage.label
            trace_rows.append(row)
        st.dataframe(pd.DataFrame(trace_rows), hide_index=True, width="stretch")

        for h in outcome.hits:
            p = h.passage
            with st.expander(f"#{h.rank} · {p.citation} · {p.label}"):
                st.html(ui.CSS + ui.passage_html(p))
                st.button(
                    "Open in document",
                    key=f"hit-open-{h.rank}",
                    on_click=_open,
                    args=(p.doc, p.first_line, p.last_line),
                    icon=":material/open_in_new:",
                )
                if ws.dense_ready(coll):
                    related = ws.related(coll, p, k=3)
                    if related:
                        st.markdown("**Related across documents**")
                        for j, (other, score) in enumerate(related):
                            st.button(
                                f"{other.citation} · {other.label} (similarity {score:.2f})",
                                key=f"rel-{h.rank}-{j}",
                                on_click=_open,
                                args=(other.doc, other.first_line, other.last_line),
                                type="tertiary",
                            )

opened = st.session_state.pop("open_source", None)
if opened is not None:
    source_dialog(*opened)
