"""Upload file names are labels, never paths: traversal, absolute and odd
Unicode names are stored as safe base names and nothing is written under them."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.services import Workspace, safe_name
from tests.conftest import build_pdf
from tests.test_service import HashEmbedder


@settings(max_examples=300, deadline=None, database=None)
@given(st.text(max_size=300))
def test_safe_name_is_never_a_path(filename: str) -> None:
    name = safe_name(filename)
    assert name and len(name) <= 120
    assert "/" not in name and "\\" not in name and name not in (".", "..")
    assert not name.startswith(".") and "\x00" not in name
    assert not any(unicodedata.category(ch)[0] == "C" for ch in name)


@pytest.mark.parametrize(
    ("filename", "stored"),
    [
        ("../../escape.md", "escape.md"),
        ("/etc/cron.d/job.txt", "job.txt"),
        ("..\\..\\windows\\evil.md", "evil.md"),
        ("C:\\temp\\report.pdf", "report.pdf"),
        ("Ünïcødé — 報告 🙂.md", "Ünïcødé _ 報告 _.md"),  # letters kept, symbols replaced
        ("e\u0301te\u0301.md", "été.md"),  # decomposed accents stored composed (NFC)
        ("line\nbreak\x00.md", "linebreak.md"),
    ],
)
def test_uploads_with_hostile_names_are_stored_under_a_safe_name(tmp_path, filename, stored) -> None:
    home = tmp_path / "a" / "b" / "home"
    ws = Workspace(home, demo_dir=tmp_path / "no-demo", embedder=HashEmbedder())
    data = (
        build_pdf([["Report", "Sales rose."]]) if filename.endswith(".pdf") else b"# Notes\n\nSales rose.\n"
    )
    before = {p for p in tmp_path.rglob("*")}
    outcome = ws.docs.upload("uploads", filename, data)
    assert outcome.ok, outcome
    assert outcome.name == stored
    assert [d.name for d in ws.docs.documents("uploads")] == [stored]
    # Nothing was written outside the library home, and nothing inside it under the upload's name.
    created = {p for p in tmp_path.rglob("*")} - before
    assert all(home in p.parents or p == home for p in created), created
    assert not any(p.name in (stored, filename) for p in created)
