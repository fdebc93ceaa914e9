"""Ask: a question, its answer with [n] citations, the lens, and the passages
with their retrieval trace. With a model key: the model's answer with its
checks and review, study items for a topic, the AI log and the export."""

from __future__ import annotations

import os

import streamlit as st

from pages.views import curated as curated_ui
from pages.views import ui
from ragcore import errors
from ragcore.lenses.money.records import Figure
from ragcore.records import STAGES
from ragcore.services import AskOutcome
from ragcore.services.asking import (
    INSTRUCTIONS_NOTE,
    Lens,
    SpendTracker,
    check_question,
    contains_instructions,
    format_amount,
)
from ragcore.startup_trace import mark

STAGE_NAMES = {"bm25": "BM25", "dense": "Dense", "fused": "Fused", "rerank": "Reranked"}
DECISION_TEXT = {"accepted": "Accepted", "edited": "Accepted with edits", "rejected": "Rejected"}


def frame(rows: list[dict], **kw):
    """A table's DataFrame; pandas is imported here, on the first table: the
    page's first run draws none, and the warm-up imports it meanwhile (#18)."""
    import pandas as pd

    return pd.DataFrame(rows, **kw)


ui.require_frame()  # a first run may start here without app.py
ws = ui.workspace()
coll = ui.collection()
session = ui.session_id()
model = ws.asking.model(os.environ)
ui.style()

st.title("Ask")
st.caption("Answers come from the documents of the chosen collection; every claim cites the exact lines.")

with st.spinner("Loading the demo documents…"):
    ws.collections.ensure_demo()

if not ws.docs.documents(coll):
    st.info("This collection has no documents yet. Add PDF, TXT or Markdown files on the Library page.")
    st.page_link("pages/library.py", label="Go to the Library", icon=":material/folder_open:")
    st.stop()

whole = ws.docs.whole_document_names(coll)
if whole:
    st.warning(
        f"Whole-document mode: {len(whole)} document(s) are one passage each "
        f"({ui.md(', '.join(whole[:4]))}{', …' if len(whole) > 4 else ''}). A citation to them points at the whole "
        "file, and a model would be sent the whole file.",
        icon=":material/description:",
    )


def spend() -> SpendTracker:
    """This session's spending cap (resumed from the AI log)."""
    if "spend" not in st.session_state:
        st.session_state["spend"] = ws.review.spend_tracker(session)
    return st.session_state["spend"]


# --------------------------------------------------------------- sources


@st.dialog("Source", width="large")
def source_dialog(doc: str, first: int, last: int) -> None:
    ui.show_source(ws, coll, doc, first, last, key="source")


def _open(doc: str, first: int, last: int) -> None:
    st.session_state["open_source"] = (doc, first, last)


def source_button(
    label: str, key: str, doc: str, first: int, last: int, help: str | None = None, **kw
) -> None:
    # Labels and help hold document text: shown literally, never as Markdown.
    st.button(
        ui.md(label),
        key=key,
        on_click=_open,
        args=(doc, first, last),
        help=ui.md(help) if help else None,
        **kw,
    )


# ----------------------------------------------------------------- review


def review_controls(call_id: int | None, ref: str, text: str, key: str) -> None:
    """Accept / edit / reject one logged item; the latest decision is shown."""
    if call_id is None:
        return
    decision = ws.review.decisions(session, call_id).get(ref)
    editing = st.session_state.get(f"{key}-editing", False)
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        if st.button("Accept", key=f"{key}-accept", icon=":material/check:"):
            ws.review.review(session, call_id, ref, "accepted")
            st.rerun()
        if st.button("Edit", key=f"{key}-edit", icon=":material/edit:"):
            st.session_state[f"{key}-editing"] = True
            st.rerun()
        if st.button("Reject", key=f"{key}-reject", icon=":material/close:"):
            ws.review.review(session, call_id, ref, "rejected")
            st.rerun()
        if decision:
            st.badge(DECISION_TEXT[decision], color="green" if decision != "rejected" else "red")
    if editing:
        with st.form(f"{key}-edit-form", border=False):
            edited = st.text_area("Edited text", value=text, key=f"{key}-edited")
            if st.form_submit_button("Save edit", type="primary"):
                ws.review.review(session, call_id, ref, "edited", edited)
                st.session_state[f"{key}-editing"] = False
                st.rerun()


# ------------------------------------------------------------------ modes

