import numpy as np

from ragcore.records import Passage
from ragcore.retrieval.bm25 import BM25Index, BM25Params, top_k
from ragcore.retrieval.bm25_rows import table_rows

FILLER = [f"Unrelated note number {i} about lunch menus and parking." for i in range(8)]


def test_table_rows_pair_each_body_row_with_its_header():
    text = "Intro line.\n\n| Code | Meaning |\n| --- | :-: |\n| Q-1 | Empty body |\n| Q-7 | Quota used up |\n\nAfter."
    assert table_rows(text) == ["Code | Meaning | Q-1 | Empty body", "Code | Meaning | Q-7 | Quota used up"]
    # A table continued from the passage before: its header comes from there.
    assert table_rows("| Q-8 | Down |\n", "Code | Meaning") == ["Code | Meaning | Q-8 | Down"]
    assert table_rows("| Q-8 | Down |\n") == ["Q-8 | Down"]
    assert table_rows("No table here, only a | pipe inside.") == []


def _passages() -> list[Passage]:
    rows = "\n".join(
        f"| Q-{i} | The {w} request failed |" for i, w in enumerate(["first", "second", "third"])
    )
    table = (
        "## Error codes\n\n| Code | Meaning |\n| --- | --- |\n"
        + rows
        + "\n| Q-9 | The monthly quota is used up |\n"
        + "\n".join(f"| Q-{i} | An upload of a scanned file of type {i} was refused |" for i in range(10, 16))
        + "\n"
    )
    prose = (
        "Quota: the monthly quota of envelopes is used up quickly by large teams, "
        "and the monthly statement lists it."
    )
    docs = [("errors.md", "Error codes", table), ("usage-notes.md", "Quota", prose)]
    docs += [(f"note-{i}.md", "Notes", t) for i, t in enumerate(FILLER)]
    return [Passage(doc, 0, 1, 1, 0, len(t), label, t) for doc, label, t in docs]


def test_a_row_answering_the_question_lifts_its_table_passage():
    passages = _passages()
    question = "Which code says the monthly quota is used up?"
    # The answer-type lift is off in both: it would lift the table's code rows too (test_answer_code_lift).
    off = BM25Index.from_passages(passages, BM25Params(table_row_weight=0.0, answer_code_lift=0.0))
    on = BM25Index.from_passages(passages, BM25Params(answer_code_lift=0.0))
    assert BM25Params().table_row_weight > 0
    assert off.search(question)[0][0] == 1  # the prose repeats more of the words
    assert on.search(question)[0][0] == 0
    # Rows add no document frequency: idf and the passages without a table are unchanged.
    assert np.array_equal(on.idf, off.idf)
    tokens = on.query_tokens(question)
    assert on.scores(tokens)[1:].tolist() == off.scores(tokens)[1:].tolist()
    # The scratch-array search (bm25_topk) is bypassed when a row holds a query term: same as scoring all.
    assert on.search(question, 3) == top_k(on.scores(tokens), 3)


def test_plain_bm25_has_no_table_rows():
    index = BM25Index.from_passages(_passages(), BM25Params().plain())
    assert index.row_owner.size == 0
    assert BM25Index.from_passages(_passages()).row_owner.size == 10
