"""The library's AI log: every model call, and every review of what it wrote.

Two tables in the library's SQLite file, created here when missing:

- ``ai_calls``: one row per model call (or call refused by the spending cap):
  time, session, kind ("answer" | "study"), model, lens, the ids of the
  passages sent, prompt and response sizes, tokens and cost where known, the
  outcome, and the items the call produced (JSON, ``ref -> item``), which is
  what a reviewer accepts and what export writes.
- ``ai_reviews``: decisions ("accepted" | "edited" | "rejected") against a
  call and one of its items; the latest decision for an item wins.

No API key is ever passed in, so none can be written; free-text details are
still passed through ``redact`` because provider error messages sometimes
echo part of a key.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from ragcore.errors import LibraryError

DECISIONS = ("accepted", "edited", "rejected")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ai_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts TEXT NOT NULL,
    session TEXT NOT NULL,
    kind TEXT NOT NULL,
    model TEXT NOT NULL,
    lens TEXT,
    passage_ids TEXT NOT NULL,
    question TEXT NOT NULL DEFAULT '',
    prompt_chars INTEGER NOT NULL,
    response_chars INTEGER NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    cost_usd REAL,
    cost_source TEXT,
    duration_ms REAL,
    outcome TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    items TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS ai_calls_session ON ai_calls(session);
CREATE TABLE IF NOT EXISTS ai_reviews (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    call_id INTEGER NOT NULL REFERENCES ai_calls(id),
    item_ref TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('accepted', 'edited', 'rejected')),
    edited_text TEXT,
    edited_item TEXT,
    ts TEXT NOT NULL,
    session TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ai_reviews_item ON ai_reviews(call_id, item_ref);
"""

# Shapes of common provider keys (OpenAI/Anthropic "sk-", Groq "gsk_", Google
# "AIza", xAI "xai-"), redacted from any free text before it is stored.
_KEY_SHAPES = re.compile(r"\b(?:sk-|sk_|gsk_|xai-|AIza)[A-Za-z0-9_\-]{8,}")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with the given secrets and anything shaped like an API key masked."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return _KEY_SHAPES.sub("[redacted]", text)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class CallRecord:
    id: int
    ts: str
    session: str
    kind: str
    model: str
    lens: str | None
    passage_ids: tuple[str, ...]
    question: str
    prompt_chars: int
    response_chars: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    cost_source: str | None
    duration_ms: float | None
    outcome: str
    detail: str
    items: dict[str, dict]


@dataclass(frozen=True)
class ReviewedItem:
    """An item whose latest decision is accepted or edited, ready to export."""

    call_id: int
    item_ref: str
    decision: str  # "accepted" | "edited"
    item: dict  # the item as the call produced it
    edited_text: str | None
    edited_item: dict | None
    model: str
    call_ts: str
    review_ts: str
    question: str


