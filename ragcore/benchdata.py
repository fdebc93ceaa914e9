"""Synthetic data for ``bench``: Zipf-distributed passages (realistic term
statistics for BM25), queries drawn from them, random unit vectors."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import numpy as np


def _vocabulary(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    syllables = [c + v for c in "bcdfghklmnprstvwz" for v in "aeiou"] + ["ar", "en", "ol", "is", "um"]
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(syllables) for _ in range(rng.choice((2, 2, 3, 3, 4)))))
    return sorted(words)


def synthetic_passages(n: int, seed: int = 11, vocab_size: int = 50_000) -> list[str]:
    """``n`` passages of 60-160 words drawn from a Zipf(1.07) vocabulary."""
    return list(iter_synthetic_passages(n, seed, vocab_size))


def iter_synthetic_passages(
    n: int, seed: int = 11, vocab_size: int = 50_000, block: int = 20_000
) -> Iterator[str]:
    """The passages of ``synthetic_passages``, made ``block`` at a time (the
    same texts: numpy draws the same stream in pieces), so a million of them
    never need to be in memory at once."""
    vocab = np.asarray(_vocabulary(vocab_size))
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab_size + 1)
    p = 1.0 / ranks**1.07
    p /= p.sum()
    lengths = rng.integers(60, 160, size=n)
    for first in range(0, n, block):
        part = lengths[first : first + block]
        draws = rng.choice(vocab_size, size=int(part.sum()), p=p)
        pos = 0
        for length in part:
            yield " ".join(vocab[draws[pos : pos + length]]) + "."
            pos += length


def synthetic_queries(passages: Sequence[str], n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    queries = []
    for _ in range(n):
        words = rng.choice(passages).rstrip(".").split()
        queries.append(" ".join(rng.sample(words, k=min(len(words), rng.randint(2, 5)))))
    return queries


def random_unit_vectors(size: int, dim: int = 384, seed: int = 3) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((size, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def iter_random_unit_vectors(
    size: int, dim: int = 384, seed: int = 3, block: int = 50_000
) -> Iterator[np.ndarray]:
    """The rows of ``random_unit_vectors`` ``block`` at a time (the same
    values: the generator draws the same stream in pieces)."""
    rng = np.random.default_rng(seed)
    for first in range(0, size, block):
        vectors = rng.standard_normal((min(block, size - first), dim), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        yield vectors
