"""The app in a real browser: ``streamlit run`` on 127.0.0.1, driven by
headless Chromium (Debian's, at /usr/bin/chromium) through Playwright.

Asks the pricing question, opens a citation and checks that the marked lines
are visible, then opens Evaluation and checks that a chart renders.
Screenshots go to artifacts/screenshots/ (git-ignored).

Where Chromium is missing the test skips, saying how to install it; under
CI (CI=true) it fails instead, because CI installs it.
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragcore.answer.llm import PROVIDERS
from tests.app.helpers import shared_home
from tests.browser.serve import streamlit_app
from tests.browser.upload import add_to_library
from tests.test_service import small_run

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = REPO / "artifacts" / "screenshots"
PRICING = "Is our pricing consistent?"

pytestmark = pytest.mark.browser


def _need_chromium() -> None:
    if CHROMIUM.is_file():
        return
    message = (
        f"{CHROMIUM} is missing: install Debian's Chromium with "
        "`apt-get install chromium` (never `playwright install`)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """``streamlit run app.py`` with a fresh library and one stored run."""
    _need_chromium()
    home = tmp_path_factory.mktemp("browser")
    results = home / "results"
    results.mkdir()
    (results / "tiny.json").write_text(json.dumps(small_run(("bm25", "hybrid"))))
    keys = {key_env for key_env, _, _ in PROVIDERS}
    env = {k: v for k, v in os.environ.items() if k not in keys and k != "RAGCORE_LLM_MODEL"}  # no model
    env.update(
        RAGCORE_HOME=str(shared_home(tmp_path_factory)),  # the app tests' library: the demo is embedded once
        RAGCORE_RESULTS_DIR=str(results),
        PYTHONPATH=str(REPO),
    )
    with streamlit_app(_free_port(), env, home / "streamlit.log") as url:
        yield url


@pytest.fixture(scope="module")
def page(server: str):
    playwright = pytest.importorskip("playwright.sync_api")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        tab = browser.new_page(viewport={"width": 1440, "height": 1000})
        tab.set_default_timeout(60_000)
        tab.goto(server)
        yield tab
        browser.close()


def test_ask_the_pricing_question_and_see_the_cited_lines_marked(page) -> None:
    page.get_by_role("heading", name="Ask").wait_for()
    page.get_by_role("radio", name=PRICING).click()  # an example question (pills)
    # The first question may embed the demo once (no shipped vectors): allow for it.
    page.get_by_role("heading", name="Retrieved passages").wait_for(timeout=240_000)
    page.get_by_role("heading", name="Money lens").wait_for()
    first = page.get_by_role("button", name=re.compile(r"^\[1\] "))
    first.wait_for(state="visible")
    page.screenshot(path=str(SHOTS / "01-ask-answer.png"))

    label = first.inner_text()
    span = re.search(r"lines? (\d+)(?:-(\d+))?", label)
    assert span, label
    lo, hi = int(span.group(1)), int(span.group(2) or span.group(1))
    first.click()

    dialog = page.get_by_role("dialog")
    marked = dialog.locator(".rc-marked")
    marked.first.wait_for(state="visible")
    assert marked.count() == hi - lo + 1
    numbers = [int(n) for n in marked.locator(".rc-no").all_inner_texts()]
    assert numbers == list(range(lo, hi + 1))
    for k in range(marked.count()):
        assert marked.nth(k).is_visible()
    box = marked.first.bounding_box()
    assert box is not None and box["height"] > 0 and box["width"] > 200
    # Marked lines stand out: their background differs from the unmarked ones.
    colours = dialog.locator(".rc-line").evaluate_all(
        "els => els.map(e => [e.classList.contains('rc-marked'), getComputedStyle(e).backgroundColor])"
    )
    assert {c for m, c in colours if m}.isdisjoint({c for m, c in colours if not m})
    page.screenshot(path=str(SHOTS / "02-citation.png"))
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")


def test_evaluation_renders_a_chart(page) -> None:
    page.get_by_role("link", name="Evaluation").click()
    page.get_by_role("heading", name="tiny").wait_for()
    chart = page.locator("[data-testid='stVegaLiteChart']").first
    chart.wait_for(state="visible")
    drawing = chart.locator("canvas, svg.marks").first
    drawing.wait_for(state="visible")
    box = drawing.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 150
    page.screenshot(path=str(SHOTS / "03-evaluation.png"))


def test_library_and_how_it_works_render(page) -> None:
    page.get_by_role("link", name="Library").click()
    page.get_by_role("heading", name=re.compile(r"^Documents \(\d+\)$")).wait_for()
    page.screenshot(path=str(SHOTS / "04-library.png"))
    page.get_by_role("link", name="How it works").click()
    page.get_by_role("heading", name="How it works").wait_for()
    page.get_by_text("Last query, stage by stage").wait_for()
    page.screenshot(path=str(SHOTS / "05-how-it-works.png"))


HOSTILE_MD = b"""# Beacon memo <b>bold</b> <script>alert(1)</script>

The plan costs 49 dollars a month. <script>alert(1)</script>
<img src="http://example.invalid/beacon.png" onerror="alert(2)">
See [click me](javascript:alert(3)) and ![beacon](http://example.invalid/b.png) for the terms.

## Support

Support is by email only.
"""


def test_hostile_document_text_renders_inert(page, tmp_path) -> None:
    """Script tags, image beacons and javascript: links in a document are
    shown as text: nothing runs, loads or links."""
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.get_by_role("link", name="Library").click()
    page.get_by_role("heading", name=re.compile(r"^Documents \(\d+\)$")).wait_for()
    page.get_by_test_id("stSidebar").get_by_text("My uploads").click()
    source = tmp_path / "beacon.md"
    source.write_bytes(HOSTILE_MD)
    add_to_library(page, [source])
    page.get_by_text(re.compile(r"beacon\.md.*added")).wait_for(timeout=240_000)
    page.get_by_text("Passages of beacon.md", exact=False).wait_for()
    viewer = page.locator(".rc-doc").last
    viewer.wait_for(state="visible")
    literal = viewer.get_by_text("<script>alert(1)</script>").first
    literal.wait_for(state="visible")
    assert literal.is_visible()
    assert viewer.get_by_text("[click me](javascript:alert(3))").first.is_visible()
    app = page.locator("[data-testid='stApp']")
    assert app.locator("script", has_text="alert(1)").count() == 0
    assert page.locator("script", has_text="alert(").count() == 0
    assert page.locator("img[src*='example.invalid']").count() == 0
    assert page.locator("a[href^='javascript:']").count() == 0
    assert page.locator("[onerror]").count() == 0
    assert page.locator("b", has_text="bold").count() == 0  # the <b> is text too
    page.screenshot(path=str(SHOTS / "06-inert-document.png"))
    assert dialogs == []
