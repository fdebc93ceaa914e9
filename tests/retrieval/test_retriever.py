"""The Retriever's modes, traces and fallbacks, with a small deterministic
embedder so the tests do not depend on the real model (which has its own
tests in test_embedding.py)."""

import hashlib

import numpy as np
import pytest

from ragcore.corpus import Corpus
from ragcore.records import Document, Passage
from ragcore.retrieval import FusionConfig, Retriever
from ragcore.retrieval.bm25 import BM25Params
from ragcore.retrieval.retriever import RERANK_DEPTH
from ragcore.store import Library

TEXTS = {
    "pricing.md": ["The Business plan is $999 per month.", "Enterprise pricing is negotiated per contract."],
    "faq.md": ["How do I reset my password? Use the login page.", "What does it cost? See the plan table."],
    "sla.md": ["We guarantee 99.99% monthly uptime.", "Credits are paid when uptime falls short."],
}
# Synonym groups: a toy "meaning" space so dense can match paraphrases.
CONCEPTS = [
    {"cost", "price", "pricing", "$999", "fee", "charge", "plan"},
    {"uptime", "available", "availability", "outage", "guarantee"},
    {"password", "login", "credentials", "reset"},
    {"credits", "refund", "money"},
]


class ToyEmbedder:
    model_id = "toy"

    def __init__(self):
        self.calls = 0

    def _vec(self, text):
        v = np.zeros(len(CONCEPTS) + 8, dtype=np.float32)
        for w in text.lower().replace("?", " ").replace(".", " ").split():
            hit = [i for i, group in enumerate(CONCEPTS) if w in group]
            for i in hit:
                v[i] += 1
            if not hit:
                v[len(CONCEPTS) + int(hashlib.md5(w.encode()).hexdigest(), 16) % 8] += 0.2
        return v / (np.linalg.norm(v) or 1)

    def embed_passages(self, texts, batch_size=8):
        self.calls += len(texts)
        return np.stack([self._vec(t) for t in texts])

    def embed_query(self, text):
        return self._vec(text)


def make_corpus() -> Corpus:
    docs, passages = {}, []
    for name, paras in TEXTS.items():
        text = "\n\n".join(paras)
        doc = Document(name, name, "md", text, hashlib.sha256(text.encode()).hexdigest())
        docs[name] = doc
        start = 0
        for i, para in enumerate(paras):
            s = text.index(para, start)
            e = s + len(para)
            passages.append(
                Passage(name, i, doc.line_at(s), doc.line_at(e - 1), s, e, f"{name} section", para)
            )
            start = e
    return Corpus("toy", docs, passages)


@pytest.fixture
def retriever():
    return Retriever(make_corpus(), embedder=ToyEmbedder())


def test_bm25_mode_traces_only_bm25(retriever):
    hits = retriever.search("Business plan $999", mode="bm25", k=3).hits
    assert hits[0].passage.doc == "pricing.md"
    assert (
        hits[0].trace["bm25"].rank == 1 and hits[0].trace["dense"] is None and hits[0].trace["fused"] is None
    )
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_dense_finds_paraphrase_bm25_misses(retriever):
    assert all(
        h.passage.doc != "sla.md" for h in retriever.search("is the service available", mode="bm25").hits
    )
    hits = retriever.search("is the service available", mode="dense", k=2).hits
    assert hits[0].passage.doc == "sla.md"
    assert hits[0].trace["dense"].rank == 1 and hits[0].trace["bm25"] is None


def test_hybrid_trace_matches_each_signal(retriever):
    retriever.fusion = FusionConfig(method="rrf", k=60)
    question = "what is the price of the plan"
    bm = {h.passage.id: h for h in retriever.search(question, mode="bm25", k=20).hits}
    dn = {h.passage.id: h for h in retriever.search(question, mode="dense", k=20).hits}
    hybrid = retriever.search(question, mode="hybrid", k=6).hits
    for h in hybrid:
        t = h.trace
        assert t["fused"].rank == h.rank and t["fused"].score == pytest.approx(h.score)
        if h.passage.id in bm:
            assert t["bm25"].rank == bm[h.passage.id].rank
        else:
            assert t["bm25"] is None
        assert t["dense"].rank == dn[h.passage.id].rank
        expected = sum(1 / (60 + r.rank) for r in (t["bm25"], t["dense"]) if r is not None)
        assert h.score == pytest.approx(expected)


