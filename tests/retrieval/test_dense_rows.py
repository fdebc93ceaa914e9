"""Table rows as extra vectors of their passage (scripts/dense_rows.py, a
study the retriever does not use)."""

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from ragcore.records import Passage

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from dense_rows import ROW_MODEL_SUFFIX, RowVectors, row_texts, row_vectors, with_rows

TABLE = "| Code | Meaning |\n| --- | --- |\n| Q-1 | Empty body |\n| Q-7 | Quota used up |\n"
CONTINUED = "| Q-8 | Service down |\n| Q-9 | Timed out |\n"


def _passages() -> list[Passage]:
    texts = [
        ("errors.md", "Codes", TABLE),
        ("errors.md", "Codes", CONTINUED),
        ("notes.md", "Notes", "No table."),
    ]
    return [Passage(doc, i, 1, 1, 0, len(t), label, t) for i, (doc, label, t) in enumerate(texts)]


def test_each_row_is_embedded_with_its_header_and_the_passage_context():
    passages = _passages()
    texts, owner = row_texts(passages, [0, 1])
    assert owner.tolist() == [0, 0, 1, 1]
    context = passages[0].embedding_text[: -len(passages[0].text)]
    assert texts[1] == context + "Code | Meaning | Q-7 | Quota used up"
    # The passage continuing the table takes the header from the passage before it.
    assert texts[2].endswith("Code | Meaning | Q-8 | Service down")
    none, nobody = row_texts(passages, [2])
    assert none == [] and nobody.size == 0


class _Embedder:
    model_id = "toy"

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_passages(self, texts: Sequence[str], batch_size: int = 8) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.asarray([[len(t), t.count("Q-7") * 10.0, 1.0] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray([0.0, 1.0, 0.0], dtype=np.float32)


class _Cache:
    def __init__(self) -> None:
        self.store: dict[tuple[str, str], np.ndarray] = {}

    def get_vectors(self, content_hashes: list[str], model_id: str) -> dict[str, np.ndarray]:
        return {h: self.store[(h, model_id)] for h in content_hashes if (h, model_id) in self.store}

    def put_vectors(self, vectors: Mapping[str, np.ndarray], model_id: str) -> None:
        self.store.update({(h, model_id): v for h, v in vectors.items()})


def test_row_vectors_are_kept_in_the_cache_under_their_own_model_id():
    passages, cache = _passages(), _Cache()
    first = _Embedder()
    rows = row_vectors(passages, [0, 1], first, cache)
    assert len(first.embedded) == 4 and rows.vectors.shape == (4, 3)
    assert {m for _, m in cache.store} == {"toy" + ROW_MODEL_SUFFIX}
    again = _Embedder()  # a restart: nothing is embedded again
    reopened = row_vectors(passages, [0, 1], again, cache)
    assert again.embedded == [] and np.array_equal(reopened.vectors, rows.vectors)
    held, best = rows.best(first.embed_query("which code is quota used up?"))
    assert held.tolist() == [0, 1]
    assert best[0] > best[1]  # the Q-7 row is passage 0's best row


def test_with_rows_is_the_exact_top_k_of_max_own_weight_best():
    rng = np.random.default_rng(1)
    own_all = rng.uniform(-0.2, 0.8, 50)
    rows = np.array([3, 17, 40])
    best = np.array([1.0, 0.1, 0.95])
    k = 5
    plain = sorted(enumerate(own_all.tolist()), key=lambda rs: (-rs[1], rs[0]))[:k]
    got = with_rows(plain, own_all[rows], rows, best, 0.9, k)
    combined = own_all.copy()
    combined[rows] = np.maximum(combined[rows], 0.9 * best)
    want = sorted(enumerate(combined.tolist()), key=lambda rs: (-rs[1], rs[0]))[:k]
    assert got == want
    assert got[0][0] == 3 and (40 in dict(got))
    # Weight 0 leaves every score as it was.
    assert with_rows(plain, own_all[rows], rows, best, 0.0, k) == plain


def test_no_rows_means_no_change():
    empty = RowVectors(np.zeros((0, 3), dtype=np.float32), np.zeros(0, dtype=np.int64))
    assert empty.empty
