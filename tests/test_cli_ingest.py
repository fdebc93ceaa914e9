"""``python -m ragcore ingest``: one line per file, exit 0 when it ran, non-zero
only when it could not run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ragcore.cli import main
from ragcore.store import Library

POLICY = "# Refund policy\n\n## Monthly\n\nMonthly plans are refunded for the current month.\n"
PRICING = "# Pricing\n\n## Team\n\nTeam costs $20 per seat.\n\n## Enterprise\n\nQuoted per contract.\n"


@pytest.fixture(autouse=True)
def _env(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGCORE_MAX_UPLOAD_MB", raising=False)


@pytest.fixture
def files(tmp_path, make_pdf):
    src = tmp_path / "src"
    (src / "nested").mkdir(parents=True)
    (src / "policy.md").write_text(POLICY)
    (src / "nested" / "pricing.md").write_text(PRICING)
    (src / "report.pdf").write_bytes(
        make_pdf([["Quarterly report", "Revenue grew."], ["Outlook is steady."]])
    )
    (src / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    (src / "locked.pdf").write_bytes(make_pdf([["Secret."]], user_password="u", owner_password="o"))
    return src


def _names(library_dir: Path, collection: str = "uploads") -> list[str]:
    lib = Library(library_dir)
    try:
        return [d.name for d in lib.list_documents(collection)]
    finally:
        lib.close()


def test_ingest_prints_a_line_per_file_and_exits_0_despite_refusals(files, tmp_path, capsys):
    lib_dir = tmp_path / "lib"
    paths = [
        files / "policy.md",
        files / "report.pdf",
        files / "image.txt",
        files / "locked.pdf",
        tmp_path / "nope.md",
    ]
    code = main(["ingest", *map(str, paths), "--library", str(lib_dir)])
    out = capsys.readouterr().out.strip().split("\n")
    assert code == 0
    assert len(out) == 5
    by_name = {line.split(":", 1)[0]: line for line in out}
    assert by_name["policy.md"] == "policy.md: 1 passage (added)"
    assert by_name["report.pdf"].startswith("report.pdf: ") and "(added)" in by_name["report.pdf"]
    assert by_name["image.txt"].startswith("image.txt: error: ") and "binary" in by_name["image.txt"]
    assert by_name["locked.pdf"].startswith("locked.pdf: error: ") and "password" in by_name["locked.pdf"]
    assert by_name[str(tmp_path / "nope.md")].endswith("error: no such file or folder")
    assert _names(lib_dir) == ["policy.md", "report.pdf"]  # refused files left no trace


def test_ingest_a_folder_names_files_relative_to_it(files, tmp_path, capsys):
    (files / "image.txt").unlink()
    (files / "locked.pdf").unlink()
    lib_dir = tmp_path / "lib"
    assert main(["ingest", str(files), "--library", str(lib_dir), "--collection", "team"]) == 0
    out = capsys.readouterr().out
    assert "nested/pricing.md: 2 passages (added)" in out  # title section carried into "Team"
    assert _names(lib_dir, "team") == ["nested/pricing.md", "policy.md", "report.pdf"]


def test_ingest_defaults_to_ragcore_home_and_detects_duplicates(files, tmp_path, capsys):
    assert main(["ingest", str(files / "policy.md")]) == 0
    capsys.readouterr()
    copy = tmp_path / "copy.md"
    copy.write_text(POLICY)
    assert main(["ingest", str(copy)]) == 0
    assert capsys.readouterr().out.strip() == "copy.md: duplicate of policy.md, not added"
    assert _names(tmp_path / "home") == ["policy.md"]


def test_ingest_applies_the_size_limit(files, tmp_path, capsys, monkeypatch):
    big = tmp_path / "big.txt"
    big.write_text("word " * 5000)
    monkeypatch.setenv("RAGCORE_MAX_UPLOAD_MB", "0.01")
    assert main(["ingest", str(big), str(files / "policy.md"), "--library", str(tmp_path / "lib")]) == 0
    out = capsys.readouterr().out
    assert "big.txt: error: the file is" in out and "limit" in out
    assert _names(tmp_path / "lib") == ["policy.md"]


def test_ingest_exits_non_zero_when_the_library_cannot_be_made(files, tmp_path, capsys):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    code = main(["ingest", str(files / "policy.md"), "--library", str(blocker / "lib")])
    captured = capsys.readouterr()
    assert code != 0
    assert captured.err.startswith("error: ") and str(blocker) in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


def test_ingest_exits_non_zero_when_the_database_is_not_a_database(files, tmp_path, capsys):
    lib_dir = tmp_path / "lib"
    lib_dir.mkdir()
    (lib_dir / "library.sqlite3").write_bytes(b"this is not sqlite" * 100)
    code = main(["ingest", str(files / "policy.md"), "--library", str(lib_dir)])
    assert code != 0
    assert "error: the library database cannot be used" in capsys.readouterr().err


def test_ingest_without_paths_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["ingest"])
    assert info.value.code == 2
    assert "PATH" in capsys.readouterr().err


def test_python_dash_m_ragcore_ingest_runs(files, tmp_path):
    # The real entry point, once: prints the line and exits 0.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragcore",
            "ingest",
            str(files / "policy.md"),
            "--library",
            str(tmp_path / "lib"),
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "policy.md: 1 passage (added)"
