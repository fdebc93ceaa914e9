import argparse
import io
import json
from dataclasses import dataclass, field

import pytest

from ragcore.evaluation import command
from ragcore.evaluation import rankers as ranker_building
from ragcore.evaluation.rankers import retriever_rankers

from .helpers import cut, make_doc
from .test_runner import FakeRetriever

DOCS = [
    make_doc("plans.md", ["# Plans", "Team costs twelve a seat.", "Enterprise has phone support."]),
    make_doc("policy.md", ["# Policy", "Refunds take thirty days.", "Email support answers in a day."]),
]


@dataclass
class FakeCorpus:
    documents: dict
    passages: list = field(default_factory=list)


def fake_build(calls):
    def build(corpus_dir, chunking, modes, unit, progress=None):
        calls.append((str(corpus_dir), chunking, tuple(modes), unit))
        ranges = {"whole": None, "sentence": "lines"}.get(chunking, "heading")
        passages = []
        for doc in DOCS:
            if ranges is None:
                passages += cut(doc, [(1, doc.line_count)], chunking)
            elif ranges == "lines":
                passages += cut(doc, [(n, n) for n in range(1, doc.line_count + 1)], chunking)
            else:
                passages += cut(doc, [(1, 1), (2, doc.line_count)], chunking)
        if progress:
            progress("built")
        corpus = FakeCorpus({d.name: d for d in DOCS}, passages)
        return corpus, retriever_rankers(FakeRetriever(passages), modes, unit), {"passages": len(passages)}

    return build


def gold_file(tmp_path, judgements=None):
    (tmp_path / "docs").mkdir(exist_ok=True)
    judgements = judgements or [{"doc": "plans.md", "quote": "phone support", "grade": 2}]
    data = {
        "name": "mini",
        "corpus": "docs",
        "questions": [
            {"id": "q1", "text": "enterprise phone support", "type": "fact", "judgements": judgements},
            {
                "id": "q2",
                "text": "refunds thirty days",
                "type": "policy",
                "judgements": [{"doc": "policy.md", "lines": [2, 2], "grade": 1}],
            },
            {"id": "q3", "text": "nothing judged", "judgements": []},
        ],
    }
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(data))
    return path


def parse(argv):
    parser = argparse.ArgumentParser(prog="ragcore eval")
    command.add_arguments(parser)
    return parser.parse_args(argv)


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = command.run(parse(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def calls(monkeypatch):
    recorded = []
    monkeypatch.setattr(ranker_building, "build_rankers", fake_build(recorded))
    return recorded


def test_gold_run_prints_a_table_per_ranker_and_the_comparisons(tmp_path, calls):
    code, out, err = run(["--gold", str(gold_file(tmp_path)), "--resamples", "300"])
    assert code == 0, err
    assert calls == [(str((tmp_path / "docs").resolve()), "auto", ("bm25", "dense", "hybrid"), "passage")]
    assert "2 questions scored, 1 dropped" in out
    for name in ("bm25", "dense", "hybrid"):
        assert f"\n{name}\n" in out
    assert "ndcg@10" in out and "95% interval" in out
    assert "hybrid - bm25*" in out  # a primary comparison
    assert "[eval" in err and "built" in err  # progress went to stderr


def test_json_to_stdout_and_out_file_hold_the_same_run(tmp_path, calls):
    target = tmp_path / "runs" / "mini.json"
    code, out, _ = run(
        [
            "--gold",
            str(gold_file(tmp_path)),
            "--rankers",
            "bm25,dense",
            "--json",
            "--out",
            str(target),
            "--resamples",
            "300",
            "--quiet",
        ]
    )
    assert code == 0
    printed = json.loads(out)
    assert printed == json.loads(target.read_text())
    assert printed["questions"]["total"] == 3 and printed["questions"]["dropped"] == 1
    assert set(printed["rankers"]) == {"bm25", "dense"}
    assert printed["settings"]["rankers"] == ["bm25", "dense"]
    assert printed["settings"]["seed"] == command.st.SEED
    assert {"python", "numpy", "scipy", "ragcore_commit", "ragcore_modified"} <= set(
        printed["settings"]["versions"]
    )
    keys = {"a", "b", "metric", "diff", "ci_low", "ci_high", "d_z", "p", "p_holm"}
    assert all(keys <= set(c) for c in printed["comparisons"])
    q1 = printed["per_question"]["q1"]
    assert q1["type"] == "fact"
    assert set(q1["top10"]["bm25"][0]) == {"doc", "first_line", "last_line", "grade"}


def test_gold_set_errors_exit_1_with_the_question_and_document(tmp_path, calls):
    path = gold_file(tmp_path, [{"doc": "plans.md", "quote": "fax support", "grade": 2}])
    code, out, err = run(["--gold", str(path), "--quiet"])
    assert code == 1 and out == ""
    assert "question q1, document plans.md" in err and "not in the document" in err


def test_compare_chunkings_runs_heading_sentence_and_whole(tmp_path, calls):
    code, out, err = run(
        [
            "--gold",
            str(gold_file(tmp_path)),
            "--compare-chunkings",
            "--rankers",
            "bm25,hybrid",
            "--resamples",
            "200",
            "--quiet",
        ]
    )
    assert code == 0, err
    assert [c[1] for c in calls] == ["heading", "sentence", "whole"]
    assert "ndcg@10 by chunking" in out
    assert "=== chunking: sentence ===" in out


def test_beir_run_is_per_document(tmp_path, calls):
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps({"_id": d.name, "text": "x"}) for d in DOCS))
    (folder / "queries.jsonl").write_text(
        json.dumps({"_id": "1", "text": "refunds thirty days"})
        + "\n"
        + json.dumps({"_id": "2", "text": "unjudged"})
    )
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\tpolicy.md\t1\n")
    code, out, err = run(["--beir", str(folder), "--json", "--resamples", "200", "--quiet"])
    assert code == 0, err
    result = json.loads(out)
    assert calls[0][1:] == ("whole", ("bm25", "dense", "hybrid"), "document")
    assert result["settings"]["unit"] == "document"
    assert result["settings"]["index"] == {"passages": 2}
    assert result["questions"] == {
        "total": 2,
        "scored": 1,
        "dropped": 1,
        "dropped_ids": ["2"],
        "by_type": {"untyped": 1},
    }
    assert result["per_question"]["1"]["top10"]["bm25"][0]["doc"] == "policy.md"


def test_bad_options(tmp_path, calls):
    code, _, err = run(["--gold", str(gold_file(tmp_path)), "--rankers", "bm25,bm25"])
    assert code == 1 and "once" in err
    code, _, err = run(["--gold", str(gold_file(tmp_path)), "--rankers", "bm25,magic"])
    assert code == 1 and "unknown ranker(s) magic" in err
    assert calls == []  # nothing was loaded or indexed
    with pytest.raises(SystemExit):
        parse(["--gold", "a.json", "--beir", "b"])


def test_rankers_that_cannot_differ_say_so_in_the_run(tmp_path, calls, monkeypatch):
    monkeypatch.delenv("RAGCORE_RERANKER_DIR", raising=False)
    argv = ["--gold", str(gold_file(tmp_path)), "--rankers", "hybrid,widen,rerank", "--json"]
    code, out, _ = run([*argv, "--resamples", "200", "--quiet"])
    assert code == 0
    rankers = json.loads(out)["rankers"]
    assert "equals dense in the top 10 by construction" in rankers["widen"]["note"]
    assert "no cross-encoder is configured" in rankers["rerank"]["note"]
    assert "note" not in rankers["hybrid"]
