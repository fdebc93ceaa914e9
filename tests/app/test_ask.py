"""Ask page: a demo question, its cited lines, the lens switch, the trace."""

from __future__ import annotations

import re

from ragcore.retrieval.backends.milvus_client import IndexUnavailable
from ragcore.services.indexes import Indexes
from tests.app.helpers import plain, start

PRICING = "Is our pricing consistent?"
CITATION_LABEL = re.compile(r"^\[(\d+)\] (\S+) · lines? (\d+)(?:-(\d+))?(?: · p\. \d+)?$")
MARKED_LINE = re.compile(r'<div class="rc-line rc-marked"><span class="rc-no">(\d+)</span>')


def _ask(at, question: str):
    at.text_input(key="question").set_value(question)
    at.button(key="FormSubmitter:ask-form-Ask").click().run()
    assert not at.exception, at.exception
    return at


def _subheaders(at) -> list[str]:
    return [s.value for s in at.subheader]


def test_frame_shows_collection_mode_model_status_and_privacy(app_env) -> None:
    at = start()
    assert at.title[0].value == "Ask"
    assert at.radio(key="collection-label").value == "Demo documents"
    assert at.selectbox(key="mode").value == "hybrid"
    sidebar = plain(
        " ".join(m.value for m in at.sidebar.markdown) + " ".join(c.value for c in at.sidebar.caption)
    )
    assert "No key: extractive answers" in sidebar
    assert "only when a key is set" in sidebar
    # The examples include the pricing question.
    assert PRICING in at.button_group(key="example").options


def test_ask_the_pricing_question_and_open_its_first_citation(app_env) -> None:
    at = _ask(start(), PRICING)
    assert {"Answer", "Money lens", "Retrieved passages"} <= set(_subheaders(at))
    cites = [b for b in at.button if (b.key or "").startswith("cite-")]
    assert cites, "the answer has no citation buttons"
    parsed = [CITATION_LABEL.match(plain(b.label)) for b in cites]
    assert all(parsed), [b.label for b in cites]
    number, doc, first, last = parsed[0].groups()
    assert number == "1"
    first, last = int(first), int(last or first)

    cites[0].click().run()
    assert not at.exception, at.exception
    viewer = "".join(h.proto.body for h in at.html if "rc-doc" in h.proto.body)
    marked = [int(n) for n in MARKED_LINE.findall(viewer)]
    assert marked == list(range(first, last + 1))
    assert any(f"{doc}, line" in plain(c.value) for c in at.caption)


def test_example_question_asks_at_once_and_the_lens_can_be_switched(app_env) -> None:
    at = start()
    at.button_group(key="example").set_value(PRICING).run()
    assert not at.exception, at.exception
    assert at.text_input(key="question").value == PRICING
    assert "Money lens" in _subheaders(at)
    money_tables = len(at.dataframe)

    at.button_group(key="lens").set_value("risk").run()
    assert not at.exception, at.exception
    assert "Risk lens" in _subheaders(at) and "Money lens" not in _subheaders(at)
    assert any("Chosen by you" in plain(c.value) for c in at.caption)

    at.button_group(key="lens").set_value("none").run()
    heads = _subheaders(at)
    assert "Answer" in heads and not any(h.endswith("lens") for h in heads)
    assert len(at.dataframe) < money_tables  # the figures table is gone, the trace table stays


