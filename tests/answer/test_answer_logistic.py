"""scripts/answer_logistic.py: the several-signal answerability model and its cut."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _script():
    path = ROOT / "scripts" / "answer_logistic.py"
    spec = importlib.util.spec_from_file_location("answer_logistic_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _row(qid: str, answerable: bool, best: float, kind: str = "fact", names: tuple = ()) -> dict:
    top = {"best": best, "best_similarity": best / 2, "best_coverage": 0.3, "max_similarity": best / 2}
    return {
        "id": qid,
        "type": kind,
        "answerable": answerable,
        "part": 1,
        "unknown_names": list(names),
        "dense_top": 0.5,
        "top10": None if names else top,
        "deeper": None if names else {**top, "best": best},
    }


def test_the_cut_separates_what_the_score_separates() -> None:
    m = _script()
    rows = [_row(f"a:{i}", True, 1.2 + 0.05 * i) for i in range(8)]
    rows += [_row(f"a:u{i}", False, 0.5 + 0.05 * i) for i in range(6)]
    items = m.questions(rows)
    decide = m.train(items, [0])
    assert all(decide(q) == q.answerable for q in items)


def test_a_name_rule_decline_stays_declined() -> None:
    m = _script()
    rows = [_row(f"a:{i}", True, 1.5) for i in range(4)] + [_row(f"a:u{i}", False, 0.4) for i in range(4)]
    rows.append(_row("a:japan", False, 0.0, names=("Japan",)))
    items = m.questions(rows)
    decide = m.train(items, list(range(len(m.FEATURES))))
    japan = next(q for q in items if q.id == "a:japan")
    assert len(japan.parts) == 0 and not decide(japan)


def test_one_class_answers_what_the_name_rule_leaves() -> None:
    m = _script()
    items = m.questions([_row(f"a:{i}", True, 0.3 * i) for i in range(5)])
    decide = m.train(items, [0])
    assert all(decide(q) for q in items)


def test_cut_objective_weighs_declines_twice() -> None:
    m = _script()
    probs = np.array([0.9, 0.4, 0.2])
    labels = np.array([True, True, False])
    # cut 0.3: nothing wrongly declined, the unanswerable one abstained
    assert m.cut_objective(probs, labels, 0.3) == 1.0
    # cut 0.5: one of two answerable declined: 1 - 2 x 0.5
    assert m.cut_objective(probs, labels, 0.5) == 0.0


def test_held_out_never_sees_its_own_group(tmp_path: Path) -> None:
    m = _script()
    # set "b" reverses the relation; fitted on "a" alone it is decided wrongly
    rows = [_row(f"a:{i}", True, 1.2 + 0.1 * i) for i in range(5)]
    rows += [_row(f"a:u{i}", False, 0.4 + 0.1 * i) for i in range(5)]
    rows += [_row("b:1", True, 0.3), _row("b:u1", False, 1.9)]
    items = m.questions(rows)
    out = m.held_out(items, lambda q: q.gold, [0])
    assert out["b:1"] is False and out["b:u1"] is True
    path = tmp_path / "declines.json"
    path.write_text(json.dumps({"rows": rows}), encoding="utf-8")
    assert m.main(["--declines", str(path), "--out", str(tmp_path / "out.json")]) == 0
    written = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert written["validations"]["leave one set out"]["score alone"]["b"]["declined_answerable"] == 1
