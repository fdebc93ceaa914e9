from dataclasses import replace

import numpy as np
import pytest

from ragcore.retrieval.bm25 import BM25Index, BM25Params, heading_texts, top_k
from ragcore.retrieval.document_names import names_document
from ragcore.text import identifiers, search_terms, tokenize

FILLER = [f"Unrelated note number {i} about lunch menus and parking." for i in range(8)]


def _index(texts, headings=None, **kw):
    """An index over ``texts`` followed by filler passages, so idf is
    positive for words in a few passages (as in any real corpus)."""
    texts = list(texts) + FILLER
    if headings is not None:
        headings = list(headings) + [""] * len(FILLER)
    return BM25Index.from_texts(texts, headings, BM25Params(**kw))


def test_stemming_meets_inflections():
    idx = _index(["The office is cleaned daily.", "Invoices are paid monthly."])
    assert idx.search("when do they clean")[0][0] == 0
    plain = _index(["The office is cleaned daily.", "Invoices are paid monthly."], stemming=False)
    assert plain.search("when do they clean") == []


def test_money_and_percent_are_whole_tokens():
    assert "$999" in tokenize("It costs $999/month")
    assert "99.99%" in tokenize("a 99.99% uptime")
    idx = _index(["Price: $999 per month", "Price: $1,199 per month"], heading_weight=0, adjacency_weight=0)
    assert idx.search("$1,199")[0][0] == 1


def test_heading_bonus_lifts_passage_under_matching_heading():
    texts = ["Enterprise customers get a named contact.", "Enterprise customers get a named contact."]
    headings = ["Support", "Pricing > Enterprise"]
    without = _index(texts, headings, heading_weight=0.0, adjacency_weight=0.0).scores(
        tokenize("enterprise pricing")
    )
    with_bonus = _index(texts, headings, heading_weight=0.5, adjacency_weight=0.0).scores(
        tokenize("enterprise pricing")
    )
    assert without[0] == without[1] > 0
    assert with_bonus[1] > with_bonus[0]


def test_adjacency_bonus_prefers_the_phrase():
    texts = ["data retention policy applies", "retention rules for policy data"]
    q = tokenize("data retention")
    off = _index(texts, heading_weight=0, adjacency_weight=0).scores(q)
    on = _index(texts, heading_weight=0, adjacency_weight=1.0).scores(q)
    assert on[0] - on[1] > off[0] - off[1]
    # The bonus is exactly weight * mean idf of the pair for the passage with the phrase.
    idx = _index(texts, heading_weight=0, adjacency_weight=1.0)
    a, b = idx.vocab[q[0]], idx.vocab[q[1]]
    assert np.isclose(on[0] - off[0], (idx.idf[a] + idx.idf[b]) / 2)


def test_top_k_orders_and_breaks_ties_by_row():
    scores = np.array([0.0, 2.0, 5.0, 2.0, -1.0, 5.0])
    assert top_k(scores, 3) == [(2, 5.0), (5, 5.0), (1, 2.0)]
    assert top_k(scores, 10) == [(2, 5.0), (5, 5.0), (1, 2.0), (3, 2.0)]
    assert top_k(np.zeros(3), 5) == []


def test_empty_index_and_unknown_words():
    assert BM25Index.from_texts([]).search("anything") == []
    idx = _index(["alpha beta"])
    assert idx.search("gamma") == []


def test_default_finds_a_word_in_half_the_passages():
    # rank_bm25's idf is exactly 0 here; the default floors it so an upload of
    # two sections is still searchable.
    idx = BM25Index.from_texts(["refund window is thirty days", "uptime commitment"])
    assert idx.search("refund")[0][0] == 0
    assert (
        BM25Index.from_texts(["refund window", "uptime"], params=BM25Params().plain()).search("refund") == []
    )


# ------------------------------------------------------------ identifiers

CODES = [
    ("zq3x4w", ["zq3x5w", "zq4x4w", "zq3x4v"]),
    ("ISO-27001", ["ISO-27002", "ISO 9001", "27001 staff"]),
    ("SOC 2", ["SOC 1", "SOC 3", "2 SOC auditors"]),
    ("v2.3.1", ["v2.3.0", "v2.4.1", "v3.3.1"]),
    ("ERR-4012", ["ERR-4013", "ERR-4102", "WARN-4012"]),
    ("$1,199", ["$1,099", "$199", "1,199 seats"]),
]


