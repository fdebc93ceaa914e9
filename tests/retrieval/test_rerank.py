"""The optional reranker: fallback states, and loading + ordering with a tiny ONNX cross-encoder."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from tiny_cross_encoder import build_tiny_cross_encoder

from ragcore.retrieval import rerank
from ragcore.retrieval.rerank import Reranker, get_reranker


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-ce"))


@pytest.fixture(scope="module")
def tiny_reranker(tiny_model: Path) -> Reranker:
    reranker = Reranker(tiny_model)
    assert reranker.wait(timeout=60) == "ready"
    return reranker


def test_none_configured_keeps_fused_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAGCORE_RERANKER_DIR", raising=False)
    reranker = Reranker.from_settings()
    assert reranker.status == "none configured" and not reranker.ready
    assert reranker.rerank("cat", ["cat", "dog"]) is None
    assert reranker.wait() == "none configured"


def test_missing_folder_fails_with_reason(tmp_path: Path) -> None:
    reranker = Reranker(tmp_path / "no-model-here")
    status = reranker.wait(timeout=30)
    assert status.startswith("failed: ") and "no-model-here" in status
    assert "neither a folder nor a cross-encoder name" in status
    assert reranker.rerank("cat", ["cat"]) is None


def test_incomplete_folder_names_missing_files(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text("{}")
    status = Reranker(tmp_path).wait(timeout=30)
    assert status.startswith("failed: ")
    assert "model.onnx (or onnx/model.onnx)" in status and "tokenizer_config.json" in status
    assert "tokenizer.json," not in status  # present files are not reported missing


def test_corrupt_model_fails(tmp_path: Path, tiny_model: Path) -> None:
    folder = tmp_path / "corrupt"
    folder.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (folder / name).write_bytes((tiny_model / name).read_bytes())
    (folder / "model.onnx").write_bytes(b"not an onnx file")
    reranker = Reranker(folder)
    assert reranker.wait(timeout=30).startswith("failed: ")
    assert reranker.rerank("cat", ["cat"]) is None


def test_loading_state_until_ready(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real_loader = rerank.load_cross_encoder

    def slow_loader(target: str, threads: int | None = None) -> object:
        assert release.wait(timeout=30)
        return real_loader(target, threads)

    monkeypatch.setattr(rerank, "load_cross_encoder", slow_loader)
    reranker = Reranker(tiny_model)
    assert reranker.status == "loading"
    assert reranker.rerank("cat", ["cat", "dog"]) is None  # callers keep the fused order meanwhile
    release.set()
    assert reranker.wait(timeout=60) == "ready"
    assert reranker.rerank("cat", ["dog", "cat"]) == [0.0, 1.0]
    assert reranker.load_seconds is not None and reranker.load_seconds > 0


def test_ordering_follows_the_cross_encoder(tiny_reranker: Reranker) -> None:
    texts = ["dog fish", "cat garden rain", "the sun", "cat cat garden"]
    scores = tiny_reranker.rerank("cat in the garden", texts)
    assert scores == [0.0, 2.0, 1.0, 3.0]  # shared-word pairs: none; cat+garden; the; cat x2 + garden
    order = sorted(range(len(texts)), key=lambda i: -scores[i])
    assert order == [3, 1, 2, 0]


def test_scores_depend_on_the_query(tiny_reranker: Reranker) -> None:
    texts = ["tax filing", "rain on the garden"]
    by_tax = tiny_reranker.rerank("tax filing", texts)
    by_rain = tiny_reranker.rerank("rain garden", texts)
    assert by_tax is not None and by_rain is not None
    assert by_tax[0] > by_tax[1] and by_rain[1] > by_rain[0]


def test_rerank_input_checks(tiny_reranker: Reranker) -> None:
    assert tiny_reranker.rerank("cat", []) == []
    with pytest.raises(TypeError, match="not one string"):
        tiny_reranker.rerank("cat", "cat")


def test_hugging_face_layout_loads(tmp_path: Path) -> None:
    folder = build_tiny_cross_encoder(tmp_path / "hf", model_file="onnx/model.onnx")
    reranker = Reranker(folder, background=False)
    assert reranker.status == "ready"
    assert reranker.rerank("sun", ["sun sun", "rain"]) == [2.0, 0.0]


def test_scoring_failure_marks_failed(tiny_model: Path) -> None:
    reranker = Reranker(tiny_model, background=False)

    class Broken:
        def rerank(self, *args: object, **kwargs: object) -> list[float]:
            raise RuntimeError("session lost")

    reranker._encoder = Broken()
    assert reranker.rerank("cat", ["cat"]) is None
    assert reranker.status.startswith("failed: ") and "session lost" in reranker.status


def test_get_reranker_follows_setting(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rerank, "_RERANKERS", {})
    monkeypatch.setenv("RAGCORE_RERANKER_DIR", str(tiny_model))
    first = get_reranker()
    assert get_reranker() is first and first.wait(timeout=60) == "ready"
    monkeypatch.delenv("RAGCORE_RERANKER_DIR")
    assert get_reranker().status == "none configured"
