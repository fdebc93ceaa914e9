"""scripts/speed_table.py (#18): the README speed table is made from one
stored bench run, each goal checked from the run's figures."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "bench" / "2026-12-02-s7-bench-100k-1m.jsonl"


def _script():
    spec = importlib.util.spec_from_file_location("speed_table", ROOT / "scripts" / "speed_table.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["speed_table"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _line(lines: list[str], start: str) -> list[str]:
    (line,) = [x for x in lines if x.startswith(f"| {start}")]
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_the_table_of_a_stored_run_quotes_its_figures_and_checks_each_goal() -> None:
    st = _script()
    lines = st.table(st.load_rows(RUN))
    assert _line(lines, "BM25 query incl.")[1:3] == ["1.19 / 2.8 ms", "9.11 / 24.5 ms"]
    assert _line(lines, "BM25 query incl.")[-1] == "yes"
    assert _line(lines, "hybrid end to end")[2] == "25.69 / 37.3 ms"
    bm25s = _line(lines, "BM25 from query term ids")
    assert "1.27 ms, ours **1.73x** faster" in bm25s[3] and bm25s[-1] == "yes"
    pdf = _line(lines, "`uber_2021_10k.pdf`")
    assert pdf[1].startswith("**6.38 s**") and pdf[-1] == "**no**"  # session 7's miss
    assert _line(lines, "peak RSS")[1:3] == ["541 MB", "2,259 MB"]


def test_a_figure_over_its_goal_is_marked_missed(tmp_path) -> None:
    rows = [json.loads(x) for x in RUN.read_text(encoding="utf-8").splitlines() if x.strip()]
    for row in rows:
        if row["name"] == "hybrid_query_end_to_end" and row["size"] == 1_000_000:
            row["p50_ms"] = 35.5
        if row["name"] == "pdf_searchable_by_bm25_s":
            row["value"] = 3.2
    run = tmp_path / "run.jsonl"
    run.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    st = _script()
    lines = st.table(st.load_rows(run))
    assert _line(lines, "hybrid end to end")[-1] == "**no**"
    assert _line(lines, "`uber_2021_10k.pdf`")[-1] == "yes"


def test_the_load_line_gives_the_start_and_the_range(tmp_path) -> None:
    load = tmp_path / "load.txt"
    load.write_text(
        "05:15:00 1.20 2.00 3.00\n05:15:30 0.90 1.90 2.90\n05:16:00 2.40 2.00 2.80\n", encoding="utf-8"
    )
    assert (
        _script().load_range(load) == "1-minute load average 1.20 at the start, 0.90-2.40 sampled (3 samples)"
    )
