"""The Milvus index on Milvus Lite: schema, sync, searches, failures."""

from __future__ import annotations

import math
import re
import time
from collections import Counter

import numpy as np
import pytest

from ragcore import errors
from ragcore.records import Passage
from ragcore.retrieval.backends import milvus_schema as schema
from ragcore.retrieval.backends import parse_index
from ragcore.retrieval.backends.milvus import IndexUnavailable, MilvusIndex, forget_client
from ragcore.retrieval.bm25 import BM25Params

from .conftest import free_port

WORDS = (
    "invoice payment refund contract renewal notice termination liability warranty shipping "
    "delivery price discount tax audit report quarter revenue margin forecast budget risk"
).split()


def make_passages(n_docs: int = 6, per_doc: int = 5, seed: int = 0) -> list[Passage]:
    rng = np.random.default_rng(seed)
    out = []
    for d in range(n_docs):
        for i in range(per_doc):
            words = rng.choice(WORDS, size=int(rng.integers(5, 25)))
            text = " ".join(words)
            line = 1 + 3 * i
            out.append(Passage(f"doc {d}.md", i, line, line + 2, 0, len(text), f"Part {i}", text))
    return out


def vectors_of(passages: list[Passage], dim: int = 8) -> np.ndarray:
    vecs = []
    for p in passages:
        v = np.random.default_rng(abs(hash((p.doc, p.index))) % 2**32).normal(size=dim)
        vecs.append(v / np.linalg.norm(v))
    return np.asarray(vecs, dtype=np.float32)


def synced(target, passages, name="t_collection", dim=8):
    index = MilvusIndex(target, name, dim)
    keys = [schema.passage_key(p, "test-model") for p in passages]
    vecs = vectors_of(passages, dim)
    report = index.sync(passages, keys, lambda rows: vecs[rows], "uploads")
    return index, keys, report


def test_index_settings_parse_and_never_show_the_token():
    assert parse_index(None).kind == "embedded"
    assert parse_index("embedded").kind == "embedded"
    lite = parse_index("milvus:/tmp/ragcore-test/index.db")
    assert lite.kind == "milvus-lite" and lite.uri.endswith("index.db")
    folder = parse_index("milvus:/tmp/ragcore-test/folder")
    assert folder.uri.endswith("folder/milvus.db")  # pymilvus opens Lite only for *.db
    server = parse_index("https://user:pw@milvus.example:19530", token="s3cret")
    assert server.kind == "milvus-server"
    assert "s3cret" not in repr(server) and "s3cret" not in server.shown and "pw" not in server.shown
    assert server.shown == "https://milvus.example:19530"
    with pytest.raises(errors.RagcoreError, match="unknown index backend"):
        parse_index("elastic://x")


def test_collection_names_are_valid_milvus_names():
    for name in ("uploads", "dir:0a1b2c:auto", "beir:ff:whole", "s/é ü!"):
        made = schema.collection_name(name, 384)
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,254}", made), made
    assert schema.collection_name("a:b", 384) != schema.collection_name("a_b", 384)


def test_terms_are_the_embedded_tokens_and_survive_the_standard_tokenizer():
    params = BM25Params()
    text = "Refunds for ISO-27001 audits (v2.3.1) cost $1,199; see ERR-4012."
    terms = schema.milvus_terms(text, params).split()
    assert len(terms) == len(params.terms(text))
    assert all(re.fullmatch(r"[a-z0-9]+", t) for t in terms)
    assert "refund" in terms and "iso27001" in terms  # stemmed; identifier whole
    # Distinct tokens keep distinct names; the same token always the same one.
    assert len(set(terms)) == len(set(params.terms(text)))
    assert schema.milvus_token("v2.3.1") == schema.milvus_token("v2.3.1") != schema.milvus_token("v2.3.2")
    assert schema.milvus_terms("the and of", params) == ""


def test_an_identifier_query_ranks_its_passage_first(lite_target):
    """A code the collection holds once is found whole, not by fragments
    shared with its neighbours (both backends index identifiers whole)."""
    passages = make_passages(n_docs=4, per_doc=5)
    texts = ["Error ERR-4012 means the token expired.", "Error ERR-4013 means the quota is spent."]
    texts += ["Log lines list err 4012 and err 4013, then err 4012 again."]
    for i, text in enumerate(texts):
        passages.append(Passage("codes.md", i, 1 + 3 * i, 2 + 3 * i, 0, len(text), "Codes", text))
    index, keys, _ = synced(lite_target, passages)
    top = [keys.index(key) for key, _ in index.bm25("What does ERR-4012 mean?", 3)]
    assert passages[top[0]].text == texts[0]


