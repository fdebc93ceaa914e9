"""Shared test fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragcore.documents import load_path
from ragcore.records import Document

# ../shared from the repository root: real documents and benchmarks that CI has
# but a fresh checkout may not.
SHARED_DIR = Path(__file__).resolve().parents[1] / ".." / "shared"


def missing_shared(message: str) -> None:
    """Skip when shared material is absent, except in CI (``CI=true``), where
    ../shared is always laid beside the checkout: there its absence is a failure,
    not a silent skip."""
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"{message} (CI=true: ../shared must be present)")
    pytest.skip(message)


def require_shared(path: Path) -> Path:
    """``path`` when it exists; otherwise skip (or fail under CI) naming it."""
    if not path.exists():
        missing_shared(f"{path} not present")
    return path


def judged_shared_documents(gold: dict) -> dict[str, Document]:
    """The ../shared/documents a gold file over them judges, loaded by name
    (skipped without ../shared, a failure under CI=true)."""
    folder = require_shared(SHARED_DIR / "documents")
    names = {j["doc"] for q in gold["questions"] for j in q["judgements"]}
    return {name: load_path(folder / name, name) for name in sorted(names)}


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder (``../shared``), or skip the test when it is absent (fail under CI)."""
    if not SHARED_DIR.is_dir():
        missing_shared(f"shared material not found at {SHARED_DIR.resolve()}: these tests need ../shared")
    return SHARED_DIR.resolve()


def build_pdf(
    pages: list[list[str]],
    *,
    title: str | None = None,
    user_password: str | None = None,
    owner_password: str | None = None,
) -> bytes:
    """A text PDF made with fpdf2: one list of lines per page, each line one
    text line of the page (Helvetica, so latin-1 text only)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    if title:
        pdf.set_title(title)
    if owner_password or user_password:
        pdf.set_encryption(owner_password=owner_password or "owner", user_password=user_password)
    for lines in pages:
        pdf.add_page()
        for line in lines:
            pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


@pytest.fixture
def make_pdf():
    """``make_pdf(pages, title=..., user_password=...)`` -> PDF bytes (see build_pdf)."""
    return build_pdf
