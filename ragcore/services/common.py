"""Names, folders and small types the services share."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from ..names import safe_name as safe_name  # the one sanitiser of names
from ..retrieval.protocols import ASK_K
from ..retrieval.protocols import Mode as Mode  # retrieval modes

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO_ROOT / "corpus" / "demo"
DEMO_VECTORS = REPO_ROOT / "corpus" / "demo.vectors.npz"
EVAL_DIR = REPO_ROOT / "eval"
RESULTS_DIR = EVAL_DIR / "results"
DEMO_COLLECTION = "demo"
UPLOADS_COLLECTION = "uploads"
SESSION_PREFIX = "session:"  # private upload collections when RAGCORE_ISOLATION=session

Chunking = Literal["auto", "heading", "sentence", "whole"]
# The lens a user may ask for, and how an answer was written.
LensRequest = Literal["auto", "money", "risk", "none"]
AnswerMode = Literal["extractive", "model"]
CHUNKINGS: tuple[Chunking, ...] = ("auto", "heading", "sentence", "whole")
UPLOAD_SUFFIXES = ("pdf", "txt", "md", "markdown", "text")
DEFAULT_K = ASK_K  # the ask command's --k: the page answers from the hits eval --answers scores

DEMO_QUESTIONS = (
    "Is our pricing consistent?",
    "What uptime does the SLA guarantee, and what credits apply?",
    "What are the risks of the Northgate Health deal?",
    "Can a customer get a refund after cancelling an annual plan?",
)

Progress = Callable[[str, float], None]  # (stage text, fraction done 0..1)
# A LiteLLM-style completion function (tests inject their own).
Completion = Callable[..., object]


def check_chunking(chunking: str, *extra: str) -> None:
    allowed = (*CHUNKINGS, *extra)
    if chunking not in allowed:
        also = f" or {', '.join(repr(e) for e in extra)}" if extra else ""
        raise ValueError(f"chunking must be one of {', '.join(CHUNKINGS)}{also}, not {chunking!r}")


def positive_setting(name: str, default: float) -> float:
    """A positive number from the environment, ``default`` when unset."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {raw!r}") from None
    if not value > 0:
        raise ValueError(f"{name} must be greater than 0, not {raw!r}")
    return value
