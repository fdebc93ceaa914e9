"""The guessing attack on a shared deployment (issue 17, item 1).

Visitor A uploads a private memo. Visitor B uploads the same template with a
guessed figure and reads everything B's pages show: the upload message and
How it works' counts. When embeddings were shared by passage text across
sessions and "Vectors cached" counted the whole library, B's count rose by 0
for a right guess and by 1 for a wrong one. Here B's observations must be
the same whether the guess is right or wrong."""

from __future__ import annotations

import pytest

from tests.app import conftest as app_fixtures
from tests.app.helpers import start

app_home = app_fixtures.app_home
app_env = app_fixtures.app_env


def memo(word: str, figure: str) -> bytes:
    return f"""# {word} board memo

## Pricing

The {word} renewal is priced at {figure} million dollars for next year.

## Staffing

Two engineers join the {word} team next quarter; the hiring plan is unchanged.

## Office

The {word} office moves to a larger floor in the autumn.
""".encode()


@pytest.fixture
def isolated(app_env, monkeypatch):
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    return app_env


def _facts(at) -> dict[str, str]:
    at.switch_page("pages/how_it_works.py").run()
    assert not at.exception, at.exception
    at.radio(key="collection-label").set_value("My uploads").run()
    return {
        m.label: str(m.value) for m in at.metric if m.label in ("Documents", "Passages", "Vectors cached")
    }


def _upload(at, name: str, data: bytes) -> list[str]:
    at.switch_page("pages/library.py").run()
    at.radio(key="collection-label").set_value("My uploads").run()
    at.get("file_uploader")[0].set_value([(name, data, "text/markdown")])
    at.button(key="FormSubmitter:upload-form-Add to library").click().run()
    assert not at.exception, at.exception
    return [e.value for e in [*at.success, *at.info, *at.warning, *at.error]]


def _visitor_b_sees(word: str, secret: str, guess: str) -> dict[str, object]:
    a = start()
    _upload(a, "memo.md", memo(word, secret))
    b = start()
    before = _facts(b)
    messages = _upload(b, "memo.md", memo(word, guess))
    after = _facts(b)
    return {"before": before, "messages": messages, "after": after}


def test_what_b_sees_does_not_depend_on_as_private_text(isolated) -> None:
    right = _visitor_b_sees("wombatix", "4.2", "4.2")
    wrong = _visitor_b_sees("numbatix", "4.2", "3.7")
    assert right["after"]["Passages"] == right["after"]["Vectors cached"]
    assert right == wrong
