"""The app's facade, without Streamlit: uploads, the document viewer, asking,
stored runs and the highlighted PDF page. A small hashing embedder stands in
for the real model (which has its own tests), so these run in seconds."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

from ragcore import errors
from ragcore.evaluation.run import RunSettings, run_from_json
from ragcore.services import DEMO_COLLECTION, SESSION_PREFIX, UPLOADS_COLLECTION, Workspace, safe_name
from ragcore.services.evaluation import describe_run
from ragcore.services.pdf_pages import highlight_pdf_page
from ragcore.services.run_tables import by_type_rows, per_question_rows, summary_rows


class HashEmbedder:
    """Bag of hashed words: texts sharing words get similar vectors."""

    model_id = "test-hash-embedder"
    dim = 64

    def __init__(self) -> None:
        self.embedded = 0

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for word in text.lower().split():
            word = word.strip(".,:;?!()$#*")
            if word:
                v[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        return v / (np.linalg.norm(v) or 1.0)

    def embed_passages(self, texts, batch_size: int = 8) -> np.ndarray:
        self.embedded += len(texts)
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)


PRICING_MD = b"""# Pricing notes

## Business

The Business plan costs $999 per month, billed monthly.

## Enterprise

Enterprise starts at $36,000 a year.
"""

SLA_MD = b"""# Service level agreement

## Uptime

We guarantee 99.9% monthly uptime for every plan.

## Credits

