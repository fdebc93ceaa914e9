"""How it works page: live figures of the loaded collection and the last query."""

from __future__ import annotations

from ragcore.retrieval import retriever as retrieval
from ragcore.retrieval.bm25 import BM25Params
from tests.app.helpers import start


def test_how_it_works_shows_live_figures_and_last_query_timings(app_env) -> None:
    at = start()
    at.text_input(key="question").set_value("What does the SLA promise?")
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception

    at.switch_page("pages/how_it_works.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value == "How it works"
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Documents"]) >= 20
    assert int(metrics["Passages"]) > int(metrics["Documents"])
    assert metrics["Last query"].endswith(" ms")
    stages = [m.value for m in at.markdown if m.value.startswith("**") and ". " in m.value[:6]]
    assert len(stages) == 6
    timings = next(d.value for d in at.dataframe if "Stage" in d.value.columns)
    assert {"BM25", "Dense search", "Fusion", "Lens and answer", "Total"} <= set(timings["Stage"])
    assert (timings["Milliseconds"] >= 0).all()
    text = " ".join(c.value for c in at.caption)
    assert "synonym" in text and "cross-encoder" in text and "Milvus" in text  # the known limits
    assert not any("``" in m.value for m in at.markdown)  # no docstring markup shown
    # The BM25 stage claims the side-by-side bonus only when it is on.
    bm25 = next(m.value for m in at.markdown if "Snowball-stemmed" in m.value)
    assert ("side by side in the passage, as in" in bm25) == bool(BM25Params().adjacency_weight)
    # ... and table rows and named documents only when they are on, with their live figures.
    params = BM25Params()
    assert ("scored as a small passage of its own" in bm25) == bool(params.table_row_weight)
    assert (f"{params.table_row_weight:g} ×" in bm25) == bool(params.table_row_weight)
    assert ("names a document" in bm25) == bool(params.named_document_boost)
    # ... and the answer-type lifts, each named only when it is on.
    assert ("a code" in bm25) == bool(params.answer_code_lift)
    assert ("a labelled part" in bm25) == bool(params.answer_label_lift)
    assert ("a value" in bm25) == bool(params.answer_value_lift)
    fusion = next(m.value for m in at.markdown if "Hybrid mode takes" in m.value)
    assert ("ranked part by part" in fusion) == retrieval.SPLIT_PARTS
    assert (f"top {retrieval.PART_HEAD}" in fusion) == (retrieval.SPLIT_PARTS and retrieval.PART_HEAD > 0)
    whole_leads = retrieval.PART_LEAD == "whole"
    assert ("each part's first passage leading" in fusion) == (
        retrieval.SPLIT_PARTS and not retrieval.PART_HEAD and not whole_leads
    )
    assert ("the whole question's first passage leading each round" in fusion) == (
        retrieval.SPLIT_PARTS and not retrieval.PART_HEAD and whole_leads
    )


def test_last_query_follows_the_collection_in_view(app_env) -> None:
    at = start()
    at.text_input(key="question").set_value("What does the SLA promise?")
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    at.switch_page("pages/how_it_works.py").run()
    at.radio(key="collection-label").set_value("My uploads").run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Last query"] == "None yet"
    assert any("No question asked in this collection yet" in c.value for c in at.caption)
    at.radio(key="collection-label").set_value("Demo documents").run()
    assert {m.label: m.value for m in at.metric}["Last query"].endswith(" ms")


def test_the_numbers_behind_the_choices_lead_with_held_out_figures(app_env) -> None:
    at = start("pages/how_it_works.py")
    assert not at.exception, at.exception
    held = next(d.value for d in at.dataframe if "Goal met" in d.value.columns)
    assert {"cranfield", "cisi", "vaswani"} <= set(held["Group"])  # the stored eval/results/fusion-cv.json
    notes = " ".join(c.value for c in at.caption)
    met = int((held["Goal met"] == "yes").sum())
    assert f"on {met} of {len(held)} groups" in notes
    assert "In-sample" in notes
