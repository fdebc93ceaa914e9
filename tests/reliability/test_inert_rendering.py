"""Hostile document text renders inert on every page that shows it.

A Markdown upload carries a script tag, an image beacon with an ``onerror``
handler, a ``javascript:`` link, a Markdown image beacon and plain HTML, in
its title, a heading and its body. The Library shows its passages and the Ask
page answers from it and opens a citation; after each step every element of
the page is inspected:

- ``st.html`` bodies (sanitised HTML) hold the text entity-escaped only;
- everything Streamlit reads as Markdown (markdown, captions, alerts,
  headings, button labels and tooltips, expander labels) holds no raw tag,
  no live ``javascript:`` link and no image syntax;
- the literal text is still shown, escaped, so the reader sees what the
  document says.
"""

from __future__ import annotations

import re

from google.protobuf.json_format import MessageToDict

from tests.app import conftest as app_fixtures
from tests.app.helpers import start

# The app tests' fixtures: the shared library home (demo synced and embedded once), no model keys.
app_home = app_fixtures.app_home
app_env = app_fixtures.app_env

UNIQUE = "zanzibarite"
HOSTILE_MD = f"""# Beacon <b>bold</b> memo <script>alert(1)</script>

## The {UNIQUE} plan <img src="http://example.invalid/beacon.png" onerror="alert(2)">

The {UNIQUE} plan costs 49 dollars a month. <script>alert(1)</script>
See [click me](javascript:alert(3)) and ![beacon](http://example.invalid/b.png) for <b>bold</b> terms.

## Support

Support for the {UNIQUE} plan is by email only.
""".encode()

# Elements whose text is shown as typed, never interpreted.
LITERAL_TYPES = {"text", "code", "text_input", "text_area"}
# A raw tag: "<" starting a tag, not escaped by a backslash (Markdown) or as an entity.
RAW_TAG = re.compile(r"(?<!\\)<\s*/?\s*(script|img|b|a|iframe|svg)\b", re.IGNORECASE)
# A link or image in Markdown syntax, unescaped.
MD_LINK = re.compile(r"(?<!\\)\]\((?!\\)")
MD_IMAGE = re.compile(r"(?<!\\)!\[")
# An attribute inside a tag that would load or run something (escaped text has no "<").
LIVE_ATTR = re.compile(
    r"<[^>]*\b(href|src|on\w+)\s*=\s*[\"']?\s*(javascript:|http://example\.invalid|alert)", re.IGNORECASE
)
LIVE_JS = re.compile(r"javascript:(?!\u200b)", re.IGNORECASE)


def _strings(message) -> list[str]:
    out: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    if message is not None:
        walk(MessageToDict(message, preserving_proto_field_name=True))
    return out


def _check_inert(at) -> list[str]:
    """Every element's strings checked by how Streamlit renders them; returns
    the HTML bodies seen (for the positive checks)."""
    problems: list[str] = []
    html_bodies: list[str] = []
    for node in at._tree:
        kind = getattr(node, "type", "")
        if kind in LITERAL_TYPES or kind in ("arrow_data_frame", "dataframe"):
            continue
        for text in _strings(getattr(node, "proto", None)):
            if kind == "html":
                html_bodies.append(text)
                if RAW_TAG.search(text) or LIVE_ATTR.search(text):
                    problems.append(f"html element holds a raw tag or live link: {text[-300:]!r}")
            else:
                if RAW_TAG.search(text):
                    problems.append(f"{kind} holds a raw tag: {text[-300:]!r}")
                if LIVE_JS.search(text):
                    problems.append(f"{kind} holds a live javascript: link: {text[-300:]!r}")
                if MD_LINK.search(text) or MD_IMAGE.search(text):
                    problems.append(f"{kind} holds Markdown link/image syntax: {text[-300:]!r}")
    assert not problems, "\n".join(problems)
    return html_bodies


def _escaped_shown(bodies: list[str]) -> bool:
    joined = "".join(bodies)
    return "&lt;script&gt;alert(1)&lt;/script&gt;" in joined


def test_hostile_document_renders_inert_on_library_and_ask(app_env, monkeypatch) -> None:
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")  # a private collection for this test's upload
    at = start("pages/library.py")
    at.radio(key="collection-label").set_value("My uploads").run()
    at.get("file_uploader")[0].set_value([("beacon <script>.md", HOSTILE_MD, "text/markdown")])
    at.button(key="FormSubmitter:upload-form-Add to library").click().run()
    assert not at.exception, at.exception
    assert at.success, [e.value for e in at.error]
    _check_inert(at)

    # (1) Library: each passage of the document, viewed in turn.
    [name] = [n for n in at.selectbox(key="library-doc").options if n.startswith("beacon")]
    at.selectbox(key="library-doc").set_value(name).run()
    passages = next(d.value for d in at.dataframe if "Section" in d.value.columns)
    assert len(passages) >= 2
    seen = []
    for k in range(1, len(passages) + 1):
        at.number_input(key="passage-pick").set_value(k).run()
        assert not at.exception, at.exception
        seen += _check_inert(at)
    assert _escaped_shown(seen)
    assert "&lt;img src=&quot;http://example.invalid/beacon.png&quot;" in "".join(seen)

    # (2) Ask: a question that retrieves it, the answer, the passages, a citation opened.
    at.switch_page("pages/ask.py").run()
    at.text_input(key="question").set_value(f"How many dollars a month is the {UNIQUE} plan?")
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception
    answer_view = _check_inert(at)
    assert "Answer" in [s.value for s in at.subheader]
    assert _escaped_shown(answer_view)  # the retrieved passage, escaped
    cites = [b for b in at.button if (b.key or "").startswith("cite-")]
    assert cites, "the answer has no citation buttons"
    cites[0].click().run()
    assert not at.exception, at.exception
    opened = _check_inert(at)
    viewer = "".join(b for b in opened if "rc-doc" in b)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in viewer
    assert "[click me](javascript" in viewer  # the Markdown link as literal text, not a link

    # "Open in document" from a retrieved passage shows the same, inert.
    opener = next(b for b in at.button if (b.key or "").startswith("hit-open-"))
    opener.click().run()
    assert not at.exception, at.exception
    _check_inert(at)
