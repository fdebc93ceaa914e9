"""Rules that decide whether (a part of) a question is answered: names the
collection never mentions, topic words without function words, numbers
inside a stated range, and a part answered by another part's quote."""

from __future__ import annotations

from ragcore.answer.answerability import names, unknown_names
from ragcore.answer.extractive import NOT_COVERED, extractive_answer, is_covered
from ragcore.answer.relevance import Scorer, make_part, topic_words
from ragcore.answer.units import answer_units
from tests.answer.helpers import line_corpus

PRICES = (
    "The Enterprise plan costs $3,000 per month in Europe and the United States.\n"
    "\n"
    "The Team plan costs $299 per month.\n"
    "\n"
    "Integrations connect the workspace to HubSpot and to Slack.\n"
)
DISCOUNTS = (
    "| Discount | Who approves |\n"
    "| --- | --- |\n"
    "| Up to 10% | Account executive |\n"
    "| Above 10% and up to 30% | Sales director |\n"
    "| Above 30% | Chief financial officer |\n"
)


def test_names_are_capitalised_words_after_the_first() -> None:
    assert names("What does the Enterprise plan cost in Japan?") == ["Enterprise", "Japan"]
    assert names("Is there a Salesforce integration?") == ["Salesforce"]
    assert names("How long are reports kept?") == []
    # the pronoun is no name, nor are its contractions
    assert names("Can I get my money back if I'm unhappy, as I’ve asked Ivan?") == ["Ivan"]


def test_a_name_no_document_mentions_is_unknown_whatever_its_case() -> None:
    texts = ["We sync invoices to Quickbooks.", "The Enterprise plan is sold in Europe."]
    assert unknown_names("Can invoices go to QuickBooks or Xero?", texts) == ["Xero"]
    assert unknown_names("Is the Enterprise plan sold in Europe?", texts) == []


def test_an_acronym_is_mentioned_by_the_words_it_stands_for() -> None:
    texts = ["Credits follow the Service Level Agreement.", "The Data Processing Addendum applies."]
    assert unknown_names("What does the SLA say about credits?", texts) == []
    assert unknown_names("Does the DPA cover backups?", texts) == []
    assert unknown_names("Is there an SLA for the API?", texts) == ["API"]


def test_a_question_about_a_name_the_collection_lacks_is_declined_and_says_so() -> None:
    documents, hits = line_corpus({"prices.md": PRICES})
    question = "What does the Enterprise plan cost in Japan?"
    answer = extractive_answer(question, hits, documents=documents)
    assert not answer.covered
    assert answer.sentences[0].text == NOT_COVERED
    assert any("mentions Japan" in s.text for s in answer.sentences if s.kind == "not-covered")
    assert not any(s.kind == "quote" for s in answer.sentences)
    assert not is_covered(question, hits, documents)
    # the same question about a place the documents name is answered
    answer = extractive_answer("What does the Enterprise plan cost in Europe?", hits, documents=documents)
    assert answer.covered and "$3,000 per month" in answer.text


def test_without_the_name_check_the_same_question_is_answered_by_its_other_words() -> None:
    documents, hits = line_corpus({"prices.md": PRICES})
    answer = extractive_answer(
        "What does the Enterprise plan cost in Japan?", hits, documents=documents, check_names=False
    )
    assert answer.covered  # which is why the check exists


def test_topic_words_leave_out_function_and_question_words() -> None:
    assert topic_words("What penalty applies if we're slow to settle up?") == frozenset(
        {"penalti", "slow", "settl"}
    )
    assert topic_words("Who has to sign off a 25% discount?") == frozenset({"sign", "25%", "discount"})


def test_a_number_inside_a_rows_range_counts_as_stated() -> None:
    documents, hits = line_corpus({"discounts.md": DISCOUNTS})
    units = answer_units(hits, documents)
    scorer = Scorer(units)
    part = make_part("Who approves a 25% discount?")
    by_text = {u.text.split(";")[0]: scorer.coverage(u, part) for u in units}
    assert by_text["Discount: Above 10% and up to 30%"] == 1.0
    assert by_text["Discount: Above 30%"] < 1.0 and by_text["Discount: Up to 10%"] < 1.0
    answer = extractive_answer("Who approves a 25% discount?", hits, documents=documents)
    assert "Discount: Above 10% and up to 30%; Who approves: Sales director" in answer.text


def test_a_part_answered_by_another_parts_quote_is_not_said_to_be_missing() -> None:
    documents, hits = line_corpus({"prices.md": PRICES})
    answer = extractive_answer("What does the Team plan cost, and how much is it?", hits, documents=documents)
    assert "$299 per month" in answer.text
    assert not any(s.kind == "not-covered" for s in answer.sentences)


def test_a_rows_table_subject_is_its_heading_and_document_name() -> None:
    # the rows say "Reduction", the question says "discount": the document's name carries it
    docs = {
        "discount-approval-matrix.md": (
            "# Approval levels\n\n"
            "| Reduction | Who approves |\n| --- | --- |\n"
            "| Up to 10% | Account executive |\n| Above 10% and up to 30% | Sales director |\n"
        ),
        "reseller-terms.md": "Resellers buy at a margin of 25% below list price.\n",
        "deal-desk.md": "Every discount is signed off in the deal desk tool before the quote is sent.\n",
    }
    documents, hits = line_corpus(docs)
    answer = extractive_answer("Who signs off a 25% discount?", hits, documents=documents)
    assert answer.sentences[0].kind == "table-row"  # the table answers first, not the sentence sharing words
    assert "Reduction: Above 10% and up to 30%; Who approves: Sales director" in answer.text


def test_a_sentence_that_leans_on_a_chosen_one_comes_with_it() -> None:
    from ragcore.answer.cohesion import follows

    assert follows("We plan to offer them on Business from the second quarter.")
    assert follows("Second, concentration of knowledge in the platform team.")
    assert not follows("Keys are rotated every year by the platform team.")
    docs = {
        "keys.md": (
            "Customer-managed encryption keys are available on Enterprise today.\n"
            "They reach Business as an add-on from the second quarter.\n"
            "Keys are rotated every year by the platform team.\n"
        ),
        "faq.md": (
            "Customer-managed encryption keys let an Enterprise customer revoke access.\n"
            "An Enterprise customer can manage its own encryption keys in the console.\n"
            "Customer-managed keys are stored in the cloud key management service.\n"
            "Encryption keys managed by the customer are audited every quarter.\n"
        ),
    }
    documents, hits = line_corpus(docs)
    question = "What is the plan for customer-managed encryption keys?"
    answer = extractive_answer(question, hits, documents=documents)
    assert "second quarter" in answer.text
    # without the continuation rule the sentence that only says "them" is left out
    alone = extractive_answer(question, hits, documents=documents, follow_on=False)
    assert "second quarter" not in alone.text


def test_a_named_subject_is_answered_only_from_a_document_that_names_it() -> None:
    docs, hits = line_corpus(
        {
            "annual-report.md": "Investors may pay two years in advance for a discount on the initial price.\n",
            "plausible-pricing.md": "Plausible plans are billed monthly or yearly.\n",
        }
    )
    question = "Does Plausible give a discount for paying two years in advance?"
    anchored = extractive_answer(question, hits, documents=docs)
    assert not anchored.covered
    assert anchored.text.startswith(NOT_COVERED)
    loose = extractive_answer(question, hits, documents=docs, anchor_names=False)
    assert loose.covered  # the same words from the report answer when the name is not checked
    assert not is_covered(question, hits, docs)
