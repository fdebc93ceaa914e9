"""The page helpers that turn document text into something shown: escaped
HTML for lines and answers, literal text where Streamlit reads Markdown."""

from __future__ import annotations

import re

import pytest

from pages.views import ui
from ragcore.services import DocumentView, ViewLine
from tests.app.helpers import plain

NASTY = [
    "![x](http://127.0.0.1:9/x.png)",
    "[link](javascript:alert(1))",
    ":red[coloured] :material/home: $x^2$ and $5",
    "**bold** _it_ `code` ~~gone~~ <b>tag</b> # heading",
    "a\\b back\\slash",
    "1. not a list",
]


@pytest.mark.parametrize("text", NASTY)
def test_md_shows_text_literally(text: str) -> None:
    shown = ui.md(text)
    assert plain(shown) == text
    # Every Markdown special character is escaped, and no colon starts a shortcode or URL.
    assert not re.search(r"(?<!\\)[\[\]()*_`$<>!]", shown.replace("\\\\", ""))
    assert not re.search(r":[A-Za-z/]", shown)


def test_lines_html_escapes_every_line_and_marks_the_cited_ones() -> None:
    view = DocumentView(
        "a.md",
        "A",
        "md",
        2,
        3,
        (
            ViewLine(1, "<script>alert(1)</script>", False),
            ViewLine(2, "Price & <b>terms</b>", True),
            ViewLine(3, "", True),
            ViewLine(4, "after", False),
        ),
        4,
        (),
    )
    out = ui.lines_html(view)
    assert "<script>" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "Price &amp; &lt;b&gt;terms&lt;/b&gt;" in out
    assert re.findall(r'rc-line rc-marked"><span class="rc-no">(\d+)', out) == ["2", "3"]
    assert 'class="rc-pg"' not in out  # page numbers only for PDFs


def test_pdf_lines_show_their_page() -> None:
    view = DocumentView("r.pdf", "R", "pdf", 1, 1, (ViewLine(1, "text", True, 3),), 1, (3,))
    assert '<span class="rc-pg">p.3</span>' in ui.lines_html(view)


def test_answer_html_escapes_text_and_turns_markers_into_chips() -> None:
    out = ui.answer_html("Costs <b>$999</b> [1][2].\n\nSecond <img src=x> paragraph [3]")
    assert "<b>" not in out and "<img" not in out
    assert "&lt;b&gt;$999&lt;/b&gt;" in out
    assert re.findall(r'<span class="rc-cite">(\d+)</span>', out) == ["1", "2", "3"]
    assert out.count("<p>") == 2