task = "Question"
if model is not None:
    task = st.segmented_control(
        "Task",
        ["Question", "Study items"],
        default="Question",
        key="task",
        label_visibility="collapsed",
        help="Study items: the model writes short-answer and multiple-choice questions on a topic, from the "
        "passages retrieved for it; each item is checked and waits for your review.",
    )
    st.caption(ws.asking.disclosure(model, spend()))


def _ask_example() -> None:
    example = st.session_state.get("example")
    if example:
        st.session_state["question"] = example
        st.session_state["pending"] = True


def _lens_changed() -> None:
    if st.session_state.get("outcome") is not None:
        st.session_state["relens"] = True


def ask_form() -> None:
    examples = ws.asking.example_questions(coll)
    if examples:
        st.pills("Examples", examples, key="example", on_change=_ask_example, label_visibility="collapsed")
    with st.form("ask-form", border=False):
        left, right = st.columns([6, 1], vertical_alignment="bottom")
        left.text_input("Question", key="question", placeholder=ws.asking.placeholder(coll))
        submitted = right.form_submit_button("Ask", type="primary", width="stretch")
    st.segmented_control(
        "Lens",
        list(ui.LENSES),
        format_func=ui.LENSES.get,
        default="auto",
        key="lens",
        on_change=_lens_changed,
        help="Money lists figures and conflicts between them; Risk lists absolute wording (always, never, "
        "guarantee) and whether it is negated. Auto picks one from the question's words.",
    )
    lens = st.session_state.get("lens") or "auto"
    if submitted or st.session_state.pop("pending", False):
        question = st.session_state.get("question", "")
        try:
            question = check_question(question)
        except errors.RagcoreError as exc:
            st.session_state["outcome"] = None  # an old answer under this message would seem to answer it
            st.warning(ui.md(str(exc)[:1].upper() + str(exc)[1:] + "."))
            return
        try:
            prepare_dense()
        except errors.RagcoreError as exc:  # e.g. a Milvus index that is down while uploads embed
            st.session_state["outcome"] = None
            st.error(ui.md(exc))
            return
        stream_box = st.empty()

        def stream(text: str) -> None:
            stream_box.html(ui.CSS + ui.answer_html(text + " …"))

        mark("ask: question starts")
        with st.spinner("Searching…" if model is None else f"Searching, then asking {model.model}…"):
            try:
                st.session_state["outcome"] = ws.asking.ask(
                    coll,
                    question,
                    mode=ui.mode(),
                    lens=lens,
                    env=os.environ,
                    session=session,
                    spend=spend() if model is not None else None,
                    stream_callback=stream if model is not None else None,
                )
            except errors.RagcoreError as exc:
                st.session_state["outcome"] = None
                st.error(ui.md(exc))
        stream_box.empty()
        mark("ask: answer computed")
        st.session_state.pop("relens", None)
    elif st.session_state.pop("relens", False) and st.session_state.get("outcome") is not None:
        st.session_state["outcome"] = ws.asking.relens(st.session_state["outcome"], lens)


def prepare_dense() -> None:
    """Embed what the library does not have yet, with a progress bar."""
    missing = ws.indexes.missing_vectors(coll) if ui.mode() != "bm25" else 0
    if missing:
        bar = st.progress(0.0, text=f"Embedding {missing} passages once (cached in the library)…")
        ws.indexes.ensure_dense(
            coll, lambda done, total: bar.progress(done / max(total, 1), text=f"Embedded {done} of {total}")
        )
        bar.empty()


# ----------------------------------------------------------------- answer


def show_answer(outcome: AskOutcome) -> None:
    st.divider()
    show_answer_block(outcome.answer, "Answer", "cite")
    if outcome.computed_answer is not None:
        st.caption(
            "The pinned answer above was written by a person; the answer computed from the passages follows."
        )
        show_answer_block(outcome.computed_answer, "Computed answer", "computed-cite")


def show_answer_block(answer, title: str, key: str) -> None:
    head, badge = st.columns([5, 1], vertical_alignment="center")
    head.subheader(title)
    speaker = curated_ui.speaker(answer)
    badge.badge(speaker.label, icon=speaker.icon, color=speaker.color)
    reason = f" · {answer.reason}" if answer.reason and answer.reason not in answer.header else ""
    st.caption(ui.md(answer.header + reason))
    st.html(ui.CSS + ui.answer_html(answer.text))

    if answer.mode == "model":
        show_checks(answer.checks)
    if answer.citations:
        st.caption("Citations: open one to read its lines in the source.")
        with st.container(horizontal=True, gap="small"):
            for c in answer.citations:
                label = f"[{c.n}] {c.doc} · {ui.span_text(c.first_line, c.last_line)}"
                if c.pages:
                    label += f" · p. {c.pages[0]}"
                source_button(label, f"{key}-{c.n}", c.doc, c.first_line, c.last_line, help=c.label)
    if answer.mode == "model":
        st.markdown("**Review this answer**")
        review_controls(answer.checks.get("call_id"), "answer", answer.text, key="review-answer")