def test_convex_fusion_option(retriever):
    retriever.fusion = FusionConfig(method="convex", weights={"bm25": 0.3, "dense": 0.7})
    hits = retriever.search("uptime guarantee", mode="hybrid", k=2).hits
    assert hits[0].passage.doc == "sla.md" and 0 < hits[0].score <= 1.0


def test_widen_keeps_dense_order_and_adds_bm25_hits(retriever):
    hits = retriever.search("password reset", mode="widen", k=10).hits
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert hits[0].passage.doc == "faq.md"


def test_rerank_without_reranker_keeps_fused_order_and_says_so(retriever):
    fused = retriever.search("uptime credits", mode="hybrid", k=5).hits
    result = retriever.search("uptime credits", mode="rerank", k=5)
    assert [h.passage.id for h in result.hits] == [h.passage.id for h in fused]
    assert any("rerank unavailable" in n for n in result.notes)
    assert all(h.trace["rerank"] is None for h in result.hits)
    assert "rerank" not in result.timings_ms


class FakeReranker:
    status = "ready"

    def rerank(self, query, texts):
        # prefers shorter passages: easy to predict
        return [-len(t) for t in texts]


def test_rerank_reorders_head_and_traces_it(retriever):
    retriever.reranker = FakeReranker()
    result = retriever.search("uptime credits plan", mode="rerank", k=6)
    head = result.hits[: min(RERANK_DEPTH, len(result.hits))]
    assert [len(h.passage.text) for h in head] == sorted(len(h.passage.text) for h in head)
    assert head[0].trace["rerank"].rank == 1 and head[0].trace["fused"] is not None
    assert not result.notes and "rerank" in result.timings_ms


def test_loading_reranker_falls_back():
    r = Retriever(make_corpus(), embedder=ToyEmbedder())
    r.reranker = type("Loading", (), {"status": "loading", "rerank": lambda self, q, t: None})()
    assert r.search("uptime", mode="rerank").notes == ["rerank unavailable (loading): fused order"]


def test_related_is_from_other_documents(retriever):
    target = next(p for p in retriever.passages if p.doc == "faq.md" and "cost" in p.text)
    related = retriever.related(target, k=3)
    assert related and all(p.doc != "faq.md" for p, _ in related)
    assert related[0][0].doc == "pricing.md"


def test_vectors_are_cached_in_library(tmp_path):
    lib = Library(tmp_path)
    emb = ToyEmbedder()
    Retriever(make_corpus(), vector_cache=lib, embedder=emb).ensure_dense()
    assert emb.calls == 6
    again = Retriever(make_corpus(), vector_cache=lib, embedder=emb)
    assert again.ensure_dense() == 0 and emb.calls == 6


def test_bad_mode_and_empty_question(retriever):
    with pytest.raises(ValueError, match="unknown mode"):
        retriever.search("x", mode="magic")
    empty = retriever.search("   ")
    assert empty.hits == [] and empty.notes == ["empty question"]


def test_hit_json_contract(retriever):
    h = retriever.search("uptime", k=1).hits[0].to_json()
    assert set(h) >= {"rank", "doc", "first_line", "last_line", "pages", "label", "text", "score", "trace"}
    assert set(h["trace"]) == {"bm25", "dense", "fused", "rerank"}


def test_default_fusion_is_the_learned_fusion(retriever):
    from ragcore.retrieval import fusion
    from ragcore.retrieval.prf import index_feedback

    question = "what is the price of the plan"
    bm = retriever.bm25.search(question, 100)
    dn = retriever._dense_ranking(question, 100)
    # The gate's fusion takes dense's pseudo-relevance feedback ranking over the two lists (prf.py).
    feedback = index_feedback(retriever.dense_index(), retriever.embedder.embed_query(question), bm, dn)
    expected = fusion.fuse_two(
        bm, dn, fusion.fusion_stats(retriever.bm25, question, bm, dn), feedback=feedback
    )
    hits = retriever.search(question, mode="hybrid", k=6).hits
    assert [h.score for h in hits] == pytest.approx([s for _, s in expected[:6]])
    signals = fusion.query_signals(retriever.bm25, question, bm, dn)
    previous = FusionConfig(method="signals").fuse({"bm25": bm, "dense": dn}, signals)
    assert previous == fusion.DEFAULT_RULE.fuse(bm, dn, signals)
    assert 0.0 <= signals.support <= 1.0


