"""Private uploads survive a reload (issue 17, item 6): the browser keeps a
signed random owner token in the URL; the same token finds the same uploads,
another browser (no token, or a made-up one) does not."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.services import SESSION_PREFIX
from tests.app import conftest as app_fixtures
from tests.app.helpers import APP, TIMEOUT, start

app_home = app_fixtures.app_home
app_env = app_fixtures.app_env

MEMO = b"# Private memo\n\nThe tapirwick launch moves to May.\n"


@pytest.fixture
def isolated(app_env, monkeypatch):
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    return app_env


def _open(token: str | None) -> AppTest:
    """A browser opening the app, with ``?owner=token`` in its URL when given."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    if token is not None:
        at.query_params["owner"] = token
    at.run()
    assert not at.exception, at.exception
    return at


def _listed(at: AppTest) -> list[str]:
    at.switch_page("pages/library.py").run()
    at.radio(key="collection-label").set_value("My uploads").run()
    assert not at.exception, at.exception
    tables = [
        d.value for d in at.dataframe if "Document" in d.value.columns and "Chunking" in d.value.columns
    ]
    return list(tables[0]["Document"]) if tables else []


def test_a_reload_finds_the_same_uploads_and_another_browser_does_not(isolated) -> None:
    first = start("pages/library.py")
    first.radio(key="collection-label").set_value("My uploads").run()
    first.get("file_uploader")[0].set_value([("memo.md", MEMO, "text/markdown")])
    first.button(key="FormSubmitter:upload-form-Add to library").click().run()
    assert not first.exception, first.exception
    token = first.query_params["owner"]
    private = first.session_state["collection"]
    assert private.startswith(SESSION_PREFIX) and token not in private
    assert len(token) > 60

    reloaded = _open(token)
    assert _listed(reloaded) == ["memo.md"]
    assert reloaded.session_state["collection"] == private

    nonce, _signature = token.split(".")
    for other in (None, nonce + ".0123456789abcdef0123456789abcdef", "guess"):
        stranger = _open(other)
        assert _listed(stranger) == []
        assert stranger.query_params["owner"] != token
