"""An address typed into a fresh process: the first script run of a Streamlit
process follows its pages-folder rule and may run a page file without the app's
frame, listing every file of pages/ as a page. The visitor must get the full
app instead: sidebar, the four pages and nothing else, no "Page not found"."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from ragcore.answer.llm import PROVIDERS
from tests.app.helpers import shared_home
from tests.browser.serve import REPO, streamlit_app
from tests.browser.test_app_browser import CHROMIUM, SHOTS, _free_port, _need_chromium

pytestmark = pytest.mark.browser
PAGES = ["Ask", "Library", "Evaluation", "How it works"]
HEADINGS = {"evaluation": "Evaluation", "how_it_works": "How it works"}


@pytest.fixture()
def fresh_server(tmp_path, tmp_path_factory) -> Iterator[str]:
    """A new ``streamlit run`` process that no browser has visited yet."""
    _need_chromium()
    keys = {key_env for key_env, _, _ in PROVIDERS}
    env = {k: v for k, v in os.environ.items() if k not in keys and k != "RAGCORE_LLM_MODEL"}
    env.update(RAGCORE_HOME=str(shared_home(tmp_path_factory)), PYTHONPATH=str(REPO))
    with streamlit_app(_free_port(), env, tmp_path / "streamlit.log") as url:
        yield url


def _nav_labels(tab) -> list[str]:
    links = tab.get_by_test_id("stSidebarNav").get_by_test_id("stSidebarNavLink")
    return [link.inner_text().split("\n")[-1].strip() for link in links.all()]


@pytest.mark.parametrize("address", sorted(HEADINGS))
def test_a_deep_link_on_a_fresh_process_shows_the_whole_app(fresh_server, address) -> None:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        tab.set_default_timeout(60_000)
        tab.goto(f"{fresh_server}/{address}")
        # The frame's own sidebar widget: it exists only when app.py ran.
        tab.get_by_test_id("stSidebar").get_by_text("Demo documents").wait_for()
        tab.wait_for_timeout(1500)  # a late "Page not found" dialog would show by now
        tab.screenshot(path=str(SHOTS / f"20-deep-link-{address}.png"))
        labels = _nav_labels(tab)
        text = tab.inner_text("body")
        browser.close()
    assert labels == PAGES, labels
    assert "Page not found" not in text
    assert HEADINGS[address] in text.split("\n")
