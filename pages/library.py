"""Library: add, list, remove and re-chunk documents; see a document's passages."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import streamlit as st

from pages.views import curated as curated_ui
from pages.views import ui
from ragcore import config, errors
from ragcore.services import CHUNKINGS, DEMO_COLLECTION, UploadOutcome

CHUNKING_HELP = {
    "auto": "Auto: Markdown and text by headings, PDFs by sentences",
    "heading": "Headings: one passage per section, long sections split",
    "sentence": "Sentences: runs of whole sentences with a small overlap",
    "whole": "Whole document: each file is one passage",
}
# What the uploader accepts; the hint under it lists these, in this order.
UPLOAD_TYPES = ["pdf", "md", "markdown", "txt"]
# An upload's results, kept for the one rerun that ends its background embedding (the page is
# drawn again then, and the results would vanish a second after they appeared).
LAST_OUTCOMES, KEPT_OUTCOMES = "upload-outcomes", "upload-outcomes-kept"

ui.require_frame()  # a first run may start here without app.py
ws = ui.workspace()
coll = ui.collection()
ui.style()


def intro() -> bool:
    """The caption for the collection in view; True when uploads are offered."""
    if coll == DEMO_COLLECTION:
        st.caption(
            "The demo collection mirrors the shipped folder corpus/demo and is read-only. "
            "Choose **My uploads** in the sidebar to add your own documents."
        )
        return False
    if not ws.collections.writable(coll):
        st.caption("This collection is shared and read-only on this deployment.")
        return False
    st.caption("Your documents. They are parsed, cut into passages and embedded on this machine.")
    if ws.collections.isolated():
        used_mb = sum(i.size_bytes for i in ws.docs.documents(coll)) / (1024 * 1024)
        quota_mb = ws.collections.session_quota_bytes() / (1024 * 1024)
        ttl_h = ws.collections.session_ttl_s() / 3600
        st.caption(
            f"Private to you: other visitors cannot see these documents. {used_mb:.1f} MB of "
            f"{quota_mb:g} MB used; deleted after {ttl_h:g} hours without use."
        )
    return True


def upload_section(documents_area) -> None:
    limit_mb = config.settings().max_upload_mb
    with st.form("upload-form", clear_on_submit=True):
        files = st.file_uploader(
            "Add PDF, Markdown or text files",
            type=UPLOAD_TYPES,
            accept_multiple_files=True,
            help=f"Up to {limit_mb:g} MB per file (RAGCORE_MAX_UPLOAD_MB).",
            max_upload_size=max(1, int(limit_mb + 0.999)),
        )
        chunking = st.selectbox("Chunking", CHUNKINGS, format_func=CHUNKING_HELP.get, key="upload-chunking")
        add = st.form_submit_button("Add to library", type="primary")
    if add and not files:
        st.warning("Choose one or more files first.")
    if not (add and files):
        kept = st.session_state.pop(KEPT_OUTCOMES, None)
        if kept is not None and kept[0] == coll:  # the rerun that ends background embedding
            st.caption(upload_summary(kept[1]))
            show_outcomes(kept[1])
        return
    documents_area.empty()  # the list below is out of date until the upload ends: not shown meanwhile
    bar = st.progress(0.0, text="Starting…")
    outcomes = []
    for i, f in enumerate(files):

        def step(stage: str, fraction: float, i: int = i) -> None:
            bar.progress(min(1.0, (i + fraction) / len(files)), text=stage)

        outcomes.append(
            ws.docs.upload(coll, f.name, f.getvalue(), chunking, progress=step, embed="background")
        )
    bar.progress(1.0, text=upload_summary(outcomes))
    show_outcomes(outcomes)
    st.session_state[LAST_OUTCOMES] = (coll, outcomes)


def upload_summary(outcomes: list[UploadOutcome]) -> str:
    added = sum(1 for o in outcomes if o.ok)
    same = sum(1 for o in outcomes if o.status == "duplicate")
    refused = len(outcomes) - added - same
    parts = [f"{added} added"] + ([f"{same} already in the library"] if same else []) + [f"{refused} refused"]
    return f"Done with {len(outcomes)} file{'s' if len(outcomes) != 1 else ''}: " + ", ".join(parts)


def show_outcomes(outcomes: list[UploadOutcome]) -> None:
    """This upload's results, shown once (they do not come back on a later visit)."""
    for o in outcomes:
        if o.ok:
            st.success(ui.md(f"{o.name}: {o.message}"), icon=":material/check_circle:")
        elif o.status == "duplicate":
            st.info(ui.md(f"{o.name}: {o.message}"), icon=":material/content_copy:")
        else:
            st.error(ui.md(f"{o.name} was not added: {o.message}"), icon=":material/error:")


