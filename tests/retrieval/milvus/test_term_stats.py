"""Term statistics kept beside a Milvus index give the default fusion the
same query signals as the embedded BM25 index, and stay right as passages
come and go."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcore.corpus import load_corpus
from ragcore.records import Passage
from ragcore.retrieval import fusion
from ragcore.retrieval.backends import milvus_schema as schema
from ragcore.retrieval.backends.milvus import MilvusIndex
from ragcore.retrieval.backends.term_stats import Frequencies, TermStats, params_key, removed_passages
from ragcore.retrieval.bm25 import BM25Index, BM25Params
from ragcore.retrieval.bm25_rows import table_row_index
from ragcore.store import Library

from .test_index import make_passages

ROOT = Path(__file__).resolve().parents[3]
DEMO = ROOT / "corpus" / "demo"
GOLD = ROOT / "eval" / "demo.gold.json"


@pytest.fixture(scope="module")
def demo_passages(tmp_path_factory) -> list[Passage]:
    library = Library(tmp_path_factory.mktemp("home"))
    return load_corpus(DEMO, "auto", library).passages


def _questions() -> list[str]:
    data = json.loads(GOLD.read_text(encoding="utf-8"))
    return [q["text"] for q in data["questions"]]


# Milvus indexes each passage's own text: the embedded index's table
# headers (BM25Params.table_headers, a continuation of a table indexed with
# its header row) have no counterpart there, so both sides count texts only.
MILVUS_PARAMS = BM25Params(table_headers=False)


def test_vocabulary_and_idf_are_the_embedded_ones(demo_passages):
    params = MILVUS_PARAMS
    embedded = BM25Index.from_passages(demo_passages, params)
    stats = TermStats(Frequencies.of(demo_passages, params, "x"), demo_passages, params)
    assert set(stats.vocab) == set(embedded.vocab)
    for term, col in embedded.vocab.items():
        assert stats.idf[stats.vocab[term]] == pytest.approx(embedded.idf[col], rel=1e-12, abs=1e-15), term


def test_query_signals_equal_the_embedded_index_on_the_demo_questions(demo_passages):
    params = MILVUS_PARAMS
    embedded = BM25Index.from_passages(demo_passages, params)
    stats = TermStats(Frequencies.of(demo_passages, params, "x"), demo_passages, params)
    questions = _questions()
    identifiers_seen = gated = 0
    for i, q in enumerate(questions):
        lexical = embedded.search(q, 100)
        # A second ranking over other rows stands in for dense: the signals
        # read the top rows of both lists.
        other = embedded.search(questions[(i + 7) % len(questions)], 100)
        ours = fusion.query_signals(stats, q, lexical, other)
        theirs = fusion.query_signals(embedded, q, lexical, other)
        assert ours.identifier_rows == theirs.identifier_rows, q
        assert ours.coverage == pytest.approx(theirs.coverage, abs=1e-12), q
        assert ours.dense_coverage == pytest.approx(theirs.dense_coverage, abs=1e-12), q
        assert ours.agreement == theirs.agreement
        assert fusion.DEFAULT_RULE.fuse(lexical, other, ours) == fusion.DEFAULT_RULE.fuse(
            lexical, other, theirs
        )
        identifiers_seen += bool(theirs.identifier_rows)
        gated += theirs.dense_coverage < fusion.DEFAULT_RULE.threshold
    # The comparison exercised both branches of the rule and the pins.
    assert identifiers_seen and gated and gated < len(questions)


def test_frequencies_updated_by_a_sync_equal_a_recount():
    params = BM25Params()
    start = make_passages(n_docs=6, per_doc=5)
    added = [Passage("new doc.md", i, 1, 1, 0, 9, "Fresh heading", "brand new words here") for i in range(3)]
    removed = [p for p in start if p.doc in ("doc 1.md", "doc 4.md")]
    after = [p for p in start if p not in removed] + added
    freqs = Frequencies.of(start, params, "before")
    freqs.add(added, params)
    rows = [{"text": p.text, "doc": p.doc, "label": p.label, "passage_index": p.index} for p in removed]
    freqs.add(removed_passages(rows), params, sign=-1)
    recount = Frequencies.of(after, params, "before")
    assert (freqs.n_docs, freqs.df, freqs.heading) == (recount.n_docs, recount.df, recount.heading)
    assert "fresh" in freqs.heading and "doc" in freqs.heading  # heading words and the doc name


def test_frequencies_round_trip_and_refuse_junk():
    params = BM25Params()
    freqs = Frequencies.of(make_passages(), params, "abc")
    back = Frequencies.from_bytes(freqs.to_bytes())
    assert back == freqs and back.params == params_key(params)
    assert Frequencies.from_bytes(b"not zlib") is None
    assert params_key(params) != params_key(BM25Params(stemming=False))


def test_blobs_keep_parts_and_shrink(lite_target, monkeypatch):
    monkeypatch.setattr(schema, "BLOB_PART_CHARS", 100)
    index = MilvusIndex(lite_target, "t_blobs", 8)
    big = bytes(range(256)) * 3  # 1,024 base64 characters: 11 parts
    index.write_blob("t_blobs", big)
    assert index.read_blob("t_blobs") == big
    index.write_blob("t_blobs", b"small")
    assert index.read_blob("t_blobs") == b"small"
    left = index.client.query(schema.BLOB_COLLECTION, filter='key like "t_blobs#%"', output_fields=["key"])
    assert [r["key"] for r in left] == ["t_blobs#0"]  # the old parts are gone
    index.write_blob("t_blobs", b"")
    assert index.read_blob("t_blobs") is None
    assert index.read_blob("never written") is None


def test_table_rows_weigh_as_the_embedded_index_rows(demo_passages):
    """Rows scored beside Milvus (bm25_rows.table_row_index over TermStats)
    get the embedded index's weights: same vocabulary, idf and average length."""
    params = MILVUS_PARAMS
    assert params.table_row_weight > 0
    embedded = BM25Index.from_passages(demo_passages, params)
    stats = TermStats(Frequencies.of(demo_passages, params, "x"), demo_passages, params)
    assert stats.avgdl[0] == pytest.approx(embedded.avgdl[0], rel=1e-12)
    rows, owner = table_row_index(demo_passages, stats, params)
    assert owner.size > 10 and list(owner) == list(embedded.row_owner)
    order = [stats.vocab[t] for t in sorted(embedded.vocab, key=embedded.vocab.get)]
    assert abs(rows[:, order] - embedded.rows).max() < 1e-12


def test_frequencies_keep_the_total_length_through_bytes_and_updates(demo_passages):
    params = MILVUS_PARAMS
    whole = Frequencies.of(demo_passages, params, "x")
    assert whole.length == sum(len(params.terms(p.text)) for p in demo_passages)
    assert Frequencies.from_bytes(whole.to_bytes()).length == whole.length
    part = Frequencies.of(demo_passages[:5], params, "y")
    part.add(demo_passages[5:], params)
    part.add(demo_passages[:5], params, sign=-1)
    assert part.length == whole.length - sum(len(params.terms(p.text)) for p in demo_passages[:5])
