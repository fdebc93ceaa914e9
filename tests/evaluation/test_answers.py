"""Answer metrics: the normalisation rule, fact matching, abstention, citation
support, duplicates and the aggregates of ``eval --answers``."""

from __future__ import annotations

import json

import pytest

from ragcore.errors import GoldSetError
from ragcore.evaluation.answer_key import AnswerKey
from ragcore.evaluation.answers import (
    aggregate,
    answers_block,
    normalise,
    score_answer,
    stated_alternative,
    strip_citations,
    supported,
)
from ragcore.evaluation.goldset import load_goldset
from ragcore.records import Answer, AnswerSentence, Citation

from .helpers import make_doc

DOC = make_doc(
    "sla.md",
    [
        "# Uptime",
        "We commit to 99.99% monthly uptime on **Enterprise**.",
        "| Uptime | Credit |",
        "|---|---|",
        "| Below 99.9% | 10% of the monthly fee |",
        "Credits are capped at $1,199 a month.",
    ],
)
DOCS = {DOC.name: DOC}


def answer(sentences: list[AnswerSentence], citations: list[Citation], covered: bool = True) -> Answer:
    text = "\n".join(f"{s.text} {''.join(f'[{n}]' for n in s.citations)}".strip() for s in sentences)
    return Answer("extractive", "h", text, "r", citations, sentences, covered=covered)


def cite(n: int, first: int, last: int) -> Citation:
    return Citation(n, "sla.md", first, last, "Uptime")


