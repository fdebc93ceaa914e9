"""BM25 index terms of a text joined from its lines' terms, tokenised ahead (#18).

``text.search_term_parts`` never joins text across a line break: tokens,
amounts and identifiers are each found within a line. So a text's terms are
its lines' tokens in order, then their amounts, then their identifiers, and
a file's lines can be tokenised before its passages exist. :func:`prefill`
does that for an upload while the chunking worker cuts it (on the core that
would otherwise wait), and the BM25 build then joins the remembered lines'
parts instead of tokenising again. A line not remembered (the part of a line
a passage starts or ends in, a table header put before a passage) is
tokenised as before. The same terms as ``search_terms`` on the whole text:
tests/retrieval/test_line_terms.py.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..text import STOP_LISTS, StopList, search_term_parts

MAX_LINES = 200_000  # lines remembered at most (one large file's); a larger file is not prefilled

Parts = tuple[list[str], list[str], list[str]]
_Key = tuple[bool, str, bool]  # stemming, stop list, whole identifiers

# The last prefilled file's lines and the settings they were tokenised with, as
# one object so a reader never pairs one file's lines with another's settings.
_memo: tuple[_Key, dict[str, Parts]] | None = None
_lock = threading.Lock()  # one prefill at a time; readers need none (a miss only costs time)


@dataclass(frozen=True)
class LineTerms:
    """The ``Tokeniser`` of BM25 settings (term_blocks): ``search_terms``,
    joined from the remembered lines' parts where it can."""

    stemming: bool
    stop_list: StopList
    whole: bool

    def terms(self, text: str) -> list[str]:
        memo = _memo
        lines = (
            memo[1] if memo is not None and memo[0] == (self.stemming, self.stop_list, self.whole) else None
        )
        if not lines:
            return self._joined(self.parts(text))
        out: list[str] = []
        amounts: list[str] = []
        codes: list[str] = []
        for line in text.split("\n"):
            parts = lines.get(line)
            if parts is None:
                parts = self.parts(line)
            out += parts[0]
            amounts += parts[1]
            codes += parts[2]
        return out + amounts + codes

    def parts(self, text: str) -> Parts:
        return search_term_parts(
            text, stemming=self.stemming, stop_words=STOP_LISTS[self.stop_list], whole=self.whole
        )

    @staticmethod
    def _joined(parts: Parts) -> list[str]:
        return parts[0] + parts[1] + parts[2]


def prefill(text: str, tokeniser: LineTerms) -> int:
    """Tokenise the distinct lines of ``text`` with ``tokeniser``'s settings
    and remember them (in place of the previous file's); returns how many."""
    global _memo
    distinct = set(text.split("\n"))
    if len(distinct) > MAX_LINES:
        return 0
    with _lock:
        _memo = None  # the previous file's lines go first (memory)
        lines = {line: tokeniser.parts(line) for line in distinct}
        _memo = ((tokeniser.stemming, tokeniser.stop_list, tokeniser.whole), lines)
        return len(lines)


def forget() -> None:
    """Drop the remembered lines."""
    global _memo
    with _lock:
        _memo = None
