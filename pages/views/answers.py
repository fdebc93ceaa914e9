"""The Answers view of the Evaluation page: a stored answer run's metrics,
and each question's answer beside its required facts, stated ones marked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from pages.views import ui
from ragcore.evaluation.answer_tables import answer_text, fact_marks, question_rows, shown_rows


def show_answers(block: Mapping[str, Any], key: str) -> None:
    st.subheader("Answers")
    settings = block.get("settings", {})
    st.caption(
        ui.md(
            f"{settings.get('answer', 'extractive')} answer through the ask path (lens {settings.get('lens', 'auto')}, "
            f"k {settings.get('k', 10)}), {block['questions']} questions with an answer key; 95% intervals "
            "(bootstrap for means, Wilson for shares)."
        )
    )
    summary = pd.DataFrame(shown_rows(block))  # counts whole, shares to 3 places
    # every metric in view, none behind the table's own scroll bar
    st.dataframe(summary, hide_index=True, width="stretch", height=ui.table_height(len(summary)))
    rows = question_rows(block)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    ids = [r["id"] for r in rows]
    if not ids:
        return
    qid = st.selectbox("Answer in detail", ids, key=f"{key}-answer-q")
    question = next(q for q in block["per_question"] if q["id"] == qid)
    left, right = st.columns([3, 2])
    with left:
        st.markdown(f"**{ui.md(question['question'])}**")
        st.text(answer_text(question))
    with right:
        st.markdown("**Facts required**")
        marks = fact_marks(question)
        if not marks:
            st.caption("Unanswerable: a correct answer says the documents do not cover it.")
        for fact, stated in marks:
            st.markdown(("✅ " if stated else "❌ ") + ui.md(fact))
