"""``cli_args.positive_int``: the --k of search, ask and geneval."""

import argparse

import pytest

from ragcore.cli_args import positive_int


def test_whole_numbers_from_one_up_pass() -> None:
    assert positive_int("1") == 1 and positive_int("25") == 25


@pytest.mark.parametrize(
    ("text", "says"), [("0", "at least 1"), ("-2", "at least 1"), ("2.5", "whole number")]
)
def test_anything_else_is_refused_with_a_reason(text: str, says: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=says):
        positive_int(text)
