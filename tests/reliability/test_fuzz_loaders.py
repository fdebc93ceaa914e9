"""Fuzzing the loaders and chunkers: every generated input gives a Document
whose passages slice it exactly, or a typed error with a one-line message.

The normal run tries ``RAGCORE_FUZZ_EXAMPLES`` inputs (200); the long run is
``python scripts/fuzz_loaders.py --inputs 10000`` (see the README).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings

from ragcore import errors
from tests.reliability import fuzz_inputs as fz

EXAMPLES = int(os.environ.get("RAGCORE_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@FUZZ
@given(fz.any_input)
def test_any_input_is_a_document_or_a_typed_error(case) -> None:
    data, name = case
    fz.check(data, name)


@settings(FUZZ, max_examples=max(10, EXAMPLES // 10))
@given(fz.mutated_pdfs())
def test_mutated_pdfs(case) -> None:
    fz.check(*case)


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (b"\x00" * 100, "nul.txt", errors.BinaryContent),
        (b"\xff\xfe" + b"\x00\xd8", "half.md", errors.BinaryContent),  # a lone UTF-16 surrogate
        (b"%PDF-1.7\n" + b"\x00" * 50, "zero.pdf", errors.CorruptPdf),
        (b"   \n\t\r\n", "blank.md", errors.EmptyDocument),
        (b"a" * 1_000_001, "one-line.md", errors.ParseLimitExceeded),
    ],
    ids=["nul", "lone-surrogate", "zero-pdf", "blank", "one-megabyte-line"],
)
def test_hostile_examples_get_their_typed_error(data, name, expected) -> None:
    assert fz.check(data, name) == expected.__name__


def test_a_property_break_is_reported_not_hidden() -> None:
    # The check itself can fail: a message without the file's name breaks the contract.
    with pytest.raises(fz.PropertyBroken):
        fz._check_message(errors.DocumentError("other.md", "bad"), "mine.md")
