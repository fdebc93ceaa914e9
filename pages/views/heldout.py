"""The Evaluation page's Held out view: the default ranker scored on groups
its constants were not chosen on (ragcore.evaluation.heldout)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.views import charts, ui
from ragcore.evaluation.heldout import Difference, HeldOutRow, HeldOutStudy


def _interval(d: Difference) -> str:
    return f"{d.diff:+.3f} [{d.low:+.3f}, {d.high:+.3f}]"


def _table_row(row: HeldOutRow) -> dict[str, object]:
    better = "bm25" if row.bm25 >= row.dense else "dense"
    return {
        "Group": row.collection,
        "Questions": row.questions,
        "BM25": row.bm25,
        "Dense": row.dense,
        "RRF k=60": row.rrf,
        "Published RRF": "—" if row.reference is None else f"{row.reference:.3f}",
        "hybrid": row.hybrid,
        "hybrid − better single": _interval(row.minus[better]),
        "hybrid − RRF": _interval(row.minus["rrf k=60"]),
        "Goal met": _verdict(row, better),
    }


def _verdict(row: HeldOutRow, better: str) -> str:
    """Yes, or which bar it falls short of (unrounded: 0.5149 is below 0.515)."""
    if row.goal_met:
        return "yes"
    if row.hybrid < row.best_single:
        return f"no: < {better}"
    return f"no: {row.hybrid:.4f}"


def table(study: HeldOutStudy) -> pd.DataFrame:
    return pd.DataFrame([_table_row(row) for row in study.rows])


def show(study: HeldOutStudy | None) -> None:
    st.header("Held out")
    if study is None:
        st.info(
            "No cross-validation result is stored (eval/results/heldout-default.json or fusion-cv.json). "
            "Make one with `python scripts/prf_parts_study.py --heldout eval/results/heldout-default.json` "
            "(the shipped procedure) or `python scripts/fusion_study.py --cv` (the gate alone)."
        )
        return
    st.caption(
        "nDCG@10 of the default ranker (hybrid) on each group with every retrieval constant chosen on the "
        "other groups, beside BM25, dense and plain RRF k=60 on the same questions. Stored runs score the "
        "questions the constants were chosen on; these figures did not see their questions."
    )
    st.markdown(
        f"**{study.met} of {len(study.rows)} groups** meet the goal: at least the better single signal, "
        "and at least the published RRF figure where there is one."
    )
    number = st.column_config.NumberColumn(format="%.3f")
    st.dataframe(
        table(study),
        hide_index=True,
        width="stretch",
        height=35 * (len(study.rows) + 1) + 3,  # every group visible without scrolling
        column_config={name: number for name in ("BM25", "Dense", "RRF k=60", "hybrid")},
    )
    tabs = st.tabs(["Scores", "Paired differences"])
    with tabs[0]:
        st.altair_chart(charts.heldout_scores(study), width="stretch")
    with tabs[1]:
        st.altair_chart(charts.heldout_differences(study), width="stretch")
        st.caption(
            "Bootstrap over each group's questions; an interval wholly left of zero is a clear loss to that baseline."
        )
    st.caption(ui.md(f"How the constants were chosen: {study.rule}."))
