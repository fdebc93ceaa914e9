"""The sentence for a part no document answers (``answer.not_said``): a
grammatical indirect question, or the part quoted."""

from __future__ import annotations

import pytest

from ragcore.answer.not_said import not_said


@pytest.mark.parametrize(
    ("part", "expected"),
    [
        ("what credits apply?", "The documents do not say what credits apply."),
        (
            "which regulator audits the platform",
            "The documents do not say which regulator audits the platform.",
        ),
        ("can I get my data back?", "The documents do not say whether you can get your data back."),
        ("Is there a free trial?", "The documents do not say whether there is a free trial."),
        ("do we need to sign anything?", "The documents do not say whether we need to sign anything."),
        ("and who approves it?", "The documents do not say who approves it."),
    ],
)
def test_a_part_reads_as_an_indirect_question(part: str, expected: str) -> None:
    assert not_said(part) == expected


@pytest.mark.parametrize(
    "part",
    [
        "Does Plausible charge extra?",  # "whether Plausible charges extra" needs the verb inflected
        "does it include single sign-on?",
        "Did we sign the order form?",
        "Are the backups encrypted?",
        "What uptime does the SLA guarantee?",
        "and how long does it take?",
    ],
)
def test_a_part_that_cannot_be_put_indirectly_is_quoted(part: str) -> None:
    said = not_said(part)
    assert said.startswith('The documents do not answer "') and said.endswith('?"')
    assert "and how" not in said  # a leading conjunction of the split question is dropped
