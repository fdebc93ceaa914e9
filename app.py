"""ragcore: grounded questions over documents, with line-exact citations.

Entry point for ``streamlit run app.py`` (and Streamlit Community Cloud). The
frame only sets up: settings from secrets, the sidebar, the four pages. All
work happens in ``ragcore`` (``ragcore/services/``).
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from ragcore import config
from ragcore.startup_trace import mark

mark("app.py run starts")  # a server has imported streamlit already: this is the run's start (#18)

# Secrets of the same names as the environment settings (RAGCORE_*, provider
# keys) become environment variables; variables already set win.
try:
    config.apply_overrides(dict(st.secrets))
except StreamlitSecretNotFoundError:
    pass

# The favicon ships with the app: a Material Symbols icon here is fetched from the internet on every load.
ICON = Path(__file__).resolve().parent / "assets" / "ragcore-icon.png"
st.set_page_config(page_title="ragcore", page_icon=str(ICON), layout="wide")

from pages.views import ui  # noqa: E402 - after set_page_config, which must come first

mark("app.py imports done")

# The demo, the model and the demo's indexes load in a background thread from
# the first run on (once per process), beside the page's own imports and the
# browser's drawing, so the first question finds them ready (a failure is
# logged and shown in the sidebar).
ui.warm_up()

# Each page's address is its file name (/library, /evaluation, /how_it_works):
# on a process's first run Streamlit may run a page file alone for such an
# address (a pages/ folder beside the entry point); ui.require_frame() then
# reruns it here, where the same name finds the same page.
PAGES = [
    st.Page("pages/ask.py", title="Ask", icon=":material/question_answer:", default=True),
    st.Page("pages/library.py", title="Library", icon=":material/folder_open:"),
    st.Page("pages/evaluation.py", title="Evaluation", icon=":material/monitoring:"),
    st.Page("pages/how_it_works.py", title="How it works", icon=":material/schema:"),
]


def model_status() -> str:
    found = ui.workspace().asking.model(os.environ)
    if found is None:
        return "No key: extractive answers"
    return f"Model: {found.model}" + (f" ({ui.LOCAL_LABEL})" if found.on_this_machine else "")


def sidebar() -> None:
    ws = ui.workspace()
    owner = ui.session_id()
    ws.collections.open_session(owner)  # keeps this session's private collection alive, expires ended ones
    choices = ws.collections.collection_choices(owner)
    with st.sidebar:
        label = st.radio("Collection", list(choices), key="collection-label")
        st.session_state["collection"] = choices[label]
        st.selectbox(
            "Retrieval",
            list(ui.MODES),
            format_func=ui.MODES.get,
            key="mode",
            help="How passages are found. Hybrid fuses word matching (BM25) with meaning (dense vectors).",
        )
        status = model_status()
        st.markdown(f"**Answers** · {ui.md(status)}")
        st.caption(ui.PRIVACY)
        if ws.warm_error:
            st.warning(
                ui.md(
                    f"Loading the model in the background failed ({ws.warm_error}); the first question loads it."
                )
            )


navigation = st.navigation(PAGES)
sidebar()
try:
    navigation.run()
finally:  # also when the page stops early (st.stop): the warm-up waits for this
    ui.page_drawn()
    mark("app.py run ends")