def test_identifiers_are_one_token_as_well_as_their_parts():
    assert identifiers("codes zq3x4w, ISO-27001, ISO 27001, SOC 2, v2.3.1 and ERR_4012.") == [
        "zq3x4w",
        "iso27001",
        "iso27001",
        "soc2",
        "v2.3.1",
        "err4012",
    ]
    terms = search_terms("Error ERR-4012 costs $1,199")
    assert {"err", "4012", "err4012", "$1199", "1199"} <= set(terms)
    # Plain words and numbers are not identifiers; a hyphenated word is not one either.
    assert identifiers("boundary-layer flow at 1,299.00 and 99.99% uptime") == []


@pytest.mark.parametrize(("code", "siblings"), CODES)
def test_a_code_in_the_query_ranks_its_passage_first(code, siblings):
    # Each sibling shares fragments (and the surrounding words) with the code,
    # and the siblings' passages carry more of the question's other words.
    texts = [f"Reference {s}: the reference entry for this item, see the reference list." for s in siblings]
    texts.append(f"Entry {code} is listed here.")
    idx = _index(texts)
    for query in (code, f"what does the reference entry {code} say?"):
        assert idx.search(query)[0][0] == len(siblings), query


def test_code_written_differently_still_meets():
    idx = _index(["We hold ISO-27001 certification.", "We hold ISO 9001 certification."])
    assert idx.search("iso27001")[0][0] == 0
    assert idx.search("ISO 27001")[0][0] == 0
    idx = _index(["The Pro plan is $1,199 a year.", "The Team plan is $1,099 a year."])
    assert idx.search("1199")[0][0] == 0


def test_heading_field_carries_the_document_name():
    from ragcore.records import Passage

    def passage(doc: str, label: str) -> Passage:
        return Passage(doc, 0, 1, 1, 0, 10, label, "Monthly uptime is 99.9% for every plan.")

    passages = [
        passage("sla.md", "Commitments"),
        passage("faq.md", "Commitments"),
        passage("1033", "A title"),
    ]
    assert heading_texts(passages) == ["sla Commitments", "faq Commitments", "A title"]
    assert heading_texts(passages, BM25Params(name_in_heading=False))[0] == "Commitments"
    index = BM25Index.from_passages(passages + [passage(f"note-{i}.md", "x") for i in range(6)])
    assert index.search("what uptime does the SLA promise")[0][0] == 0


# ------------------------------------------------------------ table headers


def _table_passages():
    from ragcore.records import Passage

    head = "## Error codes\n\n| Code | Meaning |\n| --- | --- |\n| Q-1 | The request body is empty |\n"
    rows = "| Q-7 | The monthly quota is used up |\n| Q-8 | The service is down |\n"
    other = "The monthly quota of envelopes resets on the first day, unlike the code of conduct."
    passages = [
        Passage("errors.md", 0, 1, 5, 0, len(head), "Error codes", head),
        Passage("errors.md", 1, 6, 7, len(head), len(head) + len(rows), "Error codes", rows),
        Passage("usage-notes.md", 0, 1, 1, 0, len(other), "Quota", other),
    ]
    filler = [Passage(f"f{i}.md", 0, 1, 1, 0, len(t), "Notes", t) for i, t in enumerate(FILLER)]
    return passages + filler


def test_a_table_continuation_is_indexed_with_the_table_header():
    from ragcore.retrieval.bm25 import index_texts

    passages = _table_passages()
    texts = list(index_texts(passages))
    assert texts[1].startswith("Code | Meaning\n") and texts[1].endswith(passages[1].text)
    assert texts[0] == passages[0].text and texts[2] == passages[2].text
    assert list(index_texts(passages, BM25Params(table_headers=False))) == [p.text for p in passages]
    # "code" is only in the header: the row answering the question ranks first
    # with it, and below the passage that names the header's words without it.
    question = "Which code means the monthly quota is used up?"
    # (Table rows scored on their own and the answer-type lift are off here:
    # they lift the row too, test_bm25_rows and test_answer_code_lift.)
    alone = BM25Params(table_row_weight=0.0, answer_code_lift=0.0)
    assert BM25Index.from_passages(passages, alone).search(question)[0][0] == 1
    off = BM25Index.from_passages(passages, replace(alone, table_headers=False)).search(question)
    assert off[0][0] == 2


# ------------------------------------------------------------ named documents


def _named_passages():
    from ragcore.records import Passage

    texts = {
        ("sla.md", "Uptime commitment"): "Monthly uptime is 99.9% for every plan.",
        (
            "master-services-agreement.pdf",
            "Termination",
        ): "Either party may end the agreement after repeated misses.",
        ("faq.md", "Questions"): "Does the SLA guarantee uptime? Ask support.",
        ("faq.md", "Ending"): "You may terminate after repeated misses of the MSA terms.",
    }
    out = [Passage(doc, i, 1, 1, 0, len(t), label, t) for i, ((doc, label), t) in enumerate(texts.items())]
    return out + [Passage(f"note-{i}.md", 0, 1, 1, 0, len(t), "Notes", t) for i, t in enumerate(FILLER)]