def _passage(doc: str, index: int, label: str, text: str, chunking: str = "heading") -> Passage:
    return Passage(doc, index, 1, 1, 0, len(text), label, text, chunking=chunking)


def test_a_document_named_by_its_initials_is_found_by_them():
    # The agreement's own clause never says "MSA"; a shorter passage elsewhere
    # holds the same words, and "MSA" occurs in one unrelated body.
    texts = {
        ("sla.md", "3.3 Sole remedy"): "Repeated misses: the right to terminate.",
        ("master-services-agreement.md", "5. Term"): (
            "Either party has the right to terminate after repeated misses."
        ),
        ("order-form.md", "Signatures"): "The MSA is signed by both parties.",
    }
    filler = ["How do I reset my password?", "Invoices are sent monthly.", "Support is open on weekdays."]
    texts.update({(f"faq-{i}.md", "Other"): text for i, text in enumerate(filler * 3)})
    passages = [_passage(doc, 0, label, text) for (doc, label), text in texts.items()]
    r = Retriever(Corpus("acr", {}, passages), embedder=ToyEmbedder())
    hits = r.search("Which MSA section gives the right to terminate after repeated misses?", "bm25", 3).hits
    assert hits[0].passage.doc == "master-services-agreement.md"
    plain = Retriever(
        Corpus("acr", {}, passages), embedder=ToyEmbedder(), bm25_params=BM25Params(name_acronyms=False)
    )
    top = plain.search("Which MSA section gives the right to terminate after repeated misses?", "bm25", 3)
    assert top.hits[0].passage.doc == "sla.md"  # without the rule the body mention wins


def test_a_cut_passage_can_be_embedded_with_its_document_and_heading_path(monkeypatch):
    from ragcore import records

    cut = _passage("service-level-agreement.md", 2, "2. Uptime > 2.1 By plan", "We commit to 99.9%.")
    whole = _passage("1234", 0, "A title", "A title\nThe text.", chunking="whole")
    assert records.CONTEXT_HEADERS == "off"  # the shipped choice (docs/decisions.md, "Passage context")
    assert cut.embedding_text == cut.text and cut.content_hash == records.sha256_hex(cut.text)
    monkeypatch.setattr(records, "CONTEXT_HEADERS", "name+path")
    assert cut.embedding_text == "service level agreement: 2. Uptime > 2.1 By plan\n\nWe commit to 99.9%."
    assert whole.embedding_text == whole.text  # BEIR documents: vectors unchanged
    assert cut.content_hash != _passage("other.md", 2, cut.label, cut.text).content_hash
    monkeypatch.setattr(records, "CONTEXT_HEADERS", "name")
    assert cut.embedding_text == "service level agreement\n\nWe commit to 99.9%."
    embedder = ToyEmbedder()
    seen: list[str] = []
    embedder.embed_passages = lambda texts, batch_size=8: (
        seen.extend(texts) or ToyEmbedder().embed_passages(texts)
    )
    Retriever(Corpus("c", {}, [cut]), embedder=embedder).ensure_dense()
    assert seen == [cut.embedding_text]


def test_a_search_says_when_an_answer_type_lift_acted(retriever):
    note = "the question asks for a percentage: BM25 lifted passages stating a percentage beside its words"
    assert note in retriever.search("What uptime do we guarantee?", mode="bm25").notes
    assert note in retriever.search("What uptime do we guarantee?", mode="hybrid").notes
    # dense reads no BM25 lift, and a question asking for no value gets no note
    assert not retriever.search("What uptime do we guarantee?", mode="dense").notes
    assert not retriever.search("Do we guarantee uptime?", mode="bm25").notes
