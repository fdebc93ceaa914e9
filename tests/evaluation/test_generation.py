"""Generation runs: failures counted (never replaced), worst-case cost before
the run, blind ratings, storage, and the demo's topic file and stored run."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from ragcore.answer import llm, prompt
from ragcore.evaluation.generation import (
    GenerationError,
    TopicFile,
    TopicSpec,
    checks_visible,
    load_run,
    load_topics,
    rate,
    reveal,
    save_run,
    stored_generation_runs,
)
from ragcore.evaluation.generation_figures import generation_figures
from ragcore.evaluation.generation_run import plan_generation, prompts_hash, run_plan
from ragcore.records import Document, Hit, Passage

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [
    "The Team plan costs $49 per month and includes 10 seats.",
    "The Enterprise plan costs $1,299 per year and adds single sign-on.",
    "Refunds are available within 30 days of purchase.",
]
CONFIG = llm.ModelConfig("gpt-4o-mini", "openai", "test")


def make_hits(texts: list[str]) -> list[Hit]:
    doc = Document(name="pricing.md", title="Pricing", kind="md", text="\n".join(texts), content_hash="x")
    hits = []
    for i, text in enumerate(texts):
        start, end = doc.line_span(i + 1, i + 1)
        hits.append(Hit(Passage("pricing.md", i, i + 1, i + 1, start, end, "Pricing", text), i + 1, 1.0, {}))
    return hits


HITS = make_hits(TEXTS)
GOOD_ANSWER = json.dumps(
    {"sentences": [{"text": "The Team plan costs $49 per month.", "citations": [1]}], "covered": True}
)
GOOD_ITEMS = json.dumps(
    {
        "items": [
            {
                "type": "short",
                "question": "How many seats does the Team plan include?",
                "answer": "10 seats",
                "citations": [1],
            },
            {
                "type": "mcq",
                "question": "What does the Enterprise plan cost per year?",
                "key": "$1,299",
                "distractors": ["$999", "$1,499", "$2,499"],
                "citations": [2],
            },
        ]
    }
)


def reply(text: str, finish: str = "stop", refusal: str | None = None) -> SimpleNamespace:
    message = SimpleNamespace(content=text, refusal=refusal)
    usage = SimpleNamespace(prompt_tokens=100, completion_tokens=50)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason=finish)], usage=usage)


class Timeout(Exception):
    """Named like LiteLLM's timeout, which describe_error reads by class name."""


def scripted(replies: dict[tuple[str, str], object]):
    """A completion answering by (question or topic, call kind); records each call."""
    sent: list[dict] = []

    def completion(**kwargs):
        sent.append(kwargs)
        user = kwargs["messages"][-1]["content"]
        kind = "study" if kwargs["messages"][0]["content"] == prompt.SYSTEM_STUDY else "answer"
        for (text, call), value in replies.items():
            if call == kind and (f"Question: {text}" in user or f"Topic: {text}" in user):
                if isinstance(value, Exception):
                    raise value
                return value
        raise AssertionError(f"unscripted call: {kind}")

    completion.sent = sent
    return completion


def spec(*ids: str) -> TopicFile:
    return TopicFile(
        name="t", corpus="x", topics=[TopicSpec(id=i, question=f"Question about {i}?") for i in ids]
    )


def test_refused_cut_off_invalid_and_timeouts_count_as_model_failures():
    topics = spec("ok", "bad", "cut", "no", "slow", "long")
    completion = scripted(
        {
            ("Question about ok?", "answer"): reply(GOOD_ANSWER),
            ("Question about bad?", "answer"): reply("Sure! The Team plan is cheap."),
            ("Question about cut?", "answer"): reply(GOOD_ANSWER[:30], finish="length"),
            ("Question about no?", "answer"): reply("", refusal="I can't help with that."),
            ("Question about slow?", "answer"): Timeout("read timed out"),
            **{(f"Question about {i}?", "study"): reply(GOOD_ITEMS) for i in ("ok", "bad", "cut", "no")},
            ("Question about slow?", "study"): reply('{"items": "none"}'),
            ("Question about long?", "answer"): reply(GOOD_ANSWER),
            # Parses, but the server says it stopped at the token limit: cut off all the same.
            ("Question about long?", "study"): reply(GOOD_ITEMS, finish="length"),
        }
    )
    plan = plan_generation(topics, lambda q: HITS, CONFIG)
    run = run_plan(plan, CONFIG, llm.SpendTracker(5.0), name="r", corpus="x", completion=completion)
    outcomes = {(c.topic, c.call): c.outcome for c in run.calls}
    assert outcomes == {
        ("ok", "answer"): "ok",
        ("bad", "answer"): "invalid",
        ("cut", "answer"): "cut_off",
        ("no", "answer"): "refused",
        ("slow", "answer"): "timeout",
        **{(i, "study"): "ok" for i in ("ok", "bad", "cut", "no")},
        ("slow", "study"): "invalid",
        ("long", "answer"): "ok",
        ("long", "study"): "cut_off",
    }
    # No fallback: a failed call yields no item, only its record and reply.
    assert [i.id for i in run.items if i.call == "answer"] == ["ok/answer", "long/answer"]
    assert not [i for i in run.items if i.topic == "long" and i.call == "study"]
    assert next(c for c in run.calls if c.topic == "bad" and c.call == "answer").reply.startswith("Sure!")
    figures = generation_figures(run, resamples=200)
    assert figures.failures == 6 and figures.calls == 12
    assert figures.failures_by_outcome == {
        "refused": 1,
        "cut_off": 2,
        "invalid": 2,
        "timeout": 1,
        "call_error": 0,
    }
    assert figures.failure_rate["answer"].successes == 4 and figures.failure_rate["answer"].n == 6
    assert figures.failure_rate["all"].rate == pytest.approx(0.5)
    # Evaluation calls never ask for retries (the user-facing path has its own fallback).
    assert all(kw["num_retries"] == 0 for kw in completion.sent)


