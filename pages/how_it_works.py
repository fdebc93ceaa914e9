"""How it works: the pipeline stage by stage, with the live figures of the
loaded collection and the numbers behind each decision."""

from __future__ import annotations

import os

import pandas as pd
import streamlit as st

from pages.views import heldout, ui
from ragcore import config, errors


def _either(kinds: tuple[str, ...]) -> str:
    """The kinds joined as a reader says them: "a code, a labelled part or a value"."""
    return kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} or {kinds[-1]}"


ui.require_frame()  # a first run may start here without app.py
ws = ui.workspace()
coll = ui.collection()
ui.style()

st.title("How it works")
st.caption(
    "From a file to a cited answer in six stages. Figures below are live: they describe the collection "
    f"in use (**{ui.md(coll)}**) and the last question asked."
)

ws.collections.ensure_demo()
facts = ws.explain.facts(coll, ui.session_id())
figures = ws.explain.pipeline()
settings = config.settings()

top = st.columns(4)
top[0].metric("Documents", facts.documents)
top[1].metric("Passages", facts.passages)
top[2].metric(
    "Vectors cached",
    facts.vectors_cached,
    help="Vectors stored for this collection's passages (by content hash).",
)
last = facts.last_query
top[3].metric(
    "Last query",
    f"{last.timings_ms.get('total', 0):.0f} ms" if last else "None yet",
    help="Wall time of the last question asked in this collection, retrieval and answer. "
    "Each collection keeps its own: ask on the Ask page with this collection chosen.",
)


def stage(number: int, title: str, what: str, figures: dict[str, object], decision: str) -> None:
    with st.container(border=True):
        st.markdown(f"**{number}. {title}**")
        st.markdown(what)
        if figures:
            cols = st.columns(len(figures))
            for col, (label, value) in zip(cols, figures.items(), strict=True):
                col.caption(label)
                col.markdown(f"**{value}**")
        st.caption(decision)


kinds = ", ".join(f"{n} {k.upper()}" for k, n in sorted(facts.kinds.items())) or "none"
stage(
    1,
    "Documents become numbered lines",
    "Each PDF, TXT or Markdown file is read into lines exactly as in the source (only line breaks are "
    "normalised), so a citation “lines 12-18” can be checked against the file. PDFs keep the page of "
    "every line. Bad files are refused with a reason: empty, binary, encrypted, scanned without text, "
    "garbled fonts, or over the size limit.",
    {"Files": kinds, "Upload limit": f"{settings.max_upload_mb:g} MB"},
    "Decision: keep line provenance in every record, so every later stage can point back to the exact lines.",
)

chunk_mix = ", ".join(f"{n} {c}" for c, n in sorted(facts.chunkings.items())) or "none"
stage(
    2,
    "Documents become passages",
    "Markdown and text are cut at headings (a long section is split at paragraph, then sentence "
    "boundaries); PDFs are packed into runs of whole sentences with a small overlap; whole-document "
    "mode keeps each file as one passage. A passage keeps its heading path as its label.",
    {
        "Chunking in use": chunk_mix,
        "Heading passage": f"≤ {figures.heading_limit} chars",
        "Sentence passage": f"≤ {figures.sentence_limit} chars, {figures.sentence_carry} carried",
    },
    "Decision: sizes near one paragraph keep citations short; the Evaluation page compares the three "
    "chunkings on the same gold set.",
)

timings = last.timings_ms if last else {}


def ms(key: str) -> str:
    return f"{timings[key]:.1f} ms" if key in timings else "—"


stage(
    3,
    "Words: BM25",
    "Passages are scored on shared words (lower-cased, stop words dropped, Snowball-stemmed; codes such "
    "as ISO-27001 or v2.3.1 and amounts such as $1,199 are also indexed whole), with a bonus for query "
    "words in the passage's heading path or its document's name"
    + (
        ", and for query words that appear side by side in the passage, as in the question."
        if figures.adjacency_weight
        else " (a bonus for words side by side was measured and is off)."
    )
    + (
        f" A question that names a document (every word of its name, or its initials: “the SLA”) "
        f"multiplies that document's scores by {1 + figures.named_document_boost:g}."
        if figures.named_document_boost
        else ""
    )
    + (
        f" Each row of a Markdown table is also scored as a small passage of its own, with the table's "
        f"header row; a passage keeps the better of its own score and {figures.table_row_weight:g} × "
        "its best row's, so a row that answers the question is not outscored by passages sharing words in passing."
        if figures.table_row_weight
        else ""
    )
    + (
        f" A question asking for {_either(figures.answer_lifts)} it does not hold (“Which error code…”, "
        "“Which clause…”, “How long…”) lifts the passages whose sentence holding such an answer stands "
        "beside the question's words; the search says so in a note."
        if figures.answer_lifts
        else ""
    ),
    {
        "k1 / b": f"{figures.bm25_k1} / {figures.bm25_b}",
        "Heading / adjacency bonus": f"{figures.heading_weight} / {figures.adjacency_weight}",
        "Built in": f"{facts.build_seconds.get('bm25', 0) * 1000:.0f} ms",
        "Last query": ms("bm25"),
    },
    "Known limit: BM25 only matches words, so a synonym (“refund” vs “money back”) is missed; "
    "the dense signal covers meaning.",
)

