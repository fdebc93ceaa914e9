"""Synthetic data for ``bench``: Zipf-distributed passages (realistic term
statistics for BM25), queries drawn from them, random unit vectors."""

from __future__ import annotations

import random

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
    vocab = np.asarray(_vocabulary(vocab_size))
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab_size + 1)
    p = 1.0 / ranks**1.07
    p /= p.sum()
    lengths = rng.integers(60, 160, size=n)
    draws = rng.choice(vocab_size, size=int(lengths.sum()), p=p)
    out, pos = [], 0
    for length in lengths:
        words = vocab[draws[pos : pos + length]]
        pos += length
        out.append(" ".join(words) + ".")
    return out


def synthetic_queries(passages: list[str], n: int, seed: int = 5) -> list[str]:
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
