"""What a first visitor trips over, walked in Chromium at 1400 x 900: an empty
question, an overlong question, an upload whose files are all refused, a remove
that asks first, and the Evaluation page opening on the demo run with every
column visible. Every request the page makes is recorded: none may leave
127.0.0.1. Screenshots go to artifacts/screenshots/ (git-ignored)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from ragcore.answer.llm import PROVIDERS
from tests.app.helpers import shared_home
from tests.browser.serve import REPO, streamlit_app
from tests.browser.test_app_browser import CHROMIUM, SHOTS, _free_port, _need_chromium
from tests.browser.upload import add_to_library

pytestmark = pytest.mark.browser
PRICING = "Is our pricing consistent?"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """``streamlit run app.py`` on 127.0.0.1 with the real stored runs (eval/results)."""
    _need_chromium()
    home = tmp_path_factory.mktemp("first-visit")
    keys = {key_env for key_env, _, _ in PROVIDERS}
    env = {k: v for k, v in os.environ.items() if k not in keys and k != "RAGCORE_LLM_MODEL"}
    env.update(RAGCORE_HOME=str(shared_home(tmp_path_factory)), PYTHONPATH=str(REPO))
    with streamlit_app(_free_port(), env, home / "streamlit.log") as url:
        yield url


@pytest.fixture(scope="module")
def visit(server: str):
    """A browser tab at 1400 x 900 and the list of every URL it requested."""
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    requested: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        tab = browser.new_page(viewport={"width": 1400, "height": 900})
        tab.on("request", lambda r: requested.append(r.url))
        tab.set_default_timeout(60_000)
        tab.goto(server)
        yield tab, requested
        browser.close()


def _ask(tab, question: str) -> None:
    box = tab.get_by_label("Question")
    box.fill(question)
    tab.get_by_role("button", name="Ask", exact=True).click()


def test_empty_and_overlong_questions_clear_the_answer(visit) -> None:
    tab, _ = visit
    tab.get_by_role("heading", name="Ask").wait_for()
    tab.get_by_role("radio", name=PRICING).click()
    tab.get_by_role("heading", name="Retrieved passages").wait_for(timeout=240_000)
    _ask(tab, "   ")
    tab.get_by_text("Type a question first.").wait_for()
    tab.get_by_role("heading", name="Retrieved passages").wait_for(state="detached")
    assert tab.get_by_role("heading", name="Answer", exact=True).count() == 0
    tab.screenshot(path=str(SHOTS / "10-empty-question.png"))
    _ask(tab, "price " * 200)
    tab.get_by_text(re.compile(r"limited to 1,000 characters")).wait_for()
    assert tab.get_by_role("heading", name="Answer", exact=True).count() == 0
    tab.screenshot(path=str(SHOTS / "11-long-question.png"))


PDF_CITATION = re.compile(r"^\[\d+\] (\S+\.pdf) · lines? (\d+)(?:-(\d+))? · p\. \d+$")
MARK_Y = """([top, bottom]) => {
  const dialog = document.querySelector(".stDialog");
  for (const el of dialog.querySelectorAll("*")) {
    const canvas = el.shadowRoot && el.shadowRoot.querySelector("[class*='_pageContainer_'] canvas");
    if (!canvas) continue;
    const r = canvas.getBoundingClientRect(), d = dialog.getBoundingClientRect();
    let view = canvas.parentElement;  // the nearest box that clips the page
    while (view && !/(auto|scroll|hidden)/.test(getComputedStyle(view).overflowY)) view = view.parentElement;
    const v = view ? view.getBoundingClientRect() : d;
    return {markTop: r.top + top * r.height, markBottom: r.top + bottom * r.height,
            viewTop: Math.max(v.top, d.top), viewBottom: Math.min(v.bottom, d.bottom)};
  }
  return null;
}"""


def test_a_pdf_citation_opens_scrolled_to_its_mark(visit, tmp_path_factory) -> None:
    from ragcore.pdf_marks import mark_band
    from ragcore.services import DEMO_COLLECTION, Workspace

    tab, _ = visit
    tab.get_by_role("link", name="Ask").click()
    tab.get_by_test_id("stSidebar").get_by_text("Demo documents").click()
    _ask(tab, "What monthly net burn does the board plan for the fourth quarter of 2026?")
    tab.get_by_role("button", name=re.compile(r"\.pdf · lines? \d+")).first.wait_for(timeout=240_000)
    cited = [t for t in tab.get_by_role("button").all_inner_texts() if PDF_CITATION.match(t.strip())]
    assert cited, "no PDF passage was cited or retrieved"
    # The latest-placed mark on its page: the one a viewer opened at the page's top hides best.
    home = shared_home(tmp_path_factory)
    bands = {}
    for label in dict.fromkeys(cited):
        name, first, last = PDF_CITATION.match(label.strip()).groups()
        data = Workspace(home).docs.marked_pdf_page(DEMO_COLLECTION, name, int(first), int(last or first))
        bands[label] = mark_band(data) if data else None
    label, band = max(((k, v) for k, v in bands.items() if v), key=lambda kv: kv[1][0])
    tab.get_by_role("button", name=label, exact=True).first.click()
    tab.get_by_role("dialog").wait_for()
    deadline = time.monotonic() + 30
    while True:  # the page is drawn, then scrolled to: poll until the mark is in view
        seen = tab.evaluate(MARK_Y, list(band))
        inside = seen and seen["viewTop"] <= seen["markTop"] and seen["markBottom"] <= seen["viewBottom"]
        if inside or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    tab.screenshot(path=str(SHOTS / "15-pdf-citation-scrolled.png"))
    tab.keyboard.press("Escape")
    assert inside, (label, band, seen)


def test_an_upload_with_every_file_refused_says_so(visit, tmp_path) -> None:
    tab, _ = visit
    tab.get_by_role("link", name="Library").click()
    tab.get_by_test_id("stSidebar").get_by_text("My uploads").click()
    tab.get_by_role("button", name="Add to library").wait_for()
    files = []
    for i in range(4):
        path = tmp_path / f"empty-{i}.txt"
        path.write_bytes(b"")
        files.append(str(path))
    add_to_library(tab, files)
    tab.get_by_text("Done with 4 files: 0 added, 4 refused").wait_for(timeout=240_000)
    refused = tab.get_by_test_id("stAlertContentError")
    refused.nth(3).wait_for()
    assert refused.count() == 4 and all("was not added" in t for t in refused.all_inner_texts())
    tab.screenshot(path=str(SHOTS / "12-upload-all-refused.png"), full_page=True)


def test_remove_asks_for_confirmation(visit, tmp_path) -> None:
    tab, _ = visit
    tab.get_by_role("link", name="Library").click()  # on its own too, not only after the upload test
    tab.get_by_test_id("stSidebar").get_by_text("My uploads").click()
    tab.get_by_role("button", name="Add to library").wait_for()
    stamp = time.time_ns()  # unique content: the library stores identical bytes once
    note = tmp_path / f"note-{stamp}.md"
    note.write_bytes(f"# Short note {stamp}\n\nThe office closes at six.\n".encode())
    before = tab.get_by_role("heading", name=re.compile(r"^Documents \(\d+\)$")).inner_text()
    count = int(re.search(r"\d+", before).group())
    add_to_library(tab, [note])
    tab.get_by_test_id("stAlertContentSuccess").filter(has_text=f"note-{stamp}").wait_for(timeout=240_000)
    # The outcome is drawn before the documents list of the same run: wait for the new count.
    tab.get_by_role("heading", name=f"Documents ({count + 1})").wait_for()
    tab.get_by_test_id("stSelectbox").filter(has_text="Document").locator("input").first.fill(note.name)
    tab.keyboard.press("Enter")
    tab.get_by_role("button", name="Remove from library").click()
    confirm = tab.get_by_role("button", name="Yes, remove it")
    confirm.wait_for(state="visible")
    tab.screenshot(path=str(SHOTS / "13-remove-confirm.png"))
    assert tab.get_by_role("heading", name=f"Documents ({count + 1})").count() == 1  # nothing removed yet
    confirm.click()
    tab.get_by_role("heading", name=f"Documents ({count})").wait_for()


def test_evaluation_opens_on_the_demo_run_with_every_column_visible(visit) -> None:
    tab, _ = visit
    tab.get_by_test_id("stSidebar").get_by_text("Demo documents").click()
    tab.get_by_role("link", name="Evaluation").click()
    tab.get_by_role("heading", name="demo", exact=True).wait_for()  # the demo run's own heading
    grid = tab.get_by_test_id("stDataFrame").first
    grid.wait_for(state="visible")
    box = grid.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1400
    # The grid draws on a canvas: every column is visible when its scroller needs no horizontal scrolling.
    widths = grid.locator(".dvn-scroller").first.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1] + 1, widths
    tab.screenshot(path=str(SHOTS / "14-evaluation-demo.png"), full_page=True)


def test_no_request_left_this_machine(visit) -> None:
    _, requested = visit
    assert requested, "the browser recorded no requests"
    hosts = {urlparse(u).hostname for u in requested if urlparse(u).scheme in ("http", "https", "ws", "wss")}
    assert hosts <= {"127.0.0.1"}, sorted(hosts)
