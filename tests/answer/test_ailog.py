from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from ragcore.answer import llm
from ragcore.answer.ailog import AiLog, redact
from ragcore.errors import LibraryError
from ragcore.records import Answer, Document, Hit, Passage

FAKE_KEY = "sk-proj-FAKEKEY-0123456789abcdef-never-store"


def make_hits(texts: list[str]) -> list[Hit]:
    doc = Document(name="policy.md", title="Policy", kind="md", text="\n".join(texts), content_hash="x")
    hits = []
    for i, text in enumerate(texts):
        start, end = doc.line_span(i + 1, i + 1)
        hits.append(Hit(Passage("policy.md", i, i + 1, i + 1, start, end, "Policy", text), i + 1, 1.0, {}))
    return hits


def call(log: AiLog, **overrides) -> int:
    values = {
        "kind": "answer",
        "model": "gpt-4o-mini",
        "passage_ids": ["policy.md#0", "policy.md#1"],
        "prompt_chars": 1200,
        "response_chars": 300,
        "outcome": "ok",
        "lens": "money",
        "question": "What is the refund window?",
        "prompt_tokens": 310,
        "completion_tokens": 80,
        "cost_usd": 0.0001,
        "cost_source": "reported",
        "duration_ms": 850.0,
        "items": {"answer": {"mode": "model", "text": "Thirty days. [1]", "citations": []}},
    }
    values.update(overrides)
    return log.record_call(**values)


@pytest.fixture(params=["plain", "autocommit"])
def conn(request, tmp_path: Path) -> sqlite3.Connection:
    # The library's own connection runs in autocommit + WAL; a plain one does not.
    if request.param == "plain":
        return sqlite3.connect(tmp_path / "library.db")
    c = sqlite3.connect(tmp_path / "library.db", isolation_level=None)
    c.execute("PRAGMA journal_mode=WAL")
    return c


def test_a_call_is_recorded_with_everything_the_log_promises(conn, tmp_path: Path) -> None:
    log = AiLog(conn, session="browser-1")
    call_id = call(log)
    record = log.calls()[0]
    assert record.id == call_id and record.session == "browser-1"
    assert (record.model, record.lens, record.kind, record.outcome) == (
        "gpt-4o-mini",
        "money",
        "answer",
        "ok",
    )
    assert record.passage_ids == ("policy.md#0", "policy.md#1")
    assert (record.prompt_chars, record.response_chars) == (1200, 300)
    assert (record.prompt_tokens, record.completion_tokens, record.cost_usd) == (310, 80, 0.0001)
    assert record.ts.endswith("+00:00")
    # Another connection to the same file sees it (committed, not held in a transaction).
    other = AiLog(sqlite3.connect(tmp_path / "library.db"))
    assert [c.id for c in other.calls()] == [call_id]


def test_calls_filter_by_session(conn) -> None:
    log = AiLog(conn, session="a")
    call(log)
    call(log, session="b")
    assert [c.session for c in log.calls()] == ["a", "b"]
    assert [c.session for c in log.calls(session="b")] == ["b"]
    assert log.spent("a") == pytest.approx(0.0001)


def test_reviews_latest_decision_wins_and_only_accepted_or_edited_count(conn) -> None:
    log = AiLog(conn)
    first = call(log)
    second = call(
        log, items={"item-1": {"kind": "short"}, "item-2": {"kind": "mcq"}, "item-10": {"kind": "short"}}
    )
    log.record_review(first, "answer", "accepted")
    log.record_review(first, "answer", "rejected")  # changed their mind
    log.record_review(second, "item-10", "accepted")
    log.record_review(second, "item-2", "edited", "Thirty days")
    log.record_review(second, "item-1", "rejected")
    accepted = log.accepted_items()
    assert [(r.call_id, r.item_ref, r.decision) for r in accepted] == [
        (second, "item-2", "edited"),
        (second, "item-10", "accepted"),
    ]
    assert accepted[0].edited_text == "Thirty days" and accepted[0].item == {"kind": "mcq"}
    assert log.decisions(first) == {"answer": "rejected"}


def test_bad_reviews_get_clear_messages(conn) -> None:
    log = AiLog(conn)
    call_id = call(log)
    with pytest.raises(ValueError, match="decision must be one of"):
        log.record_review(call_id, "answer", "maybe")
    with pytest.raises(LibraryError, match="no item 'item-9'"):
        log.record_review(call_id, "item-9", "accepted")
    with pytest.raises(LibraryError, match="no AI call with id 999"):
        log.record_review(999, "answer", "accepted")
    with pytest.raises(ValueError, match="needs edited_text"):
        log.record_review(call_id, "answer", "edited")
    with pytest.raises(ValueError, match="takes no edit"):
        log.record_review(call_id, "answer", "accepted", "new text")
    with pytest.raises(ValueError, match="kind must be"):
        call(log, kind="chat")


def test_redact_masks_given_secrets_and_key_shapes() -> None:
    assert redact(f"bad key {FAKE_KEY}!") == "bad key [redacted]!"
    assert redact("token abcd1234secret here", ["abcd1234secret"]) == "token [redacted] here"
    assert redact("nothing to hide") == "nothing to hide"


def _db_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.iterdir() if p.name.startswith("library.db"))


def test_the_key_is_never_written_to_the_database(tmp_path: Path) -> None:
    config = llm.find_model({"OPENAI_API_KEY": FAKE_KEY})
    assert config is not None and config.api_key == FAKE_KEY
    conn = sqlite3.connect(tmp_path / "library.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    log = AiLog(conn, session="s")
    hits = make_hits(["Refunds are available within 30 days of purchase."])
    seen_keys = []

    def echoing_failure(**kwargs):
        # Providers' auth errors sometimes quote the key back.
        seen_keys.append(kwargs.get("api_key"))
        raise RuntimeError(f"AuthenticationError: Incorrect API key provided: {kwargs['api_key']}")

    def fine(**kwargs):
        content = '{"sentences": [{"text": "Refunds are available within 30 days.", "citations": [1]}]}'
        message = SimpleNamespace(content=content, refusal=None)
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")], usage=None)

    def fallback(reason: str) -> Answer:
        return Answer("extractive", "Extractive answer", "Refunds: 30 days.", reason, [])

    spend = llm.SpendTracker(0.5)
    for completion in (echoing_failure, fine):
        llm.model_answer(
            "Refunds?", hits, config=config, fallback=fallback, spend=spend, log=log, completion=completion
        )
    assert seen_keys == [FAKE_KEY]  # the key did reach the provider call...
    calls = log.calls()
    assert [c.outcome for c in calls] == ["provider_error", "ok"]
    assert "[redacted]" in calls[0].detail
    log.record_review(calls[1].id, "answer", "edited", "Thirty days.")
    data = _db_bytes(tmp_path)
    assert b"Refunds" in data  # ...the check reads the real content...
    assert FAKE_KEY.encode() not in data  # ...and the key is nowhere in the files
    assert b"FAKEKEY" not in data
