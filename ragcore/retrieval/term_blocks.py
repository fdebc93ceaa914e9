"""Passages' index terms in blocks, tokenised on every core for large builds.

Tokenising is most of a BM25 build (about 0.35 million tokens a second on
one core here: five minutes for a million passages). A :class:`TermBlock`
holds one block of passages' tokens as ids into the block's own list of
distinct terms, in order of first occurrence, so a worker process sends back
a few numpy arrays and a short list instead of every token string, and the
index's vocabulary, filled block by block in order, gets exactly the ids a
single-process build gives. Workers are forked, and only from a process
running one thread (the CLI, ``bench``): forking a multi-threaded process
such as the app's server is unsafe, so there the build tokenises in-process
as before; and a fresh interpreter (``spawn``) would re-run the caller's
main script, which a script need not guard.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import chain, islice
from multiprocessing import get_context
from typing import Protocol

import numpy as np

PARALLEL_MIN_PASSAGES = 40_000  # below this a worker's start-up (about a second) is not repaid


class Tokeniser(Protocol):
    def terms(self, text: str) -> list[str]: ...


@dataclass(frozen=True)
class TermBlock:
    """Tokens of a block of passages as ids into ``terms`` (the block's
    distinct tokens, in order of first occurrence)."""

    terms: list[str]
    ids: np.ndarray  # int32, every token of every passage, in order
    lengths: np.ndarray  # int64, tokens per passage

    def __len__(self) -> int:
        return len(self.lengths)


def term_block(token_lists: Sequence[Sequence[str]]) -> TermBlock:
    local: dict[str, int] = {}
    lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
    ids = np.fromiter(
        (local.setdefault(t, len(local)) for tokens in token_lists for t in tokens),
        dtype=np.int32,
        count=int(lengths.sum()),
    )
    return TermBlock(list(local), ids, lengths)


def _tokenised(texts: list[str], tokeniser: Tokeniser) -> TermBlock:
    return term_block([tokeniser.terms(t) for t in texts])


def workers() -> int:
    """Processes to tokenise with: the cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def text_blocks(
    texts: Iterable[str], tokeniser: Tokeniser, block: int, processes: int | None = None
) -> Iterator[TermBlock]:
    """The term blocks of ``texts``, in order, ``block`` passages each;
    tokenised in ``processes`` forked worker processes (default: one per
    core) when there are at least ``PARALLEL_MIN_PASSAGES`` texts and this
    process runs a single thread, here otherwise."""
    iterator = iter(texts)
    head = list(islice(iterator, -(-PARALLEL_MIN_PASSAGES // block) * block))  # whole blocks
    count = processes if processes is not None else workers()
    if len(head) < PARALLEL_MIN_PASSAGES or count < 2 or threading.active_count() > 1:
        for start in range(0, len(head), block):
            yield _tokenised(head[start : start + block], tokeniser)
        for part in iter(lambda: list(islice(iterator, block)), []):
            yield _tokenised(part, tokeniser)
        return
    chunks = (head[s : s + block] for s in range(0, len(head), block))
    rest = iter(lambda: list(islice(iterator, block)), [])
    with ProcessPoolExecutor(max_workers=count, mp_context=get_context("fork")) as pool:
        pending: deque[Future[TermBlock]] = deque()
        for part in chain(chunks, rest):
            pending.append(pool.submit(_tokenised, part, tokeniser))
            if len(pending) >= 2 * count:  # bounded: a few blocks in flight, not the collection
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
