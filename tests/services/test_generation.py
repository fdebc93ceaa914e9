"""The generation service: listing apart from retrieval runs, blind rating
saved into the run file, no path outside the results folder, and a run over
the open collection with its estimate made before any call."""

from __future__ import annotations

import json

import pytest

from ragcore.answer import llm
from ragcore.evaluation.generation import GenerationError, load_run, save_run
from ragcore.services import DEMO_COLLECTION, Workspace
from tests.evaluation.test_generation import GOOD_ANSWER, GOOD_ITEMS, good_run, reply
from tests.test_service import workspace  # noqa: F401 - the fixture

CONFIG = llm.ModelConfig("gpt-4o-mini", "openai", "test")


def test_runs_are_listed_apart_and_rated_into_their_file(workspace: Workspace, tmp_path) -> None:  # noqa: F811
    gen = workspace.generation
    save_run(good_run(), gen.results_dir / "gen.json")
    (gen.results_dir / "retrieval.json").write_text(json.dumps({"kind": "retrieval", "rankers": {}}))
    assert [s.path.name for s in gen.runs()] == ["gen.json"]
    assert all(r.path.name != "gen.json" for r in workspace.evaluation.stored_runs())
    path = gen.results_dir / "gen.json"
    view = gen.view(gen.load(path), "a/answer")
    assert not view.checks_shown and [p.n for p in view.passages] == [1]
    gen.rate(path, "a/answer", True, 5, "good")
    assert load_run(path).ratings["a/answer"].blind
    assert gen.view(gen.load(path), "a/answer").checks_shown
    assert gen.queue(gen.load(path))[-1] == "a/answer"  # rated items go last
    outside = tmp_path / "elsewhere.json"
    save_run(good_run(), outside)
    with pytest.raises(GenerationError, match="not a stored run"):
        gen.load(outside)
    with pytest.raises(GenerationError):
        gen.rate(outside, "a/answer", True, 3)


class FakeLiteLLM:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def completion(self, **kwargs):
        self.calls.append(kwargs)
        study = kwargs["messages"][0]["content"].startswith("You write study items")
        return reply(GOOD_ITEMS if study else GOOD_ANSWER)

    @staticmethod
    def cost_per_token(model: str, prompt_tokens: int, completion_tokens: int):
        return prompt_tokens * 1e-7, completion_tokens * 4e-7


def test_a_run_over_the_open_collection_is_estimated_before_any_call(
    workspace: Workspace,  # noqa: F811
    tmp_path,
    monkeypatch,
) -> None:
    fake = FakeLiteLLM()
    monkeypatch.setattr("ragcore.answer.calls.load_litellm", lambda: fake)
    workspace.collections.ensure_demo()
    topics = tmp_path / "t.geneval.json"
    spec = {"name": "t", "corpus": "demo", "topics": [{"id": "p", "question": "Business plan price?"}]}
    topics.write_text(json.dumps(spec))
    gen = workspace.generation
    plan = gen.plan(topics, DEMO_COLLECTION, CONFIG, mode="bm25")
    assert plan.estimated_usd > 0 and fake.calls == []
    assert any(h.passage.doc == "pricing.md" for h in plan.calls[0].hits)
    spend = gen.spend_tracker("s1")
    path = gen.start(plan, CONFIG, spend, session="s1")
    assert len(fake.calls) == 2 and path.parent == gen.results_dir
    run = load_run(path)
    assert run.spent_usd > 0 and run.spent_usd == pytest.approx(spend.spent_usd)
    # Logged in the session's AI log, so a resumed session's cap counts them.
    assert gen.spend_tracker("s1").spent_usd == pytest.approx(run.spent_usd)
