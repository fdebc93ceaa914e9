"""Shared pieces of the pages: the cached workspace, the sidebar state, and
renderers for document text.

Document text is never given to Markdown or to ``unsafe_allow_html``: it is
escaped with ``html.escape`` piece by piece and wrapped in markup written
here, then shown with ``st.html`` (which sanitises again).
"""

from __future__ import annotations

import base64
import html
import re
import runpy
from pathlib import Path

import streamlit as st

from ragcore import config, owner
from ragcore.pdf_marks import mark_band
from ragcore.records import Passage
from ragcore.services import DEMO_COLLECTION, DocumentView, Workspace
from ragcore.services.generation import LOCAL_LABEL  # noqa: F401 - the sidebar's label for a local model

APP_SCRIPT = Path(__file__).resolve().parents[2] / "app.py"
MODES = {
    "hybrid": "Hybrid (BM25 + dense, fused)",
    "bm25": "BM25 (words)",
    "dense": "Dense (meaning)",
    "widen": "Widened dense pool",
    "rerank": "Hybrid + cross-encoder rerank",
}
LENSES = {"auto": "Auto", "money": "Money", "risk": "Risk", "none": "None"}
PRIVACY = (
    "Documents stay on this machine. Only the matched passages are sent to a model, "
    "and only when a key is set."
)

CSS = """
<style>
.rc-doc{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:0.84rem;
  line-height:1.45;border:1px solid #d9dee5;border-radius:6px;background:#fbfcfd;overflow-x:auto;padding:4px 0}
.rc-line{display:flex;white-space:pre-wrap;word-break:break-word;padding:0 10px 0 0}
.rc-no{flex:0 0 4.2em;text-align:right;padding-right:0.9em;color:#8a94a3;user-select:none}
.rc-pg{flex:0 0 3.2em;color:#8a94a3;user-select:none}
.rc-text{flex:1 1 auto;color:#1f2933}
.rc-marked{background:#fff3bf;border-left:3px solid #e8a700}
.rc-marked .rc-no{color:#8a5a00;font-weight:600}
.rc-answer{font-size:1.02rem;line-height:1.6;color:#1f2933}
.rc-answer p{margin:0 0 0.6em 0}
.rc-cite{display:inline-block;font-size:0.72rem;font-weight:600;color:#1c4f82;background:#e7f0fa;
  border-radius:4px;padding:0 4px;margin:0 1px;vertical-align:super;line-height:1.2}
.rc-passage{font-size:0.9rem;line-height:1.5;white-space:pre-wrap;color:#1f2933;border-left:3px solid #d9dee5;
  padding:2px 0 2px 10px;max-height:16em;overflow-y:auto}
</style>
"""


# ------------------------------------------------------------ frame


