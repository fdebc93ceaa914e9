"""The answer-type lift (``BM25Params.answer_code_lift``): a question asking
for a code it does not hold ranks the passage whose sentence or table row
holding a code covers the question's subject above passages that share more
of its words but hold no code, or hold one beside other words. Questions and
texts of firmware notes, tickets and advisories, none from the demo corpus."""

import pytest

from ragcore.records import Passage
from ragcore.retrieval.bm25 import BM25Index, BM25Params
from ragcore.retrieval.bm25_answer_type import code_units
from ragcore.text import asks_for_identifier, identifier_answer_words, identifiers, is_code_token

FILLER = [("canteen.md", "Rota", f"Weekly note {i} on the canteen rota and the car park.") for i in range(12)]


def _passages(docs: list[tuple[str, str, str]]) -> list[Passage]:
    return [Passage(doc, i, 1, 1, 0, len(t), label, t) for i, (doc, label, t) in enumerate(docs)]


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("Which firmware version fixes the Wi-Fi drop after sleep?", ["version"]),
        ("What is the serial number of the replacement printer?", ["serial", "number"]),
        ("In which build was the export crash fixed?", ["build"]),
        ("What ticket tracks the login outage, and who owns it?", ["ticket"]),
        ("When was the outage, and which advisory describes it?", ["advisory"]),
        ("What is the minimum number of seats on the plan?", []),
        ("How many seats does the plan include?", []),
        ("What is the boiling point of the coolant?", []),
        ("Find papers which describe the code of practice for wind tunnels", []),
        ("What Reynolds number separates laminar flow from turbulent flow?", ["reynolds", "number"]),
    ],
)
def test_which_questions_ask_for_an_identifier(question, words):
    assert identifier_answer_words(question) == words
    assert asks_for_identifier(question) == bool(words)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("Which clause of the lease covers subletting?", ["clause"]),
        ("Under which exhibit is the loan agreement filed?", ["exhibit"]),
        ("What hashing algorithm protects the stored tokens?", ["algorithm"]),
        ("Which firmware version fixes the fan noise?", ["version"]),
        ("How many clauses does the lease have?", []),
    ],
)
def test_extended_nouns_read_document_parts_and_technical_names(question, words):
    # Off by cross-validation (docs/decisions.md, "Answer-type lift"): the
    # default "core" nouns leave these parts and names alone.
    assert identifier_answer_words(question, "extended") == words
    assert identifier_answer_words(question) == [w for w in words if w == "version"]


def test_code_tokens_hold_a_letter_and_a_digit():
    found = {
        t: is_code_token(t) for t in identifiers("KB5034441 v10.4.2 TLS 1.3 2025-11-18 1960s 24/7 PAY-1182")
    }
    assert found == {
        "kb5034441": True,
        "v10.4.2": True,
        "tls1.3": True,
        "20251118": False,
        "1960s": False,
        "247": False,
        "pay1182": True,
    }


def test_code_units_are_sentences_and_table_rows_holding_a_code():
    text = (
        "Firmware notes. Version F-212 fixes the fan noise.\n\n"
        "| Build | Fix |\n| --- | --- |\n| B-77 | export crash |\n| B-78 | login loop |"
    )
    assert code_units(text) == [
        "Version F-212 fixes the fan noise.\n\n",
        "| B-77 | export crash |",
        "| B-78 | login loop |",
    ]


QUESTION = "Which firmware version fixes the wifi drop after sleep on the office router?"
DOCS = [
    # Every subject word, twice, and no code: wins without the lift.
    (
        "router-faq.md",
        "Office router",
        "The office router wifi drop after sleep is known. Firmware fixes for the wifi drop after sleep "
        "on the office router are planned; the office router firmware team tracks the wifi drop.",
    ),
    # The answer: a code in the sentence that states the subject.
    (
        "router-firmware.md",
        "Releases",
        "Firmware R7.4.1 fixes the wifi drop after sleep. It also updates the admin console, the guest "
        "portal, the parental controls, the VPN client and the status lights, and it changes the default "
        "channel plan for crowded buildings.",
    ),
    # A code in a footer, beside no word of the question.
    (
        "router-manual.md",
        "Office router",
        "Office router wifi setup and sleep settings for the office router firmware.\nManual M-2024-3 page 4",
    ),
    *FILLER,
]


def _index(**params) -> BM25Index:
    return BM25Index.from_passages(_passages(DOCS), BM25Params(**params))


def test_the_code_beside_the_subject_ranks_first():
    ranked = [row for row, _ in _index().search(QUESTION)]
    assert ranked[0] == 1
    assert ranked.index(1) < ranked.index(2)
    # Off, the passage holding more of the question's words wins.
    assert _index(answer_code_lift=0.0).search(QUESTION)[0][0] == 0


def test_a_question_asking_for_no_code_ranks_as_with_the_lift_off():
    on, off = _index(), _index(answer_code_lift=0.0)
    for question in (
        "Does the firmware fix the wifi drop after sleep?",
        "How many routers are in the office?",
    ):
        assert on.search(question) == off.search(question)


def test_a_question_holding_a_code_is_ranked_by_identifier_priority_alone():
    question = "Which firmware version replaced R7.4.1 on the office router?"
    assert _index().priority_identifiers(question) == ["r7.4.1"]
    assert _index(answer_code_lift=5.0).search(question) == _index(answer_code_lift=0.0).search(question)


def test_plain_bm25_has_no_lift():
    assert BM25Params().plain().answer_code_lift == 0.0
    plain = BM25Index.from_passages(_passages(DOCS), BM25Params().plain())
    assert plain.code_owner.size == 0


def test_extended_nouns_move_only_questions_their_nouns_ask():
    question = "Which firmware build step fixes the wifi drop after sleep on the office router?"
    cued = "Which firmware rule fixes the wifi drop after sleep on the office router?"
    core, extended = _index(), _index(answer_type_nouns="extended")
    assert not core.asks_for_code(cued) and extended.asks_for_code(cued)
    assert core.search(cued) == _index(answer_code_lift=0.0).search(cued)
    assert extended.search(cued)[0][0] == 1
    # A question the core nouns already read ranks the same under both.
    assert core.search(question) == extended.search(question)
