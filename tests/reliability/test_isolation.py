"""Isolation on a shared deployment (RAGCORE_ISOLATION=session): two AppTest
sessions over one library home. The second cannot list, search, cite or open
the first one's upload, nor see its questions, AI log or exports; both see
the shared demo, which neither can change."""

from __future__ import annotations

import json

import pytest

from ragcore import errors
from ragcore.answer.ailog import AiLog
from ragcore.services import DEMO_COLLECTION, SESSION_PREFIX, Workspace
from ragcore.store import Library
from tests.app import conftest as app_fixtures
from tests.app.helpers import plain, start
from tests.app.test_model import FakeLiteLLM

# The app tests' fixtures: the shared library home (demo synced and embedded once), no model keys.
app_home = app_fixtures.app_home
app_env = app_fixtures.app_env

UNIQUE = "quokkalith"
SECRET = f"""# Board memo

## The {UNIQUE} deal

The {UNIQUE} deal closes in March at 1.2 million dollars.

## Staffing

Two engineers join the {UNIQUE} team next quarter.

## Office

The office moves to a larger floor in the autumn.
""".encode()


@pytest.fixture
def isolated(app_env, monkeypatch):
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    return app_env


def _uploads(at):
    at.radio(key="collection-label").set_value("My uploads").run()
    assert not at.exception, at.exception
    return at


def _listed(at) -> list[str]:
    tables = [
        d.value for d in at.dataframe if "Document" in d.value.columns and "Chunking" in d.value.columns
    ]
    return list(tables[0]["Document"]) if tables else []


def _ask(at, question: str):
    at.text_input(key="question").set_value(question)
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception
    return at


def _session_one_uploads() -> tuple[object, str]:
    one = _uploads(start("pages/library.py"))
    one.get("file_uploader")[0].set_value([("secret-memo.md", SECRET, "text/markdown")])
    one.button(key="FormSubmitter:upload-form-Add to library").click().run()
    assert not one.exception, one.exception
    assert _listed(one) == ["secret-memo.md"]
    return one, one.session_state["collection"]


def test_second_session_cannot_list_search_cite_or_open_the_first_ones_upload(isolated) -> None:
    one, private = _session_one_uploads()
    assert private.startswith(SESSION_PREFIX)

    two = _uploads(start("pages/library.py"))
    theirs = two.session_state["collection"]
    assert theirs.startswith(SESSION_PREFIX) and theirs != private
    assert one.session_state["_ragcore_session"] != two.session_state["_ragcore_session"]
    # List: session two's uploads are empty.
    assert [s.value for s in two.subheader] == ["Documents (0)"]
    assert _listed(two) == []
    # A collection forced into session state is replaced by the session's own on the next run.
    two.session_state["collection"] = private
    two.run()
    assert two.session_state["collection"] == theirs and _listed(two) == []

    # Search and cite: asking for the unique word finds nothing of it, in its uploads or the demo.
    two.switch_page("pages/ask.py").run()
    assert any("no documents yet" in i.value for i in two.info)
    two.radio(key="collection-label").set_value("Demo documents").run()
    two.selectbox(key="mode").set_value("bm25").run()
    _ask(two, f"When does the {UNIQUE} deal close in March?")
    shown = [plain(b.label) for b in two.button] + [plain(e.label) for e in two.expander]
    assert shown and not any("secret-memo" in text for text in shown)
    trace = [d.value for d in two.dataframe if "BM25" in d.value.columns]
    assert all("secret-memo.md" not in set(t["Document"]) for t in trace)

    # Open by name, as the pages would: not found in session two's collections.
    ws = Workspace(isolated)
    for coll in (theirs, DEMO_COLLECTION):
        with pytest.raises(errors.LibraryError, match="no such document"):
            ws.docs.document_view(coll, "secret-memo.md", 1, 1)
        with pytest.raises(errors.LibraryError, match="no such document"):
            ws.docs.passages_of(coll, "secret-memo.md")
        hits, _ = ws.asking.search(coll, UNIQUE, mode="bm25")
        assert all(h.passage.doc != "secret-memo.md" for h in hits)

    # Session one still finds and cites its own document.
    one.switch_page("pages/ask.py").run()
    one.selectbox(key="mode").set_value("bm25").run()
    _ask(one, f"When does the {UNIQUE} deal close in March?")
    cites = [plain(b.label) for b in one.button if (b.key or "").startswith("cite-")]
    assert cites and all("secret-memo.md" in c for c in cites)

    # The demo is shared read-only: both list it, neither may change it.
    for at in (one, two):
        at.radio(key="collection-label").set_value("Demo documents").run()
        at.switch_page("pages/library.py").run()
        assert not at.exception, at.exception
        assert "pricing-notes.md" in _listed(at)
        assert not at.get("file_uploader")
        assert not [b for b in at.button if b.key in ("remove", "rechunk")]
    with pytest.raises(errors.LibraryError, match="read-only"):
        ws.docs.remove(DEMO_COLLECTION, "pricing-notes.md")
    assert "pricing-notes.md" in [d.name for d in ws.docs.documents(DEMO_COLLECTION)]


def test_questions_ai_log_and_exports_stay_with_their_session(isolated, monkeypatch) -> None:
    fake = FakeLiteLLM()
    monkeypatch.setattr("ragcore.answer.calls.load_litellm", lambda: fake)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000")
    question = f"Is our pricing consistent for {UNIQUE} buyers?"
    one = _ask(start(), question)
    assert len(fake.calls) == 1
    assert "AI log" in [s.value for s in one.subheader]
    one.button(key="review-answer-accept").click().run()
    assert not one.exception, one.exception
    owner_one = "browser:" + one.session_state["_ragcore_session"]
    log = AiLog(Library(isolated).connect())
    [call] = [c for c in log.calls(owner_one) if c.question == question]
    assert [r.question for r in log.accepted_items(owner_one)] == [question]

    two = start()
    owner_two = "browser:" + two.session_state["_ragcore_session"]
    assert "AI log" not in [s.value for s in two.subheader]  # no calls of its own
    ws = Workspace(isolated)
    assert ws.review.ai_calls(owner_two) == []
    assert json.loads(ws.review.export_accepted(owner_two, "json")) == []
    assert question not in ws.review.export_accepted(owner_two, "markdown")
    # Session two cannot review, or read the decisions on, session one's call.
    with pytest.raises(errors.LibraryError, match="this session's log"):
        ws.review.review(owner_two, call.id, "answer", "rejected")
    with pytest.raises(errors.LibraryError, match="this session's log"):
        ws.review.decisions(owner_two, call.id)
    assert [r.question for r in log.accepted_items(owner_one)] == [question]

    # How it works shows session two no trace of session one's question.
    two.switch_page("pages/how_it_works.py").run()
    assert not two.exception, two.exception
    everywhere = " ".join(plain(c.value) for c in two.caption) + " ".join(
        plain(m.value) for m in two.markdown
    )
    assert UNIQUE not in everywhere
    one.switch_page("pages/how_it_works.py").run()
    assert any(UNIQUE in plain(c.value) for c in one.caption)
