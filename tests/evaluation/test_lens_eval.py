"""Lens gold files and their scoring (docs/lens-gold-format.md)."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest

from ragcore.documents import load_path
from ragcore.errors import RagcoreError
from ragcore.evaluation import lens_eval
from ragcore.evaluation.lens_eval import evaluate_lens_gold, load_lens_gold, match_one_to_one, normalise_unit

ROOT = Path(__file__).resolve().parents[2]
GOLD_DIR = ROOT / "eval" / "lens"


def shared_folder(relative: str) -> Path:
    """A folder under ../shared (or under $RAGCORE_SHARED_DIR); skipped when
    absent, but a failure when CI=true, where ../shared must be present."""
    base = Path(os.environ.get("RAGCORE_SHARED_DIR") or ROOT / ".." / "shared")
    folder = base / relative
    if not folder.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{folder} is missing under CI=true")
        pytest.skip(f"{folder} not found: this test needs ../shared")
    return folder.resolve()


@pytest.mark.parametrize(
    ("written", "normal"),
    [
        ("per GB per month", "gb/month"),
        ("GB/mo", "gb/month"),
        ("/ GB / month", "gb/month"),
        ("per seat per month", "user/month"),
        ("user/month", "user/month"),
        ("a month", "month"),
        ("per 1,000 requests", "1000 request"),
        ("10000 call", "10000 call"),
        ("per 100k pageviews", "100000 pageview"),
        ("per 1 million requests", "1000000 request"),
        ("per million requests", "1000000 request"),
        ("1000000 request", "1000000 request"),
        ("annually", "year"),
        ("one-time", None),
        (None, None),
    ],
)
def test_units_are_compared_in_one_written_form(written: str | None, normal: str | None) -> None:
    assert normalise_unit(written) == normal


def test_units_that_differ_stay_different() -> None:
    assert normalise_unit("GB/month") != normalise_unit("GB/minute")
    assert normalise_unit("month") != normalise_unit("user/month")


def test_matching_is_one_to_one_and_serves_scarce_gold_first() -> None:
    # found 0 fits gold 0 and 1; found 1 fits only gold 0: both must be matched
    fits = {(0, 0), (0, 1), (1, 0)}
    taken = match_one_to_one([0, 1], [0, 1], lambda f, g: (f, g) in fits)
    assert sorted(taken.items()) == [(0, 1), (1, 0)]


def _write(tmp_path: Path, gold: dict) -> Path:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(gold), encoding="utf-8")
    return path


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "prices.md").write_text(
        "# Prices\n\nThe Basic plan is $10/month.\n\nThe Basic plan is $12/month.\n", encoding="utf-8"
    )
    (folder / "sla.md").write_text("# SLA\n\nWe guarantee 99.9% uptime.\n", encoding="utf-8")
    (folder / "terms.md").write_text(
        "# Terms\n\nNote.\n\nWe make no guarantees about uptime.\n", encoding="utf-8"
    )
    return folder


def test_scores_a_small_folder_by_amount_unit_document_and_line(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    gold = {
        "format": "ragcore-lens-gold/1",
        "name": "t",
        "corpus": str(folder),
        "money": {
            "documents": ["prices.md"],
            "figures": [
                {"id": "a", "amount": 10, "unit": "month", "doc": "prices.md", "line": 3},
                # wrong unit on purpose: must not match
                {"id": "b", "amount": 12, "unit": "year", "doc": "prices.md", "line": 5},
            ],
            "relations": [{"a": "a", "b": "b", "relation": "conflict"}],
        },
        "risk": {
            "documents": ["sla.md", "terms.md"],
            "findings": [
                {"id": "r1", "doc": "sla.md", "line": 3, "negated": False},
                {"id": "r2", "doc": "terms.md", "line": 5, "negated": True},
            ],
            "contradictions": [{"a": "r1", "b": "r2"}],
        },
    }
    report = evaluate_lens_gold(_write(tmp_path, gold), folder)
    figures = report["money"]["figures"]
    assert (figures["expected"], figures["found"], figures["matched"]) == (2, 2, 1)
    assert figures["precision"] == 0.5 and figures["recall"] == 0.5
    assert report["money"]["relations"]["matched"] == 0  # one end has the wrong unit
    assert report["money"]["documents_read"] == 1
    assert report["risk"]["findings"]["recall"] == 1.0
    assert report["risk"]["contradictions"]["recall"] == 1.0


def test_nothing_to_score_is_reported_as_null_not_as_perfect(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    gold = {
        "format": "ragcore-lens-gold/1",
        "name": "t",
        "corpus": str(folder),
        "money": {"documents": ["terms.md"], "figures": [], "relations": []},
    }
    relations = evaluate_lens_gold(_write(tmp_path, gold), folder)["money"]["relations"]
    assert relations["precision"] is None and relations["recall"] is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/1"}, "not a lens gold file"),
        (
            {"money": {"figures": [{"id": "a", "amount": 1, "unit": None, "doc": "x", "line": 1}] * 2}},
            "not unique",
        ),
        ({"risk": {"findings": [], "contradictions": [{"a": "x", "b": "y"}]}}, "unknown id"),
        (
            {"money": {"figures": [{"id": "a", "amount": -1, "unit": None, "doc": "x", "line": 1}]}},
            "not a lens",
        ),
    ],
)
def test_bad_gold_files_get_a_specific_message(tmp_path: Path, change: dict, message: str) -> None:
    gold = {"format": "ragcore-lens-gold/1", "name": "t", "corpus": "corpus/demo", **change}
    with pytest.raises(RagcoreError, match=message):
        load_lens_gold(_write(tmp_path, gold))


def test_missing_documents_are_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    gold = {
        "format": "ragcore-lens-gold/1",
        "name": "t",
        "corpus": str(folder),
        "risk": {"documents": ["nope.md"], "findings": []},
    }
    with pytest.raises(RagcoreError, match=r"nope\.md"):
        evaluate_lens_gold(_write(tmp_path, gold), folder)


def test_cli_prints_the_report_as_json(tmp_path: Path) -> None:
    from ragcore.cli import main

    folder = _folder(tmp_path)
    gold = {
        "format": "ragcore-lens-gold/1",
        "name": "t",
        "corpus": str(folder),
        "risk": {
            "documents": ["terms.md"],
            "findings": [{"id": "r", "doc": "terms.md", "line": 3, "negated": False}],
        },
    }
    path = _write(tmp_path, gold)
    out = io.StringIO()
    assert lens_eval.run_command(path, folder, True, out) == 0
    assert json.loads(out.getvalue())["risk"]["findings"]["expected"] == 1
    assert main(["eval", "--lens-gold", str(tmp_path / "missing.json")]) == 1


def _check_lines(gold_path: Path, folder: Path) -> None:
    """Every gold figure's line holds its amount as written; every finding's
    line exists. Guards the gold file against line-number slips."""
    gold = load_lens_gold(gold_path)
    cache: dict[str, list[str]] = {}

    def line(doc: str, n: int) -> str:
        if doc not in cache:
            cache[doc] = load_path(folder / doc, doc).text.split("\n")
        return cache[doc][n - 1]

    for f in gold.money.figures if gold.money else []:
        text = line(f.doc, f.line).replace(",", "")
        forms = {f"{f.amount:g}", f"{f.amount:.2f}", f"{f.amount / 1e6:g}M", f"{f.amount / 1e6:.1f}M"}
        forms |= {f"{f.amount / scale:g}" for scale in (1e3, 1e6, 1e9) if f.amount >= scale / 10}
        # seven digits in thousands ("$ 3,208,323" under "(in thousands)"): :g would round them
        forms |= {
            f"{f.amount / scale:.0f}" for scale in (1e3, 1e6) if f.amount >= scale and f.amount % scale == 0
        }
        assert any(form in text for form in forms), f"{f.id}: {f.amount:g} not on {f.doc}:{f.line}"
    for r in gold.risk.findings if gold.risk else []:
        assert line(r.doc, r.line).strip(), f"{r.id}: {r.doc}:{r.line} is blank"


def test_demo_gold_names_real_lines_and_meets_the_minimum_sizes() -> None:
    path = GOLD_DIR / "demo.lens.json"
    gold = load_lens_gold(path)
    assert gold.money is not None and gold.risk is not None
    assert len(gold.money.figures) >= 40 and len(gold.money.relations) >= 8
    assert len(gold.risk.findings) >= 20 and len(gold.risk.contradictions) >= 4
    _check_lines(path, ROOT / gold.corpus)


@pytest.mark.parametrize(
    ("name", "folder"),
    [
        ("shared-pricing.lens.json", "documents"),
        ("shared-policies.lens.json", "documents/basecamp-policies"),
        ("heldout-lyft.lens.json", "documents"),
        ("heldout-lyft-results.lens.json", "documents"),
        ("heldout-uber-segments.lens.json", "documents"),
        ("heldout-lyft-cashflow.lens.json", "documents"),
        ("heldout-dpa-risk.lens.json", "documents/basecamp-policies"),
        ("heldout-uber-liquidity.lens.json", "documents"),
        ("heldout-statements.lens.json", "documents"),
        ("heldout-unseen-risk.lens.json", "documents"),
        ("heldout-notes-stats.lens.json", "documents"),
        ("heldout-uber-risk.lens.json", "documents"),
        ("heldout-lyft-license-risk.lens.json", "documents"),
        ("heldout-lyft-separation-risk.lens.json", "documents"),
        ("heldout-uber-credit-risk.lens.json", "documents"),
    ],
)
def test_shared_gold_files_name_real_lines(name: str, folder: str) -> None:
    _check_lines(GOLD_DIR / name, shared_folder(folder))


def test_line_spans_limit_what_is_read_and_scored(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    gold = {
        "format": "ragcore-lens-gold/1",
        "name": "t",
        "corpus": str(folder),
        "money": {
            # only line 3 of prices.md is scored: the $12 on line 5 is neither
            # expected nor counted as found, and no pair reaches outside the span
            "documents": [{"name": "prices.md", "lines": [[1, 3]]}],
            "figures": [{"id": "a", "amount": 10, "unit": "month", "doc": "prices.md", "line": 3}],
        },
    }
    report = evaluate_lens_gold(_write(tmp_path, gold), folder)["money"]
    assert (report["figures"]["found"], report["figures"]["matched"]) == (1, 1)
    assert report["relations"]["found"] == 0


def test_a_line_span_must_name_lines(tmp_path: Path) -> None:
    gold = {
        "format": "ragcore-lens-gold/1",
        "name": "t",
        "corpus": "corpus/demo",
        "money": {"documents": [{"name": "x.md", "lines": []}], "figures": []},
    }
    with pytest.raises(RagcoreError, match="not a lens gold file"):
        load_lens_gold(_write(tmp_path, gold))


def test_shared_gold_files_meet_the_minimum_sizes() -> None:
    pricing = load_lens_gold(GOLD_DIR / "shared-pricing.lens.json").money
    policies = load_lens_gold(GOLD_DIR / "shared-policies.lens.json").risk
    assert pricing is not None and policies is not None
    assert len(pricing.figures) >= 40 and len(pricing.relations) >= 8
    assert len(policies.findings) >= 20


def test_session6_held_out_files_meet_the_minimum_sizes() -> None:
    statements = load_lens_gold(GOLD_DIR / "heldout-statements.lens.json").money
    unseen = load_lens_gold(GOLD_DIR / "heldout-unseen-risk.lens.json").risk
    assert statements is not None and unseen is not None
    assert len(statements.figures) >= 40 and len(statements.relations) >= 8
    assert len(unseen.findings) >= 20


def test_session7_held_out_money_file_meets_the_minimum_sizes() -> None:
    notes = load_lens_gold(GOLD_DIR / "heldout-notes-stats.lens.json").money
    assert notes is not None
    assert len(notes.figures) >= 40 and len(notes.relations) >= 8


def test_session7_held_out_risk_file_meets_the_minimum_findings() -> None:
    uber = load_lens_gold(GOLD_DIR / "heldout-uber-risk.lens.json").risk
    assert uber is not None and len(uber.findings) >= 20


def test_session8_held_out_risk_file_meets_the_minimum_findings() -> None:
    lyft = load_lens_gold(GOLD_DIR / "heldout-lyft-license-risk.lens.json").risk
    assert lyft is not None and len(lyft.findings) >= 20


def test_shared_policies_gold_has_four_contradictions() -> None:
    # 5 since session 9: the three uptime pairs and the HEY page's 60-day deletion against the
    # terms' and the cancellation policy's 30 days (a later time against a deadline, same act)
    policies = load_lens_gold(GOLD_DIR / "shared-policies.lens.json").risk
    assert policies is not None and len(policies.contradictions) >= 4


# The issue's 4 contradictions per risk file are asked of the files it names (the demo and the
# policies; the test above). A held-out risk file is an extra measurement: its documents may hold
# none, but its gold must say it read for them, so an empty list is a judgement, never a skip.
HELD_OUT_RISK = sorted(p.name for p in GOLD_DIR.glob("heldout-*.lens.json") if "risk" in p.name)


@pytest.mark.parametrize("name", HELD_OUT_RISK)
def test_a_held_out_risk_file_with_no_contradiction_says_it_read_for_them(name: str) -> None:
    gold = load_lens_gold(GOLD_DIR / name)
    assert gold.risk is not None
    if not gold.risk.contradictions:
        assert re.search(r"contradictions: none|no contradiction pairs", gold.written, re.IGNORECASE), name


def test_the_lens_meets_the_issue_goals_on_the_policies_file() -> None:
    # issue #15's done-when for a risk file: precision and recall >= 0.90 for findings and >= 0.85
    # for contradictions, measured the way `eval --lens-gold` measures them
    folder = shared_folder("documents/basecamp-policies")
    risk = evaluate_lens_gold(GOLD_DIR / "shared-policies.lens.json", folder)["risk"]
    assert risk["findings"]["precision"] >= 0.90 and risk["findings"]["recall"] >= 0.90, risk["findings"]
    assert risk["contradictions"]["expected"] >= 4
    assert risk["contradictions"]["precision"] >= 0.85 and risk["contradictions"]["recall"] >= 0.85