def require_frame() -> None:
    """Make sure this page runs inside app.py's frame (sidebar, page config).

    With a ``pages/`` folder beside the entry point, Streamlit's first script
    run of a process follows its older pages-folder rule: an address such as
    ``/evaluation`` runs ``pages/evaluation.py`` alone, and every file there is
    listed as a page. Then the rule is turned off and app.py runs in its
    place, whose ``st.navigation`` serves this same page inside the frame;
    app.py is run here rather than by a rerun, which would drop the click or
    upload this run was started by.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        runpy.run_path(str(APP_SCRIPT), run_name="__main__")
        st.stop()


# ------------------------------------------------------------ workspace


@st.cache_resource(show_spinner=False)
def _workspace(home: str) -> Workspace:
    return Workspace(Path(home))


# Imported by the warm-up once the first page is drawn, not by that page's run:
# the Ask page's tables need pandas only once there is an answer (#18 cold start).
IMPORT_AHEAD = ("pandas",)


def warm_up() -> None:
    """Load the demo, its indexes and then the model in a background thread,
    once per process; called by app.py before the page runs, so the first
    question finds them ready (a failure is logged and shown in the sidebar)."""
    workspace().start_warm_up(IMPORT_AHEAD)


def page_drawn() -> None:
    """Called by app.py at the end of each run: the first lets the warm-up load the model."""
    workspace().page_drawn()


def workspace() -> Workspace:
    """The process-wide workspace for RAGCORE_HOME (created once)."""
    return _workspace(str(config.settings().home.resolve()))


def session_id() -> str:
    """Who owns this session's private data (uploads under RAGCORE_ISOLATION=session,
    the AI log, reviews, exports): the signed-in user where Streamlit's
    authentication is configured, else this browser.

    The browser is known by a signed random token (``ragcore.owner``) kept in
    the page's URL (``?owner=...``, put back on every run so a reload of any
    page finds the same uploads); a missing, altered or made-up token gets a
    fresh one. The token is never logged; the owner id is its hash."""
    user = signed_in_user()
    if user:
        return "user:" + user
    token = st.session_state.get("_ragcore_token")
    if not token:
        secret = owner.server_secret(config.settings().home)
        given = st.query_params.get(owner.QUERY_PARAMETER) or st.context.cookies.get("ragcore_owner")
        token = given if owner.owner_of(given, secret) else owner.issue_token(secret)
        st.session_state["_ragcore_token"] = token
        st.session_state["_ragcore_session"] = owner.owner_of(token, secret).removeprefix("browser:")
    if st.query_params.get(owner.QUERY_PARAMETER) != token:
        st.query_params[owner.QUERY_PARAMETER] = token
    return "browser:" + st.session_state["_ragcore_session"]


def signed_in_user() -> str | None:
    """The signed-in user's e-mail (else subject id) under st.login, or None."""
    try:
        user = getattr(st, "user", None)
        if user is None or not user.is_logged_in:
            return None
        found = user.get("email") or user.get("sub")
        return str(found) if found else None
    except Exception:  # authentication not configured
        return None


def collection() -> str:
    """The collection chosen in the sidebar (the demo by default)."""
    return st.session_state.get("collection", DEMO_COLLECTION)


def mode() -> str:
    return st.session_state.get("mode", "hybrid")


def style() -> None:
    st.html(CSS)


# -------------------------------------------------------------- rendering


def lines_html(view: DocumentView) -> str:
    """Numbered lines, the cited ones marked; every text piece escaped."""
    show_pages = view.kind == "pdf"
    rows = []
    for line in view.lines:
        cls = "rc-line rc-marked" if line.marked else "rc-line"
        page = f'<span class="rc-pg">p.{line.page}</span>' if show_pages and line.page else ""
        text = html.escape(line.text) if line.text else "&#8203;"
        rows.append(
            f'<div class="{cls}"><span class="rc-no">{line.number}</span>{page}<span class="rc-text">{text}</span></div>'
        )
    return '<div class="rc-doc">' + "".join(rows) + "</div>"


_MARKER = re.compile(r"\[(\d+)\]")


def answer_html(text: str) -> str:
    """An answer's text, escaped, with its [n] markers as small chips."""
    paragraphs = [p for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]
    out = []
    for para in paragraphs:
        escaped = html.escape(para)
        escaped = _MARKER.sub(lambda m: f'<span class="rc-cite">{m.group(1)}</span>', escaped)
        out.append("<p>" + escaped.replace("\n", "<br>") + "</p>")
    return '<div class="rc-answer">' + "".join(out) + "</div>"


def passage_html(passage: Passage) -> str:
    return '<div class="rc-passage">' + html.escape(passage.text) + "</div>"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$=^&])")


