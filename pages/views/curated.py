"""Ask-page pieces for the curated layer and for saying who is talking
(a helper module of the pages, not a page)."""

from __future__ import annotations

from dataclasses import dataclass

from ragcore.curated import Note
from ragcore.records import Answer, Passage
from ragcore.services import DEMO_COLLECTION, Workspace
from ragcore.services.curation import RelatedItem


@dataclass(frozen=True)
class Speaker:
    label: str
    icon: str
    color: str


def speaker(answer: Answer) -> Speaker:
    """Who wrote this answer block: a person (curated), the extractive
    assembler (quotes picked from the documents), or a named model."""
    if answer.mode == "curated":
        return Speaker("Curated", ":material/verified:", "green")
    if answer.mode == "model":
        return Speaker(f"Model: {answer.model}", ":material/smart_toy:", "violet")
    return Speaker("Extractive assembler", ":material/format_quote:", "gray")


def notes_for(ws: Workspace, collection: str, passage: Passage) -> list[Note]:
    return ws.curation.notes_for(collection, passage)


def related_strip(ws: Workspace, collection: str, passage: Passage, dense: bool) -> list[RelatedItem]:
    computed = ws.asking.related(collection, passage, k=3) if dense else []
    return ws.curation.related_items(collection, passage, computed)


def library_section(ws: Workspace, collection: str) -> None:
    """The Library page's curated entries: what holds, what was skipped and why,
    export and import of the file, adding a note and removing an entry."""
    import pandas as pd
    import streamlit as st

    from pages.views import ui

    st.subheader("Curated entries")
    st.caption(
        "Written by a person, shown labelled \u201ccurated\u201d on the Ask page: pinned answers to common "
        "questions, plain-words notes on passages, and links between documents."
    )
    layer = ws.curation.layer(collection)
    if layer is not None:
        st.dataframe(pd.DataFrame(entry_rows(layer)), hide_index=True, width="stretch")
        for problem in layer.problems:
            st.warning(ui.md(str(problem)), icon=":material/warning:")
        data = ws.curation.export_bytes(collection)
        if data:
            st.download_button(
                "Export curated file",
                data,
                file_name="curated.json",
                mime="application/json",
                key="curated-export",
            )
    else:
        st.caption("This collection has no curated file yet.")
    # The demo mirrors the shipped folder and its shipped curated file: read-only here.
    if collection != DEMO_COLLECTION and ws.collections.writable(collection):
        with st.expander("Import, add a note, or remove an entry"):
            edit_controls(ws, collection, layer)


def edit_controls(ws: Workspace, collection: str, layer) -> None:
    import streamlit as st

    from pages.views import ui
    from ragcore import errors
    from ragcore.curated import CuratedFileError

    upload = st.file_uploader("Import a curated file (JSON)", type=["json"], key="curated-import")
    if upload is not None and st.button(
        "Replace the curated entries with this file", key="curated-do-import"
    ):
        try:
            ws.curation.import_bytes(collection, upload.getvalue(), upload.name)
            st.success("Imported.")
        except (CuratedFileError, errors.RagcoreError) as exc:
            st.error(ui.md(str(exc)))
    with st.form("curated-note-form"):
        doc = st.selectbox(
            "Document", [i.name for i in ws.docs.documents(collection)], key="curated-note-doc"
        )
        quote = st.text_input("A quote from the passage (verbatim)", key="curated-note-quote")
        text = st.text_input("The note, in plain words", key="curated-note-text")
        if st.form_submit_button("Add note"):
            try:
                ws.curation.add_note(collection, doc, quote, text)
                st.success("Note added.")
            except (CuratedFileError, errors.RagcoreError) as exc:
                st.error(ui.md(str(exc)))
    if layer is not None and layer.entry_count:
        gone = st.selectbox("Entry", [row["Id"] for row in entry_rows(layer)], key="curated-remove-id")
        if st.button("Remove entry", key="curated-remove"):
            ws.curation.remove_entry(collection, gone)
            st.rerun()


def entry_rows(layer) -> list[dict[str, str]]:
    rows = [
        {"Kind": "pinned answer", "Id": a.id, "Text": a.question, "Where": _where(a.cites[0])}
        for a in layer.answers
    ]
    rows += [{"Kind": "note", "Id": n.id, "Text": n.text, "Where": _where(n.anchor)} for n in layer.notes]
    rows += [
        {
            "Kind": "link",
            "Id": k.id,
            "Text": k.reason,
            "Where": f"{_where(k.source)} \u2194 {_where(k.target)}",
        }
        for k in layer.links
    ]
    return rows


def _where(anchor) -> str:
    lines = (
        anchor.first_line
        if anchor.first_line == anchor.last_line
        else f"{anchor.first_line}-{anchor.last_line}"
    )
    return f"{anchor.doc}, line{'s' if anchor.first_line != anchor.last_line else ''} {lines}"
