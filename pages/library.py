"""Library: add, list, remove and re-chunk documents; see a document's passages."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import streamlit as st

from pages import _curated as curated_ui
from pages import _ui as ui
from ragcore import config, errors
from ragcore.services import CHUNKINGS, DEMO_COLLECTION, UPLOAD_SUFFIXES

CHUNKING_HELP = {
    "auto": "Auto: Markdown and text by headings, PDFs by sentences",
    "heading": "Headings: one passage per section, long sections split",
    "sentence": "Sentences: runs of whole sentences with a small overlap",
    "whole": "Whole document: each file is one passage",
}

ws = ui.workspace()
coll = ui.collection()
ui.style()

st.title("Library")
ws.collections.ensure_demo()

if coll == DEMO_COLLECTION:
    st.caption(
        "The demo collection mirrors the shipped folder corpus/demo. "
        "Choose **My uploads** in the sidebar to add your own documents."
    )
elif not ws.collections.writable(coll):
    st.caption("This collection is shared and read-only on this deployment.")
else:
    st.caption("Your documents. They are parsed, cut into passages and embedded on this machine.")
    limit_mb = config.settings().max_upload_mb
    if ws.collections.isolated():
        used_mb = sum(i.size_bytes for i in ws.docs.documents(coll)) / (1024 * 1024)
        quota_mb = ws.collections.session_quota_bytes() / (1024 * 1024)
        ttl_h = ws.collections.session_ttl_s() / 3600
        st.caption(
            f"Private to you: other visitors cannot see these documents. {used_mb:.1f} MB of "
            f"{quota_mb:g} MB used; deleted after {ttl_h:g} hours without use."
        )
    with st.form("upload-form", clear_on_submit=True):
        files = st.file_uploader(
            "Add PDF, TXT or Markdown files",
            type=list(UPLOAD_SUFFIXES),
            accept_multiple_files=True,
            help=f"Up to {limit_mb:g} MB per file (RAGCORE_MAX_UPLOAD_MB).",
            max_upload_size=max(1, int(limit_mb + 0.999)),
        )
        chunking = st.selectbox("Chunking", CHUNKINGS, format_func=CHUNKING_HELP.get, key="upload-chunking")
        add = st.form_submit_button("Add to library", type="primary")
    if add and files:
        bar = st.progress(0.0, text="Starting…")
        outcomes = []
        for i, f in enumerate(files):

            def step(stage: str, fraction: float, i: int = i) -> None:
                bar.progress(min(1.0, (i + fraction) / len(files)), text=stage)

            outcomes.append(ws.docs.upload(coll, f.name, f.getvalue(), chunking, progress=step))
        bar.progress(1.0, text=f"Done: {len(files)} file(s)")
        st.session_state["upload-outcomes"] = [(o.name, o.status, o.message) for o in outcomes]
    elif add:
        st.warning("Choose one or more files first.")
    for name, status, message in st.session_state.get("upload-outcomes", []):
        if status in ("added", "replaced"):
            st.success(ui.md(f"{name}: {message}"), icon=":material/check_circle:")
        elif status == "duplicate":
            st.info(ui.md(f"{name}: {message}"), icon=":material/content_copy:")
        else:
            st.error(ui.md(f"{name} was not added: {message}"), icon=":material/error:")

infos = ws.docs.documents(coll)
st.subheader(f"Documents ({len(infos)})")
if not infos:
    st.info("No documents yet.")
    st.stop()

whole = [i.name for i in infos if i.chunking == "whole"]
if whole:
    st.warning(
        f"Whole-document mode: {ui.md(', '.join(whole))} {'is' if len(whole) == 1 else 'are'} one passage per file. "
        "Ask then cites the whole file, and a model would be sent the whole file.",
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

names = [i.name for i in infos]
name = st.selectbox("Document", names, key="library-doc")
info = next(i for i in infos if i.name == name)

if ws.collections.writable(coll):  # the demo is read-only under session isolation
    actions = st.columns([2, 2, 3], vertical_alignment="bottom")
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
    if coll != DEMO_COLLECTION and actions[2].button(
        "Remove from library", key="remove", icon=":material/delete:"
    ):
        ws.docs.remove(coll, name)
        st.session_state["library-note"] = f"Removed {name}"
        st.session_state.pop("outcome", None)  # its citations may point at the removed file
        st.rerun()

note = st.session_state.pop("library-note", None)
if note:
    st.toast(ui.md(note))
    st.caption(ui.md(note))

st.markdown(f"**Passages of {ui.md(name)}** · {info.passages} with {info.chunking} chunking")
try:
    passages = ws.docs.passages_of(coll, name)
except errors.LibraryError as exc:
    st.error(ui.md(exc))
    st.stop()
st.dataframe(
    pd.DataFrame(
        [
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
    ),
    hide_index=True,
    width="stretch",
)
pick = st.number_input("Show passage", 1, max(1, len(passages)), 1, key="passage-pick")
p = passages[int(pick) - 1]
st.caption(ui.md(f"{p.citation} · {p.label}"))
view = ws.docs.document_view(coll, name, p.first_line, p.last_line, context=2)
st.html(ui.CSS + ui.lines_html(view))

st.divider()
curated_ui.library_section(ws, coll)
