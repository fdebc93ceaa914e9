"""Orders of precedence read as claims: two documents that rank each other
in opposite orders contradict each other (``ragcore.lenses.contradiction``)."""

from __future__ import annotations

from ragcore.answer.disagreement import contradiction
from ragcore.answer.units import Unit
from ragcore.lenses.contradiction import _names as _doc_names
from ragcore.lenses.contradiction import precedence, precedence_conflict

CONTRACT = "terms-of-supply.pdf"
ADDENDUM = "security-schedule.pdf"
ORDER = (
    "If documents conflict, the following order applies: the Order Form, then this Contract, "
    "then the Security Schedule, then the price list."
)
OVERRIDE = (
    "If this Security Schedule conflicts with the Contract on encryption, this Security Schedule prevails."
)


def _names() -> dict:
    return {CONTRACT: _doc_names(ORDER, CONTRACT), ADDENDUM: _doc_names(OVERRIDE, ADDENDUM)}


def test_an_order_of_precedence_ranks_each_document_above_the_ones_after_it() -> None:
    pairs = precedence(ORDER, CONTRACT, _names())
    assert (CONTRACT, ADDENDUM) in pairs  # "this Contract" is the document it is in
    assert ("form order", CONTRACT) in pairs  # an unnamed document is keyed by its words
    assert (ADDENDUM, CONTRACT) not in pairs


def test_an_override_ranks_its_own_document_first() -> None:
    assert precedence(OVERRIDE, ADDENDUM, _names()) == {(ADDENDUM, CONTRACT)}


def test_opposite_orders_contradict_and_the_same_order_does_not() -> None:
    assert precedence_conflict(ORDER, CONTRACT, OVERRIDE, ADDENDUM)
    assert precedence_conflict(OVERRIDE, ADDENDUM, ORDER, CONTRACT)
    agreeing = "If this Security Schedule conflicts with the Contract, the Contract prevails."
    assert not precedence_conflict(ORDER, CONTRACT, agreeing, ADDENDUM)
    # one document's own sentences are never read against each other
    assert not precedence_conflict(ORDER, CONTRACT, OVERRIDE, CONTRACT)


def test_initials_name_a_document() -> None:
    order = "In case of conflict the order of precedence is: this Agreement, the DPA, the SLA."
    override = "If this DPA conflicts with the Agreement, this DPA prevails."
    msa, dpa = "master-services-agreement.pdf", "data-processing-addendum.pdf"
    assert precedence_conflict(order, msa, override, dpa)


def test_sentences_without_precedence_rank_nothing() -> None:
    assert precedence("The Order Form lists the plan.", CONTRACT, _names()) == set()
    assert not precedence_conflict(
        "The Order Form lists the plan.", CONTRACT, "The Contract sets the price.", ADDENDUM
    )


def _unit(text: str, doc: str) -> Unit:
    return Unit("sentence", text, doc, 1, 1, "", (), 1, None, 0)


def test_the_answer_reads_a_precedence_conflict_as_a_contradiction() -> None:
    assert contradiction(_unit(ORDER, CONTRACT), _unit(OVERRIDE, ADDENDUM))