def test_the_estimate_is_the_worst_case_and_the_cap_stops_a_run_before_any_call():
    plan = plan_generation(spec("a", "b"), lambda q: HITS, CONFIG)
    expected = 0.0
    for call in plan.calls:
        tokens = llm.estimate_tokens(prompt.prompt_chars(call.messages))
        expected += llm.estimate_cost(CONFIG.model, tokens, call.max_tokens)
    assert plan.estimated_usd == pytest.approx(expected) and plan.estimated_usd > 0
    never = scripted({})
    with pytest.raises(GenerationError, match="not started"):
        run_plan(
            plan, CONFIG, llm.SpendTracker(plan.estimated_usd / 2), name="r", corpus="x", completion=never
        )
    assert never.sent == []
    # The messages are exactly the Ask page's.
    first = plan.calls[0]
    assert list(first.messages) == prompt.answer_messages("Question about a?", HITS)
    spend = llm.SpendTracker(1.0)
    done = run_plan(
        plan,
        CONFIG,
        spend,
        name="r",
        corpus="x",
        completion=scripted(
            {
                **{(f"Question about {i}?", "answer"): reply(GOOD_ANSWER) for i in "ab"},
                **{(f"Question about {i}?", "study"): reply(GOOD_ITEMS) for i in "ab"},
            }
        ),
    )
    assert 0 < done.spent_usd <= plan.estimated_usd
    assert spend.spent_usd == pytest.approx(done.spent_usd)  # counted against the session's cap


def good_run():
    completion = scripted(
        {
            **{(f"Question about {i}?", "answer"): reply(GOOD_ANSWER) for i in "abc"},
            **{(f"Question about {i}?", "study"): reply(GOOD_ITEMS) for i in "abc"},
        }
    )
    plan = plan_generation(spec("a", "b", "c"), lambda q: HITS, CONFIG)
    return run_plan(plan, CONFIG, llm.SpendTracker(5.0), name="good", corpus="x", completion=completion)


def test_items_carry_the_automatic_checks():
    run = good_run()
    assert len(run.items) == 9
    answer = run.item("a/answer")
    assert answer.text == "The Team plan costs $49 per month. [1]"
    assert set(answer.checks) == {
        "citations_valid",
        "numbers_present",
        "word_overlap",
        "answerable",
        "no_duplicate",
    }
    assert all(c.passed for c in answer.checks.values())
    mcq = run.item("a/item-2")
    assert (
        mcq.kind == "mcq"
        and "mcq_form" in mcq.checks
        and sorted(mcq.options) == sorted(["$1,299", "$999", "$1,499", "$2,499"])
    )


def test_fact_recall_uses_the_answer_metrics_rule():
    topics = TopicFile(
        name="t",
        corpus="x",
        topics=[
            TopicSpec(
                id="a", question="Question about a?", answer={"facts": [["$49", "49 dollars"], "30 days"]}
            ),
            TopicSpec(id="b", question="Question about b?", answer={"answerable": False}),
        ],
    )
    completion = scripted(
        {
            **{(f"Question about {i}?", "answer"): reply(GOOD_ANSWER) for i in "ab"},
            **{(f"Question about {i}?", "study"): reply(GOOD_ITEMS) for i in "ab"},
        }
    )
    plan = plan_generation(topics, lambda q: HITS, CONFIG)
    run = run_plan(plan, CONFIG, llm.SpendTracker(5.0), name="f", corpus="x", completion=completion)
    # "$49" is stated, "30 days" is not: 1 of 2. An unanswerable topic has no facts.
    assert run.item("a/answer").fact_recall == pytest.approx(0.5)
    assert run.item("b/answer").fact_recall is None and run.item("a/item-1").fact_recall is None
    assert generation_figures(run, resamples=100).fact_recall.mean == pytest.approx(0.5)


