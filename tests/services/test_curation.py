"""The curation service: shipped file, ask integration, edits, import/export, read-only."""

from __future__ import annotations

import json

import pytest

from ragcore import errors
from ragcore.curated import CuratedFileError
from ragcore.curated.schema import FORMAT
from ragcore.services import DEMO_COLLECTION, Workspace
from tests.test_service import PRICING_MD, SLA_MD, HashEmbedder

PINNED_Q = "How much is the Business plan per month?"


def curated_file() -> dict:
    return {
        "format": FORMAT,
        "corpus": "demo",
        "answers": [
            {
                "id": "business",
                "question": PINNED_Q,
                "answer": "$999 per month.",
                "cites": [{"doc": "pricing.md", "quote": "The Business plan costs $999 per month"}],
            }
        ],
        "notes": [
            {"id": "n1", "cite": {"doc": "sla.md", "quote": "We guarantee 99.9% monthly uptime"}, "note": "n"}
        ],
        "links": [
            {
                "id": "l1",
                "from": {"doc": "sla.md", "quote": "Service credits are paid"},
                "to": {"doc": "pricing.md", "quote": "Enterprise starts at"},
                "reason": "credits are a share of the price",
            }
        ],
    }


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Workspace:
    monkeypatch.delenv("RAGCORE_ISOLATION", raising=False)
    demo = tmp_path / "demo"
    demo.mkdir()
    (demo / "pricing.md").write_bytes(PRICING_MD)
    (demo / "sla.md").write_bytes(SLA_MD)
    (tmp_path / "demo.curated.json").write_text(json.dumps(curated_file()), encoding="utf-8")
    ws = Workspace(
        tmp_path / "home", demo_dir=demo, demo_vectors=tmp_path / "none.npz", embedder=HashEmbedder()
    )
    ws.collections.ensure_demo()
    return ws


def test_shipped_file_is_resolved_against_the_collection(workspace) -> None:
    layer = workspace.curation.layer(DEMO_COLLECTION)
    assert layer is not None and layer.problems == []
    assert [a.id for a in layer.answers] == ["business"]
    assert workspace.curation.layer("uploads") is None


def test_ask_puts_the_pinned_answer_first_and_keeps_the_computed_one(workspace) -> None:
    outcome = workspace.asking.ask(DEMO_COLLECTION, PINNED_Q, mode="bm25")
    assert outcome.answer.mode == "curated"
    assert [(c.doc, c.first_line) for c in outcome.answer.citations] == [("pricing.md", 5)]
    assert outcome.computed_answer is not None and outcome.computed_answer.mode == "extractive"
    off = workspace.asking.ask(DEMO_COLLECTION, PINNED_Q, mode="bm25", curated=False)
    assert off.answer.mode == "extractive" and off.computed_answer is None
    relensed = workspace.asking.relens(outcome, "risk")
    assert relensed.answer.mode == "curated" and relensed.lens.kind == "risk"


def test_related_strip_labels_curated_links_and_computed_neighbours(workspace) -> None:
    passages = workspace.docs.passages_of(DEMO_COLLECTION, "sla.md")
    credits = next(p for p in passages if "Service credits" in p.text)
    pricing = workspace.docs.passages_of(DEMO_COLLECTION, "pricing.md")
    items = workspace.curation.related_items(
        DEMO_COLLECTION, credits, [(pricing[0], 0.4), (pricing[-1], 0.3)]
    )
    assert items[0].source == "curated" and items[0].detail == "credits are a share of the price"
    assert all(i.source == "computed" for i in items[1:])
    # the neighbour the curated link already names is listed once, as curated
    assert len([i for i in items if i.doc == "pricing.md" and i.first_line == items[0].first_line]) == 1


def test_edits_import_and_export(workspace) -> None:
    with pytest.raises(CuratedFileError, match="no longer occurs"):
        workspace.curation.add_note(DEMO_COLLECTION, "sla.md", "words that are not there", "x")
    with pytest.raises(CuratedFileError, match="at least 8 characters"):
        workspace.curation.add_note(DEMO_COLLECTION, "sla.md", "short", "x")
    layer = workspace.curation.add_note(DEMO_COLLECTION, "sla.md", "falls below the guarantee", "plain words")
    assert [n.text for n in layer.notes][-1] == "plain words"
    exported = json.loads(workspace.curation.export_bytes(DEMO_COLLECTION))
    assert len(exported["notes"]) == 2
    assert workspace.curation.remove_entry(DEMO_COLLECTION, "n1")
    assert [n.text for n in workspace.curation.layer(DEMO_COLLECTION).notes] == ["plain words"]
    before = workspace.curation.export_bytes(DEMO_COLLECTION)
    with pytest.raises(CuratedFileError, match=r"bad\.json: format"):
        workspace.curation.import_bytes(DEMO_COLLECTION, b'{"format": "x"}', "bad.json")
    assert (
        workspace.curation.export_bytes(DEMO_COLLECTION) == before
    )  # a bad import leaves the file as it was
    imported = workspace.curation.import_bytes(DEMO_COLLECTION, json.dumps(curated_file()).encode(), "c.json")
    assert len(imported.notes) == 1


def test_read_only_demo_cannot_be_edited_under_isolation(workspace, monkeypatch) -> None:
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    with pytest.raises(errors.RagcoreError):
        workspace.curation.add_note(DEMO_COLLECTION, "sla.md", "falls below the guarantee", "x")


def test_examples_and_placeholder_come_from_the_collection_in_view(workspace) -> None:
    from ragcore.services import DEMO_QUESTIONS

    assert workspace.asking.example_questions(DEMO_COLLECTION) == DEMO_QUESTIONS
    assert "SLA" in workspace.asking.placeholder(DEMO_COLLECTION)
    workspace.docs.upload("uploads", "handbook.md", b"# Staff handbook\n\nHolidays are 25 days a year.\n")
    assert workspace.asking.example_questions("uploads") == ()  # no curated file: no examples
    hint = workspace.asking.placeholder("uploads")
    assert "SLA" not in hint and "Staff handbook" in hint


def test_question_length_is_capped(workspace, monkeypatch) -> None:
    monkeypatch.setenv("RAGCORE_MAX_QUESTION_CHARS", "20")
    with pytest.raises(errors.RagcoreError, match="21 characters long; questions are limited to 20"):
        workspace.asking.ask(DEMO_COLLECTION, "x" * 21, mode="bm25")
    assert workspace.asking.ask(DEMO_COLLECTION, "  Business plan  ", mode="bm25").question == "Business plan"