stage(
    4,
    "Meaning: dense vectors",
    "A small sentence-embedding model (run offline with ONNX; no download at run time) turns every "
    "passage and the question into vectors; similarity is the cosine. Vectors are cached in the library "
    "by passage content, so a passage is embedded once"
    + (", and the demo ships its vectors." if ws.demo_vectors.is_file() else "."),
    {
        "Model": (facts.embedding_model or "not loaded yet").split("@")[0],
        "Batch": figures.embed_batch,
        "Index ready": "yes" if facts.dense_ready else "not yet",
        "Query embed / search": f"{ms('embed_query')} / {ms('dense')}",
    },
    "Known limit: the embedded index lives on one machine (vectors kept compact and memory-mapped; "
    "about a million passages fit in a few GB); past that, point ragcore at Milvus (README, Scaling out).",
)


stage(
    5,
    "Fusion and reranking",
    f"Hybrid mode takes each signal's top {figures.candidates} and fuses the two rankings. "
    f"{ui.md(figures.fusion_description)} "
    + (
        "A question in several parts (“What is the Enterprise onboarding fee, and how long is the Northgate "
        "proposal valid?”) is also ranked part by part, and the parts' best passages are merged "
        + (
            f"after the whole question's top {figures.part_head}"
            if figures.part_head
            else (
                "in turns with the whole question's, the whole question's first passage leading each round"
                if figures.part_lead == "whole"
                else "with the whole question's, each part's first passage leading"
            )
        )
        + (
            ", each part ranked within the document the question names first. "
            if figures.part_scope
            else ". "
        )
        if figures.split_parts
        else ""
    )
    + f"Rerank mode re-orders the fused top {figures.rerank_depth} "
    "with a cross-encoder when one is configured (RAGCORE_RERANKER_DIR).",
    {
        "Fusion": figures.fusion_name,
        "Reranker": facts.reranker_status,
        "Last fuse / rerank": f"{ms('fuse')} / {ms('rerank')}",
    },
    "Known limit: no cross-encoder weights ship with the project (none is on PyPI), so rerank mode "
    "shows the fused order, and says so, unless you point RAGCORE_RERANKER_DIR at a model folder.",
)

model = ws.asking.model(os.environ)
stage(
    6,
    "Lens and answer",
    "The question's words pick a lens: money lists every amount with its sources and flags conflicting "
    "amounts for the same item; risk lists absolute wording (always, never, guarantee) and whether it is "
    "negated. Without a key the answer is extractive: the best-matching sentences, quoted, each cited. "
    "With a key a model writes the answer from the numbered passages only, and it is checked: citations "
    "outside the passages are removed, figures not in the cited passages are flagged.",
    {
        "Answers": "extractive (no key)" if model is None else f"model: {model.model}",
        "Extractive sentences": f"≤ {figures.extractive_sentences}",
        "Last answer": ms("answer"),
    },
    "Privacy: documents stay on this machine; only the matched passages are sent, and only when a key is set.",
)

if last:
    st.subheader("Last query, stage by stage")
    st.caption(f"“{ui.md(last.question)}” · mode {last.mode} · {last.hits} passages")
    order = ["bm25", "embed_query", "dense", "fuse", "rerank", "answer", "total"]
    names = {
        "bm25": "BM25",
        "embed_query": "Embed question",
        "dense": "Dense search",
        "fuse": "Fusion",
        "rerank": "Rerank",
        "answer": "Lens and answer",
        "total": "Total",
    }
    st.dataframe(
        pd.DataFrame(
            [{"Stage": names[k], "Milliseconds": round(timings[k], 1)} for k in order if k in timings]
        ),
        hide_index=True,
    )
else:
    st.caption("No question asked in this collection yet: ask one on the Ask page to see its timings here.")

st.subheader("The numbers behind the choices")
try:
    study = ws.evaluation.heldout()
except errors.RagcoreError as exc:
    study = None
    st.caption(ui.md(f"Held-out result not shown: {exc}"))
if study is not None:
    st.caption(
        f"Held out: each retrieval constant was chosen by leave-one-collection-out cross-validation and "
        f"scored on the group left out. The default meets its goal (at least the better single signal, and "
        f"the published RRF figure where there is one) on {study.met} of {len(study.rows)} groups; the "
        "Evaluation page's Held out view has the intervals and charts."
    )
    st.dataframe(
        heldout.table(study)[["Group", "Questions", "BM25", "Dense", "RRF k=60", "hybrid", "Goal met"]],
        hide_index=True,
        height=35 * (len(study.rows) + 1) + 3,  # every group visible without scrolling
        width="stretch",
        column_config={
            name: st.column_config.NumberColumn(format="%.3f")
            for name in ("BM25", "Dense", "RRF k=60", "hybrid")
        },
    )
runs = ws.evaluation.stored_runs()
rows = []
for stored in runs:
    if stored.kind != "run":
        continue
    run = ws.evaluation.load_run(stored.path)
    for cmp in run.comparisons:
        if cmp.family == "primary":
            rows.append(
                {
                    "Run": stored.name,
                    "Comparison": f"{cmp.a} − {cmp.b}",
                    "nDCG@10 difference": cmp.diff,
                    "95% interval": f"[{cmp.ci_low:+.3f}, {cmp.ci_high:+.3f}]",
                    "p (Holm)": cmp.p_holm,
                    "Questions": cmp.n,
                }
            )
if rows:
    st.caption(
        "In-sample: primary comparisons of the stored evaluation runs (the default ranker against each other "
        "ranker, on questions its constants were chosen with)."
    )
    st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        column_config={
            "nDCG@10 difference": st.column_config.NumberColumn(format="%+.3f"),
            "p (Holm)": st.column_config.NumberColumn(format="%.4f"),
        },
    )
else:
    st.caption("No stored evaluation runs yet; the Evaluation page can run one.")
