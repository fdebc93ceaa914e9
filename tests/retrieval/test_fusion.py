import pytest

from ragcore.retrieval import fusion


def test_rrf_matches_hand_computation():
    bm25 = [(10, 9.0), (20, 7.0), (30, 1.0)]
    dense = [(20, 0.9), (40, 0.8), (10, 0.1)]
    out = dict(fusion.rrf({"bm25": bm25, "dense": dense}, k=60))
    assert out[10] == pytest.approx(1 / 61 + 1 / 63)
    assert out[20] == pytest.approx(1 / 62 + 1 / 61)
    assert out[30] == pytest.approx(1 / 63)
    assert out[40] == pytest.approx(1 / 62)
    order = [row for row, _ in fusion.rrf({"bm25": bm25, "dense": dense}, k=60)]
    assert order == [20, 10, 40, 30]


def test_weighted_rrf():
    out = dict(fusion.rrf({"a": [(1, 1.0)], "b": [(2, 1.0)]}, k=60, weights={"a": 2.0, "b": 1.0}))
    assert out[1] == pytest.approx(2 / 61) and out[2] == pytest.approx(1 / 61)


def test_convex_normalises_each_signal():
    a = [(1, 10.0), (2, 5.0), (3, 0.0)]
    b = [(3, 0.9), (1, 0.5)]
    out = dict(fusion.convex({"a": a, "b": b}, {"a": 0.5, "b": 0.5}))
    assert out[1] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert out[2] == pytest.approx(0.5 * 0.5)
    assert out[3] == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)


def test_ties_are_reproducible():
    out = fusion.rrf({"a": [(5, 1.0)], "b": [(3, 1.0)]}, k=60)
    assert [row for row, _ in out] == [3, 5]


def test_agreement_counts_lexical_top_found_in_dense_pool():
    lexical = [(1, 9.0), (2, 8.0), (3, 7.0), (4, 6.0), (5, 5.0), (6, 4.0)]
    dense = [(2, 0.9), (9, 0.8), (5, 0.7)]
    assert fusion.agreement(lexical, dense, depth=5, pool=20) == pytest.approx(2 / 5)
    assert fusion.agreement(lexical, dense, depth=5, pool=1) == pytest.approx(1 / 5)
    assert fusion.agreement([], dense) == 0.0


def test_agreement_rrf_weights_lexical_by_squared_agreement():
    lexical = [(1, 9.0), (2, 8.0)]
    dense = [(2, 0.9), (3, 0.8)]
    fused, weight = fusion.agreement_rrf(lexical, dense, k=20, depth=2, pool=20)
    assert weight == pytest.approx(0.25)  # one of two lexical top hits is in the dense pool
    scores = dict(fused)
    assert scores[1] == pytest.approx(0.25 / 21)
    assert scores[2] == pytest.approx(0.25 / 22 + 1 / 21)
    assert scores[3] == pytest.approx(1 / 22)


def test_full_disagreement_leaves_dense_order():
    lexical = [(7, 3.0), (8, 2.0)]
    dense = [(1, 0.9), (2, 0.5)]
    fused, weight = fusion.agreement_rrf(lexical, dense)
    assert weight == 0.0
    assert [row for row, s in fused if s > 0] == [1, 2]


# ------------------------------------------------- query-aware fusion


def test_convex_tmm_uses_theoretical_floors():
    bm25 = [(1, 8.0), (2, 4.0)]
    dense = [(2, 0.5), (3, 0.0)]
    out = dict(fusion.convex_tmm({"bm25": bm25, "dense": dense}, {"bm25": 0.5, "dense": 0.5}))
    assert out[1] == pytest.approx(0.5 * 1.0)
    assert out[2] == pytest.approx(0.5 * 0.5 + 0.5 * 1.0)
    assert out[3] == pytest.approx(0.5 * (0.0 + 1) / (0.5 + 1))  # cosine floor -1


def test_gated_rrf_mutes_bm25_below_the_threshold():
    lexical = [(7, 3.0), (8, 2.0)]
    dense = [(1, 0.9), (2, 0.5)]
    low = fusion.QuerySignals(coverage=0.5, agreement=0.0, dense_coverage=0.01)
    high = fusion.QuerySignals(coverage=0.5, agreement=0.0, dense_coverage=0.5)
    fused, weight = fusion.gated_rrf(lexical, dense, low, feature="dense_coverage", threshold=0.05, low=0.0)
    assert weight == 0.0 and [r for r, _ in fused][:2] == [1, 2]
    fused, weight = fusion.gated_rrf(lexical, dense, high, feature="dense_coverage", threshold=0.05, low=0.0)
    assert weight == 1.0 and [r for r, _ in fused][:2] == [1, 7]
    _, weight = fusion.gated_rrf(
        lexical, dense, low, feature="dense_coverage", threshold=0.04, low=0.2, soft=True
    )
    assert weight == pytest.approx(0.2 + 0.8 * 0.25)


