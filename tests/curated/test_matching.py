"""The match rule on both sides of the threshold, with a fake embedder of fixed vectors."""

from __future__ import annotations

import numpy as np

from ragcore.curated import CuratedLayer, PinnedAnswer, curated_answer, match_question
from ragcore.curated.layer import Anchor
from ragcore.curated.matching import key_terms, terms_agree


class FixedEmbedder:
    """Unit vectors set per text; anything else is orthogonal to all of them."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = {t: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for t, v in vectors.items()}

    def embed_query(self, text: str) -> np.ndarray:
        return self.vectors.get(text, np.asarray([0.0, 0.0, 1.0], dtype=np.float32))


PINNED = PinnedAnswer(
    "refund", "Can I get a refund?", "Yes, within 30 days.", (Anchor("terms.md", 3, 4, "Refunds are"),)
)
LAYER = CuratedLayer("t", answers=[PINNED])


def test_matches_at_or_above_the_threshold_only() -> None:
    # cos(angle) between [1, 0] and [1, x] is 1 / sqrt(1 + x^2).
    embedder = FixedEmbedder(
        {"Can I get a refund?": [1, 0, 0], "Money back?": [1, 0.5, 0], "Refund policy?": [1, 1.2, 0]}
    )
    above = match_question("Money back?", LAYER, embedder, threshold=0.85, rule="dense")
    assert above is not None and abs(above.similarity - 1 / np.sqrt(1.25)) < 1e-6
    assert match_question("Refund policy?", LAYER, embedder, threshold=0.85, rule="dense") is None
    assert match_question("Unrelated?", LAYER, embedder, threshold=0.1, rule="dense") is None
    assert match_question("   ", LAYER, embedder) is None


def test_key_terms_that_differ_block_a_match() -> None:
    embedder = FixedEmbedder(
        {"Can I get a refund?": [1, 0, 0], "Can I get a refund after 90 days?": [1, 0, 0]}
    )
    assert match_question("Can I get a refund after 90 days?", LAYER, embedder, 0.5, "dense") is not None
    assert match_question("Can I get a refund after 90 days?", LAYER, embedder, 0.5, "dense+terms") is None


def test_key_terms_are_numbers_and_inner_capitalised_words() -> None:
    assert key_terms("Who approves discounts above 20% on the Team plan?") == {"20", "team"}
    assert key_terms("What uptime does the SLA promise?") == {"sla"}
    sev = PinnedAnswer("s", "How fast is a Severity 1 reply?", "Within 1 hour.", ())
    assert terms_agree("What is the reply time for Sev 1?", sev)
    assert not terms_agree("What is the reply time for Sev 2?", sev)


def test_curated_answer_is_labelled_and_cites_lines() -> None:
    embedder = FixedEmbedder({"Can I get a refund?": [1, 0, 0]})
    answer = curated_answer(match_question("Can I get a refund?", LAYER, embedder))
    assert answer.mode == "curated" and "Curated" in answer.header
    assert answer.text.endswith("[1]")
    assert [(c.doc, c.first_line, c.last_line) for c in answer.citations] == [("terms.md", 3, 4)]
    assert answer.to_json()["mode"] == "curated"
