"""Loading a curated file: quotes resolve to lines; stale entries are reported and skipped."""

from __future__ import annotations

import json

import pytest

from ragcore.curated import CuratedFileError, load_curated, resolve
from ragcore.curated.schema import FORMAT, CuratedFile
from ragcore.records import Document, sha256_hex


def doc(name: str, text: str) -> Document:
    return Document(name, name, "md", text, sha256_hex(text))


DOCS = {
    "terms.md": doc(
        "terms.md",
        "# Terms\n\nRefunds are given within 30 days of purchase.\nLate fees are 2% a month.\n\n"
        "Late fees are waived for charities.\n",
    ),
    "faq.md": doc("faq.md", "# FAQ\n\nYou can get your money back in the first 30 days.\n"),
}


def curated(**parts) -> dict:
    return {"format": FORMAT, "corpus": "test", **parts}


def answer(entry_id: str, quote: str, doc_name: str = "terms.md") -> dict:
    return {
        "id": entry_id,
        "question": "Can I get a refund?",
        "answer": "Yes, within 30 days.",
        "cites": [{"doc": doc_name, "quote": quote}],
    }


def test_quotes_resolve_to_their_lines() -> None:
    raw = curated(
        answers=[answer("refund", "Refunds are given within 30 days")],
        notes=[
            {"id": "n1", "cite": {"doc": "terms.md", "quote": "Late fees are 2% a month."}, "note": "plain"}
        ],
        links=[
            {
                "id": "l1",
                "from": {"doc": "faq.md", "quote": "money back in the first 30 days"},
                "to": {"doc": "terms.md", "quote": "Refunds are given within 30 days"},
                "reason": "same rule",
            }
        ],
    )
    layer = resolve(CuratedFile.model_validate(raw), DOCS, "x.curated.json")
    assert layer.problems == []
    (pinned,) = layer.answers
    assert (pinned.cites[0].doc, pinned.cites[0].first_line, pinned.cites[0].last_line) == ("terms.md", 3, 3)
    assert [n.id for n in layer.notes_for("terms.md", 4, 4)] == ["n1"]
    assert layer.notes_for("terms.md", 1, 3) == []
    other, link = layer.links_for("terms.md", 3, 3)[0]
    assert (other.doc, other.first_line, link.reason) == ("faq.md", 3, "same rule")


def test_quote_across_lines_spans_both_lines() -> None:
    layer = resolve(
        CuratedFile.model_validate(curated(answers=[answer("a", "2% a month.\n\nLate fees are waived")])),
        DOCS,
        "x",
    )
    assert (layer.answers[0].cites[0].first_line, layer.answers[0].cites[0].last_line) == (4, 6)


@pytest.mark.parametrize(
    ("quote", "doc_name", "expected"),
    [
        ("Refunds are given within 60 days", "terms.md", "no longer occurs in terms.md"),
        ("Late fees are", "terms.md", "occurs 2 times in terms.md"),
        ("Refunds are given within 30 days", "missing.md", "'missing.md' is not in the collection"),
    ],
)
def test_stale_entry_is_reported_by_file_and_entry_and_skipped(quote, doc_name, expected) -> None:
    raw = curated(
        answers=[answer("stale", quote, doc_name), answer("good", "Refunds are given within 30 days")]
    )
    layer = resolve(CuratedFile.model_validate(raw), DOCS, "demo.curated.json")
    assert [a.id for a in layer.answers] == ["good"]
    (problem,) = layer.problems
    assert problem.entry == "stale" and expected in problem.message
    assert str(problem).startswith("demo.curated.json: entry 'stale':")


def test_duplicate_ids_are_reported() -> None:
    raw = curated(answers=[answer("same", "Refunds are given"), answer("same", "Late fees are 2%")])
    layer = resolve(CuratedFile.model_validate(raw), DOCS, "f")
    assert len(layer.answers) == 1 and "used twice" in layer.problems[0].message


def test_unreadable_files_name_the_file(tmp_path) -> None:
    bad = tmp_path / "broken.curated.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(CuratedFileError, match=r"broken\.curated\.json: not a JSON file"):
        load_curated(bad, DOCS)
    wrong = tmp_path / "wrong.curated.json"
    wrong.write_text(json.dumps({"format": "other/9"}), encoding="utf-8")
    with pytest.raises(CuratedFileError, match=r"wrong\.curated\.json: format"):
        load_curated(wrong, DOCS)
    extra = tmp_path / "extra.curated.json"
    extra.write_text(
        json.dumps(curated(answers=[{**answer("a", "Refunds are"), "oops": 1}])), encoding="utf-8"
    )
    with pytest.raises(CuratedFileError, match=r"extra\.curated\.json: answers\.0\.oops"):
        load_curated(extra, DOCS)
    with pytest.raises(CuratedFileError, match="no such curated file"):
        load_curated(tmp_path / "absent.curated.json", DOCS)
