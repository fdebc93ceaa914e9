"""How far a gold-set run has got, from the messages the runner reports.

The runner reports lines such as ``loading demo with auto chunking``,
``embedding passages: 40 of 328``, ``bm25: question 3 of 77`` and ``bm25:
done``. A run scores one chunking after another (``rounds``); within a round,
embedding the passages (when they are not cached) takes the first part of the
bar, so the bar moves while the dense index is built instead of sitting at 0%.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

# Share of a round given to embedding when it happens: on this machine embedding a
# collection takes about as long as scoring a few rankers on it.
EMBEDDING_SHARE = 0.4
_EMBEDDING = re.compile(r"^embedding passages: (\d+) of (\d+)$")
_QUESTION = re.compile(r"^question (\d+) of (\d+)$")


@dataclass
class RunProgress:
    """A monotone fraction in [0, 0.98] (1.0 is for the caller, once the run is stored)."""

    rankers: Sequence[str]
    rounds: int = 1
    fraction: float = 0.0
    _round: int = field(default=-1, repr=False)
    _embedded: bool = field(default=False, repr=False)

    def update(self, message: str) -> float:
        if message.startswith("loading "):
            self._round = min(self._round + 1, self.rounds - 1)
            self._embedded = False
        within = self._within_round(message)
        if within is not None:
            done = (max(self._round, 0) + within) / self.rounds
            self.fraction = max(self.fraction, min(done, 0.98))
        return self.fraction

    def _within_round(self, message: str) -> float | None:
        embedding = _EMBEDDING.match(message)
        if embedding:
            self._embedded = True
            done, total = int(embedding.group(1)), int(embedding.group(2))
            return EMBEDDING_SHARE * done / total if total else None
        scored = self._rankers_done(message)
        if scored is None:
            return None
        start = EMBEDDING_SHARE if self._embedded else 0.0
        return start + (1 - start) * scored

    def _rankers_done(self, message: str) -> float | None:
        name, _, rest = message.partition(": ")
        if name not in self.rankers or not self.rankers:
            return None
        index = list(self.rankers).index(name)
        question = _QUESTION.match(rest)
        if question and int(question.group(2)):
            return (index + int(question.group(1)) / int(question.group(2))) / len(self.rankers)
        if rest.endswith("done"):
            return (index + 1) / len(self.rankers)
        return None