# ------------------------------------------------------------ normalisation


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  The   Fee\tIS ", "the fee is"),
        ("$1,199 and 1,000,000", "$1199 and 1000000"),
        ("a, 1 b,2", "a, 1 b,2"),  # a comma not between two digits stays
        ("“quoted” ‘single’ a–b c—d −5", "\"quoted\" 'single' a-b c-d -5"),
        ("**bold** _under_ `code`", "bold under code"),
        ("ﬁle ＡＢＣ", "file abc"),  # NFKC: ligature and full-width letters
        ("STRASSE Straße", "strasse strasse"),  # case-folded, not lower-cased
    ],
)
def test_normalise_follows_the_format_rule(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


def test_citation_marks_are_removed_before_matching() -> None:
    assert strip_citations("Credits are 10% [1][2] of the fee [3].") == "Credits are 10%  of the fee ."
    assert stated_alternative(["10% of the fee"], "Credits are 10%[1] of the fee") == "10% of the fee"
    assert stated_alternative(["10% of the fee"], "Credits are 10% of the [1] fee") == "10% of the fee"
    assert stated_alternative(["10% of the fee"], "Credits are 10% of the [1]") is None


def test_a_fact_is_stated_by_any_alternative() -> None:
    text = "The credit is 10 PERCENT of the monthly fee, capped at $1,199."
    assert stated_alternative(["10% of the monthly fee", "10 percent of the monthly fee"], text) == (
        "10 percent of the monthly fee"
    )
    assert stated_alternative(["$1199"], text) == "$1199"
    assert stated_alternative(["25%"], text) is None


# ------------------------------------------------------------ per question


def test_complete_answer_with_exact_citations() -> None:
    a = answer(
        [
            AnswerSentence("We commit to 99.99% monthly uptime on Enterprise.", (1,)),
            AnswerSentence("Below 99.9% -> 10% of the monthly fee", (2,), "table-row"),
        ],
        [cite(1, 2, 2), cite(2, 3, 5)],
    )
    key = AnswerKey(facts=(("99.99%",), ("10% of the monthly fee",)))
    s = score_answer("q1", "fact", "What uptime?", key, a, DOCS)
    assert s.fact_recall == 1.0 and s.complete and not s.abstained
    assert (s.cited_sentences, s.supported_sentences) == (2, 2)
    assert s.claims == 0 and s.duplicates == 0


def test_partial_answer_and_a_quote_the_lines_do_not_hold() -> None:
    a = answer(
        [AnswerSentence("We commit to 99.9% monthly uptime on Enterprise.", (1,))],
        [cite(1, 2, 2)],
    )
    key = AnswerKey(facts=(("99.9%",), ("10% of the monthly fee",)))
    s = score_answer("q1", "fact", "What uptime?", key, a, DOCS)
    assert s.fact_recall == 0.5 and s.complete is False
    assert s.supported_sentences == 0  # 99.9% is not what line 2 says


def test_written_sentences_are_judged_by_word_overlap() -> None:
    ok = AnswerSentence("Enterprise uptime commitment is 99.99% monthly.", (1,), "statement")
    off = AnswerSentence("Refunds are paid within thirty days by bank transfer.", (1,), "statement")
    cites = {1: cite(1, 2, 2)}
    assert supported(ok, cites, DOCS)
    assert not supported(off, cites, DOCS)


def test_abstention_duplicates_and_claims() -> None:
    declined = answer(
        [AnswerSentence("The documents do not cover this.", (), "not-covered")], [], covered=False
    )
    s = score_answer("u1", "unanswerable", "Cost in Japan?", AnswerKey(answerable=False), declined, DOCS)
    assert s.abstained and s.fact_recall is None and s.cited_sentences == 0
    # related passages shown beside a declined answer do not make it an answer
    related = answer(
        [
            AnswerSentence("The documents do not cover this.", (), "not-covered"),
            AnswerSentence("Credits are capped at $1,199 a month.", (1,), "related"),
        ],
        [cite(1, 6, 6)],
        covered=False,
    )
    assert score_answer("u1", "u", "q", AnswerKey(answerable=False), related, DOCS).abstained
    twice = answer(
        [
            AnswerSentence("Credits are capped at $1,199 a month.", (1,)),
            AnswerSentence("Credits are capped at $1,199 a month …", (2,)),
            AnswerSentence(
                'These contradict each other: a says "99.99%", while b says "99.9%"', (1, 2), "contradiction"
            ),
        ],
        [cite(1, 6, 6), cite(2, 6, 6)],
    )
    s = score_answer("q2", "fact", "Cap?", AnswerKey(facts=(("$1199",),)), twice, DOCS)
    assert s.duplicates == 1 and s.claims == 1 and s.disagreement_stated and not s.abstained


def test_aggregates_and_json_keys() -> None:
    good = answer(
        [AnswerSentence("We commit to 99.99% monthly uptime on Enterprise.", (1,))], [cite(1, 2, 2)]
    )
    declined = answer([AnswerSentence("Not covered.", (), "not-covered")], [], covered=False)
    scored = [
        score_answer("a", "fact", "q", AnswerKey(facts=(("99.99%",),)), good, DOCS),
        score_answer("b", "fact", "q", AnswerKey(facts=(("10%",),)), declined, DOCS),
        score_answer("c", "unanswerable", "q", AnswerKey(answerable=False), declined, DOCS),
        score_answer("d", "conflict", "q", AnswerKey(facts=(("99.99%",),), conflict=True), good, DOCS),
    ]
    block = answers_block(scored, resamples=200)
    for key in ("fact_recall", "complete", "abstention", "wrongly_declined", "citation_support", "words"):
        assert set(block[key]) >= {"mean", "ci_low", "ci_high", "n"}
    assert block["fact_recall"]["mean"] == pytest.approx(2 / 3) and block["fact_recall"]["n"] == 3
    assert block["complete"]["mean"] == pytest.approx(2 / 3)
    assert block["complete"]["ci_low"] < block["complete"]["mean"] < block["complete"]["ci_high"]
    assert block["abstention"]["mean"] == 1.0 and block["abstention"]["n"] == 1
    assert block["wrongly_declined"]["mean"] == pytest.approx(1 / 3)
    assert block["contradictions_found"]["mean"] == 0.0 and block["contradictions_found"]["n"] == 1
    assert block["false_contradictions"] == 0 and block["duplicate_sentences"] == 0
    assert block["words"]["median"] == pytest.approx(5.0)  # words 8, 2, 2, 8
    assert set(block["by_type"]) == {"fact", "unanswerable", "conflict"}
    assert [q["id"] for q in block["per_question"]] == ["a", "b", "c", "d"]
    assert block["per_question"][0]["facts_stated"] == ["99.99%"]
    assert block["per_question"][1]["facts_stated"] == [None]
    json.dumps(block)  # plain JSON throughout
    assert aggregate([])["fact_recall"] == {"mean": None, "ci_low": None, "ci_high": None, "n": 0}


# ------------------------------------------------------------ gold-set parsing


def write_gold(tmp_path, questions) -> object:
    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "docs" / "a.md").write_text("# A\nThe fee is 10%.\n", encoding="utf-8")
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"name": "g", "corpus": "docs", "questions": questions}), encoding="utf-8")
    return path


