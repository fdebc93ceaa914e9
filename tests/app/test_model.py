"""Ask page with a model key: the model is mocked at LiteLLM's door (no call
leaves the process). The answer with its checks, accept / edit / reject, the
lens switch without a new call, study items, the AI log and the export."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from ragcore.answer.ailog import AiLog
from ragcore.store import Library
from tests.app.helpers import plain, start

PRICING = "Is our pricing consistent?"
FAKE_KEY = "sk-test-0000000000000000"

ANSWER = {
    "sentences": [
        {"text": "The sources disagree on the Business plan price.", "citations": [1, 2]},
        {"text": "A discount of $7 applies to every plan.", "citations": [1]},
        {"text": "Another passage says otherwise.", "citations": [42]},
    ],
    "covered": True,
}
ITEMS = {
    "items": [
        {
            "type": "short",
            "question": "What is the Business list price per month?",
            "answer": "$999",
            "citations": [1],
        },
        {
            "type": "mcq",
            "question": "Which plan is discussed in the pricing notes?",
            "key": "Business",
            "distractors": ["Starter", "Hobby", "Free"],
            "citations": [1],
        },
    ]
}


class FakeLiteLLM:
    """Stands in for the litellm module: ``completion`` answers with a fixed
    JSON reply (streamed when asked), ``cost_per_token`` prices tokens."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.reply = ANSWER

    def completion(self, **kwargs):
        self.calls.append(kwargs)
        text = json.dumps(self.reply)
        usage = SimpleNamespace(prompt_tokens=900, completion_tokens=120)
        if kwargs.get("stream"):
            pieces = [text[i : i + 40] for i in range(0, len(text), 40)]
            chunks = [
                SimpleNamespace(
                    choices=[
                        SimpleNamespace(delta=SimpleNamespace(content=p, refusal=None), finish_reason=None)
                    ],
                    usage=None,
                )
                for p in pieces
            ]
            return iter([*chunks, SimpleNamespace(choices=[], usage=usage)])
        message = SimpleNamespace(content=text, refusal=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")], usage=usage)

    @staticmethod
    def cost_per_token(model: str, prompt_tokens: int, completion_tokens: int):
        return prompt_tokens * 1e-7, completion_tokens * 4e-7


@pytest.fixture
def fake_llm(app_env, monkeypatch) -> FakeLiteLLM:
    fake = FakeLiteLLM()
    monkeypatch.setattr("ragcore.answer.calls.load_litellm", lambda: fake)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    return fake


def _log(app_env) -> AiLog:
    return AiLog(Library(app_env).connect())


def _accepted(app_env, question: str):
    return [r for r in _log(app_env).accepted_items() if r.question == question]


def test_model_answer_checks_review_and_lens_switch(app_env, fake_llm) -> None:
    at = start()
    sidebar = plain(" ".join(m.value for m in at.sidebar.markdown))
    assert "Model: gpt-4o-mini" in sidebar
    assert any("only the matched passages" in c.value for c in at.caption)  # disclosed before the first call

    at.text_input(key="question").set_value(PRICING)
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception
    assert len(fake_llm.calls) == 1
    call = fake_llm.calls[0]
    assert call["stream"] is True and call["api_key"] == FAKE_KEY
    sent = "\n".join(m["content"] for m in call["messages"])
    assert PRICING in sent

    assert any(plain(c.value).startswith("Model answer (gpt-4o-mini)") for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Figures not in the sources"] == "1"
    assert metrics["Citations removed"] == "1"
    warnings = plain(" ".join(w.value for w in at.warning))
    assert "7" in warnings and "[42]" in warnings
    assert FAKE_KEY not in " ".join(h.proto.body for h in at.html)
    cites = sorted(b.key for b in at.button if (b.key or "").startswith("cite-"))
    assert cites == ["cite-1", "cite-2"]

    # Accept, then edit: the latest decision is an edit, with its text.
    at.button(key="review-answer-accept").click().run()
    assert [r.decision for r in _accepted(app_env, PRICING)] == ["accepted"]
    at.button(key="review-answer-edit").click().run()
    at.text_area(key="review-answer-edited").set_value("Two prices for Business: $999 and $1,199.")
    at.button(key="FormSubmitter:review-answer-edit-form-Save edit").click().run()
    assert not at.exception, at.exception
    [edited] = _accepted(app_env, PRICING)
    assert edited.decision == "edited" and edited.edited_text.startswith("Two prices")
    at.button(key="review-answer-reject").click().run()
    assert _accepted(app_env, PRICING) == []

    # Another lens re-reads the same hits; the model is not called again.
    at.button_group(key="lens").set_value("risk").run()
    assert not at.exception, at.exception
    assert "Risk lens" in [s.value for s in at.subheader]
    assert len(fake_llm.calls) == 1

    # The AI log lists the call with what was sent.
    log = next(d.value for d in at.dataframe if "Outcome" in d.value.columns)
    assert list(log["Outcome"]) == ["flagged"] and log["Passages sent"][0] > 0


def test_study_items_are_checked_reviewed_and_exported(app_env, fake_llm) -> None:
    fake_llm.reply = ITEMS
    at = start()
    at.button_group(key="task").set_value("Study items").run()
    at.text_input(key="topic").set_value("Business plan pricing")
    at.button(key="FormSubmitter:study-form-Write items").click().run()
    assert not at.exception, at.exception
    assert len(fake_llm.calls) == 1 and "stream" not in fake_llm.calls[0]
    assert "Study items: Business plan pricing" in [s.value for s in at.subheader]
    texts = [t.value for t in at.text]
    assert "Answer: $999" in texts
    assert any(t.endswith("Business  ✓ key") for t in texts)
    accept = sorted(b.key for b in at.button if (b.key or "").endswith("-accept"))
    assert len(accept) == 2
    at.button(key=accept[0]).click().run()
    assert not at.exception, at.exception
    accepted = [r for r in _log(app_env).accepted_items() if r.question == "Business plan pricing"]
    assert [r.item_ref for r in accepted] == ["item-1"]
    names = sorted(d.proto.label for d in at.get("download_button"))
    assert names == ["Accepted items (JSON)", "Accepted items (Markdown)"]


def test_without_a_key_there_is_no_study_mode_and_no_log(app_env) -> None:
    at = start()
    assert not [b for b in at.button_group if b.key == "task"]
    assert not [s for s in at.subheader if s.value == "AI log"]
