"""bench's PDF probe (#18): a PDF through the Library page's upload path to
its first BM25 hits, with BM25 searchable before any embedding begins."""

from __future__ import annotations

from ragcore.bench_ingest import pdf_probe
from tests.conftest import build_pdf


def test_pdf_probe_times_the_upload_to_the_first_bm25_hits(tmp_path) -> None:
    pdf = tmp_path / "filing.pdf"
    pdf.write_bytes(
        build_pdf([[f"Total revenue grew in quarter {i}, line {j}." for j in range(8)] for i in range(3)])
    )
    got = pdf_probe(str(tmp_path / "home"), str(pdf))
    assert got["status"] == "added" and got["pages"] == 3 and got["passages"] >= 1
    assert got["hits"] >= 1 and got["bm25_before_embedding"] is True
    assert got["seconds"] >= got["upload_s"] > 0 and got["index_s"] > 0