def md(text: object) -> str:
    """Text shown literally where Streamlit reads Markdown (labels, captions,
    alerts): punctuation is backslash-escaped, and a zero-width space after
    each colon breaks icon shortcodes and bare-URL links, so a document or a
    model can never inject links, images, colours or formulas."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace(":", ":\u200b")


ROW_PX = 35  # a st.dataframe row, header included, at the default theme


def table_height(rows: int) -> int:
    """A st.dataframe height that shows ``rows`` rows and the header without a scroll bar."""
    return (rows + 1) * ROW_PX + 3


def span_text(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"


def show_source(ws: Workspace, coll: str, doc: str, first: int, last: int, key: str) -> None:
    """The source document around lines first..last, those lines marked;
    for a PDF also the cited page with the lines highlighted."""
    context = st.session_state.get(f"{key}-context", 8)
    view = ws.docs.document_view(coll, doc, first, last, context=context)
    st.markdown(f"**{md(view.title)}**")
    st.caption(f"{md(view.citation)} · {view.total_lines} lines in all")
    st.html(CSS + lines_html(view))
    st.slider("Lines of context", 2, 60, context, step=2, key=f"{key}-context")
    if view.kind == "pdf":
        _pdf_page(ws, coll, view, key)


def _pdf_page(ws: Workspace, coll: str, view: DocumentView, key: str) -> None:
    page = view.pages[0] if view.pages else None
    if page is None:
        return
    data = ws.docs.marked_pdf_page(coll, view.name, view.first_line, view.last_line)
    if data is None:
        st.caption("The original PDF is not stored, so only its text is shown.")
        return
    st.markdown(f"**Page {page} of the PDF**, cited lines highlighted")
    if _has_pdf_viewer():
        from streamlit_pdf import pdf_viewer

        # A data address rather than a media file, which the server drops when the dialog closes
        # while the viewer may still ask for it (a 404 for /media/<hash>.pdf).
        pdf_viewer(
            "data:application/pdf;base64," + base64.b64encode(data).decode(), height=640, key=f"{key}-pdf"
        )
        band = mark_band(data)
        if band is not None:
            _scroll_dialog_to(band[0])
    st.download_button(
        f"Download page {page} (highlighted PDF)",
        data,
        file_name=f"{Path(view.name).stem}-p{page}.pdf",
        mime="application/pdf",
        key=f"{key}-pdf-dl",
    )


# The dialog scrolls, not the viewer (it draws the page at full height): once the page is drawn,
# bring the mark to the upper third of the dialog. The viewer draws inside a shadow root. A
# components.v2 script runs in the page itself (no iframe, so no iframe permission warnings).
_SCROLL_JS = """
function scrollTo(scroller, y) {
  scroller.scrollTop += y - scroller.getBoundingClientRect().top - scroller.clientHeight / 3;
}
function innerScroller(el) {
  for (let e = el.parentElement; e; e = e.parentElement) {
    const overflow = getComputedStyle(e).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && e.scrollHeight > e.clientHeight) return e;
  }
  return null;
}
export default function (component) {
  const top = component.data.top;
  const host = component.parentElement.host || component.parentElement;
  let tries = 0;
  const timer = setInterval(() => {
    tries += 1;
    const dialog = host.closest(".stDialog");
    let canvas = null;
    for (const el of dialog ? dialog.querySelectorAll("*") : []) {
      const found = el.shadowRoot && el.shadowRoot.querySelector("[class*='_pageContainer_'] canvas");
      if (found && found.getBoundingClientRect().height > 100) canvas = found;
    }
    if (canvas) {
      const mark = () => { const r = canvas.getBoundingClientRect(); return r.top + top * r.height; };
      const viewer = innerScroller(canvas);
      if (viewer) scrollTo(viewer, mark());
      scrollTo(dialog, mark());
    }
    if (canvas || tries > 50) clearInterval(timer);
  }, 200);
  return () => clearInterval(timer);
}
"""
_scroll_to_mark = st.components.v2.component("ragcore.scroll_to_mark", js=_SCROLL_JS)


def _scroll_dialog_to(top: float) -> None:
    _scroll_to_mark(data={"top": round(top, 4)}, key="scroll-to-mark")


def _has_pdf_viewer() -> bool:
    try:
        import streamlit_pdf  # noqa: F401
    except ImportError:
        return False
    return True
