"""The answer's contradiction rule on absolute wording: commitments
(guarantee, warranty, promise) are compared on their own term; "always",
"never" and "unlimited" on what they state, as the risk lens compares them."""

from __future__ import annotations

from ragcore.answer.disagreement import contradiction
from ragcore.answer.units import Unit


def _unit(text: str, doc: str) -> Unit:
    return Unit("sentence", text, doc, 1, 1, "", (), 1, None, 0)


def test_always_and_never_about_different_things_do_not_contradict() -> None:
    a = _unit("Calling a meeting early is always better than calling it late.", "handbook.txt")
    b = _unit("The software page says that we never lose receipts.", "brochure.md")
    assert not contradiction(a, b)
    assert not contradiction(b, a)


def test_always_and_never_about_one_thing_contradict() -> None:
    a = _unit("Archived receipts are always kept for seven years.", "retention.md")
    b = _unit("Archived receipts are never kept for seven years.", "faq.md")
    assert contradiction(a, b)


def test_a_denied_commitment_still_covers_the_whole_offering() -> None:
    a = _unit("We guarantee 99.9% monthly availability for every workspace.", "sla.md")
    b = _unit("We do not guarantee uptime for any of our products.", "terms.md")
    assert contradiction(a, b)
