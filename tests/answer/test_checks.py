from __future__ import annotations

import pytest

from ragcore.answer import checks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("costs $1,299 a year", {"1299"}),
        ("costs 1299.00 a year", {"1299"}),
        ("costs 1,299.50", {"1299.5"}),
        ("$999", {"999"}),
        ("99.99% uptime", {"99.99"}),
        ("a rate of 0.50", {"0.5"}),
        ("items 1,2,3", {"1", "2", "3"}),  # not thousands groups, so three numbers
        ("no figures here", set()),
    ],
)
def test_numbers_are_normalised(text: str, expected: set[str]) -> None:
    assert set(checks.numbers_in(text)) == expected


def test_numbers_keep_their_surface_form_for_display() -> None:
    assert checks.numbers_in("It costs $1,299.00.") == {"1299": "$1,299.00"}


def test_unsupported_numbers_flags_only_figures_the_sources_lack() -> None:
    sources = ["The Enterprise plan costs $1,299 per year.", "Refunds within 30 days."]
    assert checks.unsupported_numbers("It costs 1299.00 and refunds take 30 days.", sources) == []
    assert checks.unsupported_numbers("It costs $2,499 and refunds take 30 days.", sources) == ["$2,499"]
    assert checks.unsupported_numbers("It costs $1,299.", []) == ["$1,299"]


def test_strip_markers_returns_clean_text_and_numbers() -> None:
    assert checks.strip_markers("The plan costs $49 [1][2, 3].") == ("The plan costs $49.", [1, 2, 3])
    assert checks.strip_markers("No markers.") == ("No markers.", [])


def test_split_citations_keeps_valid_in_order_and_removes_the_rest() -> None:
    assert checks.split_citations([2, 1, 2, 9, 0, 9], 3) == ([2, 1], [9, 0])


def test_groundedness_is_the_share_of_content_words_in_the_sources() -> None:
    source = ["The Team plan costs $49 per month and includes 10 seats."]
    assert checks.groundedness("The Team plan costs 49 per month.", source) == 1.0
    # "team", "plan", "cost" found; "purple", "elephant" not: 3 of 5.
    assert checks.groundedness("Team plan cost purple elephant", source) == pytest.approx(3 / 5)
    assert checks.groundedness("", source) == 0.0
    assert checks.groundedness("The Team plan", []) == 0.0


def test_overlap_and_ignore() -> None:
    a, b = "What does the Enterprise plan cost?", "How much is the Enterprise plan?"
    ignore = frozenset({"what", "doe", "how", "much"})
    assert checks.overlap(a, b) < checks.overlap(a, b, ignore=ignore)
    assert checks.overlap("Refund window", "Refund window") == 1.0
    assert checks.overlap("alpha beta", "gamma delta") == 0.0


def test_cited_texts_skips_invalid_numbers() -> None:
    assert checks.cited_texts([2, 5, 1], ["a", "b", "c"]) == ["b", "a"]