@st.fragment(run_every=1.0)
def embedding_live() -> None:
    """Background embedding of this collection (#18), refreshed each second until it ends."""
    now = ws.indexes.embedding_progress(coll)
    if not now.running:
        # Finished: the whole page shows the final state, this upload's results included (once).
        if LAST_OUTCOMES in st.session_state:
            st.session_state[KEPT_OUTCOMES] = st.session_state.pop(LAST_OUTCOMES)
        st.rerun()
    st.progress(
        now.fraction, text=f"Embedding {now.done} of {now.total} passages; keyword search works meanwhile"
    )


def documents_table(infos) -> None:
    whole = [i.name for i in infos if i.chunking == "whole"]
    if whole:
        st.warning(
            f"Whole-document mode: {ui.md(', '.join(whole))} {'is' if len(whole) == 1 else 'are'} one passage "
            "per file. Ask then cites the whole file, and a model would be sent the whole file.",
            icon=":material/description:",
        )
    table = pd.DataFrame(
        [
            {
                "Document": i.name,
                "Type": i.kind.upper(),
                "Passages": i.passages,
                "Size (KB)": round(i.size_bytes / 1024, 1),
                "Added": datetime.fromtimestamp(i.added_at).strftime("%Y-%m-%d %H:%M"),
                "Chunking": i.chunking,
                "Title": i.title,
            }
            for i in infos
        ]
    )
    st.dataframe(table, hide_index=True, width="stretch")


def document_actions(name: str) -> None:
    """Re-chunk and remove, for collections that can change (never the demo mirror)."""
    if coll == DEMO_COLLECTION or not ws.collections.writable(coll):
        return
    actions = st.columns([3, 1, 2], vertical_alignment="bottom")
    new_chunking = actions[0].selectbox(
        "Re-chunk with",
        [c for c in CHUNKINGS if c != "auto"],
        format_func=CHUNKING_HELP.get,
        key="rechunk-choice",
    )
    if actions[1].button("Re-chunk", key="rechunk"):
        with st.spinner(f"Re-chunking {ui.md(name)}…"):
            count = ws.docs.rechunk(coll, name, new_chunking)
        st.session_state["library-note"] = f"{name}: {count} passages with {new_chunking} chunking"
        st.rerun()
    with actions[2].popover("Remove from library", icon=":material/delete:"):
        st.markdown(ui.md(f"Remove {name}? Its passages and vectors are deleted; this cannot be undone."))
        if st.button("Yes, remove it", key="remove", type="primary"):
            ws.docs.remove(coll, name)
            st.session_state["library-note"] = f"Removed {name}"
            st.session_state.pop("outcome", None)  # its citations may point at the removed file
            st.rerun()


def passages_section(name: str, info) -> None:
    st.markdown(f"**Passages of {ui.md(name)}** · {info.passages} with {info.chunking} chunking")
    try:
        passages = ws.docs.passages_of(coll, name)
    except errors.LibraryError as exc:
        st.error(ui.md(exc))
        return
    rows = [
        {
            "#": p.index + 1,
            "Lines": ui.span_text(p.first_line, p.last_line),
            "Pages": ", ".join(str(x) for x in p.pages),
            "Section": p.label,
            "Characters": len(p.text),
            "Start": " ".join(p.text.split())[:90],
        }
        for p in passages
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    pick = st.number_input("Show passage", 1, max(1, len(passages)), 1, key="passage-pick")
    p = passages[int(pick) - 1]
    st.caption(ui.md(f"{p.citation} · {p.label}"))
    view = ws.docs.document_view(coll, name, p.first_line, p.last_line, context=2)
    st.html(ui.CSS + ui.lines_html(view))


def documents_section() -> None:
    infos = ws.docs.documents(coll)
    st.subheader(f"Documents ({len(infos)})")
    if not infos:
        st.info("No documents yet.")
        return
    documents_table(infos)
    name = st.selectbox("Document", [i.name for i in infos], key="library-doc")
    document_actions(name)
    note = st.session_state.pop("library-note", None)
    if note:
        st.toast(ui.md(note))
        st.caption(ui.md(note))
    passages_section(name, next(i for i in infos if i.name == name))
    st.divider()
    curated_ui.library_section(ws, coll)


st.title("Library")
ws.collections.ensure_demo()
offers_upload = intro()
upload_area = st.container()
documents_area = st.empty()  # its own slot: emptied while an upload runs above it
if offers_upload:
    with upload_area:
        upload_section(documents_area)
    embedding_now = ws.indexes.embedding_progress(coll)
    if embedding_now.running:
        embedding_live()
    elif embedding_now.error:
        st.warning(
            ui.md(f"Embedding failed ({embedding_now.error}); questions use keyword search meanwhile.")
        )
with documents_area.container():
    documents_section()
