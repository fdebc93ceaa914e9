"""The terminal tables of ``python -m ragcore eval`` (without ``--json``)."""

from __future__ import annotations

from typing import Any

from . import statistics as st
from .metrics import HIT_RATES, METRICS, PRIMARY_METRIC


def _fmt(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> list[str]:
    right = right or set()
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return [line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]


def format_run(run: dict[str, Any]) -> str:
    """The run as terminal tables: one per ranker, then the comparisons."""
    s = run["settings"]
    q = run["questions"]
    conf = round(100 * s.get("confidence", st.CONFIDENCE))
    lines = [
        (
            f"{s.get('name', s.get('gold', 'run'))}: {q['scored']} questions scored, {q['dropped']} dropped "
            f"(no relevant judgement), unit {s['unit']}, chunking {s.get('chunking', '-')}"
        ),
        f"{s['resamples']} bootstrap resamples, seed {s['seed']}; hit rates (success@k) use Wilson intervals",
        "",
    ]
    lines += _ranker_tables(run, conf)
    lines += _type_table(run)
    if run["comparisons"]:
        lines += _comparison_table(run["comparisons"], conf)
    return "\n".join(lines) + "\n"


def _ranker_tables(run: dict[str, Any], conf: int) -> list[str]:
    lines = []
    for name, block in run["rankers"].items():
        lines.append(f"{name}")
        rows = []
        for metric in METRICS:
            m = block["metrics"][metric]
            rows.append([metric, _fmt(m["mean"]), f"[{_fmt(m['ci_low'])}, {_fmt(m['ci_high'])}]"])
        lines += _table(["metric", "mean", f"{conf}% interval"], rows, {1})
        lines.append("")
    return lines


def _type_table(run: dict[str, Any]) -> list[str]:
    types = list(run["questions"].get("by_type", {}))
    if len(types) <= 1:
        return []
    lines = [f"{PRIMARY_METRIC} by question type"]
    header = ["type", "n", *list(run["rankers"])]
    rows = []
    for t in types:
        row = [t, str(run["questions"]["by_type"][t])]
        for block in run["rankers"].values():
            m = block["by_type"][t][PRIMARY_METRIC]
            row.append(f"{_fmt(m['mean'])} [{_fmt(m['ci_low'])}, {_fmt(m['ci_high'])}]")
        rows.append(row)
    return [*lines, *_table(header, rows, {1}), ""]


def _comparison_table(comparisons: list[dict[str, Any]], conf: int) -> list[str]:
    lines = ["paired comparisons (a - b on the same questions; primary family first)"]
    ordered = sorted(comparisons, key=lambda c: c["family"] != "primary")
    rows = []
    for c in ordered:
        mark = "*" if c["family"] == "primary" else ""
        rows.append(
            [
                f"{c['a']} - {c['b']}{mark}",
                c["metric"],
                _fmt(c["diff"], True),
                f"[{_fmt(c['ci_low'], True)}, {_fmt(c['ci_high'], True)}]",
                _fmt(c["d_z"], True),
                _p(c["p"]),
                _p(c["p_holm"]),
                "McNemar" if c["metric"] in HIT_RATES else "sign-flip",
            ]
        )
    header = ["a - b", "metric", "diff", f"{conf}% interval", "d_z", "p", "p_holm", "test"]
    lines += _table(header, rows, {2, 4, 5, 6})
    lines.append(
        "* primary: the default ranker against each other ranker on nDCG@10, Holm-adjusted as one family; "
        "other rows are Holm-adjusted together"
    )
    return lines


def format_chunking_comparison(result: dict[str, Any]) -> str:
    """The chunking comparison: nDCG@10 per ranker per chunking, then each chunking's run."""
    lines = [f"{PRIMARY_METRIC} by chunking", ""]
    rankers = list(next(iter(result["summary"].values())))
    rows = []
    for chunking, per_ranker in result["summary"].items():
        rows.append(
            [chunking]
            + [
                f"{_fmt(per_ranker[r]['mean'])} [{_fmt(per_ranker[r]['ci_low'])}, {_fmt(per_ranker[r]['ci_high'])}]"
                for r in rankers
            ]
        )
    lines += _table(["chunking", *rankers], rows)
    lines.append("")
    if result["comparisons"]:
        rows = [
            [
                c["ranker"],
                f"{c['a']} - {c['b']}",
                _fmt(c["diff"], True),
                f"[{_fmt(c['ci_low'], True)}, {_fmt(c['ci_high'], True)}]",
                _p(c["p"]),
                _p(c["p_holm"]),
            ]
            for c in result["comparisons"]
        ]
        lines += _table(["ranker", "a - b", "diff", "interval", "p", "p_holm"], rows, {2, 4, 5})
        lines.append("")
    for chunking, run in result["chunkings"].items():
        lines.append(f"=== chunking: {chunking} ===")
        lines.append(format_run(run))
    return "\n".join(lines)