def test_a_passage_continuing_a_table_is_indexed_with_its_header_row(lite_target):
    """As in the embedded BM25 (``bm25.index_texts``): the header's words
    reach the rows of a table split across passages."""
    passages = make_passages(n_docs=3, per_doc=4)
    head = "Plans\n\n| Plan | Seats | Onboarding fee |\n|---|---|---|\n| Starter | 5 | none |"
    rest = "| Growth | 50 | one week |\n| Scale | 500 | two weeks |"
    for i, text in enumerate((head, rest)):
        passages.append(Passage("plans.md", i, 1 + 10 * i, 6 + 10 * i, 0, len(text), "Plans", text))
    index, keys, _ = synced(lite_target, passages)
    found = [passages[keys.index(key)].text for key, _ in index.bm25("onboarding fee for Scale", 2)]
    assert found[0] == rest


def test_sync_adds_deletes_and_rechunks_propagate(lite_target):
    passages = make_passages()
    index, _keys, report = synced(lite_target, passages)
    assert (report.added, report.removed, report.reused) == (len(passages), 0, False)
    assert index.count() == len(passages)
    assert synced(lite_target, passages)[2].reused  # unchanged: re-used, nothing scanned

    # remove one document, re-chunk another (its passages get new spans), add a new one
    kept = [p for p in passages if p.doc != "doc 0.md"]
    rechunked = [
        Passage(p.doc, 0, 1, 99, 0, len(p.text), p.label, p.text, chunking="whole")
        if p.doc == "doc 1.md"
        else p
        for p in kept
        if not (p.doc == "doc 1.md" and p.index > 0)
    ]
    added = make_passages(n_docs=1, per_doc=3, seed=9)
    added = [
        Passage("doc new.md", p.index, p.first_line, p.last_line, 0, p.end, p.label, p.text) for p in added
    ]
    after = rechunked + added
    index, new_keys, report = synced(lite_target, after)
    assert report.removed == 5 + 5  # doc 0's five, doc 1's five old spans
    assert report.added == 1 + 3  # doc 1's one new span, the new doc's three
    assert set(index.stored_keys()) == set(new_keys)
    hits = index.bm25(" ".join(WORDS[:5]), 100)
    assert {k for k, _ in hits} <= set(new_keys)


def test_dense_search_matches_exact_cosine_order(lite_target):
    passages = make_passages(n_docs=8, per_doc=6)
    index, keys, _ = synced(lite_target, passages)
    vecs = vectors_of(passages)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.normal(size=8).astype(np.float32)
        exact = np.argsort(-(vecs @ (q / np.linalg.norm(q))), kind="stable")[:10]
        got = [keys.index(k) for k, _ in index.dense(q, 10)]
        assert got == [int(i) for i in exact]


def test_filtered_dense_search_returns_full_lists(lite_target):
    passages = make_passages(n_docs=8, per_doc=6)
    index, keys, _ = synced(lite_target, passages)
    others = sum(p.doc != "doc 3.md" for p in passages)
    q = vectors_of(passages)[0]
    for k in (5, 20, others, others + 10):
        hits = index.dense(q, k, exclude_doc="doc 3.md")
        assert len(hits) == min(k, others)
        assert all(passages[keys.index(key)].doc != "doc 3.md" for key, _ in hits)


def test_filter_literal_is_escaped(lite_target):
    odd = [Passage('say "hi" \\ there.md', 0, 1, 1, 0, 9, "x", "invoice payment"), *make_passages(2, 2)]
    index, keys, _ = synced(lite_target, odd)
    hits = index.dense(vectors_of(odd)[0], 10, exclude_doc=odd[0].doc)
    assert keys[0] not in {k for k, _ in hits} and len(hits) == len(odd) - 1


def _milvus_tokens(text: str) -> list[str]:
    """The tokens Milvus scores: the embedded index's own."""
    return schema.milvus_terms(text, BM25Params()).split()


def reference_bm25(texts: list[str], k1: float = BM25Params().k1, b: float = BM25Params().b):
    """BM25 as Milvus documents it (idf = ln(1 + (N - df + 0.5) / (df + 0.5))),
    over the tokens written into Milvus's terms field (the embedded index's).
    Returns ``score(query) -> list of scores``, one per text."""
    tok = [Counter(_milvus_tokens(s)) for s in texts]
    lengths = [sum(c.values()) for c in tok]
    n, avgdl = len(tok), sum(lengths) / len(tok)
    df = Counter(t for doc in tok for t in doc)

    def score(query: str) -> list[float]:
        q = _milvus_tokens(query)
        out = []
        for tf, length in zip(tok, lengths, strict=True):
            s = 0.0
            for t in q:
                if tf[t]:
                    idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                    s += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * length / avgdl))
            out.append(s)
        return out

    return score


def test_bm25_order_is_bm25_on_milvus_tokens(lite_target):
    """Milvus's BM25 order equals BM25 (the embedded k1 and b) computed here on the
    same tokens; only passages whose scores tie may swap."""
    passages = make_passages(n_docs=8, per_doc=6)
    index, keys, _ = synced(lite_target, passages)
    scorer = reference_bm25([p.text for p in passages])
    for query in ("refund payment", "tax audit report", "Liability WARRANTY notice", "budget"):
        ref = scorer(query)
        got = [keys.index(key) for key, _ in index.bm25(query, 10)]
        expected = sorted((i for i, s in enumerate(ref) if s > 0), key=lambda i: -ref[i])[:10]
        assert len(got) == len(expected)
        for mine, theirs in zip(got, expected, strict=True):
            assert math.isclose(ref[mine], ref[theirs], rel_tol=1e-5), (query, got, expected)


