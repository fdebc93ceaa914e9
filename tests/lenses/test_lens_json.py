"""run_lens and the Lens record's JSON (ragcore/lenses/__init__.py)."""

from __future__ import annotations

import json

import pytest

from ragcore.lenses import choose_lens, run_lens

DOCS = {
    "a.md": "# Plans\n\nThe Pro plan is $20 per month.\n\nWe guarantee uptime.\n",
    "b.md": "# Notes\n\nThe Pro plan is $25 per month.\n\nWe make no guarantees about uptime.\n",
}
# the keys readers rely on, plus "documents_read" (an extension: how many documents the lens read)
KEYS = {"kind", "triggers", "chosen_by", "figures", "conflicts", "findings", "documents_read"}


def test_money_fills_figures_and_conflicts_only(make_hits) -> None:
    data = run_lens("money", make_hits(DOCS), ["price"]).to_json()
    assert set(data) == KEYS
    assert data["kind"] == "money" and data["triggers"] == ["price"]
    assert [f["amount"] for f in data["figures"]] == [20, 25]
    assert len(data["conflicts"]) == 1
    assert data["findings"] == []
    json.dumps(data)  # plain JSON types only


def test_risk_fills_findings_only(make_hits) -> None:
    data = run_lens("risk", make_hits(DOCS)).to_json()
    assert set(data) == KEYS
    assert data["figures"] == [] and data["conflicts"] == []
    assert [(f["doc"], f["negated"], f["contradicts"]) for f in data["findings"]] == [
        ("a.md", False, [1]),
        ("b.md", True, [0]),
    ]
    json.dumps(data)


def test_none_is_empty(make_hits) -> None:
    lens = run_lens("none", make_hits(DOCS))
    assert lens.empty
    assert lens.to_json() == {
        "kind": "none",
        "triggers": [],
        "chosen_by": "question",
        "figures": [],
        "conflicts": [],
        "findings": [],
        "documents_read": 0,
    }


def test_a_choice_carries_its_triggers_and_override(make_hits) -> None:
    lens = run_lens(choose_lens("Is our pricing consistent?"), make_hits(DOCS))
    assert (lens.kind, lens.triggers, lens.chosen_by) == ("money", ("pricing",), "question")
    lens = run_lens(choose_lens("Is our pricing consistent?", override="risk"), make_hits(DOCS))
    assert (lens.kind, lens.chosen_by) == ("risk", "user") and lens.findings


def test_unknown_kind_is_named() -> None:
    with pytest.raises(ValueError, match="'prices'"):
        run_lens("prices", [])


def test_no_hits_no_findings() -> None:
    assert run_lens("money", []).empty
    assert run_lens("risk", []).empty
