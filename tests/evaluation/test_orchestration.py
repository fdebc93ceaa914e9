"""One orchestration for every run: the settings it records are the same
whoever asks (CLI, page, stored-run builder)."""

from __future__ import annotations

from ragcore.evaluation.goldset import load_goldset
from ragcore.evaluation.orchestration import run_goldset, versions
from ragcore.evaluation.run import ChunkingRun, Run

from .test_command import fake_build, gold_file

KEYS = {"python", "numpy", "scipy", "ragcore_commit", "ragcore_modified"}


def test_versions_name_the_code_that_runs() -> None:
    found = versions()
    assert set(found) == KEYS
    assert found["ragcore_commit"] is None or len(found["ragcore_commit"]) >= 7


def test_a_run_records_source_versions_index_and_scoring(tmp_path) -> None:
    calls: list = []
    build = fake_build(calls)
    gold = load_goldset(gold_file(tmp_path))
    run = run_goldset(
        gold,
        ["bm25", "dense"],
        source="mine.json",
        chunking="heading",
        seed=7,
        resamples=50,
        build=lambda chunking: build(gold.corpus, chunking, ["bm25", "dense"], gold.unit),
        extra_settings={"collection": "uploads"},
    )
    assert isinstance(run, Run)
    s = run.settings
    assert (s.source, s.gold, s.name, s.chunking, s.collection) == (
        "goldset",
        "mine.json",
        "mini",
        "heading",
        "uploads",
    )
    assert s.versions is not None and set(s.versions.to_json()) == KEYS
    assert (s.seed, s.resamples, s.unit, s.default_ranker) == (
        7,
        50,
        "passage",
        "bm25",
    )  # hybrid absent: the first ranker
    assert s.index == {"passages": 4}  # what the builder reported
    assert [c[1] for c in calls] == ["heading"]


def test_a_loaded_collection_records_no_chunking_and_compare_runs_each(tmp_path) -> None:
    calls: list = []
    build = fake_build(calls)
    gold = load_goldset(gold_file(tmp_path))

    def builder(chunking):
        return build(gold.corpus, chunking or "as stored", ["bm25"], gold.unit)

    loaded = run_goldset(gold, ["bm25"], source="g.json", chunking=None, resamples=20, build=builder)
    assert loaded.settings.chunking is None and "chunking" not in loaded.settings.to_json()
    compared = run_goldset(gold, ["bm25"], source="g.json", chunking="compare", resamples=20, build=builder)
    assert isinstance(compared, ChunkingRun)
    assert list(compared.chunkings) == ["heading", "sentence", "whole"]
    assert compared.settings.chunking == "compare" and compared.settings.versions is not None
    assert [c[1] for c in calls] == ["as stored", "heading", "sentence", "whole"]