def show_checks(checks: dict) -> None:
    cols = st.columns(3)
    cols[0].metric(
        "Groundedness",
        f"{checks.get('groundedness', 0):.0%}",
        help="Share of the answer's content words found in the passages it cites.",
    )
    cols[1].metric("Figures not in the sources", len(checks.get("unsupported_numbers", [])))
    cols[2].metric("Citations removed", len(checks.get("removed_citations", [])))
    if checks.get("unsupported_numbers"):
        st.warning(
            "These figures are not in the passages the answer cites: "
            + ui.md(", ".join(checks["unsupported_numbers"]))
            + ". Check them before you rely on the answer.",
            icon=":material/flag:",
        )
    if checks.get("removed_citations"):
        st.warning(
            "The model cited passages it was not given: "
            + ", ".join(f"[{n}]" for n in checks["removed_citations"])
            + " (removed).",
            icon=":material/flag:",
        )
    if checks.get("uncited_sentences"):
        st.caption(f"{len(checks['uncited_sentences'])} sentence(s) carry no citation.")


def show_lens(lens: Lens | None) -> None:
    if lens is None or lens.kind == "none":
        return
    st.divider()
    st.subheader(f"{lens.kind.capitalize()} lens")
    by = (
        "you"
        if lens.chosen_by == "user"
        else (f"the question's words: {', '.join(lens.triggers)}" if lens.triggers else "the question")
    )
    st.caption(f"Chosen by {ui.md(by)}.")
    if lens.kind == "money":
        show_money(lens)
    elif lens.kind == "risk":
        show_risk(lens)


RELATION_HEADING = {"conflict": ":red[**Conflict**]", "change": ":blue[**Change over time**]"}


def show_money(lens: Lens) -> None:
    implied = _implied_changes(lens)
    for k, conflict in enumerate(lens.conflicts):
        if k in implied:
            continue
        # A change lists its amounts oldest first; a conflict has no order.
        joiner = " → " if conflict.relation == "change" else " vs "
        amounts = joiner.join(format_amount(a, conflict.currency) for a in conflict.amounts)
        per = f" per {conflict.period}" if conflict.period else ""
        with st.container(border=True):
            subject = ui.md(f"{conflict.item or 'same item'}{per}")
            st.markdown(f"{RELATION_HEADING[conflict.relation]} · {subject}: **{ui.md(amounts)}**")
            if conflict.reason:
                st.caption(ui.md(conflict.reason))
            with st.container(horizontal=True, gap="small"):
                for j, m in enumerate(conflict.mentions):
                    source_button(
                        f"{format_amount(m.amount, m.currency)} · {m.doc} · "
                        f"{ui.span_text(m.first_line, m.last_line)}",
                        f"conf-{k}-{j}",
                        m.doc,
                        m.first_line,
                        m.last_line,
                        help=m.text,
                    )
    if not any(c.relation == "conflict" for c in lens.conflicts):
        st.success("No conflicting amounts for the same item in the passages read.")
    rows = [_figure_row(f, _relations(lens)) for f in lens.figures]
    if rows:
        st.caption("Figures by amount, conflicts first. Item: what the amount is for, as the text names it.")
        st.dataframe(frame(rows), hide_index=True, width="stretch")
    else:
        st.caption("No amounts in the passages read.")


def _implied_changes(lens: Lens) -> set[int]:
    """Changes A -> C already shown as A -> B and B -> C for the same item: listed once, as the steps."""
    steps = {
        (c.item, c.currency, c.period, c.amounts[0], c.amounts[-1])
        for c in lens.conflicts
        if c.relation == "change" and len(c.amounts) == 2
    }
    implied = set()
    for k, c in enumerate(lens.conflicts):
        if c.relation != "change" or len(c.amounts) != 2:
            continue
        key = (c.item, c.currency, c.period)
        if any(
            (*key, c.amounts[0], mid) in steps and (*key, mid, c.amounts[1]) in steps for *_, mid, _ in steps
        ):
            implied.add(k)
    return implied


