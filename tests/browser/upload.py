"""Choosing files in the Library's upload form and pressing "Add to library",
without racing the browser's upload.

The file uploader sends a chosen file to the server before the form can use
it; Streamlit disables the form's submit button while that runs, but only from
the render after the file row appears. A click in that gap submits an empty
form ("Choose one or more files first."), which on a loaded machine happened
in about one run in three. So: wait until every file's chip is drawn without its
uploading spinner and the button is enabled, then press it; if the form still arrived
empty, the upload finished meanwhile and a second press sends it.

The uploader is found by its label: the Library page has another one (the
curated layer's JSON import), and under load the previous page's uploaders
can still be on screen while the Library renders."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

EMPTY_FORM = "Choose one or more files first."
UPLOADER_LABEL = "Add PDF, Markdown or text files"
SETTLE_S = 60.0


def add_to_library(tab, files: Sequence[Path | str]) -> None:
    uploader = tab.get_by_test_id("stFileUploader").filter(has_text=UPLOADER_LABEL).first
    uploader.locator("input[type='file'][multiple]").first.set_input_files([str(f) for f in files])
    button = tab.get_by_role("button", name="Add to library")
    _wait_uploaded(uploader, button, len(files))
    button.click()
    time.sleep(1.0)
    if tab.get_by_text(EMPTY_FORM).count():
        _wait_uploaded(uploader, button, len(files))
        button.click()


def _wait_uploaded(uploader, button, count: int) -> None:
    """Until ``count`` file chips are drawn, none with the uploading spinner,
    and the submit button is enabled."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        chips = uploader.get_by_test_id("stFileChip").count()
        busy = uploader.get_by_test_id("stFileChipIconSpinner").count()
        if chips >= count and not busy and button.is_enabled():
            return
        time.sleep(0.2)
    raise AssertionError(f"the {count} chosen file(s) did not finish uploading in {SETTLE_S:g} s")