def test_unreachable_server_fails_clearly_within_ten_seconds():
    target = parse_index(f"http://127.0.0.1:{free_port()}", token="tok-123-secret")
    started = time.monotonic()
    with pytest.raises(IndexUnavailable) as caught:
        MilvusIndex(target, "rc_x", 8).ensure()
    assert time.monotonic() - started < 10
    message = str(caught.value)
    assert "127.0.0.1" in message and "unreachable" in message
    assert "tok-123-secret" not in message
    forget_client(target)


@pytest.mark.slow  # starts and restarts a server process
def test_loopback_server_restart_finds_the_index(loopback_server):
    passages = make_passages()
    index, _keys, report = synced(loopback_server.target, passages)
    assert not report.reused
    query = vectors_of(passages)[4]
    before = index.dense(query, 10), index.bm25("refund payment", 10)
    loopback_server.stop()
    loopback_server.start()
    index, _keys, report = synced(loopback_server.target, passages)
    assert report.reused and index.count() == len(passages)
    assert [k for k, _ in index.dense(query, 10)] == [k for k, _ in before[0]]
    assert [k for k, _ in index.bm25("refund payment", 10)] == [k for k, _ in before[1]]


@pytest.mark.slow  # stops the server mid-ingest and starts it again
def test_server_stopped_mid_ingest_errors_then_resumes(loopback_server, monkeypatch):
    from ragcore.retrieval.backends import milvus as milvus_module

    monkeypatch.setattr(milvus_module, "INSERT_BATCH", 10)
    passages = make_passages(n_docs=6, per_doc=5)  # 30 passages, 3 batches
    keys = [schema.passage_key(p, "test-model") for p in passages]
    vecs = vectors_of(passages)
    calls = []

    def stop_on_second_batch(rows):
        calls.append(len(rows))
        if len(calls) == 2:
            loopback_server.stop()
        return vecs[rows]

    index = MilvusIndex(loopback_server.target, "t_mid", 8)
    started = time.monotonic()
    with pytest.raises(IndexUnavailable, match="unreachable"):
        index.sync(passages, keys, stop_on_second_batch, "uploads")
    assert time.monotonic() - started < 10 + 5  # the stop itself waits for the process

    loopback_server.start()
    index = MilvusIndex(loopback_server.target, "t_mid", 8)
    report = index.sync(passages, keys, lambda rows: vecs[rows], "uploads")
    assert not report.reused and report.kept == 10 and report.added == 20
    assert sorted(index.stored_keys()) == sorted(keys)


@pytest.mark.slow  # freezes the server mid-ingest and lets it go on
def test_server_frozen_mid_ingest_fails_within_ten_seconds_then_completes(loopback_server, monkeypatch):
    """A server that stops answering (frozen, connections open) in the middle
    of an insert: the sync fails within 10 s, although writes may take up to
    a minute on a healthy server; once it answers again, the next sync
    completes the ingest."""
    from ragcore.retrieval.backends import milvus as milvus_module

    monkeypatch.setattr(milvus_module, "INSERT_BATCH", 10)
    passages = make_passages(n_docs=6, per_doc=5)
    keys = [schema.passage_key(p, "test-model") for p in passages]
    vecs = vectors_of(passages)
    calls = []

    def freeze_on_second_batch(rows):
        calls.append(len(rows))
        if len(calls) == 2:
            loopback_server.pause()
        return vecs[rows]

    index = MilvusIndex(loopback_server.target, "t_frozen", 8)
    index.ensure()
    started = time.monotonic()
    with pytest.raises(IndexUnavailable) as caught:
        index.sync(passages, keys, freeze_on_second_batch, "uploads")
    assert time.monotonic() - started < 10
    assert "not answering" in str(caught.value) and "time limit" in str(caught.value)
    assert "RPC" not in str(caught.value)  # a plain cause, not gRPC's dump

    loopback_server.resume()
    index = MilvusIndex(loopback_server.target, "t_frozen", 8)
    report = index.sync(passages, keys, lambda rows: vecs[rows], "uploads")
    assert not report.reused and report.added + report.kept == len(passages)
    assert sorted(index.stored_keys()) == sorted(keys)


@pytest.mark.slow  # freezes the server
def test_frozen_server_search_fails_within_ten_seconds(loopback_server):
    passages = make_passages()
    index, _keys, _ = synced(loopback_server.target, passages)
    loopback_server.pause()
    for search in (
        lambda: index.bm25("refund payment", 10),
        lambda: index.dense(vectors_of(passages)[0], 10),
    ):
        started = time.monotonic()
        with pytest.raises(IndexUnavailable, match="no answer within the time limit"):
            search()
        assert time.monotonic() - started < 10
