"""A model served on this machine, end to end through LiteLLM against a small
OpenAI-compatible server on 127.0.0.1 (fixed JSON, malformed, slow, refusal)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcore.answer import llm, local
from ragcore.answer.study import generate_study_items
from ragcore.cli import main
from ragcore.records import Answer, Document, Hit, Passage
from tests.local_llm_server import ANSWER_TEXT, LocalModelServer

TEXTS = ["The Team plan costs $49 per month and includes 10 seats.", "Refunds are available within 30 days."]


def make_hits() -> list[Hit]:
    doc = Document(name="pricing.md", title="Pricing", kind="md", text="\n".join(TEXTS), content_hash="x")
    out = []
    for i, text in enumerate(TEXTS):
        start, end = doc.line_span(i + 1, i + 1)
        out.append(Hit(Passage("pricing.md", i, i + 1, i + 1, start, end, "Pricing", text), i + 1, 1.0, {}))
    return out


def fallback(reason: str) -> Answer:
    return Answer("extractive", "Extractive", "extractive text", reason, [])


@pytest.fixture
def server():
    local.forget_formats()
    with LocalModelServer(slow_s=3.0) as s:
        yield s
    local.forget_formats()


def served_env(server: LocalModelServer, **extra: str) -> dict[str, str]:
    return {
        "RAGCORE_LLM_MODEL": "openai/local-test",
        "RAGCORE_LLM_BASE_URL": server.base_url,
        "RAGCORE_LLM_TIMEOUT_S": "1",
        **extra,
    }


def test_loopback_addresses_are_this_machine():
    for url in ("http://localhost:11434", "http://127.0.0.1:8080/v1", "http://[::1]:8000", "127.0.0.5:9"):
        assert local.is_loopback_url(url), url
    for url in ("http://10.0.0.5:8000", "https://api.example.com/v1", "http://localhost.example.com", ""):
        assert not local.is_loopback_url(url), url


def test_a_local_endpoint_needs_no_key_and_says_nothing_leaves(server):
    config = llm.find_model(served_env(server))
    assert config is not None and config.on_this_machine and config.api_key is None
    assert config.timeout_s == 1.0 and config.api_base == server.base_url
    assert "on this machine: nothing leaves it" in llm.disclosure(config, llm.SpendTracker(0.5))
    # A remote base URL is not this machine: the provider key is still needed.
    remote = {"RAGCORE_LLM_MODEL": "openai/x", "RAGCORE_LLM_BASE_URL": "https://llm.example.com/v1"}
    assert llm.find_model(remote) is None and "OPENAI_API_KEY" in llm.explain_no_model(remote)
    config = llm.find_model({**remote, "OPENAI_API_KEY": "sk-test"})
    assert config is not None and not config.on_this_machine
    assert "nothing leaves it" not in llm.disclosure(config)
    assert "needs RAGCORE_LLM_MODEL" in llm.explain_no_model({"RAGCORE_LLM_BASE_URL": server.base_url})


def test_answer_through_the_local_server_with_a_json_schema(server):
    config = llm.find_model(served_env(server, OPENAI_API_KEY="sk-real-key-not-for-local"))
    answer = llm.model_answer(
        "What does Team cost?", make_hits(), config=config, fallback=fallback, spend=llm.SpendTracker(0.5)
    )
    assert answer.mode == "model" and answer.text == f"{ANSWER_TEXT} [1]"
    sent = server.requests[-1]
    assert sent["response_format"]["type"] == "json_schema"
    assert "sentences" in sent["response_format"]["json_schema"]["schema"]["properties"]
    # The real provider key never goes to the local server.
    assert "sk-real-key-not-for-local" not in json.dumps(server.headers)


def test_streaming_from_the_local_server(server):
    config = llm.find_model(served_env(server))
    seen: list[str] = []
    answer = llm.model_answer(
        "What does Team cost?",
        make_hits(),
        config=config,
        fallback=fallback,
        spend=llm.SpendTracker(0.5),
        stream_callback=seen.append,
    )
    assert answer.mode == "model" and seen and seen[-1] == ANSWER_TEXT


def test_a_server_without_schemas_gets_the_prompt_instructions_and_is_remembered():
    local.forget_formats()
    with LocalModelServer(schema=False) as server:
        config = llm.find_model(served_env(server))
        spend = llm.SpendTracker(0.5)
        first = llm.model_answer(
            "What does Team cost?", make_hits(), config=config, fallback=fallback, spend=spend
        )
        assert first.mode == "model"
        assert [r.get("response_format", {}).get("type") for r in server.requests] == ["json_schema", None]
        items = generate_study_items("pricing", make_hits(), config=config, spend=spend)
        assert {i.kind for i in items} == {"short", "mcq"}
        assert len(server.requests) == 3 and "response_format" not in server.requests[-1]
    local.forget_formats()


@pytest.mark.parametrize(
    ("question", "outcome", "reason"),
    [
        ("A malformed reply please?", "invalid_json", "not valid JSON"),
        ("A slow reply please?", "timeout", "timeout after 1 s"),
        ("Please refuse this?", "refused", "refused"),
    ],
)
def test_bad_replies_fall_back_on_the_ask_path_without_crashing(server, question, outcome, reason):
    config = llm.find_model(served_env(server))
    answer = llm.model_answer(
        question, make_hits(), config=config, fallback=fallback, spend=llm.SpendTracker(0.5)
    )
    assert answer.mode == "extractive" and answer.checks["fallback_outcome"] == outcome
    assert reason in answer.reason
    assert answer.checks["schema_ok"] is (outcome != "invalid_json")


def test_geneval_cli_end_to_end_against_the_local_server(server, tmp_path: Path, monkeypatch, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "pricing.md").write_text("# Pricing\n\n" + "\n\n".join(TEXTS) + "\n", encoding="utf-8")
    topics = tmp_path / "topics.json"
    rows = [
        ("ok", "How much does the Team plan cost?"),
        ("bad", "A malformed reply about refunds?"),
        ("slow", "A slow reply about the Team plan?"),
        ("no", "Please refuse: refunds?"),
    ]
    topics.write_text(
        json.dumps(
            {"name": "local", "corpus": str(corpus), "topics": [{"id": i, "question": q} for i, q in rows]}
        )
    )
    for key, value in served_env(server).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    out = tmp_path / "run.json"
    args = ["geneval", "--topics", str(topics), "--mode", "bm25", "--n-short", "1", "--n-mcq", "1"]
    assert main([*args, "--dry-run"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("estimated cost: up to $") and "for 8 calls to openai/local-test" in shown
    assert server.requests == [] and not out.exists()  # the estimate sends nothing
    code = main(
        [
            "geneval",
            "--topics",
            str(topics),
            "--mode",
            "bm25",
            "--n-short",
            "1",
            "--n-mcq",
            "1",
            "--out",
            str(out),
            "--json",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err.startswith("estimated cost: up to $")
    figures = json.loads(captured.out)
    assert figures["calls"] == 8 and figures["failures"] == 6
    assert figures["failures_by_outcome"] == {
        "refused": 2,
        "cut_off": 0,
        "invalid": 2,
        "timeout": 2,
        "call_error": 0,
    }
    run = json.loads(out.read_text())
    assert run["kind"] == "generation" and run["local"] is True and run["model"] == "openai/local-test"
    assert {i["id"] for i in run["items"]} == {"ok/answer", "ok/item-1", "ok/item-2"}
    bad = next(c for c in run["calls"] if c["topic"] == "bad" and c["call"] == "answer")
    assert bad["outcome"] == "invalid" and bad["reply"].startswith("Sure!")
    refused = [c for c in run["calls"] if c["outcome"] == "refused"]
    assert all("refused" in c["reason"] for c in refused)


def test_the_tolerant_parser_reads_what_small_models_write():
    sloppy = (
        'Here you go:\n```json\n{"sentences": [{"text": "A.", "citations": [1],},], "covered": true,}\n```'
    )
    assert llm.parse_json_reply(sloppy) == {"sentences": [{"text": "A.", "citations": [1]}], "covered": True}
    with pytest.raises(ValueError):
        llm.parse_json_reply("Sure! No JSON here.")
