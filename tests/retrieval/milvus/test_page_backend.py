"""The pages with their index on a Milvus server that is down: a clear
error on the page, quickly, no exception, and no upload lost."""

from __future__ import annotations

import time

import pytest

from ragcore.answer.llm import PROVIDERS
from ragcore.retrieval.backends import parse_index
from ragcore.retrieval.backends.milvus import forget_client
from tests.app.helpers import plain, start

from .conftest import LoopbackServer, free_port

OTTERS = b"# Otters\n\nThe otter census runs every March, on the first Monday.\n"


def test_ask_page_says_milvus_is_unreachable(tmp_path, monkeypatch) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))  # its own workspace
    monkeypatch.setenv("RAGCORE_INDEX", url)
    monkeypatch.delenv("RAGCORE_LLM_MODEL", raising=False)
    for key_env, _, _ in PROVIDERS:
        monkeypatch.delenv(key_env, raising=False)
    at = start()
    at.text_input(key="question").set_value("Is our pricing consistent?")
    started = time.monotonic()
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    elapsed = time.monotonic() - started
    assert not at.exception, at.exception
    shown = " ".join(plain(e.value) for e in at.error)
    assert "unreachable" in shown and url.removeprefix("http://") in shown
    assert elapsed < 10 + 5  # one failed connect; the rest is the page's own run
    forget_client(parse_index(url))


@pytest.mark.slow  # the app, a model load and a loopback server
def test_upload_while_milvus_is_down_is_kept_and_found_when_it_is_back(tmp_path, monkeypatch) -> None:
    """Library page upload with the Milvus server down: the upload is added
    (the library holds it); Ask says Milvus is unreachable, quickly; with
    the server back, the same question finds the upload."""
    server = LoopbackServer(tmp_path / "milvus-server", free_port())
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGCORE_INDEX", server.target.uri)
    monkeypatch.delenv("RAGCORE_LLM_MODEL", raising=False)
    monkeypatch.delenv("RAGCORE_ISOLATION", raising=False)
    for key_env, _, _ in PROVIDERS:
        monkeypatch.delenv(key_env, raising=False)
    at = start("pages/library.py")
    at.radio(key="collection-label").set_value("My uploads").run()
    at.get("file_uploader")[0].set_value([("otters.md", OTTERS, "text/markdown")])
    at.button(key="FormSubmitter:upload-form-Add to library").click().run()
    assert not at.exception, at.exception
    assert [plain(s.value).split(":")[0] for s in at.success] == ["otters.md"]

    at.switch_page("pages/ask.py").run()
    at.text_input(key="question").set_value("When does the otter census run?")
    started = time.monotonic()
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert time.monotonic() - started < 10 + 5
    assert not at.exception, at.exception
    assert "unreachable" in " ".join(plain(e.value) for e in at.error)

    server.start()
    try:
        at.button(key="FormSubmitter:ask-form-Ask").click().run()
        assert not at.exception, at.exception
        assert not at.error
        outcome = at.session_state["outcome"]
        assert outcome.collection != "demo" and outcome.hits[0].passage.doc == "otters.md"
    finally:
        server.stop()
