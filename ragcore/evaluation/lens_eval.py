"""Lens gold files: precision and recall of the money and risk lenses.

A gold file (``docs/lens-gold-format.md``) lists, for one folder, the figures,
the conflicts and changes between them, the risk findings and the
contradictions that a reader finds in the whole folder. The lenses read every
passage of the scored documents (not a retrieved top k), and each found item
is matched one-to-one against the gold items by the rules in that document.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcore.chunking import chunk_document
from ragcore.corpus import document_files
from ragcore.documents import load_path
from ragcore.errors import RagcoreError
from ragcore.evaluation.lens_units import normalise_unit
from ragcore.lenses import Mention, money_lens, risk_lens
from ragcore.records import Hit, Passage

FORMAT = "ragcore-lens-gold/1"
REPO_ROOT = Path(__file__).resolve().parents[2]
Relation = Literal["conflict", "change"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GoldFigure(_Strict):
    id: str
    amount: float = Field(ge=0)
    unit: str | None
    currency: str = "USD"
    doc: str
    line: int = Field(ge=1)


class GoldRelation(_Strict):
    a: str
    b: str
    relation: Relation
    note: str = ""


class DocumentSpans(_Strict):
    """Part of one document: only passages overlapping ``lines`` are read and
    only items inside them are scored (for long documents)."""

    name: str
    lines: list[tuple[int, int]] = Field(min_length=1)


Documents = list[str | DocumentSpans]


class GoldFinding(_Strict):
    id: str
    doc: str
    line: int = Field(ge=1)
    negated: bool


class GoldContradiction(_Strict):
    a: str
    b: str
    note: str = ""


class MoneyGold(_Strict):
    documents: Documents | None = None
    figures: list[GoldFigure]
    relations: list[GoldRelation] = []


class RiskGold(_Strict):
    documents: Documents | None = None
    findings: list[GoldFinding]
    contradictions: list[GoldContradiction] = []


class LensGold(_Strict):
    format: Literal["ragcore-lens-gold/1"]
    name: str
    corpus: str
    written: str = ""
    money: MoneyGold | None = None
    risk: RiskGold | None = None


def load_lens_gold(path: Path) -> LensGold:
    """The gold file at ``path``, validated; ids must be unique and every pair
    must name known ids."""
    try:
        gold = LensGold.model_validate_json(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RagcoreError(f"{path}: cannot read the lens gold file ({exc.strerror or exc})") from exc
    except ValidationError as exc:
        raise RagcoreError(
            f"{path}: not a lens gold file ({exc.errors()[0]['msg']} at {exc.errors()[0]['loc']})"
        ) from exc
    for part, items, pairs in (
        ("money", gold.money.figures if gold.money else [], gold.money.relations if gold.money else []),
        ("risk", gold.risk.findings if gold.risk else [], gold.risk.contradictions if gold.risk else []),
    ):
        ids = [item.id for item in items]
        if len(set(ids)) != len(ids):
            raise RagcoreError(f"{path}: {part} ids are not unique")
        unknown = [p for p in pairs for x in (p.a, p.b) if x not in ids]
        if unknown:
            raise RagcoreError(f"{path}: {part} pair names an unknown id ({unknown[0].a}, {unknown[0].b})")
    return gold


def corpus_folder(gold: LensGold, override: Path | None = None) -> Path:
    """The folder a gold file scores: ``override``, else ``corpus`` relative to the repository."""
    folder = override if override is not None else REPO_ROOT / gold.corpus
    if not folder.is_dir():
        raise RagcoreError(f"{folder}: no such folder (the corpus of lens gold {gold.name!r})")
    return folder.resolve()


# --------------------------------------------------------------------------
# Reading the folder


Spans = dict[str, tuple[tuple[int, int], ...]]


def document_spans(documents: Documents | None) -> tuple[set[str] | None, Spans]:
    """The names a gold part scores (None: all) and the line spans of those
    named with spans."""
    if documents is None:
        return None, {}
    names = {d if isinstance(d, str) else d.name for d in documents}
    spans = {d.name: tuple(d.lines) for d in documents if isinstance(d, DocumentSpans)}
    return names, spans


def inside(spans: Spans, doc: str, first: int, last: int) -> bool:
    """True when lines ``first..last`` of ``doc`` overlap a scored span (any
    line of a document named without spans)."""
    if doc not in spans:
        return True
    return any(first <= hi and last >= lo for lo, hi in spans[doc])


def read_passages(folder: Path, documents: Documents | None) -> list[Passage]:
    """Every passage of the named documents of ``folder`` (all when None);
    of a document named with line spans, the passages overlapping them."""
    wanted, spans = document_spans(documents)
    passages: list[Passage] = []
    found: set[str] = set()
    for name, path in document_files(folder):
        if wanted is not None and name not in wanted:
            continue
        found.add(name)
        passages.extend(
            p for p in chunk_document(load_path(path, name)) if inside(spans, name, p.first_line, p.last_line)
        )
    missing = sorted((wanted or set()) - found)
    if missing:
        raise RagcoreError(
            f"{folder}: the lens gold names documents that are not there: {', '.join(missing)}"
        )
    return passages


def as_hits(passages: Iterable[Passage]) -> list[Hit]:
    """Passages in reading order as hits, so a lens reads all of them."""
    return [Hit(p, rank, 0.0, {}) for rank, p in enumerate(passages, 1)]


# --------------------------------------------------------------------------
# Scoring


@dataclass(frozen=True)
class Score:
    """Precision and recall of one part; None when there is nothing to score."""

    expected: int
    found: int
    matched_found: int
    matched_expected: int
    missed: tuple[str, ...] = ()
    extra: tuple[str, ...] = field(default=())

    @property
    def precision(self) -> float | None:
        return self.matched_found / self.found if self.found else (None if not self.expected else 0.0)

    @property
    def recall(self) -> float | None:
        return self.matched_expected / self.expected if self.expected else (None if not self.found else 0.0)

    def to_json(self) -> dict:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "expected": self.expected,
            "found": self.found,
            "matched": self.matched_expected,
            "missed": list(self.missed),
            "extra": list(self.extra),
        }


def match_one_to_one(
    found: Sequence[object], gold: Sequence[object], fits: Callable[[object, object], bool]
) -> dict[int, int]:
    """Greedy one-to-one matching: found index -> gold index. Gold items with
    fewer candidate matches are served first, so a mention that fits two gold
    entries does not take the only one another mention could fill."""
    candidates = {g: [f for f in range(len(found)) if fits(found[f], gold[g])] for g in range(len(gold))}
    taken: dict[int, int] = {}
    for g in sorted(candidates, key=lambda g: len(candidates[g])):
        for f in candidates[g]:
            if f not in taken:
                taken[f] = g
                break
    return taken


def _score(found_labels: list[str], gold_labels: list[str], taken: dict[int, int]) -> Score:
    matched_gold = set(taken.values())
    return Score(
        expected=len(gold_labels),
        found=len(found_labels),
        matched_found=len(taken),
        matched_expected=len(matched_gold),
        missed=tuple(g for i, g in enumerate(gold_labels) if i not in matched_gold),
        extra=tuple(f for i, f in enumerate(found_labels) if i not in taken),
    )


@dataclass(frozen=True)
class FoundFigure:
    amount: float
    currency: str
    unit: str | None
    doc: str
    first_line: int
    last_line: int

    def label(self) -> str:
        return f"{self.doc}:{self.first_line}-{self.last_line} {self.amount:g} {self.currency} / {self.unit}"


@dataclass(frozen=True)
class FoundFinding:
    doc: str
    first_line: int
    last_line: int
    negated: bool

    def label(self) -> str:
        return f"{self.doc}:{self.first_line}-{self.last_line} negated={self.negated}"


def _mention_unit(mention: Mention) -> str | None:
    """What a found mention is per: unit and period together ("GB/month")."""
    return mention.per


def _fits_figure(found: FoundFigure, gold: GoldFigure) -> bool:
    return (
        math.isclose(found.amount, gold.amount, rel_tol=1e-9, abs_tol=1e-12)
        and found.currency == gold.currency
        and normalise_unit(found.unit) == normalise_unit(gold.unit)
        and found.doc == gold.doc
        and found.first_line <= gold.line <= found.last_line
    )


def _fits_finding(found: FoundFinding, gold: GoldFinding) -> bool:
    return (
        found.doc == gold.doc
        and found.negated == gold.negated
        and found.first_line <= gold.line <= found.last_line
    )


def _found_figure(mention: Mention) -> FoundFigure:
    return FoundFigure(
        float(mention.amount),
        mention.currency,
        _mention_unit(mention),
        mention.doc,
        mention.first_line,
        mention.last_line,
    )


def score_money(gold: MoneyGold, hits: Sequence[Hit]) -> dict[str, Score]:
    """Figures and conflicts/changes of the money lens over ``hits``."""
    lens = money_lens(hits)
    spans = document_spans(gold.documents)[1]
    found = [
        _found_figure(m)
        for f in lens.figures
        for m in f.mentions
        if inside(spans, m.doc, m.first_line, m.last_line)
    ]
    figures = gold.figures
    taken = match_one_to_one(found, figures, _fits_figure)  # type: ignore[arg-type]
    figure_score = _score(
        [f.label() for f in found],
        [f"{g.id} {g.doc}:{g.line} {g.amount:g} / {g.unit}" for g in figures],
        taken,
    )

    pairs: dict[tuple, tuple[FoundFigure, FoundFigure, str]] = {}
    for conflict in lens.conflicts:
        relation = getattr(conflict, "relation", "conflict")
        ms = list(conflict.mentions)
        for i, a in enumerate(ms):
            for b in ms[i + 1 :]:
                scored = inside(spans, a.doc, a.first_line, a.last_line) and inside(
                    spans, b.doc, b.first_line, b.last_line
                )
                if scored and round(a.amount, 9) != round(b.amount, 9):
                    key = tuple(sorted(((a.doc, a.offset), (b.doc, b.offset))))
                    pairs.setdefault(key, (_found_figure(a), _found_figure(b), relation))
    by_id = {g.id: g for g in figures}
    gold_pairs = [(by_id[r.a], by_id[r.b], r.relation) for r in gold.relations]

    def fits_pair(f: tuple[FoundFigure, FoundFigure, str], g: tuple[GoldFigure, GoldFigure, str]) -> bool:
        if f[2] != g[2]:
            return False
        return (_fits_figure(f[0], g[0]) and _fits_figure(f[1], g[1])) or (
            _fits_figure(f[0], g[1]) and _fits_figure(f[1], g[0])
        )

    found_pairs = list(pairs.values())
    pair_taken = match_one_to_one(found_pairs, gold_pairs, fits_pair)  # type: ignore[arg-type]
    relation_score = _score(
        [f"{p[2]}: {p[0].label()} <> {p[1].label()}" for p in found_pairs],
        [f"{r.relation}: {r.a} <> {r.b}" for r in gold.relations],
        pair_taken,
    )
    return {"figures": figure_score, "relations": relation_score}


def score_risk(gold: RiskGold, hits: Sequence[Hit]) -> dict[str, Score]:
    """Findings and contradictions of the risk lens over ``hits``."""
    lens = risk_lens(hits)
    spans = document_spans(gold.documents)[1]
    records = [FoundFinding(f.doc, f.first_line, f.last_line, f.negated) for f in lens.findings]
    found = list(dict.fromkeys(r for r in records if inside(spans, r.doc, r.first_line, r.last_line)))
    taken = match_one_to_one(found, gold.findings, _fits_finding)  # type: ignore[arg-type]
    finding_score = _score(
        [f.label() for f in found],
        [f"{g.id} {g.doc}:{g.line} negated={g.negated}" for g in gold.findings],
        taken,
    )
    pairs = list(
        dict.fromkeys(
            tuple(sorted((records[i], records[j]), key=lambda r: r.label()))
            for i, j in lens.contradictions
            if all(inside(spans, r.doc, r.first_line, r.last_line) for r in (records[i], records[j]))
        )
    )
    by_id = {g.id: g for g in gold.findings}
    gold_pairs = [(by_id[c.a], by_id[c.b]) for c in gold.contradictions]

    def fits_pair(f: tuple[FoundFinding, FoundFinding], g: tuple[GoldFinding, GoldFinding]) -> bool:
        return (_fits_finding(f[0], g[0]) and _fits_finding(f[1], g[1])) or (
            _fits_finding(f[0], g[1]) and _fits_finding(f[1], g[0])
        )

    pair_taken = match_one_to_one(pairs, gold_pairs, fits_pair)  # type: ignore[arg-type]
    contradiction_score = _score(
        [f"{a.label()} <> {b.label()}" for a, b in pairs],
        [f"{c.a} <> {c.b}" for c in gold.contradictions],
        pair_taken,
    )
    return {"findings": finding_score, "contradictions": contradiction_score}


def evaluate_lens_gold(path: Path, corpus: Path | None = None) -> dict:
    """Score both lenses against the gold file at ``path``; a JSON-ready report."""
    gold = load_lens_gold(path)
    folder = corpus_folder(gold, corpus)
    report: dict = {"name": gold.name, "corpus": gold.corpus, "gold": str(path)}
    if gold.money is not None:
        passages = read_passages(folder, gold.money.documents)
        scores = score_money(gold.money, as_hits(passages))
        report["money"] = {
            "documents_read": len({p.doc for p in passages}),
            **{k: v.to_json() for k, v in scores.items()},
        }
    if gold.risk is not None:
        passages = read_passages(folder, gold.risk.documents)
        scores = score_risk(gold.risk, as_hits(passages))
        report["risk"] = {
            "documents_read": len({p.doc for p in passages}),
            **{k: v.to_json() for k, v in scores.items()},
        }
    return report


def _cell(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:5.3f}"


def format_report(report: dict) -> str:
    """The report as a small table, one row per scored part."""
    lines = [
        f"lens gold {report['name']} ({report['corpus']})",
        "part                      precision  recall  expected  found",
    ]
    for lens in ("money", "risk"):
        if lens not in report:
            continue
        for part, score in report[lens].items():
            if part == "documents_read":
                continue
            lines.append(
                f"{lens + ' ' + part:<26}{_cell(score['precision']):>9}  {_cell(score['recall']):>6}"
                f"  {score['expected']:>8}  {score['found']:>5}"
            )
        lines.append(f"{lens} documents read: {report[lens]['documents_read']}")
    return "\n".join(lines) + "\n"


def run_command(gold: Path, corpus: Path | None, as_json: bool, out: TextIO) -> int:
    """``eval --lens-gold FILE [--corpus DIR] [--json]``: print the report."""
    report = evaluate_lens_gold(gold, corpus)
    text = json.dumps(report, indent=1, ensure_ascii=False) + "\n" if as_json else format_report(report)
    out.write(text)
    return 0
