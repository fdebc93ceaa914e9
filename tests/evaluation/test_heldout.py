"""Reading a cross-validation result into held-out rows, and each row's goal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcore import errors
from ragcore.evaluation.heldout import REFERENCE_RRF, heldout_from_json, is_heldout

RESULTS = Path(__file__).resolve().parents[2] / "eval" / "results"
STORED = RESULTS / "fusion-cv.json"  # the gate alone (scripts/fusion_study.py --cv)
SHIPPED = RESULTS / "heldout-default.json"  # the shipped procedure (scripts/prf_parts_study.py --heldout)


def fold(collection: str, hybrid: float, bm25: float = 0.4, dense: float = 0.3) -> dict:
    diff = {"diff": 0.01, "low": -0.01, "high": 0.03, "p": 0.4}
    return {
        "collection": collection,
        "questions": 2,
        "bm25": bm25,
        "dense": dense,
        "chosen": {"family": "gated", "setting": "s", "held_out": hybrid},
        "chosen_minus": {"bm25": diff, "dense": diff, "rrf k=60": diff},
        "per_question": {
            "chosen": [hybrid, hybrid],
            "bm25": [0.4, 0.4],
            "dense": [0.3, 0.3],
            "rrf k=60": [0.2, 0.6],
        },
    }


def study(*folds: dict) -> dict:
    return {"kind": "fusion-cv", "rule": "leave one out", "folds": list(folds)}


def test_goal_needs_the_better_single_signal() -> None:
    rows = heldout_from_json(study(fold("a", 0.41), fold("b", 0.39))).rows
    assert [r.goal_met for r in rows] == [True, False]
    assert rows[0].rrf == pytest.approx(0.4)  # mean of the per-question RRF scores


def test_goal_needs_the_published_rrf_unrounded() -> None:
    below = REFERENCE_RRF["vaswani"] - 0.0001
    row = heldout_from_json(study(fold("vaswani", below, bm25=0.3))).rows[0]
    assert row.hybrid > row.best_single and not row.goal_met
    assert heldout_from_json(study(fold("vaswani", REFERENCE_RRF["vaswani"], bm25=0.3))).rows[0].goal_met


def test_a_result_of_another_kind_is_refused_with_its_field() -> None:
    assert not is_heldout({"kind": "retrieval"})
    with pytest.raises(errors.RagcoreError, match="kind"):
        heldout_from_json({"kind": "retrieval", "rule": "", "folds": []})


def test_missing_paired_figures_name_the_group() -> None:
    broken = fold("cisi", 0.5)
    del broken["chosen_minus"]["rrf k=60"]
    with pytest.raises(errors.RagcoreError, match=r"cisi.*rrf k=60"):
        heldout_from_json(study(broken))


@pytest.mark.parametrize("path", [STORED, SHIPPED], ids=["fusion-cv", "heldout-default"])
def test_the_stored_result_reads_and_counts_its_goals(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    result = heldout_from_json(data)
    assert [r.collection for r in result.rows] == [f["collection"] for f in data["folds"]]
    assert {"cranfield", "cisi", "vaswani"} <= {r.collection for r in result.rows}
    assert result.met == sum(r.hybrid >= max(r.bm25, r.dense, r.reference or 0.0) for r in result.rows)


def test_the_shipped_procedures_result_is_its_own_per_question_means() -> None:
    data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    for fold in data["folds"]:
        scores = fold["per_question"]
        assert len(scores["chosen"]) == fold["questions"] == len(scores["bm25"]) == len(scores["rrf k=60"])
        assert fold["chosen"]["held_out"] == pytest.approx(sum(scores["chosen"]) / fold["questions"])
        assert fold["bm25"] == pytest.approx(sum(scores["bm25"]) / fold["questions"])
        assert "|" not in fold["chosen"]["setting"]  # a cell of a Markdown table
