"""`search` and `ask` on the demo corpus: the --json contracts, and the shipped
vectors mean no embedding pass on a fresh library."""

import json
from pathlib import Path

import pytest

from ragcore.cli import main

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "corpus" / "demo"
HIT_KEYS = {"rank", "doc", "first_line", "last_line", "pages", "label", "text", "score", "trace"}


@pytest.fixture
def fresh_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "RAGCORE_LLM_MODEL"):
        monkeypatch.delenv(key, raising=False)
    from ragcore.retrieval.embedding import Embedder

    def refuse(self, texts, batch_size=8):
        raise AssertionError(f"embedded {len(texts)} passages; the shipped vectors should cover the demo")

    monkeypatch.setattr(Embedder, "embed_passages", refuse)
    return tmp_path / "home"


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_search_json_contract_without_embedding(fresh_home, capsys):
    out = _json(capsys, ["search", "What does the plan cost?", "--corpus", str(DEMO), "--json"])
    assert out["question"] == "What does the plan cost?" and out["mode"] == "hybrid"
    assert isinstance(out["notes"], list) and len(out["hits"]) == 10
    for h in out["hits"]:
        assert set(h) >= HIT_KEYS and set(h["trace"]) == {"bm25", "dense", "fused", "rerank"}
        assert (DEMO / h["doc"]).is_file() and 1 <= h["first_line"] <= h["last_line"]
    assert [h["rank"] for h in out["hits"]] == list(range(1, 11))


def test_search_hit_text_is_the_cited_lines(fresh_home, capsys):
    out = _json(
        capsys, ["search", "uptime commitment", "--corpus", str(DEMO), "--mode", "bm25", "--json", "--k", "3"]
    )
    for h in out["hits"]:
        if h["pages"]:
            continue  # PDF lines are those of the extracted text
        lines = (DEMO / h["doc"]).read_text(encoding="utf-8").splitlines()
        source = "\n".join(lines[h["first_line"] - 1 : h["last_line"]])
        assert h["text"] in source


def test_ask_json_contract(fresh_home, capsys):
    out = _json(capsys, ["ask", "Is our pricing consistent?", "--corpus", str(DEMO), "--json"])
    assert set(out) >= {"question", "hits", "notes", "lens", "answer"}
    assert out["lens"]["kind"] == "money" and out["lens"]["conflicts"]
    answer = out["answer"]
    assert answer["mode"] == "extractive" and answer["header"] == "Extractive answer (no model)"
    assert answer["reason"] and answer["citations"]
    for c in answer["citations"]:
        assert set(c) >= {"n", "doc", "first_line", "last_line", "label"}


def test_missing_corpus_is_a_clean_error(fresh_home, capsys):
    assert main(["search", "x", "--corpus", str(fresh_home / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_overlong_question_is_refused_before_indexing(tmp_path, capsys, monkeypatch) -> None:
    from ragcore.cli import main

    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    assert main(["search", "word " * 300, "--corpus", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "limited to 1,000 characters" in err and "no such folder" not in err


@pytest.mark.parametrize("k", ["0", "-3", "ten"])
def test_a_k_that_asks_for_nothing_is_refused(fresh_home, capsys, k) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["search", "refund", "--corpus", str(DEMO), "--k", k])
    assert exit_.value.code == 2
    assert "--k" in capsys.readouterr().err