def _relations(lens: Lens) -> dict[tuple[str, float], str]:
    """Each (currency, amount) in a conflict or a change; a conflict wins."""
    found: dict[tuple[str, float], str] = {}
    for c in sorted(lens.conflicts, key=lambda c: c.relation == "conflict"):
        for amount in c.amounts:
            found[(c.currency, amount)] = c.relation
    return found


def _figure_row(figure: Figure, relations: dict[tuple[str, float], str]) -> dict[str, str]:
    subjects = [m.item for m in figure.mentions if m.item]
    # The item most mentions name (ties: the first), not every fragment joined.
    item = max(dict.fromkeys(subjects), key=subjects.count) if subjects else ""
    return {
        "Amount": format_amount(figure.amount, figure.currency),
        "Item": item,
        "Per": "; ".join(dict.fromkeys(m.per for m in figure.mentions if m.per)),
        "Relation": relations.get((figure.currency, figure.amount), ""),
        "Effective": "; ".join(dict.fromkeys(m.effective for m in figure.mentions if m.effective)),
        "Sources": "; ".join(f"{m.doc}:{ui.span_text(m.first_line, m.last_line)}" for m in figure.mentions),
    }


def show_risk(lens: Lens) -> None:
    if not lens.findings:
        st.caption("No absolute wording (always, never, guarantee, unlimited…) in the retrieved passages.")
        return
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
    st.caption("Absolute wording in the passages; a negated one (“no guarantee”) denies the absolute.")
    st.dataframe(frame(rows, index=range(1, len(rows) + 1)), width="stretch")
    picked = st.selectbox(
        "Open a finding's source",
        range(len(lens.findings)),
        format_func=lambda i: f"{i + 1}. {lens.findings[i].wording} — {lens.findings[i].doc}",
        index=None,
        key="finding-open",
    )
    if picked is not None:
        f = lens.findings[picked]
        source_button("Open", "finding-open-btn", f.doc, f.first_line, f.last_line)


def show_passages(outcome: AskOutcome) -> None:
    st.divider()
    st.subheader("Retrieved passages")
    st.caption(
        f"Mode: {ui.MODES.get(outcome.mode, outcome.mode)}. Rank (score) under each stage; — means the passage "
        "was outside that stage's candidates or the stage did not run."
    )
    rows = []
    for h in outcome.hits:
        row = {
            "#": h.rank,
            "Document": h.passage.doc,
            "Lines": ui.span_text(h.passage.first_line, h.passage.last_line),
        }
        for stage in STAGES:
            t = h.trace.get(stage)
            row[STAGE_NAMES[stage]] = f"#{t.rank} ({t.score:.3g})" if t is not None else "—"
        row["Section"] = h.passage.label
        rows.append(row)
    st.dataframe(frame(rows), hide_index=True, width="stretch")
    dense = ws.indexes.dense_ready(coll)
    for h in outcome.hits:
        p = h.passage
        flagged = contains_instructions(p.text)
        note = f" · ⚠ {INSTRUCTIONS_NOTE}" if flagged else ""
        with st.expander(ui.md(f"#{h.rank} · {p.citation} · {p.label}") + note):
            if flagged:
                st.warning(
                    f"This passage {INSTRUCTIONS_NOTE}: it reads like instructions to a model "
                    "(ignore previous, system prompt, role tags). It was sent as quoted text only."
                )
            st.html(ui.CSS + ui.passage_html(p))
            source_button(
                "Open in document",
                f"hit-open-{h.rank}",
                p.doc,
                p.first_line,
                p.last_line,
                icon=":material/open_in_new:",
            )
            st.caption("From the documents: a quote of the lines above.")
            for note in curated_ui.notes_for(ws, coll, p):
                st.info(ui.md(f"Curated note: {note.text}"), icon=":material/edit_note:")
            related = curated_ui.related_strip(ws, coll, p, dense)
            if related:
                st.markdown("**Related across documents**")
                for j, item in enumerate(related):
                    source_button(
                        item.label,
                        f"rel-{h.rank}-{j}",
                        item.doc,
                        item.first_line,
                        item.last_line,
                        type="tertiary",
                    )


# ------------------------------------------------------------ study items


