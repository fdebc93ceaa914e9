"""Which units answer one part of a question: its best unit and the further
units kept beside it (``choose``), with the settings that decide how many
(``Quoting``). Chosen by cross-validation (docs/decisions.md section 7); read
by ``extractive``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .relevance import Part, Scorer
from .units import Unit

# Further units are taken for a part while they score this share of its best.
KEEP_RATIO = 0.6
# Units scoring this share of a part's best may be the other side of a
# contradiction with a quoted one (the loosest keep ratio the study tried).
CANDIDATE_RATIO = 0.4
PER_PART = 5  # units one part may take (rows of one table count once)
# Whether a part's further units must also score its answer threshold (measured, off:
# scripts/answer_study.py --floor, docs/decisions.md section 7, session 12).
QUOTE_FLOOR = False
# Whether a part's further units must state a topic word its best unit states, when
# that one states any (measured: scripts/answer_study.py --subject, session 12).
SAME_SUBJECT = False
# Whether a part that names something quotes only units of documents naming it
# (measured: scripts/answer_study.py --anchored, docs/decisions.md section 7, session 13).
ANCHORED_QUOTES = False
MAX_ROWS = 5  # rows of one table one part may take


@dataclass(frozen=True)
class Quoting:
    """What a part quotes beside its best unit: further units while they score
    ``keep_ratio`` of the best, at most ``per_part`` (a table's rows count
    once), and with the measured rules that would quote fewer: ``floor`` (they
    must also score the answer threshold), ``same_subject`` (they must state a
    topic word the best states) and ``anchored`` (a part naming something
    quotes only documents naming it). Defaults are the shipped settings."""

    keep_ratio: float = KEEP_RATIO
    per_part: int = PER_PART
    floor: bool = QUOTE_FLOOR
    same_subject: bool = SAME_SUBJECT
    anchored: bool = ANCHORED_QUOTES


SHIPPED_QUOTING = Quoting()


def choose(
    units: Sequence[Unit],
    part: Part,
    scorer: Scorer,
    taken: set[int],
    min_score: float,
    quoting: Quoting = SHIPPED_QUOTING,
    anchored: Callable[[Unit], bool] | None = None,
) -> list[Unit]:
    """The units answering ``part`` (none taken yet): its best unit and the
    further ones ``quoting`` keeps, a table's rows together in the table's
    order; none when no unit's decision score reaches ``min_score``, or
    (given ``anchored``) none of those that do comes from a document naming
    what the part names."""
    ranked = sorted(
        (u for u in units if id(u) not in taken),
        key=lambda u: (-scorer.score(u, part), u.hit_rank, u.position),
    )
    reaching = [u for u in ranked if scorer.decision_score(u, part) >= min_score]
    if not reaching:
        return []
    if anchored is not None and not any(anchored(u) for u in reaching):
        return []  # what scores well comes from documents about something else
    if anchored is not None and quoting.anchored:
        ranked = [u for u in ranked if anchored(u)]
    return _in_table_order(_keep(ranked, part, scorer, min_score, quoting))


def _keep(
    ranked: Sequence[Unit], part: Part, scorer: Scorer, min_score: float, quoting: Quoting
) -> list[Unit]:
    """The best of ``ranked`` and the further units ``quoting`` keeps beside it."""
    best = scorer.score(ranked[0], part)
    keep = max(quoting.keep_ratio * best, min_score if quoting.floor else 0.0)
    subject = scorer.stated(ranked[0], part) if quoting.same_subject else frozenset()
    picked: list[Unit] = [ranked[0]]
    rows: dict[str, int] = {ranked[0].table: 1} if ranked[0].table else {}
    for u in ranked[1:]:
        if scorer.score(u, part) < keep:
            break
        if subject and not subject & scorer.stated(u, part):
            continue  # about something else than the best unit's subject
        if u.table and u.table in rows:
            if rows[u.table] < MAX_ROWS:
                rows[u.table] += 1
                picked.append(u)
            continue
        if len({p.table or id(p) for p in picked}) >= quoting.per_part:
            continue
        if u.table:
            rows[u.table] = 1
        picked.append(u)
    return picked


def _in_table_order(picked: Sequence[Unit]) -> list[Unit]:
    """``picked`` with each table's rows together, in the table's order, where its best row ranked."""
    out: list[Unit] = []
    for u in picked:
        if u.table is None:
            out.append(u)
        elif all(o.table != u.table for o in out):
            out += sorted((r for r in picked if r.table == u.table), key=lambda r: r.position)
    return out
