"""``--backend`` on the command line: Milvus Lite in a file, a server that
is down (clear error within 10 s, upload kept), and back (indexed)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ragcore.cli import main
from ragcore.retrieval.backends import parse_index
from ragcore.retrieval.backends.milvus import client_for, forget_client
from ragcore.store import Library

from .conftest import LoopbackServer, free_port

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "corpus" / "demo"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("RAGCORE_HOME", str(home))
    # main() sets RAGCORE_INDEX from --backend; monkeypatch restores it after.
    monkeypatch.setenv("RAGCORE_INDEX", "embedded")
    return home


def _search(capsys, *args: str) -> tuple[int, dict | None, str]:
    code = main(["search", *args, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else None), err


def test_search_corpus_on_milvus_lite_matches_embedded_and_reuses(home, tmp_path, capsys):
    target = f"milvus:{tmp_path / 'index.db'}"
    question = "How long are backups kept?"
    code, embedded, _ = _search(capsys, question, "--corpus", str(DEMO), "--mode", "dense")
    assert code == 0
    code, milvus, err = _search(
        capsys, question, "--corpus", str(DEMO), "--mode", "dense", "--backend", target
    )
    assert code == 0, err
    assert [(h["doc"], h["first_line"]) for h in milvus["hits"]] == [
        (h["doc"], h["first_line"]) for h in embedded["hits"]
    ]
    code, again, _ = _search(capsys, question, "--corpus", str(DEMO), "--mode", "bm25", "--backend", target)
    assert code == 0 and again["hits"]
    client = client_for(parse_index(target))
    folders = [name for name in client.list_collections() if name.startswith("rc_dir_")]
    assert len(folders) == 1  # keyed by the folder's content, re-used


def test_unknown_backend_is_refused(home, capsys):
    assert main(["search", "q", "--corpus", str(DEMO), "--backend", "elastic://x"]) == 2
    assert "unknown index backend" in capsys.readouterr().err


def _ingest_one(home: Path, tmp_path: Path) -> None:
    note = tmp_path / "otters.md"
    note.write_text("# Otters\n\nThe otter census runs every March.\n", encoding="utf-8")
    assert main(["ingest", str(note), "--library", str(home), "--collection", "team"]) == 0


@pytest.mark.slow  # starts a loopback server after the failure
def test_server_down_fails_fast_keeps_the_upload_and_indexes_it_when_back(home, tmp_path, capsys):
    _ingest_one(home, tmp_path)
    capsys.readouterr()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args = [
        "otter census",
        "--library",
        str(home),
        "--collection",
        "team",
        "--mode",
        "bm25",
        "--backend",
        url,
    ]
    started = time.monotonic()
    code, _, err = _search(capsys, *args)
    assert code == 2 and time.monotonic() - started < 10
    assert "unreachable" in err and f"127.0.0.1:{port}" in err
    assert [d.name for d in Library(home).list_documents("team")] == ["otters.md"]  # upload kept

    server = LoopbackServer(tmp_path / "server", port)
    server.start()
    try:
        code, found, err = _search(capsys, *args)
        assert code == 0, err
        assert found["hits"][0]["doc"] == "otters.md"
    finally:
        server.stop()
        forget_client(parse_index(url))


@pytest.mark.slow  # starts a loopback server and freezes it
def test_frozen_server_fails_within_ten_seconds_and_answers_when_it_is_back(home, tmp_path, capsys):
    _ingest_one(home, tmp_path)
    capsys.readouterr()
    server = LoopbackServer(tmp_path / "server", free_port())
    server.start()
    url = server.target.uri
    args = [
        "otter census",
        "--library",
        str(home),
        "--collection",
        "team",
        "--mode",
        "bm25",
        "--backend",
        url,
    ]
    try:
        code, found, err = _search(capsys, *args)
        assert code == 0 and found["hits"][0]["doc"] == "otters.md", err
        server.pause()
        started = time.monotonic()
        code, _, err = _search(capsys, *args)
        assert code == 2 and time.monotonic() - started < 10
        assert "not answering" in err and "time limit" in err
        server.resume()
        code, found, err = _search(capsys, *args)
        assert code == 0 and found["hits"][0]["doc"] == "otters.md", err
    finally:
        server.stop()
        forget_client(parse_index(url))


def _mini_gold(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "plans.md").write_text(
        "# Plans\n\nTeam costs twelve a seat.\n\nEnterprise has phone support.\n", encoding="utf-8"
    )
    (docs / "policy.md").write_text(
        "# Policy\n\nRefunds take thirty days.\n\nEmail support answers in a day.\n", encoding="utf-8"
    )
    gold = {
        "name": "mini",
        "corpus": "docs",
        "questions": [
            {
                "id": "q1",
                "text": "Which plan has phone support?",
                "judgements": [{"doc": "plans.md", "lines": [5, 5], "grade": 2}],
            },
            {
                "id": "q2",
                "text": "How long do refunds take?",
                "judgements": [{"doc": "policy.md", "lines": [3, 3], "grade": 2}],
            },
        ],
    }
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold), encoding="utf-8")
    return path


@pytest.mark.slow  # loads the embedding model
def test_eval_and_ask_run_on_milvus_and_say_so(home, tmp_path, capsys):
    gold = _mini_gold(tmp_path)
    target = f"milvus:{tmp_path / 'index.db'}"
    out = tmp_path / "run.json"
    argv = ["eval", "--gold", str(gold), "--rankers", "bm25,dense,hybrid", "--backend", target]
    assert main([*argv, "--quiet", "--out", str(out)]) == 0, capsys.readouterr().err
    run = json.loads(out.read_text(encoding="utf-8"))
    index = run["settings"]["index"]
    assert index["index_backend"] == target and index["fusion"]["method"] == "learned"
    for ranker in ("bm25", "dense", "hybrid"):
        assert run["rankers"][ranker]["metrics"]["ndcg@10"]["mean"] > 0.5, ranker

    capsys.readouterr()
    code = main(["ask", "How long do refunds take?", "--corpus", str(tmp_path / "docs"), "--backend", target])
    shown = capsys.readouterr().out
    assert code == 0 and "policy.md" in shown and "thirty days" in shown


@pytest.mark.slow  # two child processes
def test_bench_backend_reports_both_backends_side_by_side(home, capsys):
    assert main(["bench", "--backend", "milvus", "--sizes", "300", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    names = {row["name"] for row in rows}
    for label in ("embedded", "milvus"):
        assert f"{label}_failed" not in names
        assert {f"{label}_ingest", f"{label}_peak_rss"} <= names
        assert {f"{label}_{mode}_query" for mode in ("bm25", "dense", "hybrid")} <= names
    assert all(row["size"] == 300 for row in rows)
    ingest = {row["name"]: row["value"] for row in rows if row["name"].endswith("_ingest")}
    assert all(value > 0 for value in ingest.values())
