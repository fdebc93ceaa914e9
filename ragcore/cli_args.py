"""Argument types shared by the command lines (``cli`` and the commands it delegates to)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """A whole number of at least 1: "--k 0" would ask for nothing and print nothing."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value