def test_answer_facts_parse(tmp_path) -> None:
    path = write_gold(
        tmp_path,
        [
            {
                "id": "q1",
                "text": "What fee?",
                "judgements": [{"doc": "a.md", "quote": "10%", "grade": 2, "part": 1}],
                "answer": {"facts": ["10%", ["ten percent", "10 percent"]], "conflict": True},
            },
            {"id": "u1", "text": "Cost in Japan?", "judgements": [], "answer": {"answerable": False}},
            {"id": "q2", "text": "No key", "judgements": []},
        ],
    )
    gold = load_goldset(path)
    q1, u1, q2 = gold.questions
    assert q1.answer == AnswerKey(facts=(("10%",), ("ten percent", "10 percent")), conflict=True)
    assert q1.judgements[0].part == 1
    assert u1.answer == AnswerKey(answerable=False)
    assert q2.answer is None


@pytest.mark.parametrize(
    ("answer_value", "message"),
    [
        ({"facts": []}, "give the 'facts'"),
        ({"facts": [""]}, "fact 1 must be"),
        ({"facts": [["a", 3]]}, "fact 1 must be"),
        ({"answerable": False, "facts": ["x"]}, "has no facts"),
        ({"answerable": "no"}, "true or false"),
        ({"fact": ["x"]}, "unknown key"),
        (["x"], "must be a JSON object"),
    ],
)
def test_bad_answer_keys_are_named(tmp_path, answer_value, message) -> None:
    path = write_gold(tmp_path, [{"id": "q1", "text": "t", "judgements": [], "answer": answer_value}])
    with pytest.raises(GoldSetError, match=message) as info:
        load_goldset(path)
    assert "question q1" in str(info.value)


def test_bad_part_is_named(tmp_path) -> None:
    judgement = {"doc": "a.md", "grade": 2, "part": 0}
    path = write_gold(tmp_path, [{"id": "q1", "text": "t", "judgements": [judgement]}])
    with pytest.raises(GoldSetError, match="'part' must be"):
        load_goldset(path)


def test_a_quote_ending_where_a_pdf_lost_a_space_is_supported() -> None:
    pdf = make_doc(
        "filing.pdf", ["Risks could affect the trading price of our common stock.Further, we are", "bound."]
    )
    docs = {"filing.pdf": pdf}
    cites = {1: Citation(1, "filing.pdf", 1, 1, "")}
    assert supported(
        AnswerSentence("Risks could affect the trading price of our common stock.", (1,)), cites, docs
    )
    assert supported(AnswerSentence("Further, we are", (1,)), cites, docs)
    # numbers keep their decimal point and per cent sign: 1.5% is not "1" and "5%"
    rate = make_doc("rate.md", ["A late fee of 1.5% per month applies."])
    rate_cite = {1: Citation(1, "rate.md", 1, 1, "")}
    assert not supported(
        AnswerSentence("A late fee of 5% per month applies.", (1,)), rate_cite, {"rate.md": rate}
    )
