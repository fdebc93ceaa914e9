"""Provider keys never reach the library, the AI log, exports, command
output, logs or error messages: a fake key is set, answers are asked through
the app's service and the CLI with LiteLLM's mock (one good reply, one
provider error that echoes the key), and every artefact is grepped for it."""

from __future__ import annotations

import functools
import json
import logging

import pytest

from ragcore import cli
from ragcore.answer import llm
from ragcore.services import Workspace
from tests.test_service import HashEmbedder

SECRET = "sk-test-SECRET123"
NOTES = (
    "# Pricing\n\n## Team\n\nThe Team plan costs $49 per user per month.\n\n## Refunds\n\nRefunds within 30 days.\n"
    + "".join(f"\n## Region {i}\n\nShipping to region {i} takes {i + 2} days.\n" for i in range(8))
).encode()


def _reply() -> str:
    return json.dumps(
        {"sentences": [{"text": "The Team plan costs $49 per user per month.", "citations": [1]}]}
    )


@pytest.fixture(scope="module")
def litellm():
    return llm.load_litellm()


def _leaks(blob: bytes) -> bool:
    return SECRET.encode() in blob or SECRET[8:].encode() in blob  # the key, or its distinctive tail


def test_no_artefact_holds_the_key(tmp_path, monkeypatch, litellm, capsys, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("RAGCORE_LLM_MODEL", raising=False)
    env = {"OPENAI_API_KEY": SECRET}
    home = tmp_path / "home"
    ws = Workspace(home, demo_dir=tmp_path / "no-demo", embedder=HashEmbedder())
    assert ws.docs.upload("uploads", "notes.md", NOTES).ok

    good = functools.partial(litellm.completion, mock_response=_reply())
    outcome = ws.asking.ask(
        "uploads", "What does the Team plan cost?", env=env, session="s1", completion=good, mode="bm25"
    )
    assert outcome.answer is not None and outcome.answer.mode == "model"

    def echoing_provider_error(**kwargs):
        raise RuntimeError(f"AuthenticationError: Incorrect API key provided: {kwargs.get('api_key')}")

    failed = ws.asking.ask(
        "uploads",
        "Can I get a refund?",
        env=env,
        session="s1",
        completion=echoing_provider_error,
        mode="bm25",
    )
    texts = [failed.answer.text, failed.answer.reason or "", failed.answer.header, *failed.notes]
    assert failed.answer.mode != "model" and failed.answer.reason  # the error path ran and says why
    assert not any(_leaks(t.encode()) for t in texts), texts

    call_id = outcome.answer.checks["call_id"]
    ws.review.review("s1", call_id, "answer", "accepted")
    exports = [ws.review.export_accepted("s1", "markdown"), ws.review.export_accepted("s1", "json")]
    assert "49" in exports[0]  # the export is not empty, so the grep means something
    calls = repr(ws.review.ai_calls("s1"))

    # The command line: ingest, then ask with the same mocked model.
    monkeypatch.setattr(litellm, "completion", good)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_bytes(NOTES)
    cli_home = tmp_path / "cli-home"
    assert cli.main(["ingest", str(folder), "--library", str(cli_home)]) == 0
    code = cli.main(
        ["ask", "What does the Team plan cost?", "--library", str(cli_home), "--mode", "bm25", "--json"]
    )
    assert code == 0
    out = capsys.readouterr()

    artefacts = {str(p): p.read_bytes() for root in (home, cli_home) for p in root.rglob("*") if p.is_file()}
    assert any(name.endswith("library.sqlite3") for name in artefacts)
    artefacts.update(
        {
            "exports": "\n".join(exports).encode(),
            "ai calls": calls.encode(),
            "stdout": out.out.encode(),
            "stderr": out.err.encode(),
            "logs": "\n".join(r.getMessage() for r in caplog.records).encode(),
        }
    )
    leaked = [name for name, blob in artefacts.items() if _leaks(blob)]
    assert leaked == []