@pytest.mark.parametrize(
    ("question", "named_doc"),
    [
        ("What uptime does the SLA guarantee?", "sla.md"),  # the document's whole name
        (
            "Which MSA clause lets us terminate after repeated misses?",
            "master-services-agreement.pdf",
        ),  # initials
    ],
)
def test_a_question_naming_a_document_ranks_that_documents_passage_first(question, named_doc):
    passages = _named_passages()
    on = BM25Index.from_passages(passages)
    off = BM25Index.from_passages(passages, BM25Params(named_document_boost=0.0))
    # Without the boost the FAQ, which repeats the question's words, wins.
    assert passages[off.search(question)[0][0]].doc == "faq.md"
    assert passages[on.search(question)[0][0]].doc == named_doc
    # The scores of the named document's passages are multiplied by 1 + boost, no others.
    tokens = on.query_tokens(question)
    ratio = on.scores(tokens) / np.where(off.scores(tokens) > 0, off.scores(tokens), 1)
    for row, p in enumerate(passages):
        expected = 1 + BM25Params().named_document_boost if p.doc == named_doc else 1.0
        assert ratio[row] == pytest.approx(expected) or off.scores(tokens)[row] == 0


def test_a_document_is_named_only_by_all_of_its_name_or_its_initials():
    from ragcore.records import Passage

    passages = [
        Passage("data-processing-addendum.pdf", 0, 1, 1, 0, 10, "Refunds", "Refunds take ten days."),
        Passage("1033", 0, 1, 1, 0, 10, "A title", "Refunds take ten days."),
    ] + [Passage(f"note-{i}.md", 0, 1, 1, 0, len(t), "Notes", t) for i, t in enumerate(FILLER)]
    index = BM25Index.from_passages(passages)

    def named(question: str) -> list[int]:
        return index.named_rows(index.term_ids(index.query_tokens(question))).tolist()

    assert named("What does the processing addendum say?") == []  # "data" is missing
    assert named("What does the data processing addendum say about refunds?") == [0]
    assert named("What does the DPA say about refunds?") == [0]
    assert named("What does 1033 say?") == []  # a numbered record has no name
    # The index's matrix applies the one shared rule (other backends call it directly).
    params = BM25Params()
    for question in ["What does the DPA say?", "the processing addendum", "data processing addendum", "1033"]:
        terms = set(params.terms(question))
        expected = [row for row, p in enumerate(passages) if names_document(terms, p.doc, params)]
        assert named(question) == expected, question
    assert BM25Index.from_texts(["a text"]).named_rows(np.asarray([0])).size == 0


def test_a_document_is_named_by_its_spelled_out_abbreviation():
    from ragcore.records import Passage

    texts = [
        ("rfp-response.md", "References", "Reference customers: three banks and a school."),
        ("rfp-response.md", "Title", "Response to RFP NHP-2026-014 for Northgate."),
        ("sla.md", "Commitment", "Monthly uptime is 99.9% for every plan."),
        ("faq.md", "Questions", "Our service is fast, our service is safe."),
    ]
    passages = [Passage(doc, i, 1, 1, 0, len(t), label, t) for i, (doc, label, t) in enumerate(texts)]
    passages += [Passage(f"note-{i}.md", 0, 1, 1, 0, len(t), "Notes", t) for i, t in enumerate(FILLER)]
    # The answer-type lift is off in both: it lifts the RFP's code too (test_answer_code_lift).
    on = BM25Index.from_passages(passages, BM25Params(name_initials_in_queries=True, answer_code_lift=0.0))
    off = BM25Index.from_passages(passages, BM25Params(answer_code_lift=0.0))  # initials: the shipped off
    question = "What is the reference number of the Northgate request for proposal?"
    assert "rfp" in on.query_tokens(question) and "rfp" not in off.query_tokens(question)
    assert on.search(question)[0][0] == 1 and off.search(question)[0][0] == 0
    # "service level agreement" names sla.md, whose whole name is "sla".
    uptime = "What uptime does the service level agreement set?"
    assert passages[on.search(uptime)[0][0]].doc == "sla.md"
    assert passages[off.search(uptime)[0][0]].doc == "faq.md"
    # Initials that are no document's name word are not searched.
    assert "tsl" not in on.query_tokens(uptime) and "lag" not in on.query_tokens("level agreement goes")
