"""The Ask page with its index on a Milvus server that is down: a clear
error on the page, quickly, and no exception."""

from __future__ import annotations

import time

from ragcore.answer.llm import PROVIDERS
from ragcore.retrieval.backends import parse_index
from ragcore.retrieval.backends.milvus import forget_client
from tests.app.helpers import plain, start

from .conftest import free_port


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