Service credits are paid when uptime falls below the guarantee.
"""


def make_pdf(lines_by_page: list[list[str]]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for lines in lines_by_page:
        pdf.add_page()
        for line in lines:
            pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Workspace:
    monkeypatch.delenv("RAGCORE_MAX_UPLOAD_MB", raising=False)
    monkeypatch.delenv("RAGCORE_ISOLATION", raising=False)
    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "pricing.md").write_bytes(PRICING_MD)
    (demo / "sla.md").write_bytes(SLA_MD)
    return Workspace(
        tmp_path / "home",
        demo_dir=demo,
        demo_vectors=tmp_path / "none.npz",
        results_dir=tmp_path / "results",
        embedder=HashEmbedder(),
    )


# ------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd.md", "passwd.md"),
        ("C:\\Users\\me\\Notes.TXT", "Notes.txt"),
        ("..", "upload"),
        ("", "upload"),
        ("a\x00b\nc.md", "abc.md"),
        ("spaces and (brackets).md", "spaces and (brackets).md"),
        ("<script>x</script>.md", "script_.md"),
        ("a<b>c|d?.md", "a_b_c_d_.md"),
        ("Prüfbericht ÄÖÜ.pdf", "Prüfbericht ÄÖÜ.pdf"),
        (".hidden.md", "hidden.md"),
    ],
)
def test_safe_name_keeps_only_a_base_name(given: str, expected: str) -> None:
    assert safe_name(given) == expected


def test_safe_name_limits_length_and_keeps_the_suffix() -> None:
    name = safe_name("x" * 500 + ".md")
    assert name.endswith(".md") and len(name) <= 120


# ----------------------------------------------------------------- uploads


def test_upload_adds_chunks_and_embeds_a_markdown_file(workspace: Workspace) -> None:
    stages: list[tuple[str, float]] = []
    outcome = workspace.docs.upload(
        UPLOADS_COLLECTION, "pricing.md", PRICING_MD, progress=lambda s, f: stages.append((s, f))
    )
    assert outcome.status == "added" and outcome.ok
    assert outcome.passages == len(workspace.docs.passages_of(UPLOADS_COLLECTION, "pricing.md")) >= 2
    assert outcome.embedded == outcome.passages
    assert [f for _, f in stages] == sorted(f for _, f in stages)  # progress only moves forward
    assert stages[0][1] == 0.0 and stages[-1][1] == 1.0
    assert [i.name for i in workspace.docs.documents(UPLOADS_COLLECTION)] == ["pricing.md"]


def test_upload_never_uses_the_file_name_as_a_path(workspace: Workspace, tmp_path: Path) -> None:
    before = {p for p in tmp_path.rglob("*")}
    outcome = workspace.docs.upload(UPLOADS_COLLECTION, "../../../outside.md", PRICING_MD)
    assert outcome.name == "outside.md"
    assert not (tmp_path.parent / "outside.md").exists()
    created = {p for p in tmp_path.rglob("*")} - before
    assert all("outside" not in p.name for p in created)


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.md", b"", "empty"),
        ("blank.txt", b"   \n\n  ", "empty"),
        ("binary.txt", b"\x00\x01\x02" * 100, "binary"),
        ("sheet.xlsx", b"PK\x03\x04", "unsupported file type"),
        ("broken.pdf", b"%PDF-1.4 garbage without structure", "PDF"),
    ],
)
def test_rejected_files_say_why_and_change_nothing(
    workspace: Workspace, name: str, data: bytes, reason: str
) -> None:
    outcome = workspace.docs.upload(UPLOADS_COLLECTION, name, data)
    assert outcome.status == "rejected" and not outcome.ok
    assert reason.lower() in outcome.message.lower()
    assert workspace.docs.documents(UPLOADS_COLLECTION) == []


def test_upload_over_the_size_limit_is_rejected(workspace: Workspace, monkeypatch) -> None:
    monkeypatch.setenv("RAGCORE_MAX_UPLOAD_MB", "0.0001")  # about 100 bytes
    outcome = workspace.docs.upload(UPLOADS_COLLECTION, "pricing.md", PRICING_MD)
    assert outcome.status == "rejected"
    assert "RAGCORE_MAX_UPLOAD_MB" in outcome.message


def test_same_bytes_twice_is_a_duplicate(workspace: Workspace) -> None:
    assert workspace.docs.upload(UPLOADS_COLLECTION, "a.md", PRICING_MD).status == "added"
    again = workspace.docs.upload(UPLOADS_COLLECTION, "b.md", PRICING_MD)
    assert again.status == "duplicate" and "a.md" in again.message
    assert [i.name for i in workspace.docs.documents(UPLOADS_COLLECTION)] == ["a.md"]


def test_remove_and_rechunk(workspace: Workspace) -> None:
    workspace.docs.upload(UPLOADS_COLLECTION, "pricing.md", PRICING_MD)
    workspace.docs.upload(UPLOADS_COLLECTION, "sla.md", SLA_MD)
    assert workspace.docs.rechunk(UPLOADS_COLLECTION, "sla.md", "whole") == 1
    assert workspace.docs.whole_document_names(UPLOADS_COLLECTION) == ["sla.md"]
    [whole] = workspace.docs.passages_of(UPLOADS_COLLECTION, "sla.md")
    assert (whole.first_line, whole.chunking) == (1, "whole")
    assert workspace.docs.remove(UPLOADS_COLLECTION, "pricing.md") is True
    assert workspace.docs.remove(UPLOADS_COLLECTION, "pricing.md") is False
    assert [i.name for i in workspace.docs.documents(UPLOADS_COLLECTION)] == ["sla.md"]
    with pytest.raises(ValueError, match="chunking"):
        workspace.docs.rechunk(UPLOADS_COLLECTION, "sla.md", "paragraphs")


def test_retriever_is_rebuilt_only_when_the_collection_changes(workspace: Workspace) -> None:
    workspace.docs.upload(UPLOADS_COLLECTION, "pricing.md", PRICING_MD)
    first = workspace.indexes.retriever(UPLOADS_COLLECTION)
    assert workspace.indexes.retriever(UPLOADS_COLLECTION) is first
    workspace.docs.upload(UPLOADS_COLLECTION, "sla.md", SLA_MD)
    second = workspace.indexes.retriever(UPLOADS_COLLECTION)
    assert second is not first
    assert {p.doc for p in second.passages} == {"pricing.md", "sla.md"}


def test_uploads_collection_is_private_per_session_only_when_isolated(
    workspace: Workspace, monkeypatch
) -> None:
    assert workspace.collections.uploads_collection("session-a") == UPLOADS_COLLECTION
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    a, b = (
        workspace.collections.uploads_collection("session-a"),
        workspace.collections.uploads_collection("session-b"),
    )
    assert a.startswith(SESSION_PREFIX) and b.startswith(SESSION_PREFIX) and a != b
    assert workspace.collections.uploads_collection("session-a") == a  # stable for one session
    assert "session-a" not in a  # the raw session id is not stored
    assert workspace.collections.collection_choices("session-a")["My uploads"] == a


def _snapshot(workspace: Workspace) -> list:
    conn = workspace.library.connect()
    return [
        conn.execute("SELECT name FROM collections ORDER BY name").fetchall(),
        conn.execute("SELECT collection, name, content_hash FROM documents ORDER BY id").fetchall(),
        conn.execute("SELECT COUNT(*) FROM passages").fetchall(),
    ]


def test_upload_past_the_session_quota_is_refused_and_changes_nothing(
    workspace: Workspace, monkeypatch
) -> None:
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    quota = len(SLA_MD) + len(PRICING_MD) - 1  # both files do not fit, by one byte
    monkeypatch.setenv("RAGCORE_SESSION_QUOTA_MB", repr(quota / (1024 * 1024)))
    assert workspace.collections.session_quota_bytes() == quota
    mine = workspace.collections.uploads_collection("browser-a")
    assert workspace.docs.upload(mine, "sla.md", SLA_MD).ok
    before = _snapshot(workspace)
    refused = workspace.docs.upload(mine, "pricing.md", PRICING_MD)
    assert refused.status == "rejected"
    assert "quota" in refused.message and "RAGCORE_SESSION_QUOTA_MB" in refused.message
    assert "remove documents first" in refused.message
    assert _snapshot(workspace) == before
    # Replacing a document frees its own bytes first: a same-size new version fits.
    assert workspace.docs.upload(mine, "sla.md", SLA_MD.replace(b"99.9%", b"99.5%")).status == "replaced"
    # The quota is per private collection; the shared collections have none.
    assert workspace.docs.upload(workspace.collections.uploads_collection("browser-b"), "sla.md", SLA_MD).ok
    monkeypatch.setenv("RAGCORE_ISOLATION", "shared")
    assert workspace.docs.upload("uploads", "pricing.md", PRICING_MD).ok


@pytest.mark.parametrize("value", ["lots", "0", "-3"])
def test_session_settings_must_be_positive_numbers(workspace: Workspace, monkeypatch, value: str) -> None:
    monkeypatch.setenv("RAGCORE_SESSION_QUOTA_MB", value)
    monkeypatch.setenv("RAGCORE_SESSION_TTL_HOURS", value)
    with pytest.raises(ValueError, match="RAGCORE_SESSION_QUOTA_MB"):
        workspace.collections.session_quota_bytes()
    with pytest.raises(ValueError, match="RAGCORE_SESSION_TTL_HOURS"):
        workspace.collections.session_ttl_s()


def test_session_settings_defaults(workspace: Workspace, monkeypatch) -> None:
    monkeypatch.delenv("RAGCORE_SESSION_QUOTA_MB", raising=False)
    monkeypatch.delenv("RAGCORE_SESSION_TTL_HOURS", raising=False)
    assert workspace.collections.session_quota_bytes() == 200 * 1024 * 1024
    assert workspace.collections.session_ttl_s() == 24 * 3600


def _age(workspace: Workspace, collection: str, seconds: float) -> None:
    conn = workspace.library.connect()
    conn.execute("UPDATE collections SET touched_at = touched_at - ? WHERE name = ?", (seconds, collection))
    if conn.in_transaction:
        conn.commit()


def test_private_collections_of_ended_sessions_expire_and_live_ones_stay(
    workspace: Workspace, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    monkeypatch.setenv("RAGCORE_SESSION_TTL_HOURS", "1")
    workspace.collections.ensure_demo()
    ended, live = (
        workspace.collections.uploads_collection("browser-ended"),
        workspace.collections.uploads_collection("browser-live"),
    )
    pdf = make_pdf([["Confidential board minutes", "Revenue grew by a fifth."]])
    assert workspace.docs.upload(ended, "minutes.pdf", pdf).ok
    assert workspace.docs.upload(ended, "sla.md", SLA_MD).ok
    assert workspace.docs.upload(live, "pricing.md", PRICING_MD).ok
    workspace.indexes.retriever(ended)
    original = workspace.home / "originals" / f"{hashlib.sha256(pdf).hexdigest()}.pdf"
    assert original.is_file()
    _age(workspace, ended, 2 * 3600)
    _age(workspace, live, 2 * 3600)
    _age(workspace, DEMO_COLLECTION, 2 * 3600)
    # The live session comes back (any run of its page), so its collection is touched.
    assert workspace.collections.open_session("browser-live") == live

    assert workspace.collections.expire_sessions() == [ended]
    assert ended not in workspace.library.collections() and workspace.docs.documents(ended) == []
    assert ended not in workspace.indexes._retrievers
    assert not original.exists()  # its kept PDF went with it
    assert [d.name for d in workspace.docs.documents(live)] == ["pricing.md"]
    assert DEMO_COLLECTION in workspace.library.collections()  # shared: never expires
    assert workspace.collections.expire_sessions() == []

    # A Workspace starting up expires what ended while no app ran.
    _age(workspace, live, 2 * 3600)
    restarted = Workspace(workspace.home, demo_dir=workspace.demo_dir, embedder=HashEmbedder())
    assert live not in restarted.library.collections()


def test_a_session_without_uploads_stores_nothing(workspace: Workspace, monkeypatch) -> None:
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    before = workspace.library.collections()
    mine = workspace.collections.open_session("browser-idle")
    assert mine.startswith(SESSION_PREFIX) and workspace.library.collections() == before


def test_demo_and_shared_collections_are_read_only_in_session_mode(workspace: Workspace, monkeypatch) -> None:
    workspace.collections.ensure_demo()
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    before = _snapshot(workspace)
    assert not workspace.collections.writable(DEMO_COLLECTION) and not workspace.collections.writable(
        "uploads"
    )
    assert workspace.collections.writable(workspace.collections.uploads_collection("browser-a"))
    refused = workspace.docs.upload(DEMO_COLLECTION, "extra.md", b"# Extra\n\nMore text.\n")
    assert refused.status == "rejected" and "read-only" in refused.message
    assert workspace.docs.upload("uploads", "extra.md", b"# Extra\n\nMore text.\n").status == "rejected"
    with pytest.raises(errors.LibraryError, match="demo collection is shared and read-only"):
        workspace.docs.remove(DEMO_COLLECTION, "pricing.md")
    with pytest.raises(errors.LibraryError, match="read-only"):
        workspace.docs.rechunk(DEMO_COLLECTION, "pricing.md", "whole")
    assert _snapshot(workspace) == before
    # Run by one person (shared mode) the library stays writable, the demo included.
    monkeypatch.setenv("RAGCORE_ISOLATION", "shared")
    assert workspace.collections.writable(DEMO_COLLECTION)
    assert workspace.docs.rechunk(DEMO_COLLECTION, "pricing.md", "whole") == 1


def test_last_query_is_per_session_when_isolated(workspace: Workspace, monkeypatch) -> None:
    workspace.collections.ensure_demo()
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    workspace.asking.ask(DEMO_COLLECTION, "What uptime is guaranteed?", mode="bm25", env={}, session="a")
    assert workspace.explain.facts(DEMO_COLLECTION, "a").last_query.question == "What uptime is guaranteed?"
    assert workspace.explain.facts(DEMO_COLLECTION, "b").last_query is None
    monkeypatch.setenv("RAGCORE_ISOLATION", "shared")
    assert workspace.explain.facts(DEMO_COLLECTION, "b").last_query.question == "What uptime is guaranteed?"


def test_last_query_is_kept_per_collection(workspace: Workspace, monkeypatch) -> None:
    # Switching collection and back finds the question asked there, in either isolation mode.
    workspace.collections.ensure_demo()
    workspace.docs.upload(UPLOADS_COLLECTION, "pricing.md", PRICING_MD)
    for mode, session in (("shared", None), ("session", "a")):
        monkeypatch.setenv("RAGCORE_ISOLATION", mode)
        workspace.asking.ask(DEMO_COLLECTION, f"What uptime? {mode}", mode="bm25", env={}, session=session)
        workspace.asking.ask(UPLOADS_COLLECTION, f"What price? {mode}", mode="bm25", env={}, session=session)
        assert workspace.explain.facts(DEMO_COLLECTION, session).last_query.question == f"What uptime? {mode}"
        assert (
            workspace.explain.facts(UPLOADS_COLLECTION, session).last_query.question == f"What price? {mode}"
        )
    assert workspace.explain.facts(UPLOADS_COLLECTION, "b").last_query is None  # isolated: never another's


# ------------------------------------------------------------- the viewer


def test_document_view_marks_exactly_the_cited_lines(workspace: Workspace) -> None:
    workspace.collections.ensure_demo()
    view = workspace.docs.document_view(DEMO_COLLECTION, "pricing.md", 5, 5, context=2)
    assert [line.number for line in view.lines] == [3, 4, 5, 6, 7]
    assert [line.number for line in view.marked] == [5]
    assert view.marked[0].text == "The Business plan costs $999 per month, billed monthly."
    assert view.citation == "pricing.md, line 5"
    whole = workspace.docs.document_view(DEMO_COLLECTION, "pricing.md", 1, 9, context=50)
    # The file ends with a line break, so its last line (10) is empty; the window stops there.
    assert whole.lines[0].number == 1 and whole.lines[-1].number == whole.total_lines == 10
    assert not whole.lines[-1].marked


def test_document_view_refuses_lines_outside_the_document(workspace: Workspace) -> None:
    workspace.collections.ensure_demo()
    with pytest.raises(errors.LibraryError, match="outside the document"):
        workspace.docs.document_view(DEMO_COLLECTION, "pricing.md", 8, 40)
    with pytest.raises(errors.LibraryError, match="no such document"):
        workspace.docs.document_view(DEMO_COLLECTION, "missing.md", 1, 1)


def test_pdf_view_has_pages_and_a_highlighted_page(workspace: Workspace) -> None:
    data = make_pdf(
        [
            ["Quarterly report", "Revenue grew well."],
            ["The Business plan stays at 999 dollars.", "Other news."],
        ]
    )
    outcome = workspace.docs.upload(UPLOADS_COLLECTION, "report.pdf", data)
    assert outcome.ok, outcome.message
    doc_lines = workspace.library.get_document(UPLOADS_COLLECTION, "report.pdf").lines
    cited = next(i for i, line in enumerate(doc_lines, start=1) if "Business plan" in line)
    view = workspace.docs.document_view(UPLOADS_COLLECTION, "report.pdf", cited, cited, context=1)
    assert view.kind == "pdf" and view.pages == (2,)
    assert view.marked[0].page == 2
    marked = workspace.docs.marked_pdf_page(UPLOADS_COLLECTION, "report.pdf", cited, cited)
    assert marked is not None
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(marked))
    assert len(reader.pages) == 1
    assert "Business plan" in reader.pages[0].extract_text()
    annots = [a.get_object() for a in reader.pages[0].get("/Annots", [])]
    assert annots and all(a["/Subtype"] == "/Highlight" for a in annots)
    # The stored original is named by its content hash, never by the upload's name.
    kept = list((workspace.home / "originals").iterdir())
    assert [p.name for p in kept] == [hashlib.sha256(data).hexdigest() + ".pdf"]


def test_highlight_marks_only_runs_of_the_cited_lines() -> None:
    data = make_pdf([["First line here", "Second line marked", "Third line here"]])
    out = highlight_pdf_page(data, 1, ["Second line marked"])
    from pypdf import PdfReader

    page = PdfReader(io.BytesIO(out)).pages[0]
    rects = [a.get_object()["/Rect"] for a in page["/Annots"]]
    assert len(rects) == 1
    # fpdf2 writes lines top-down 8 mm apart: the mark sits on the second line.
    found: dict[str, float] = {}
    page.extract_text(
        visitor_text=lambda t, cm, tm, f, s: found.setdefault(t.strip(), tm[5]) if t.strip() else None
    )
    y = found["Second line marked"]
    assert float(rects[0][1]) < y < float(rects[0][3])
    assert highlight_pdf_page(data, 3, ["x"]) is None
    assert highlight_pdf_page(b"not a pdf", 1, ["x"]) is None


# ------------------------------------------------------------------- ask


def test_ask_returns_cited_hits_traces_and_timings(workspace: Workspace) -> None:
    workspace.collections.ensure_demo()
    outcome = workspace.asking.ask(
        DEMO_COLLECTION, "What does the Business plan cost per month?", mode="hybrid", lens="auto"
    )
    assert outcome.hits and outcome.answer is not None
    assert outcome.hits[0].passage.doc == "pricing.md"
    assert set(outcome.hits[0].trace) == {"bm25", "dense", "fused", "rerank"}
    assert outcome.lens is not None and outcome.lens.kind == "money"
    assert outcome.answer.citations
    for c in outcome.answer.citations:  # every citation resolves to real lines
        view = workspace.docs.document_view(DEMO_COLLECTION, c.doc, c.first_line, c.last_line)
        assert view.marked
    assert {"bm25", "dense", "fuse", "answer", "total"} <= set(outcome.timings_ms)
    assert workspace.asking.last_query.question == outcome.question
    assert workspace.explain.facts(DEMO_COLLECTION).last_query.timings_ms["total"] > 0


def test_ask_lens_override_and_whole_document_flag(workspace: Workspace) -> None:
    workspace.collections.ensure_demo()
    workspace.docs.rechunk(DEMO_COLLECTION, "sla.md", "whole")
    outcome = workspace.asking.ask(DEMO_COLLECTION, "What uptime is guaranteed?", mode="bm25", lens="risk")
    assert outcome.lens.kind == "risk" and outcome.lens.chosen_by == "user"
    assert "sla.md" in outcome.whole_documents


def test_ask_on_an_empty_collection_says_so(workspace: Workspace) -> None:
    outcome = workspace.asking.ask(UPLOADS_COLLECTION, "anything at all?")
    assert outcome.hits == [] and outcome.answer is None
    assert any("no documents" in n for n in outcome.notes)
    with pytest.raises(errors.RagcoreError, match="question"):
        workspace.asking.ask(UPLOADS_COLLECTION, "   ")


def test_related_passages_come_from_other_documents(workspace: Workspace) -> None:
    workspace.collections.ensure_demo()
    passage = next(p for p in workspace.docs.passages_of(DEMO_COLLECTION, "pricing.md") if "$999" in p.text)
    workspace.indexes.ensure_dense(DEMO_COLLECTION)
    related = workspace.asking.related(DEMO_COLLECTION, passage, k=2)
    assert related and all(p.doc != "pricing.md" for p, _ in related)


def test_demo_vectors_are_seeded_so_nothing_is_embedded(tmp_path: Path) -> None:
    from ragcore.retrieval.vectors import passage_vectors, save_precomputed

    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "pricing.md").write_bytes(PRICING_MD)
    first = Workspace(
        tmp_path / "a", demo_dir=demo, embedder=HashEmbedder(), demo_vectors=tmp_path / "no.npz"
    )
    first.collections.ensure_demo()
    first.indexes.ensure_dense(DEMO_COLLECTION)
    retriever = first.indexes.retriever(DEMO_COLLECTION)
    vectors, embedded = passage_vectors(retriever.passages, first.indexes.embedder, first.library)
    assert embedded == 0  # all cached by ensure_dense
    save_precomputed(tmp_path / "demo.npz", retriever.passages, vectors, HashEmbedder.model_id)

    embedder = HashEmbedder()
    second = Workspace(tmp_path / "b", demo_dir=demo, embedder=embedder, demo_vectors=tmp_path / "demo.npz")
    second.collections.ensure_demo()
    assert second.indexes.missing_vectors(DEMO_COLLECTION) == 0
    assert second.indexes.ensure_dense(DEMO_COLLECTION) == 0
    assert embedder.embedded == 0 and second.indexes.seeded_vectors == len(retriever.passages)


# ------------------------------------------------------------- evaluation


def small_run(rankers=("bm25", "hybrid")) -> dict:
    from ragcore.evaluation import evaluate
    from ragcore.evaluation.goldset import Question

    questions = [Question(f"q{i}", f"question {i}", "lookup" if i % 2 else "synonym") for i in range(6)]
    qrels = {q.id: {f"d{i}": 2, f"e{i}": 1} for i, q in enumerate(questions)}
    rankings = {
        "bm25": lambda text: [f"x{text}", f"d{text[-1]}", f"e{text[-1]}"],
        "hybrid": lambda text: [f"d{text[-1]}", f"e{text[-1]}"],
    }
    return evaluate(
        questions, qrels, {r: rankings[r] for r in rankers}, resamples=200, settings={"name": "tiny"}
    )


def test_stored_runs_are_listed_and_bad_files_skipped(workspace: Workspace) -> None:
    results = workspace.evaluation.results_dir
    results.mkdir()
    (results / "tiny.json").write_text(json.dumps(small_run()))
    (results / "broken.json").write_text("{not json")
    (results / "list.json").write_text("[1, 2]")
    runs = workspace.evaluation.stored_runs()
    assert [r.name for r in runs] == ["tiny"]
    assert runs[0].rankers == ("bm25", "hybrid") and runs[0].questions == 6
    assert workspace.evaluation.load_run(runs[0].path).settings.name == "tiny"
    with pytest.raises(errors.RagcoreError, match="not a stored run"):
        workspace.evaluation.load_run(results.parent / "elsewhere.json")


def test_run_tables_flatten_the_run_json() -> None:
    run = run_from_json(small_run())
    rows = per_question_rows(run)
    assert len(rows) == 6 * 2
    assert {r["ranker"] for r in rows} == {"bm25", "hybrid"}
    hybrid = [r for r in rows if r["ranker"] == "hybrid"]
    assert all(r["ndcg@10"] == pytest.approx(1.0) for r in hybrid)  # relevant ones first, in grade order
    summary = summary_rows(run)
    assert {(r["ranker"], r["metric"]) for r in summary} >= {("bm25", "ndcg@10"), ("hybrid", "mrr@10")}
    assert all(r["ci_low"] <= r["mean"] <= r["ci_high"] for r in summary)
    types = by_type_rows(run, "ndcg@10")
    assert {r["type"] for r in types} == {"lookup", "synonym"} and all(r["n"] == 3 for r in types)


def test_describe_run_tells_a_chunking_comparison(tmp_path: Path) -> None:
    run = small_run()
    comparison = {
        "settings": {"name": "demo"},
        "summary": {},
        "comparisons": [],
        "chunkings": {"heading": run, "whole": run},
    }
    described = describe_run(tmp_path / "c.json", run_from_json(comparison))
    assert described.kind == "chunkings" and "heading, whole" in described.title
    assert described.questions == 6


def test_evaluate_an_uploaded_gold_set_against_a_collection(workspace: Workspace) -> None:
    workspace.collections.ensure_demo()
    gold = {  # no "corpus": judged against the collection
        "name": "mine",
        "questions": [
            {
                "id": "p",
                "text": "Business plan price per month",
                "judgements": [{"doc": "pricing.md", "quote": "$999 per month", "grade": 2}],
            },
            {
                "id": "u",
                "text": "monthly uptime guarantee",
                "judgements": [{"doc": "sla.md", "lines": [5, 5], "grade": 2}],
            },
        ],
    }
    messages: list[str] = []
    run = workspace.evaluation.evaluate_goldset(
        json.dumps(gold).encode(),
        DEMO_COLLECTION,
        ["bm25", "hybrid"],
        resamples=100,
        progress=messages.append,
    ).to_json()
    assert run["questions"]["scored"] == 2
    assert set(run["rankers"]) == {"bm25", "hybrid"}
    assert run["per_question"]["p"]["top10"]["bm25"][0]["doc"] == "pricing.md"
    assert messages
    with pytest.raises(errors.GoldSetError, match=r"mine\.json"):
        workspace.evaluation.evaluate_goldset(
            b'{"questions": []}', DEMO_COLLECTION, ["bm25"], name="../mine.json"
        )
    with pytest.raises(errors.GoldSetError):
        workspace.evaluation.evaluate_goldset(b"not json", DEMO_COLLECTION, ["bm25"])
    with pytest.raises(errors.RagcoreError, match="at least one ranker"):
        workspace.evaluation.evaluate_goldset(json.dumps(gold).encode(), DEMO_COLLECTION, [])


# ------------------------------------------------------------ model output


class FakeCompletion:
    """A LiteLLM ``completion`` stand-in with a fixed JSON reply."""

    def __init__(self, reply: dict) -> None:
        self.reply = json.dumps(reply)
        self.calls: list[dict] = []

    def __call__(self, **kwargs):
        from types import SimpleNamespace

        self.calls.append(kwargs)
        message = SimpleNamespace(content=self.reply, refusal=None)
        usage = SimpleNamespace(prompt_tokens=500, completion_tokens=80)
        return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")], usage=usage)


KEY_ENV = {"OPENAI_API_KEY": "sk-test-0000000000000000"}


def test_model_answer_is_logged_reviewed_and_exported(workspace: Workspace, monkeypatch) -> None:
    monkeypatch.setattr("ragcore.answer.calls.token_rates", lambda model: (1e-7, 4e-7, True))
    workspace.collections.ensure_demo()
    reply = {
        "sentences": [{"text": "The Business plan costs $999 per month.", "citations": [1]}],
        "covered": True,
    }
    fake = FakeCompletion(reply)
    spend = workspace.review.spend_tracker("s1")
    outcome = workspace.asking.ask(
        DEMO_COLLECTION, "Business plan price", env=KEY_ENV, session="s1", spend=spend, completion=fake
    )
    assert outcome.answer.mode == "model" and len(fake.calls) == 1
    call_id = outcome.answer.checks["call_id"]
    assert [c.kind for c in workspace.review.ai_calls("s1")] == ["answer"] and workspace.review.ai_calls(
        "other"
    ) == []
    assert spend.spent_usd > 0
    assert workspace.review.spend_tracker("s1").spent_usd == pytest.approx(
        spend.spent_usd
    )  # resumed from the log

    assert json.loads(workspace.review.export_accepted("s1", "json")) == []
    workspace.review.review("s1", call_id, "answer", "edited", "Business: $999 a month.")
    assert workspace.review.decisions("s1", call_id) == {"answer": "edited"}
    [record] = json.loads(workspace.review.export_accepted("s1", "json"))
    assert record["answer"] == "Business: $999 a month." and record["citations"][0]["doc"] == "pricing.md"
    assert "Business: $999 a month." in workspace.review.export_accepted("s1", "markdown")
    workspace.review.review("s1", call_id, "answer", "rejected")
    assert json.loads(workspace.review.export_accepted("s1", "json")) == []
    # Another session can neither review this call nor read its decisions.
    with pytest.raises(errors.LibraryError, match="this session's log"):
        workspace.review.review("s2", call_id, "answer", "accepted")
    with pytest.raises(errors.LibraryError, match="this session's log"):
        workspace.review.decisions("s2", call_id)
    assert workspace.review.decisions("s1", call_id) == {"answer": "rejected"}
    with pytest.raises(ValueError, match="format"):
        workspace.review.export_accepted("s1", "csv")

    # Another lens: the model's answer is kept, no new call.
    relensed = workspace.asking.relens(outcome, "risk")
    assert relensed.lens.kind == "risk" and relensed.answer is outcome.answer and len(fake.calls) == 1


def test_relens_rebuilds_an_extractive_answer(workspace: Workspace) -> None:
    workspace.collections.ensure_demo()
    outcome = workspace.asking.ask(DEMO_COLLECTION, "Business plan price", mode="bm25", lens="none", env={})
    assert outcome.lens.kind == "none" and outcome.answer.mode == "extractive"
    money = workspace.asking.relens(outcome, "money")
    assert money.lens.kind == "money" and money.lens.figures
    assert money.hits == outcome.hits and money.answer.header == outcome.answer.header


def test_study_items_need_a_model_and_come_back_checked(workspace: Workspace, monkeypatch) -> None:
    monkeypatch.setattr("ragcore.answer.calls.token_rates", lambda model: (1e-7, 4e-7, True))
    workspace.collections.ensure_demo()
    with pytest.raises(errors.RagcoreError, match="need a model"):
        workspace.review.study(DEMO_COLLECTION, "pricing", env={})
    with pytest.raises(errors.RagcoreError, match="topic"):
        workspace.review.study(DEMO_COLLECTION, "  ", env=KEY_ENV)
    reply = {
        "items": [
            {
                "type": "short",
                "question": "What does Business cost a month?",
                "answer": "$999",
                "citations": [1],
            }
        ]
    }
    items = workspace.review.study(
        DEMO_COLLECTION, "Business price", env=KEY_ENV, session="s2", completion=FakeCompletion(reply)
    )
    [item] = items
    assert item.ref == "item-1" and item.call_id is not None and item.checks
    assert item.sources and item.sources[0].doc == "pricing.md"
    workspace.review.review("s2", item.call_id, item.ref, "accepted")
    [record] = json.loads(workspace.review.export_accepted("s2", "json"))
    assert record["question"] == "What does Business cost a month?" and record["type"] == "short"


def test_question_texts_come_from_the_runs_gold_set(tmp_path: Path) -> None:
    from ragcore.services.evaluation import question_texts

    gold = tmp_path / "g.json"
    gold.write_text(json.dumps({"questions": [{"id": "q1", "text": "What is the price?"}, {"id": "q2"}]}))
    assert question_texts(RunSettings(gold=str(gold))) == {"q1": "What is the price?"}
    assert question_texts(RunSettings(gold=str(tmp_path / "missing.json"))) == {}
    assert question_texts(RunSettings(gold="/etc/passwd")) == {}  # only JSON gold sets are read
    assert question_texts(RunSettings()) == {}


def test_a_shipped_gold_set_scored_per_chunking_and_compared(workspace: Workspace, tmp_path: Path) -> None:
    gold = tmp_path / "gold.json"
    gold.write_text(
        json.dumps(
            {
                "name": "tiny",
                "corpus": "demo",
                "questions": [
                    {
                        "id": "p",
                        "text": "Business plan price",
                        "type": "fact",
                        "judgements": [{"doc": "pricing.md", "quote": "$999 per month", "grade": 2}],
                    },
                    {
                        "id": "u",
                        "text": "uptime guarantee",
                        "type": "fact",
                        "judgements": [{"doc": "sla.md", "quote": "99.9% monthly uptime", "grade": 2}],
                    },
                ],
            }
        )
    )
    messages: list[str] = []
    run = workspace.evaluation.evaluate_stored_goldset(
        gold, ["bm25"], "heading", resamples=100, progress=messages.append
    ).to_json()
    assert run["settings"]["chunking"] == "heading" and run["questions"]["scored"] == 2
    assert run["settings"]["gold"] == str(gold)  # so the drill-down can show question texts
    assert any(m.startswith("loading demo with heading chunking") for m in messages)
    typed = workspace.evaluation.evaluate_stored_goldset(gold, ["bm25", "dense"], "compare", resamples=100)
    compared = typed.to_json()
    assert list(compared["chunkings"]) == ["heading", "sentence", "whole"]
    assert set(compared["summary"]["whole"]) == {"bm25", "dense"}
    assert {(c["a"], c["b"]) for c in compared["comparisons"]} == {
        ("heading", "sentence"),
        ("heading", "whole"),
        ("sentence", "whole"),
    }
    assert describe_run(gold, typed).kind == "chunkings"
    with pytest.raises(ValueError, match="chunking"):
        workspace.evaluation.evaluate_stored_goldset(gold, ["bm25"], "paragraph")


def test_indexes_kept_in_memory_are_bounded_and_the_demo_stays(workspace: Workspace, monkeypatch) -> None:
    monkeypatch.setattr("ragcore.services.indexes.MAX_RETRIEVERS", 3)
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    workspace.collections.ensure_demo()
    demo = workspace.indexes.retriever(DEMO_COLLECTION)
    names = []
    for i in range(4):
        name = workspace.collections.uploads_collection(f"browser-{i}")
        workspace.docs.upload(name, "sla.md", SLA_MD)
        workspace.indexes.retriever(name)
        names.append(name)
    assert list(workspace.indexes._retrievers) == [DEMO_COLLECTION, names[2], names[3]]
    assert workspace.indexes.retriever(DEMO_COLLECTION) is demo
    # An evicted index is rebuilt from the library when asked again.
    assert {p.doc for p in workspace.indexes.retriever(names[0]).passages} == {"sla.md"}
    # Private collections are owned by their session, so they can be expired by owner.
    owners = dict(workspace.library.connect().execute("SELECT name, owner FROM collections").fetchall())
    assert all(owners[n] == n for n in names) and owners[DEMO_COLLECTION] is None


def test_a_failed_background_warm_up_is_logged_and_kept(workspace: Workspace, monkeypatch, caplog) -> None:
    def broken(collection: str, progress=None) -> int:
        raise RuntimeError("model file missing")

    monkeypatch.setattr(workspace.indexes, "ensure_dense", broken)
    with caplog.at_level("ERROR", logger="ragcore.services.workspace"):
        thread = workspace.start_warm_up()
        thread.join(timeout=30)
    assert workspace.warm_error == "RuntimeError: model file missing"
    assert "background warm-up failed" in caplog.text and "model file missing" in caplog.text
    assert workspace.start_warm_up() is thread  # started once per workspace


def test_the_services_literal_modes_are_the_retrievers_modes() -> None:
    import typing

    from ragcore.retrieval import MODES
    from ragcore.services.common import Mode

    assert set(typing.get_args(Mode)) == set(MODES)
