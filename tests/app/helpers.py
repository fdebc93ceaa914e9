"""Running the app under AppTest."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "app.py"
TIMEOUT = 300  # seconds per script run: the first one may embed the demo


def plain(shown: str) -> str:
    """Text as the reader sees it, from a value the page escaped for Markdown
    (``pages.views.ui.md``): backslash escapes and zero-width spaces removed."""
    return re.sub(r"\\(.)", r"\1", shown).replace("\u200b", "")


def shared_home(tmp_path_factory) -> Path:
    """One library home per pytest session, shared by the app and browser
    tests, so the demo is synced and embedded once."""
    home = tmp_path_factory.getbasetemp() / "shared-app-home"
    home.mkdir(exist_ok=True)
    return home


def start(page: str | None = None) -> AppTest:
    """The app (frame and navigation), run once, optionally switched to a page."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not at.exception, at.exception
    if page is not None:
        at.switch_page(page).run()
        assert not at.exception, at.exception
    return at