def test_ratings_are_blind_unless_checks_were_shown_first():
    run = good_run()
    assert not checks_visible(run, "a/answer")
    rate(run, "a/answer", faithful=True, useful=4, note="fine")
    assert run.ratings["a/answer"].blind and checks_visible(run, "a/answer")
    reveal(run, "b/answer")
    assert checks_visible(run, "b/answer")
    rate(run, "b/answer", faithful=False, useful=2)
    assert not run.ratings["b/answer"].blind
    # Re-rating keeps the first rating's blindness.
    rate(run, "a/answer", faithful=False, useful=3)
    assert run.ratings["a/answer"].blind
    with pytest.raises(GenerationError):
        rate(run, "a/answer", faithful=True, useful=6)
    with pytest.raises(GenerationError):
        rate(run, "nope", faithful=True, useful=3)
    figures = generation_figures(run, resamples=100)
    assert (figures.rated, figures.blind) == (2, 1)
    # Only the blind rating enters agreement.
    assert figures.agreement["answerable"].n == 1
    assert any("left out of the agreement" in n for n in figures.notes)


def test_runs_round_trip_and_are_listed_apart_from_retrieval_runs(tmp_path: Path):
    run = good_run()
    rate(run, "c/item-1", faithful=True, useful=5)
    path = save_run(run, tmp_path / "gen.json")
    (tmp_path / "retrieval.json").write_text(json.dumps({"rankers": {}, "questions": {"scored": 3}}))
    (tmp_path / "broken.json").write_text("{")
    again = load_run(path)
    assert again.to_json() == run.to_json()
    assert json.loads(path.read_text())["kind"] == "generation"
    listed = stored_generation_runs(tmp_path)
    assert [s.path.name for s in listed] == ["gen.json"] and "1 rated" in listed[0].title
    with pytest.raises(GenerationError, match="not a generation run"):
        load_run(tmp_path / "retrieval.json")


def test_topic_files_are_validated(tmp_path: Path):
    demo = load_topics(ROOT / "eval" / "demo.geneval.json")
    assert len(demo.topics) >= 8 and (ROOT / demo.corpus).is_dir()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x", "corpus": "c", "topics": [{"id": "a"}]}))
    with pytest.raises(GenerationError, match=r"topics\.0\.question"):
        load_topics(bad)
    bad.write_text(json.dumps({"name": "x", "corpus": "c", "topics": [{"id": "a", "question": "q"}] * 2}))
    with pytest.raises(GenerationError, match="unique"):
        load_topics(bad)


def test_the_stored_example_run_is_a_mock_made_with_the_current_prompts():
    stored = [s for s in stored_generation_runs(ROOT / "eval" / "results") if "mock" in s.title]
    assert stored, "eval/results has no mock generation run: python -m ragcore geneval --mock (README)"
    run = load_run(stored[0].path)
    assert run.mock and run.prompts_hash == prompts_hash()
    assert len({i.topic for i in run.items}) >= 8


def test_geneval_mock_run_through_the_cli(tmp_path: Path, monkeypatch, capsys):
    from ragcore.cli import main

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "pricing.md").write_text("# Pricing\n\n" + "\n\n".join(TEXTS) + "\n", encoding="utf-8")
    topics = tmp_path / "t.geneval.json"
    topics.write_text(
        json.dumps(
            {
                "name": "mocked",
                "corpus": str(corpus),
                "topics": [
                    {"id": "team", "question": "What does the Team plan cost?", "answer": {"facts": ["$49"]}}
                ],
            }
        )
    )
    for key_env, _, _ in llm.PROVIDERS:
        monkeypatch.delenv(key_env, raising=False)
    monkeypatch.delenv("RAGCORE_LLM_MODEL", raising=False)
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    out = tmp_path / "mock.json"
    args = ["geneval", "--topics", str(topics), "--mode", "bm25", "--out", str(out)]
    assert main(args) == 2  # no model and no --mock: a clear error, nothing stored
    assert "geneval needs a model" in capsys.readouterr().err and not out.exists()
    assert main([*args, "--mock", "--n-short", "1", "--n-mcq", "1"]) == 0
    printed = capsys.readouterr().out
    assert printed.index("estimated cost") < printed.index("team: answer (call 1 of 2)")
    assert "no model wrote these outputs" in printed
    run = load_run(out)
    assert run.mock and run.calls and all(c.outcome == "ok" for c in run.calls)
    assert {i.kind for i in run.items} == {"answer", "short", "mcq"}
    assert run.item("team/answer").fact_recall == 1.0  # the mock quotes the passage that states $49
