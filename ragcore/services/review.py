"""Model output under review: the AI log, spending, study items, the
accept/edit/reject decisions and the exports of accepted items."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from .. import errors
from ..answer.ailog import AiLog, CallRecord
from ..answer.calls import SpendTracker
from ..store import Library
from .common import DEFAULT_K, Completion, Mode

if TYPE_CHECKING:
    from ..answer.study import StudyItem
    from .asking import Asking

ExportFormat = Literal["markdown", "json"]
Decision = Literal["accepted", "edited", "rejected"]


def open_ai_log(library: Library, session: str | None = None) -> AiLog:
    """The AI log in ``library``, writing under ``session``."""
    return AiLog(library.connect(), session or "default")


class Review:
    """One library's AI log, read and written per session."""

    def __init__(self, library: Library, asking: Asking) -> None:
        self.library = library
        self.asking = asking

    def ai_log(self, session: str | None = None) -> AiLog:
        """The AI log in this library, writing under ``session``."""
        return open_ai_log(self.library, session)

    def spend_tracker(self, session: str | None = None) -> SpendTracker:
        """A spending cap for ``session`` (RAGCORE_SPEND_CAP_USD), seeded with
        what the AI log says the session has already spent."""
        return SpendTracker.from_settings(spent_usd=self.ai_log(session).spent(session or "default"))

    def study(
        self,
        collection: str,
        topic: str,
        *,
        session: str | None = None,
        spend: SpendTracker | None = None,
        mode: Mode = "hybrid",
        k: int = DEFAULT_K,
        env: Mapping[str, str] | None = None,
        completion: Completion | None = None,
    ) -> list[StudyItem]:
        """Study items on ``topic`` written by the model from the passages
        retrieved for it, each checked. Raises ``RagcoreError`` with the reason
        when no model is configured or the call fails."""
        from ..answer.models import explain_no_model, find_model
        from ..answer.study import generate_study_items

        topic = topic.strip()
        if not topic:
            raise errors.RagcoreError("type a topic first")
        env = env if env is not None else os.environ
        model = find_model(env)
        if model is None:
            raise errors.RagcoreError(f"study items need a model: {explain_no_model(env)}")
        hits, _ = self.asking.search(collection, topic, mode, k)
        return generate_study_items(
            topic,
            hits,
            config=model,
            spend=spend if spend is not None else self.spend_tracker(session),
            log=self.ai_log(session),
            completion=completion,
        )

    def review(
        self,
        session: str | None,
        call_id: int,
        item_ref: str,
        decision: Decision,
        edited_text: str | None = None,
    ) -> None:
        """Record accept / edit / reject of one item of a logged call of this session."""
        self._own_call(session, call_id).record_review(call_id, item_ref, decision, edited_text)

    def decisions(self, session: str | None, call_id: int) -> dict[str, str]:
        return self._own_call(session, call_id).decisions(call_id)

    def _own_call(self, session: str | None, call_id: int) -> AiLog:
        """The AI log of ``session``, after checking the call is the session's own."""
        log = self.ai_log(session)
        if log.call(call_id).session != (session or "default"):
            raise errors.LibraryError(f"no AI call with id {call_id} in this session's log")
        return log

    def ai_calls(self, session: str | None) -> list[CallRecord]:
        return self.ai_log(session).calls(session or "default")

    def export_accepted(self, session: str | None, fmt: ExportFormat = "markdown") -> str:
        """The session's accepted (and edited) items as Markdown or JSON."""
        from ..answer.export import export_json, export_markdown

        items = self.ai_log(session).accepted_items(session or "default")
        if fmt == "json":
            return export_json(items)
        if fmt == "markdown":
            return export_markdown(items)
        raise ValueError(f"format must be 'markdown' or 'json', not {fmt!r}")