class AiLog:
    """The AI log on a library connection (tables created if missing).

    ``session`` tags every row written through this object, so a per-browser
    session can later see only its own calls.
    """

    def __init__(self, conn: sqlite3.Connection, session: str = "default") -> None:
        self.conn = conn
        self.session = session
        conn.executescript(_SCHEMA)

    def record_call(
        self,
        *,
        kind: str,
        model: str,
        passage_ids: Iterable[str],
        prompt_chars: int,
        response_chars: int,
        outcome: str,
        lens: str | None = None,
        question: str = "",
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        cost_usd: float | None = None,
        cost_source: str | None = None,
        duration_ms: float | None = None,
        detail: str = "",
        items: Mapping[str, Mapping] | None = None,
        session: str | None = None,
    ) -> int:
        """Write one call; return its id."""
        if kind not in ("answer", "study"):
            raise ValueError(f"kind must be 'answer' or 'study', not {kind!r}")
        cur = self.conn.execute(
            "INSERT INTO ai_calls (ts, session, kind, model, lens, passage_ids, question, prompt_chars,"
            " response_chars, prompt_tokens, completion_tokens, cost_usd, cost_source, duration_ms, outcome,"
            " detail, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                _now(),
                session or self.session,
                kind,
                model,
                lens,
                json.dumps(list(passage_ids)),
                question,
                int(prompt_chars),
                int(response_chars),
                prompt_tokens,
                completion_tokens,
                cost_usd,
                cost_source,
                duration_ms,
                outcome,
                redact(detail),
                json.dumps(dict(items or {})),
            ),
        )
        self._commit()
        return int(cur.lastrowid)

    def attach_items(self, call_id: int, items: Mapping[str, Mapping]) -> None:
        """Add or replace items of a call (when they are built after the call is logged)."""
        current = self.call(call_id).items
        current.update({k: dict(v) for k, v in items.items()})
        self.conn.execute("UPDATE ai_calls SET items = ? WHERE id = ?", (json.dumps(current), call_id))
        self._commit()

    def record_review(
        self,
        call_id: int,
        item_ref: str,
        decision: str,
        edited_text: str | None = None,
        *,
        edited_item: Mapping | None = None,
    ) -> int:
        """Record a decision on one item of a call; return the review id.

        "edited" needs ``edited_text`` (the new answer text) or ``edited_item``
        (a whole replacement item); the other decisions take neither.
        """
        if decision not in DECISIONS:
            raise ValueError(f"decision must be one of {', '.join(DECISIONS)}, not {decision!r}")
        call = self.call(call_id)
        if item_ref not in call.items:
            known = ", ".join(sorted(call.items)) or "none"
            raise LibraryError(f"call {call_id} has no item {item_ref!r} (its items: {known})")
        if decision == "edited" and edited_text is None and edited_item is None:
            raise ValueError("an 'edited' decision needs edited_text or edited_item")
        if decision != "edited" and (edited_text is not None or edited_item is not None):
            raise ValueError(f"a {decision!r} decision takes no edit; use 'edited'")
        cur = self.conn.execute(
            "INSERT INTO ai_reviews (call_id, item_ref, decision, edited_text, edited_item, ts, session)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                call_id,
                item_ref,
                decision,
                edited_text,
                None if edited_item is None else json.dumps(dict(edited_item)),
                _now(),
                self.session,
            ),
        )
        self._commit()
        return int(cur.lastrowid)

    def call(self, call_id: int) -> CallRecord:
        row = self.conn.execute(f"SELECT {_CALL_COLUMNS} FROM ai_calls WHERE id = ?", (call_id,)).fetchone()
        if row is None:
            raise LibraryError(f"no AI call with id {call_id} in the log")
        return _call_record(row)

    def calls(self, session: str | None = None) -> list[CallRecord]:
        """All calls, oldest first; only ``session``'s when given."""
        sql = f"SELECT {_CALL_COLUMNS} FROM ai_calls"
        args: tuple = ()
        if session is not None:
            sql += " WHERE session = ?"
            args = (session,)
        return [_call_record(r) for r in self.conn.execute(sql + " ORDER BY id", args)]

    def decisions(self, call_id: int) -> dict[str, str]:
        """Latest decision per item ref of one call."""
        rows = self.conn.execute(
            "SELECT item_ref, decision FROM ai_reviews WHERE call_id = ? ORDER BY id",
            (call_id,),
        ).fetchall()
        return {ref: decision for ref, decision in rows}

    def accepted_items(self, session: str | None = None) -> list[ReviewedItem]:
        """Items whose latest decision is accepted or edited (an edit is an
        acceptance with changes), in call then item order."""
        sql = (
            "SELECT r.call_id, r.item_ref, r.decision, r.edited_text, r.edited_item, r.ts,"
            " c.items, c.model, c.ts, c.question"
            " FROM ai_reviews r JOIN ai_calls c ON c.id = r.call_id"
            " WHERE r.id = (SELECT MAX(id) FROM ai_reviews r2"
            "               WHERE r2.call_id = r.call_id AND r2.item_ref = r.item_ref)"
            " AND r.decision IN ('accepted', 'edited')"
        )
        args: tuple = ()
        if session is not None:
            sql += " AND c.session = ?"
            args = (session,)
        out = []
        for (
            call_id,
            ref,
            decision,
            edited_text,
            edited_item,
            review_ts,
            items,
            model,
            call_ts,
            question,
        ) in self.conn.execute(sql, args):
            out.append(
                ReviewedItem(
                    call_id=call_id,
                    item_ref=ref,
                    decision=decision,
                    item=json.loads(items).get(ref, {}),
                    edited_text=edited_text,
                    edited_item=None if edited_item is None else json.loads(edited_item),
                    model=model,
                    call_ts=call_ts,
                    review_ts=review_ts,
                    question=question,
                )
            )
        return sorted(out, key=lambda r: (r.call_id, _natural(r.item_ref)))

    def spent(self, session: str | None = None) -> float:
        """Total logged cost in USD (of the session when given)."""
        sql = "SELECT COALESCE(SUM(cost_usd), 0) FROM ai_calls"
        args: tuple = ()
        if session is not None:
            sql += " WHERE session = ?"
            args = (session,)
        return float(self.conn.execute(sql, args).fetchone()[0])

    def _commit(self) -> None:
        # The library's connection is in autocommit mode; a plain one is not.
        if self.conn.in_transaction:
            self.conn.commit()


_CALL_COLUMNS = (
    "id, ts, session, kind, model, lens, passage_ids, question, prompt_chars, response_chars, prompt_tokens,"
    " completion_tokens, cost_usd, cost_source, duration_ms, outcome, detail, items"
)


def _natural(ref: str) -> tuple:
    # "item-2" before "item-10"
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", ref))


def _call_record(row: tuple) -> CallRecord:
    values = list(row)
    values[6] = tuple(json.loads(values[6]))
    values[17] = json.loads(values[17])
    return CallRecord(*values)