def test_identifier_rows_lead_the_fused_list():
    lexical = [(7, 3.0), (8, 2.0)]
    dense = [(1, 0.9), (2, 0.5), (7, 0.1)]
    sig = fusion.QuerySignals(coverage=1.0, agreement=0.0, identifier_rows=(8,), dense_coverage=0.0)
    fused, _ = fusion.gated_rrf(lexical, dense, sig, threshold=0.5, low=0.0, feature="dense_coverage")
    assert fused[0][0] == 8
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)
    unpinned, _ = fusion.gated_rrf(lexical, dense, sig, feature="dense_coverage", pin=False)
    assert unpinned[0][0] != 8


def test_query_signals_from_an_index():
    from ragcore.retrieval.bm25 import BM25Index

    texts = [
        "Error ERR-4012 means the upload failed.",
        "Uploads fail when the file is too large.",
        "Lunch is served at noon.",
        "Parking is behind the building.",
    ]
    index = BM25Index.from_texts(texts)
    lexical = index.search("what does ERR-4012 mean for an upload")
    dense = [(1, 0.8), (0, 0.7)]  # pretend dense prefers the paraphrase
    sig = fusion.query_signals(index, "what does ERR-4012 mean for an upload", lexical, dense)
    assert lexical[0][0] == 0 and sig.identifier_rows == (0,)
    assert sig.coverage == pytest.approx(1.0)  # err, 4012, err4012, mean, upload all in passage 0
    assert 0 < sig.dense_coverage < sig.coverage
    none = fusion.query_signals(index, "lunch", index.search("lunch"), [(3, 0.5)])
    assert none.identifier_rows == () and none.dense_coverage == 0.0


class _WordsOnlyEmbedder:
    """Hashes words without digits: codes are invisible to it, as they nearly
    are to a real sentence embedder, so dense prefers the wordier siblings."""

    model_id = "words-only"

    def _vec(self, text):
        import hashlib

        import numpy as np

        v = np.zeros(32, dtype=np.float32)
        for w in text.lower().replace("?", " ").replace(".", " ").replace(",", " ").split():
            if not any(c.isdigit() for c in w):
                v[int(hashlib.md5(w.encode()).hexdigest(), 16) % 32] += 1
        return v / (np.linalg.norm(v) or 1)

    def embed_passages(self, texts, batch_size=8):
        import numpy as np

        return np.stack([self._vec(t) for t in texts])

    def embed_query(self, text):
        return self._vec(text)


@pytest.mark.parametrize("code", ["zq3x4w", "ISO-27001", "SOC 2", "v2.3.1", "ERR-4012", "$1,199"])
def test_a_code_in_the_question_ranks_its_passage_first_in_bm25_and_default_mode(code):
    from ragcore.corpus import Corpus
    from ragcore.records import Document, Passage
    from ragcore.retrieval import Retriever

    siblings = {"zq3x4w": "zq3x5w", "ISO-27001": "ISO-27002", "SOC 2": "SOC 1", "v2.3.1": "v2.3.0"}
    sibling = siblings.get(code, {"ERR-4012": "ERR-4013", "$1,199": "$1,099"}.get(code))
    paras = [f"What the reference entry {sibling} means for the account and what the reference says."] * 3
    paras += [f"Entry {code} is listed.", "Lunch is at noon.", "Parking is behind the office."]
    paras += [f"Note {i} about the weekly team meeting schedule." for i in range(6)]
    passages, docs = [], {}
    for i, para in enumerate(paras):
        name = f"doc{i}.md"
        docs[name] = Document(name, name, "md", para, f"h{i}")
        passages.append(Passage(name, 0, 1, 1, 0, len(para), "Notes", para))
    retriever = Retriever(Corpus("codes", docs, passages), embedder=_WordsOnlyEmbedder())
    question = f"What does the reference entry {code} mean for the account?"
    for mode in ("bm25", "hybrid"):
        assert retriever.search(question, mode=mode, k=3).hits[0].passage.doc == "doc3.md", mode