def study_form() -> None:
    with st.form("study-form", border=False):
        left, right = st.columns([6, 1], vertical_alignment="bottom")
        left.text_input("Topic", key="topic", placeholder="A topic, e.g. service credits and uptime")
        submitted = right.form_submit_button("Write items", type="primary", width="stretch")
    if submitted:
        topic = st.session_state.get("topic", "")
        prepare_dense()
        with st.spinner(f"Retrieving passages, then asking {model.model} for items…"):
            try:
                st.session_state["study"] = (
                    topic,
                    ws.review.study(coll, topic, session=session, spend=spend(), mode=ui.mode()),
                )
            except errors.RagcoreError as exc:
                st.session_state.pop("study", None)
                st.error(ui.md(exc))


def show_study() -> None:
    topic, items = st.session_state.get("study", ("", []))
    if not items:
        return
    st.divider()
    st.subheader(f"Study items: {ui.md(topic)}")
    st.caption("Each item was checked against the passages it cites; review it before you use it.")
    for k, item in enumerate(items):
        with st.container(border=True):
            kind = "Multiple choice" if item.kind == "mcq" else "Short answer"
            passed = item.passed
            with st.container(horizontal=True, gap="small"):
                st.badge(kind, color="blue")
                st.badge("checks passed" if passed else "check failed", color="green" if passed else "orange")
            st.html(ui.CSS + ui.answer_html(item.question))
            if item.kind == "mcq":
                for letter, option in zip("ABCDEFGH", item.options, strict=False):
                    mark = "  ✓ key" if option == item.answer else ""
                    st.text(f"{letter}. {option}{mark}")
            else:
                st.text(f"Answer: {item.answer}")
            failed = [f"{name}: {detail}" for name, (ok, detail) in item.checks.items() if not ok]
            for line in failed:
                st.caption(f"✗ {ui.md(line)}")
            with st.container(horizontal=True, gap="small"):
                for c in item.sources:
                    source_button(
                        f"[{c.n}] {c.doc} · {ui.span_text(c.first_line, c.last_line)}",
                        f"study-{k}-cite-{c.n}",
                        c.doc,
                        c.first_line,
                        c.last_line,
                        help=c.label,
                    )
            review_controls(item.call_id, item.ref, item.answer, key=f"review-{item.ref}-{item.call_id}")


# ----------------------------------------------------------- log, export


def show_log() -> None:
    calls = ws.review.ai_calls(session)
    if not calls:
        return
    st.divider()
    st.subheader("AI log")
    tracker = spend()
    st.caption(
        f"Every model call of this session: what was sent (passages, sizes) and what it cost. "
        f"Spent ${tracker.spent_usd:.4f} of the ${tracker.cap_usd:.2f} cap."
    )
    invalid = sum(c.outcome in ("invalid_json", "schema_error") for c in calls)
    if invalid:  # counted and shown: small local models often miss the JSON shape
        st.caption(
            f"Invalid replies: {invalid} of {len(calls)} (not JSON of the expected shape); the "
            "extractive answer was shown instead."
        )
    st.dataframe(
        frame(
            [
                {
                    "Time": c.ts,
                    "Kind": c.kind,
                    "Model": c.model,
                    "Outcome": c.outcome,
                    "Passages sent": len(c.passage_ids),
                    "Prompt chars": c.prompt_chars,
                    "Reply chars": c.response_chars,
                    "Cost (USD)": c.cost_usd,
                    "ms": None if c.duration_ms is None else round(c.duration_ms),
                }
                for c in calls
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    st.caption("Export: only items you accepted (or edited), with their citations.")
    with st.container(horizontal=True, gap="small"):
        st.download_button(
            "Accepted items (Markdown)",
            ws.review.export_accepted(session, "markdown").encode("utf-8"),
            file_name="ragcore-accepted.md",
            mime="text/markdown",
            key="export-md",
            icon=":material/download:",
        )
        st.download_button(
            "Accepted items (JSON)",
            ws.review.export_accepted(session, "json").encode("utf-8"),
            file_name="ragcore-accepted.json",
            mime="application/json",
            key="export-json",
            icon=":material/download:",
        )


# ------------------------------------------------------------------- page

if task == "Study items":
    study_form()
    show_study()
else:
    ask_form()
    outcome: AskOutcome | None = st.session_state.get("outcome")
    if outcome is not None and outcome.collection != coll:
        outcome = None  # asked in another collection: its citations do not resolve here
    if outcome is not None:
        for note in outcome.notes:
            st.caption(f"Note: {ui.md(note)}")
        if not outcome.hits:
            st.info("Nothing matched this question in the collection.")
        else:
            show_answer(outcome)
            show_lens(outcome.lens)
            show_passages(outcome)
if model is not None:
    show_log()

opened = st.session_state.pop("open_source", None)
if opened is not None:
    source_dialog(*opened)
