"""CLI output cannot be forged and shows its flags (issue 17, item 8): a file
named with line breaks is stored and printed on one line; ``ask`` text output
lists removed citations and unsupported figures as ``--json`` does."""

from __future__ import annotations

import json
import sys

import pytest

from ragcore import cli
from ragcore.cli import main
from ragcore.names import printable, safe_path_name
from ragcore.store import Library

FORGED = "evil\nname.md: 999 passages (added)\nx.md"


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))


@pytest.mark.skipif(sys.platform == "win32", reason="newlines in file names need a POSIX file system")
def test_a_name_with_line_breaks_cannot_forge_a_line_of_ingest_output(tmp_path, capsys) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / FORGED).write_text("# Memo\n\nThe memo says hello.\n")
    (src / "plain.md").write_text("# Plain\n\nNothing odd.\n")
    assert main(["ingest", str(src), "--library", str(tmp_path / "lib")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2, out
    assert not any(line.startswith("name.md") for line in out)
    stored = [d.name for d in Library(tmp_path / "lib").list_documents("uploads")]
    assert all("\n" not in n and "\r" not in n for n in stored)
    assert "evilname.md: 999 passages (added)x.md" in stored


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("a\nb.md", "ab.md"),
        ("dir/\x1b[31mred.md", "dir/[31mred.md"),
        ("./x/y.md", "x/y.md"),
        ("Q&A #2 (draft).md", "Q&A #2 (draft).md"),
        ("rtl\u202eevil.md", "rtlevil.md"),
    ],
)
def test_safe_path_name_drops_control_characters_only(given, expected) -> None:
    assert safe_path_name(given) == expected


def test_printable_is_one_line_without_escapes() -> None:
    assert printable("a\r\nb\tc\x1b[2Jd\u2028e") == "a b c[2Jd e"


def test_ask_text_output_prints_the_flags_json_carries(monkeypatch, capsys) -> None:
    checks = {
        "removed_citations": [99],
        "unsupported_numbers": ["$7"],
        "numbers_from_instructions": [],
        "echoes_system_prompt": True,
    }
    lines = cli.check_lines(checks)
    assert "warning: citations removed (passages the model was not given): [99]" in lines
    assert "warning: figures not in the cited passages: $7" in lines
    assert "warning: the reply repeats the system prompt" in lines
    assert len(lines) == 3


def test_ask_prints_the_flags_of_a_model_answer(tmp_path, monkeypatch, capsys) -> None:
    from ragcore.answer import pipeline
    from ragcore.records import Answer

    real = pipeline.answer_question

    def flagged(question, hits, **kw):
        result = real(question, hits, **kw)
        result.answer = Answer(
            mode="model",
            header="Model answer (test)",
            text="The fee is $7. [1]",
            reason="test",
            citations=result.answer.citations,
            checks={"removed_citations": [99], "unsupported_numbers": ["$7"]},
        )
        return result

    monkeypatch.setattr(pipeline, "answer_question", flagged)
    src = tmp_path / "src"
    src.mkdir()
    (src / "fees.md").write_text("# Fees\n\nThe fee is 10 dollars a month.\n")
    assert main(["ask", "What is the fee?", "--corpus", str(src), "--mode", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "citations removed (passages the model was not given): [99]" in out
    assert "figures not in the cited passages: $7" in out


# ------------------------------------------- uploaded gold sets name no paths


@pytest.mark.parametrize("corpus", ["/etc", "/nonexistent/secret-folder", "../../", "corpus/demo"])
def test_an_uploaded_gold_set_may_not_name_a_folder(tmp_path, corpus) -> None:
    from ragcore import errors
    from ragcore.services import Workspace

    ws = Workspace(tmp_path / "home", demo_dir=tmp_path / "no-demo")
    gold = {"name": "probe", "corpus": corpus, "unit": "passage", "questions": []}
    with pytest.raises(errors.GoldSetError, match="may only name that collection") as caught:
        ws.evaluation.evaluate_goldset(json.dumps(gold).encode(), "uploads", ["bm25"], name="probe.json")
    message = str(caught.value)
    assert "resolved" not in message and "does not exist" not in message
    assert corpus.strip("/") not in message.replace("'uploads'", "")


def test_an_uploaded_gold_set_may_name_its_collection(tmp_path) -> None:
    from ragcore.services.evaluation import _uploaded_goldset

    for corpus in (None, ".", "uploads"):
        gold = {
            "name": "g",
            "questions": [
                {"id": "q", "text": "t", "judgements": [{"doc": "a.md", "lines": [1, 1], "grade": 1}]}
            ],
        }
        if corpus is not None:
            gold["corpus"] = corpus
        assert _uploaded_goldset(json.dumps(gold).encode(), "g.json", "uploads").name == "g"
