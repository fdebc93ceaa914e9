"""Settings, each an environment variable.

The app copies Streamlit secrets of the same names into the environment at
start-up (``apply_overrides``), so ragcore itself never imports streamlit.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULTS: dict[str, str | None] = {
    "RAGCORE_HOME": ".ragcore",
    "RAGCORE_MODEL_DIR": None,
    "RAGCORE_RERANKER_DIR": None,
    "RAGCORE_MAX_UPLOAD_MB": "50",
    "RAGCORE_ISOLATION": "shared",
    "RAGCORE_LLM_MODEL": None,
    "RAGCORE_LLM_BASE_URL": None,  # a model server LiteLLM calls, e.g. http://127.0.0.1:11434 (no key on localhost)
    "RAGCORE_LLM_TIMEOUT_S": "30",  # seconds a model call may take
    "RAGCORE_SPEND_CAP_USD": "0.50",
    "RAGCORE_SESSION_QUOTA_MB": "200",  # isolation=session: storage per private collection
    "RAGCORE_SESSION_TTL_HOURS": "24",  # isolation=session: idle private collections expire
    "RAGCORE_OWNER_SECRET": None,  # signs browser owner tokens; unset: a random key kept in RAGCORE_HOME
    "RAGCORE_RESULTS_DIR": None,  # stored evaluation runs; unset: eval/results in the project
    "RAGCORE_MAX_QUESTION_CHARS": "1000",  # longer questions are refused with a message
}


def apply_overrides(values: Mapping[str, object]) -> None:
    """Copy ``RAGCORE_*`` and provider-key entries (e.g. Streamlit secrets) into
    the environment, without overwriting variables already set."""
    for key, value in values.items():
        if isinstance(value, (str, int, float)) and key.isupper() and key not in os.environ:
            os.environ[key] = str(value)


def get(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value == "":
        return DEFAULTS.get(name)
    return value


@dataclass(frozen=True)
class Settings:
    home: Path
    model_dir: Path | None
    reranker_dir: Path | None
    max_upload_mb: float
    isolation: str
    llm_model: str | None
    spend_cap_usd: float

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)


def settings() -> Settings:
    """Read the settings now (the environment may change between calls)."""
    isolation = (get("RAGCORE_ISOLATION") or "shared").lower()
    if isolation not in ("shared", "session"):
        raise ValueError(f"RAGCORE_ISOLATION must be 'shared' or 'session', not {isolation!r}")
    model_dir = get("RAGCORE_MODEL_DIR")
    reranker_dir = get("RAGCORE_RERANKER_DIR")
    return Settings(
        home=Path(get("RAGCORE_HOME") or ".ragcore"),
        model_dir=Path(model_dir) if model_dir else None,
        reranker_dir=Path(reranker_dir) if reranker_dir else None,
        max_upload_mb=float(get("RAGCORE_MAX_UPLOAD_MB") or 50),
        isolation=isolation,
        llm_model=get("RAGCORE_LLM_MODEL"),
        spend_cap_usd=float(get("RAGCORE_SPEND_CAP_USD") or 0.5),
    )