def test_retrieved_passages_show_their_trace_and_related_passages(app_env) -> None:
    at = _ask(start(), "What uptime does the SLA guarantee?")
    trace = next(d.value for d in at.dataframe if "BM25" in d.value.columns)
    assert list(trace.columns[:7]) == ["#", "Document", "Lines", "BM25", "Dense", "Fused", "Reranked"]
    assert list(trace["#"]) == list(range(1, len(trace) + 1))
    # Hybrid mode: every hit was placed by fusion, and came from BM25 or dense candidates.
    assert all(v.startswith("#") for v in trace["Fused"])
    assert all(b != "—" or d != "—" for b, d in zip(trace["BM25"], trace["Dense"], strict=True))
    assert (trace["Reranked"] == "—").all()  # rerank did not run in hybrid mode
    assert any(m.value == "**Related across documents**" for m in at.markdown)
    related = [b for b in at.button if (b.key or "").startswith("rel-1-")]
    top_doc = trace["Document"][0]
    # Labels say who made the link ("computed: " or "curated: "), then the document.
    assert related and all(plain(b.label).split(": ", 1)[0] in ("computed", "curated") for b in related)
    assert all(not plain(b.label).split(": ", 1)[1].startswith(top_doc + ",") for b in related)


def test_bm25_mode_from_the_sidebar(app_env) -> None:
    at = start()
    at.selectbox(key="mode").set_value("bm25").run()
    at = _ask(at, "refund after cancelling an annual plan")
    trace = next(d.value for d in at.dataframe if "BM25" in d.value.columns)
    assert (trace["Dense"] == "—").all() and (trace["Fused"] == "—").all()
    assert all(v.startswith("#") for v in trace["BM25"])


def test_an_empty_question_clears_the_previous_answer(app_env) -> None:
    at = _ask(start(), PRICING)
    assert "Answer" in _subheaders(at)
    at = _ask(at, "   ")
    assert [plain(w.value) for w in at.warning][-1] == "Type a question first."
    assert "Answer" not in _subheaders(at) and "Retrieved passages" not in _subheaders(at)


def test_an_overlong_question_is_refused_with_the_limit(app_env) -> None:
    at = _ask(start(), PRICING)
    at = _ask(at, "pricing " * 200)  # 1,600 characters
    warning = plain(at.warning[-1].value)
    assert "1,599 characters long" in warning and "limited to 1,000" in warning
    assert "Answer" not in _subheaders(at)


def test_the_money_lens_names_each_item_once_and_tells_a_change_from_a_conflict(app_env) -> None:
    at = _ask(start(), PRICING)
    figures = next(d.value for d in at.dataframe if "Amount" in d.value.columns)
    assert list(figures.columns) == ["Amount", "Item", "Per", "Relation", "Effective", "Sources"]
    assert not any("; " in item for item in figures["Item"])  # one item per figure, not fragments joined
    assert set(figures["Relation"]) <= {"conflict", "change", ""}
    # The demo's designed conflict: the sales notes quote $999 after the change to $1,199 took effect.
    assert "conflict" in set(figures.loc[figures["Amount"].isin(["$999", "$1,199"]), "Relation"])
    headings = [m.value for m in at.markdown if m.value.startswith((":red[**Conflict**]", ":blue[**Change"))]
    assert any(h.startswith(":red[**Conflict**]") for h in headings)
    # A chain of changes is shown as its steps: never A -> C beside A -> B and B -> C.
    steps = {
        tuple(re.search(r"\*\*([^*]+) → ([^*]+)\*\*$", h).groups())
        for h in headings
        if h.startswith(":blue[**Change") and "→" in h
    }
    assert not any(
        (a, c) in steps and (c2, d) in steps and (a, d) in steps
        for a, c in steps
        for c2, d in steps
        if c == c2
    )


def test_an_index_that_fails_while_vectors_are_missing_is_an_error_not_a_crash(app_env, monkeypatch) -> None:
    """Asking while some passages still lack vectors embeds them first; when
    the index behind them is unreachable (a Milvus server down while an upload
    embeds in the background) the page says so instead of crashing."""

    def down(self, collection, progress=None):
        raise IndexUnavailable("Milvus at http://127.0.0.1:1 is unreachable or not answering (connect)")

    at = start()
    monkeypatch.setattr(Indexes, "missing_vectors", lambda self, collection: 3)
    monkeypatch.setattr(Indexes, "ensure_dense", down)
    _ask(at, PRICING)
    assert "unreachable" in " ".join(plain(e.value) for e in at.error)
    assert at.session_state["outcome"] is None
