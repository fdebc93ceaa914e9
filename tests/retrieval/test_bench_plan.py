"""bench's order (#18): the ingest rows are measured first, each in a fresh
process, while the JSON lines keep their order (sizes, ingest, memory)."""

from __future__ import annotations

import json
import os
from argparse import Namespace

from ragcore import bench, bench_ingest
from ragcore.bench import Measurement, Step, plan, report_order
from tests.conftest import build_pdf


def test_plan_measures_ingest_before_any_size_and_memory_last() -> None:
    steps = plan([1000, 100_000, 1_000_000])
    assert steps[0] == Step("ingest")
    assert [s.size for s in steps if s.phase == "size"] == [1000, 100_000, 1_000_000]
    assert steps[-2:] == [Step("memory", 100_000), Step("memory", 1_000_000)]


def test_plan_without_ingest_and_memory_of_the_largest_small_size() -> None:
    assert plan([2000], skip_ingest=True) == [Step("size", 2000), Step("memory", 2000)]
    assert plan([]) == [Step("ingest")]


def test_report_order_puts_the_ingest_rows_back_after_the_sizes() -> None:
    phases = [s.phase for s in report_order(plan([1000, 100_000]))]
    assert phases == ["size", "size", "ingest", "memory"]


def _fake_run(monkeypatch, sizes: str, skip_ingest: bool = False) -> list[str]:
    """``bench.run`` with each step's measurement replaced by a recorder."""
    calls: list[str] = []

    def size(self, n: int) -> list[Measurement]:
        calls.append(f"size {n}")
        return [Measurement("bm25_query", n, 1.0, 2.0)]

    def ingest(workdir) -> list[Measurement]:
        calls.append("ingest")
        return [Measurement("pdf_searchable_by_bm25_s", 1855, value=3.0, unit="s")]

    def memory(n: int, workdir) -> list[Measurement]:
        calls.append(f"memory {n}")
        return [Measurement("peak_rss_indexed", n, peak_rss_mb=500.0)]

    monkeypatch.setattr(bench._Bench, "size", size)
    monkeypatch.setattr(bench, "bench_ingest", ingest)
    monkeypatch.setattr(bench, "bench_memory", memory)
    monkeypatch.setattr("ragcore.retrieval.embedding.get_embedder", lambda: None)
    assert bench.run(Namespace(sizes=sizes, json=True, skip_ingest=skip_ingest, backend=None)) == 0
    return calls


def test_run_measures_ingest_first_and_prints_the_old_json_order(monkeypatch, capsys) -> None:
    calls = _fake_run(monkeypatch, "1000,100000")
    assert calls == ["ingest", "size 1000", "size 100000", "memory 100000"]
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["name"], r["size"]) for r in lines] == [
        ("bm25_query", 1000),
        ("bm25_query", 100000),
        ("pdf_searchable_by_bm25_s", 1855),
        ("peak_rss_indexed", 100000),
    ]
    assert set(lines[0]) == {
        "name",
        "size",
        "p50_ms",
        "p95_ms",
        "baseline",
        "ratio",
        "peak_rss_mb",
        "value",
        "unit",
        "note",
    }


def test_skip_ingest_measures_no_ingest_row(monkeypatch, capsys) -> None:
    assert _fake_run(monkeypatch, "2000", skip_ingest=True) == ["size 2000", "memory 2000"]


def test_the_pdf_row_runs_its_probe_in_a_fresh_process(monkeypatch, tmp_path) -> None:
    pdf = tmp_path / "filing.pdf"
    pdf.write_bytes(
        build_pdf([[f"Total revenue grew in quarter {i}, line {j}." for j in range(8)] for i in range(2)])
    )
    monkeypatch.setattr(bench_ingest, "UBER_PDF", pdf)
    answers: list[dict] = []
    real_child = bench._child

    def child(call: str) -> dict:
        answers.append(real_child(call))
        return answers[-1]

    monkeypatch.setattr(bench, "_child", child)
    row = bench_ingest.bench_pdf(tmp_path / "work")
    assert row.name == "pdf_searchable_by_bm25_s" and row.unit == "s" and row.value and row.value > 0
    assert answers and answers[0]["pid"] != os.getpid() and answers[0]["hits"] >= 1
    assert row.size == answers[0]["passages"] and "fresh process" in row.note


def test_the_embedding_row_is_our_rate_over_raw_fastembed_from_its_child(monkeypatch, tmp_path) -> None:
    calls: list[str] = []

    def child(call: str) -> dict:
        calls.append(call)
        return {"passages": 331, "raw_per_s": 20.0, "ours_per_s": 19.0, "embedded_again": 0}

    monkeypatch.setattr(bench, "_child", child)
    row = bench_ingest.bench_embedding(tmp_path)
    assert calls and calls[0].startswith("embedding_probe(")
    assert row.name == "embed_passages_per_s" and row.size == 331 and row.value == 19.0
    assert row.ratio == 19.0 / 20.0 and "embedded 0 passages" in row.note


def test_a_failed_child_gives_a_row_with_the_reason(monkeypatch, tmp_path) -> None:
    def child(call: str) -> dict:
        raise RuntimeError("model missing")

    monkeypatch.setattr(bench, "_child", child)
    row = bench_ingest.bench_embedding(tmp_path)
    assert row.value is None and "probe failed: model missing" in row.note
