"""Disagreements the question points at: alternatives it offers, an absolute
claim a yes/no question asks about, a figure it quotes, and a yes/no
agreement question's subject stated with different figures."""

from __future__ import annotations

from ragcore.answer.claims import Alternative, alternatives, question_disagreements, states
from ragcore.answer.extractive import extractive_answer
from ragcore.answer.relevance import answer_cue
from ragcore.answer.units import answer_units
from ragcore.evaluation.answers import claims_disagreement
from ragcore.lenses.contradiction import contradicts
from ragcore.records import Answer
from tests.answer.helpers import line_corpus


def _claims(answer: Answer) -> list[str]:
    return [s.text for s in answer.sentences if claims_disagreement(s) and len(set(s.citations)) >= 2]


def _ask(question: str, docs: dict[str, str]) -> Answer:
    documents, hits = line_corpus(docs)
    # these toy lines carry no dense similarity; the claims, not the answer
    # threshold, are under test, so a part is answered at a fixed 0.9
    return extractive_answer(question, hits, documents=documents, min_score=0.9)


def test_alternatives_are_read_from_the_question() -> None:
    assert alternatives("Is the first reply within 1 hour or 4 hours?") == (
        Alternative(1.0, "hour"),
        Alternative(4.0, "hour"),
    )
    assert alternatives("Do we get 30 or 60 days to export?") == (
        Alternative(30, "day"),
        Alternative(60, "day"),
    )
    assert alternatives("Does it take minutes, as the ad says, or weeks?") == (
        Alternative(None, "minute"),
        Alternative(None, "week"),
    )
    assert alternatives("What does the Team plan cost?") is None


def test_an_alternative_denied_in_the_text_is_not_stated() -> None:
    assert states("Go live in minutes, not weeks.", Alternative(None, "minute"))
    assert not states("Go live in minutes, not weeks.", Alternative(None, "week"))
    assert states("Teams go live in about four weeks.", Alternative(None, "week"))
    assert states("Exports stay open for thirty days.", Alternative(30, "day"))
    assert not states("Exports stay open for thirty days.", Alternative(60, "day"))


PORTAL = {
    "faq.md": "After cancelling, customers can export their files for 30 days.\n",
    "contract.md": "For 60 days after the contract ends, the customer may export its files.\n",
    "blog.md": "Our office dog is 30 days old and loves files.\n",
}


def test_documents_stating_each_alternative_disagree() -> None:
    answer = _ask("After cancelling, do we get 30 or 60 days to export our files?", PORTAL)
    (claim,) = _claims(answer)
    assert "faq.md" in claim and "contract.md" in claim and "dog" not in claim


def test_alternatives_that_are_a_condition_of_an_amount_question_are_not_pointed_at() -> None:
    documents, hits = line_corpus(
        {
            "prices.md": "Paying two years up front saves 10% on the subscription.\n",
            "notes.md": "Paying three years up front saves 15% on the subscription.\n",
        }
    )
    units = answer_units(hits, documents)
    question = "How much do we save by paying two or three years up front?"
    assert question_disagreements(question, units, units, answer_cue(question), lambda u: 1.0) == []
    # asked as the question itself, the same alternatives are a disagreement
    question = "Is the saving for paying up front two or three years?"
    (found,) = question_disagreements(question, units, units, answer_cue(question), lambda u: 1.0)
    assert {found.first.doc, found.second.doc} == {"prices.md", "notes.md"}


ABSOLUTE = {
    "website.md": "Every document is encrypted at all times, from upload to archive.\n",
    "minutes.md": "Ruth said the line about documents being encrypted at all times is not accurate.\n",
    "guide.md": "Do not say that documents are encrypted at all times.\n",
}


def test_a_denied_copula_after_the_term_is_a_denial() -> None:
    assert contradicts(ABSOLUTE["website.md"].strip(), ABSOLUTE["minutes.md"].strip(), "at all times")
    # an instruction about wording is not a claim
    assert not contradicts(ABSOLUTE["website.md"].strip(), ABSOLUTE["guide.md"].strip(), "at all times")


