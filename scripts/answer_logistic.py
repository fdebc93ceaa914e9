"""An answerability decision from several signals at once, cross-validated.

    python scripts/answer_logistic.py [--declines FILE] [--out FILE]

Reads what the decision to answer sees (``scripts/answer_declines.py``'s
output, ``eval/results/answer-declines.json``: per part, the best unit's
score at the top 10 and the top 20, its sentence similarity and topic-word
coverage, the highest similarity of any unit, the best passage's dense
score) and asks whether a logistic model over all six, fitted on some gold
sets or question types, declines better on the others than the best
unit's score alone. Both are fitted and cut the same way on the training
questions, so the comparison is like for like.

Fixed before the run (docs/decisions.md section 7, session 10):

- *model*: logistic regression on the six standardised features, L2
  penalty 1.0 (Newton steps), label "answerable"; a question is answered
  when any of its parts is (the product's rule), so it gets the highest
  probability of its parts; parts the name rule declines (a name no
  document mentions) are declined whatever the model says;
- *cut*: the probability that maximises abstention - 2 x wrongly declined
  on the training questions (the trade the issue states: its goals are
  <= 0.05 declined against >= 0.80 abstention);
- *validations*: leave one gold set out (documents the model never saw)
  and leave one question type out; a training fold with one class only
  (the unanswerable type held out) answers every question;
- *the same with the score alone* (one feature), the baseline.

A simulation over the diagnostic's features, not the product's answer:
the product also reads a name's anchor, the disagreement a question points
at and the risk reading, so the score-alone figures here differ from the
stored run. It chooses nothing for the product; it says whether the
signals the extractive answer has separate the two classes held out.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FEATURES = ("best", "best_similarity", "best_coverage", "max_similarity", "dense_top", "deeper_best")
L2 = 1.0
NEWTON_STEPS = 50
DECLINE_WEIGHT = 2.0  # the cut's objective: abstention - 2 x wrongly declined


@dataclass(frozen=True)
class Question:
    """One gold question: its set, type, label, and one feature row per part
    the name rule leaves (none: the name rule declines it)."""

    id: str
    gold: str
    type: str
    answerable: bool
    parts: np.ndarray  # shape (parts, features)


def _row(r: dict) -> list[float]:
    t, d = r["top10"], r["deeper"]
    values = {**t, "dense_top": r["dense_top"], "deeper_best": d["best"]}
    return [float(values[f] or 0.0) for f in FEATURES]


def questions(rows: Sequence[dict]) -> list[Question]:
    by_id: dict[str, list[dict]] = {}
    for r in rows:
        by_id.setdefault(r["id"], []).append(r)
    out = []
    for qid, parts in by_id.items():
        live = [
            _row(r) for r in parts if not r["unknown_names"] and r["top10"] and r["top10"]["best"] is not None
        ]
        first = parts[0]
        shape = np.asarray(live, dtype=float).reshape(-1, len(FEATURES))
        out.append(Question(qid, qid.split(":", 1)[0], first["type"], bool(first["answerable"]), shape))
    return out


Model = Callable[[np.ndarray], np.ndarray]


def fit(x: np.ndarray, y: np.ndarray) -> Model:
    """L2-penalised logistic regression by Newton's method on standardised features."""
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.c_[np.ones(len(x)), (x - mu) / sd]
    w = np.zeros(z.shape[1])
    penalty = L2 * np.diag(np.r_[0.0, np.ones(z.shape[1] - 1)])  # the intercept is not penalised
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-z @ w))
        grad = z.T @ (p - y) + penalty @ w
        hess = z.T @ (z * (p * (1 - p))[:, None]) + penalty
        w -= np.linalg.solve(hess, grad)
    return lambda rows: 1.0 / (1.0 + np.exp(-np.c_[np.ones(len(rows)), (rows - mu) / sd] @ w))


def question_probability(model: Model, q: Question, cols: Sequence[int]) -> float:
    """The highest part's probability; -1 when the name rule declines every part."""
    return float(model(q.parts[:, cols]).max()) if len(q.parts) else -1.0


