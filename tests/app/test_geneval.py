"""Evaluation page, generation section: blind rating (an item's checks are
absent from the page until it is rated), the mock run's label, the cost shown
before a run, and a model on this machine end to end (Ask and geneval)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ragcore.answer import local
from ragcore.evaluation.generation import load_run, save_run
from tests.app.helpers import REPO, plain, start
from tests.app.test_model import FAKE_KEY, FakeLiteLLM
from tests.evaluation.test_generation import good_run
from tests.local_llm_server import ANSWER_TEXT, LocalModelServer

EVALUATION = "pages/evaluation.py"


def generation_page():
    at = start(EVALUATION)
    at.button_group(key="eval-source").set_value("Generation").run()
    assert not at.exception, at.exception
    return at


def page_text(at) -> str:
    """Everything the page shows as text: Markdown, captions, notices, tables, code."""
    parts: list[str] = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "code"):
        parts += [plain(str(e.value)) for e in at.get(kind)]
    parts += [d.value.to_string() for d in at.dataframe]
    parts += [h.proto.body for h in at.get("html")]
    return "\n".join(parts)


@pytest.fixture
def results(app_env, tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "results"
    save_run(good_run(), folder / "good.json")
    monkeypatch.setenv("RAGCORE_RESULTS_DIR", str(folder))
    return folder


def item_details(run_path: Path, item_id: str) -> list[str]:
    return [c.detail for c in load_run(run_path).item(item_id).checks.values()]


def test_checks_are_hidden_until_the_item_is_rated(results) -> None:
    at = generation_page()
    assert at.selectbox(key="gen-stored").value.endswith("good.json")
    assert at.selectbox(key="gen-item").value == "a/answer"
    details = item_details(results / "good.json", "a/answer")
    before = page_text(at)
    assert "The Team plan costs $49 per month." in before  # the item itself is shown
    assert not any(d in before for d in details), "a check of the unrated item is on the page"
    at.radio(key="gen-faithful-a/answer").set_value("yes")
    at.slider(key="gen-useful-a/answer").set_value(4)
    at.button(key="FormSubmitter:gen-rate-a/answer-Save rating").click().run()
    assert not at.exception, at.exception
    at.selectbox(key="gen-item").set_value("a/answer").run()
    after = page_text(at)
    assert all(d in after for d in details)
    stored = load_run(results / "good.json").ratings["a/answer"]
    assert stored.faithful and stored.useful == 4 and stored.blind
    assert "1 of 9 items rated, 1 of them blind" in after


def test_showing_checks_first_makes_the_rating_not_blind(results) -> None:
    at = generation_page()
    at.selectbox(key="gen-item").set_value("b/item-1").run()
    assert not any(d in page_text(at) for d in item_details(results / "good.json", "b/item-1"))
    at.button(key="gen-reveal").click().run()
    assert all(d in page_text(at) for d in item_details(results / "good.json", "b/item-1"))
    at.radio(key="gen-faithful-b/item-1").set_value("no")
    at.button(key="FormSubmitter:gen-rate-b/item-1-Save rating").click().run()
    assert not load_run(results / "good.json").ratings["b/item-1"].blind
    assert "left out of the agreement figures" in page_text(at)


def test_the_stored_mock_run_says_it_is_a_mock(app_env, tmp_path, monkeypatch) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    for path in (REPO / "eval" / "results").glob("*.json"):
        if json.loads(path.read_text()).get("kind") == "generation":
            shutil.copy(path, folder / path.name)
    monkeypatch.setenv("RAGCORE_RESULTS_DIR", str(folder))
    at = generation_page()
    assert any("Mock run" in w.value for w in at.warning)
    assert any(d.proto.label == "Download the run (JSON)" for d in at.get("download_button"))
    # Listed apart: the retrieval runs' picker does not offer it.
    at.button_group(key="eval-source").set_value("Stored run").run()
    assert not any(s.key == "eval-stored" for s in at.selectbox)
    assert any("No stored runs yet" in i.value for i in at.info)


@pytest.fixture
def served(app_env, tmp_path, monkeypatch):
    local.forget_formats()
    with LocalModelServer() as server:
        monkeypatch.setenv("RAGCORE_LLM_MODEL", "openai/local-test")
        monkeypatch.setenv("RAGCORE_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("RAGCORE_RESULTS_DIR", str(tmp_path / "results"))
        yield server
    local.forget_formats()


def test_cost_is_shown_before_a_run_against_a_local_model(served, tmp_path) -> None:
    at = generation_page()
    assert any("on this machine: nothing leaves it" in c.value for c in at.caption)
    at.button(key="gen-estimate").click().run()
    assert not at.exception, at.exception
    assert "Estimated cost:** up to $0.0000 for 20 calls" in page_text(at)  # nothing to pay on this machine
    assert served.requests == []  # nothing was sent to estimate
    at.button(key="gen-start").click().run()
    assert not at.exception, at.exception
    assert len(served.requests) == 20  # ten topics, an answer and study items each
    stored = list((tmp_path / "results").glob("demo-geneval-*.json"))
    assert len(stored) == 1
    run = load_run(stored[0])
    assert run.local and not run.mock and run.estimated_usd >= run.spent_usd
    assert at.selectbox(key="gen-stored").value == str(stored[0])


def test_cost_is_shown_before_a_paid_run_and_counts_against_the_cap(app_env, tmp_path, monkeypatch) -> None:
    fake = FakeLiteLLM()  # answers every call with an answer-shaped reply
    monkeypatch.setattr("ragcore.answer.calls.load_litellm", lambda: fake)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("RAGCORE_RESULTS_DIR", str(tmp_path / "results"))
    at = generation_page()
    at.button(key="gen-estimate").click().run()
    shown = re.search(r"Estimated cost:\*\* up to \$([0-9.]+) for 20 calls to gpt-4o-mini", page_text(at))
    assert shown and float(shown.group(1)) > 0
    assert fake.calls == []  # the estimate comes before any call
    at.button(key="gen-start").click().run()
    assert not at.exception, at.exception
    assert len(fake.calls) == 20
    run = load_run(next((tmp_path / "results").glob("demo-geneval-*.json")))
    assert 0 < run.spent_usd <= run.estimated_usd <= float(shown.group(1)) + 1e-4
    # The study calls got an answer-shaped reply: invalid, so failures of the model, shown as such.
    assert "Model failures:** 10 of 20 calls" in page_text(at)
    assert at.session_state["spend"].spent_usd == pytest.approx(run.spent_usd)


def test_ask_page_with_a_model_on_this_machine(served) -> None:
    at = start()
    assert any("on this machine: nothing leaves it" in plain(c.value) for c in at.caption)
    at.text_input(key="question").set_value("What does the Team plan cost?")
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception
    assert ANSWER_TEXT in page_text(at)
    assert served.requests and served.requests[-1]["response_format"]["type"] == "json_schema"
    assert any("on this machine: nothing leaves it" in plain(m.value) for m in at.sidebar.markdown)
    # A malformed reply: the extractive answer, and the invalid reply counted in the AI log.
    at.text_input(key="question").set_value("A malformed reply about the Team plan?")
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception
    assert "Invalid replies: 1 of 2" in page_text(at)


def test_the_helper_module_is_not_a_page() -> None:
    # app.py's st.navigation lists the pages; the Generation view lives in pages/views/, which
    # Streamlit's pages-folder listing (pages/*.py) never reaches.
    listed = re.findall(r'st\.Page\(\s*"pages/([^"]+)"', (REPO / "app.py").read_text())
    assert listed and "geneval.py" not in listed
    assert (
        not (REPO / "pages" / "_geneval.py").exists() and (REPO / "pages" / "views" / "geneval.py").exists()
    )
    assert re.search(
        r"from pages\.views import .*\bgeneval\b", (REPO / "pages" / "evaluation.py").read_text()
    )


def test_model_and_document_text_render_inert(app_env, tmp_path, monkeypatch) -> None:
    from dataclasses import replace

    run = good_run()
    hostile = "<img src=x onerror=alert(1)> The Team plan costs $49 per month."
    call = next(c for c in run.calls if c.topic == "a" and c.call == "answer")
    call.passages[0] = replace(call.passages[0], text=hostile)
    folder = tmp_path / "results"
    save_run(run, folder / "hostile.json")
    monkeypatch.setenv("RAGCORE_RESULTS_DIR", str(folder))
    at = generation_page()
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert "&lt;img src=x onerror=alert(1)&gt;" in bodies and "<img" not in bodies