def test_a_yes_no_question_about_an_absolute_finds_the_claim_and_its_denial() -> None:
    answer = _ask("Are documents encrypted at all times, as the website claims?", ABSOLUTE)
    (claim,) = _claims(answer)
    assert "website.md" in claim and "minutes.md" in claim and "guide.md" not in claim


def test_a_wh_question_using_the_absolute_is_not_a_claim_check() -> None:
    docs = {
        "website.md": "We guarantee 99.9% uptime to every customer.\n",
        "contract.md": "The provider does not guarantee any particular level of uptime.\n",
    }
    documents, hits = line_corpus(docs)
    units = answer_units(hits, documents)
    for question, expected in (
        ("What uptime does the provider guarantee?", 0),
        ("Do we guarantee 99.9% uptime?", 1),
    ):
        found = question_disagreements(question, units, [], answer_cue(question), lambda u: 1.0)
        assert len(found) == expected, question


def test_unlimited_is_denied_by_a_stated_number_of_the_same_thing() -> None:
    docs = {
        "website.md": "Unlimited workflows on every plan, with no extra charge.\n",
        "faq.md": "Starter workspaces can have up to 10 active workflows at a time.\n",
        "notes.md": "Team workspaces have no limit on workflows.\n",
    }
    (claim,) = _claims(_ask("Does Starter really include unlimited workflows?", docs))
    assert "website.md" in claim and "faq.md" in claim


def test_a_figure_the_question_quotes_against_a_different_one() -> None:
    docs = {
        "call-notes.md": "I quoted the Business plan at $1,199/month to the customer.\n",
        "minutes.md": "Daniel confirmed the correct Business list price is $999 per month.\n",
    }
    (claim,) = _claims(_ask("Sales quoted $1,199 a month for Business - is that the right price?", docs))
    assert "$1,199/month" in claim and "$999 per month" in claim


def test_an_agreement_question_whose_sides_state_different_figures() -> None:
    docs = {
        "policy.md": "After 30 days the workspace is deleted, including its backups.\n",
        "contract.md": "Backups of a deleted workspace are removed within a further 35 days.\n",
    }
    (claim,) = _claims(_ask("Are backups deleted at the same time as the workspace?", docs))
    assert "30 days" in claim and "35 days" in claim
    # the same figures on another subject, which the question's words do not cover, are not claimed
    other = {
        "policy.md": "After 30 days the workspace is deleted, including its backups.\n",
        "contract.md": "Invoices are payable within 35 days of issue.\n",
    }
    assert _claims(_ask("Are backups deleted at the same time as the workspace?", other)) == []


def test_a_table_rows_cell_and_a_sentences_figure_are_not_paired() -> None:
    from ragcore.answer.disagreement import figure_conflict

    documents, hits = line_corpus(
        {
            "targets.md": "| Severity | Pro plan reply |\n| --- | --- |\n| Severity 3 | within 2 business days |\n",
            "faq.md": "Urgent tickets on the Pro plan get a first reply within 4 business days.\n",
            "runbook.md": "Urgent tickets on the Pro plan get a first reply within 1 business days.\n",
        }
    )
    units = answer_units(hits, documents)
    row = next(u for u in units if u.kind == "table-row")
    faq, runbook = (next(u for u in units if u.doc == name) for name in ("faq.md", "runbook.md"))
    assert figure_conflict(faq, runbook, relaxed=True)
    assert not figure_conflict(row, faq, relaxed=True) and not figure_conflict(faq, row, relaxed=True)


def test_right_asks_whether_a_claim_holds_but_the_right_to_do_something_does_not() -> None:
    from ragcore.answer.disagreement import asks_agreement

    assert asks_agreement("Sales quoted $1,199 a month - is that the right price?")
    assert asks_agreement("Is that right?")
    assert not asks_agreement("Which section gives the right to terminate after repeated outages?")
    assert not asks_agreement("Who holds the right of first refusal?")