def cut_objective(probs: np.ndarray, labels: np.ndarray, cut: float) -> float:
    answered = probs >= cut
    pos, neg = labels, ~labels
    declined = (~answered & pos).sum() / max(1, pos.sum())
    abstained = (~answered & neg).sum() / max(1, neg.sum())
    return float(abstained - DECLINE_WEIGHT * declined)


def train(items: Sequence[Question], cols: Sequence[int]) -> Callable[[Question], bool]:
    """The decision fitted on ``items``: answer when the probability reaches the chosen cut."""
    labels = np.array([q.answerable for q in items])
    if labels.all() or not labels.any():
        return lambda q: len(q.parts) > 0  # one class: nothing to separate, answer what the name rule leaves
    x = np.vstack([q.parts[:, cols] for q in items if len(q.parts)])
    y = np.concatenate([np.full(len(q.parts), float(q.answerable)) for q in items if len(q.parts)])
    model = fit(x, y)
    probs = np.array([question_probability(model, q, cols) for q in items])
    cut = max(np.unique(probs[probs >= 0]), key=lambda c: cut_objective(probs, labels, c))
    return lambda q: bool(question_probability(model, q, cols) >= cut)


def held_out(
    items: Sequence[Question], key: Callable[[Question], str], cols: Sequence[int]
) -> dict[str, bool]:
    """Each question's decision (answered or not) by the model fitted without its group."""
    out: dict[str, bool] = {}
    for group in sorted({key(q) for q in items}):
        decide = train([q for q in items if key(q) != group], cols)
        out |= {q.id: decide(q) for q in items if key(q) == group}
    return out


def per_set(items: Sequence[Question], answered: dict[str, bool]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for g in sorted({q.gold for q in items}):
        qs = [q for q in items if q.gold == g]
        pos = [q for q in qs if q.answerable]
        neg = [q for q in qs if not q.answerable]
        out[g] = {
            "declined_answerable": sum(not answered[q.id] for q in pos),
            "answerable": len(pos),
            "declined_unanswerable": sum(not answered[q.id] for q in neg),
            "unanswerable": len(neg),
        }
    return out


def _line(name: str, sets: dict[str, dict]) -> str:
    return f"{name:44} " + "; ".join(
        f"{g} {s['declined_answerable']}/{s['answerable']} declined, {s['declined_unanswerable']}/{s['unanswerable']} abstained"
        for g, s in sets.items()
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--declines", type=Path, default=ROOT / "eval" / "results" / "answer-declines.json")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    items = questions(json.loads(args.declines.read_text(encoding="utf-8"))["rows"])
    models = {"score alone": [0], "logistic, six signals": list(range(len(FEATURES)))}
    groupings: dict[str, Callable[[Question], str]] = {
        "leave one set out": lambda q: q.gold,
        "leave one type out": lambda q: q.type,
    }
    result: dict = {
        "kind": "answer-logistic",  # a study, not a run
        "declines": str(
            args.declines.relative_to(ROOT) if args.declines.is_relative_to(ROOT) else args.declines
        ),
        "features": list(FEATURES),
        "l2": L2,
        "cut_objective": f"abstention - {DECLINE_WEIGHT:g} x wrongly declined on the training questions",
        "validations": {},
    }
    for vname, key in groupings.items():
        for mname, cols in models.items():
            sets = per_set(items, held_out(items, key, cols))
            result["validations"].setdefault(vname, {})[mname] = sets
            print(_line(f"{vname}, {mname}:", sets))
    # In-sample on each set alone (fitted and cut on the set it is scored on):
    # whether the signals separate the classes at all, not a choice.
    for mname, cols in models.items():
        sets = {}
        for g in sorted({q.gold for q in items}):
            qs = [q for q in items if q.gold == g]
            decide = train(qs, cols)
            sets |= per_set(qs, {q.id: decide(q) for q in qs})
        result.setdefault("in_sample_per_set", {})[mname] = sets
        print(_line(f"in-sample per set, {mname}:", sets))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
