"""Reproducible, chunked, parallel sampling from one seed.

A run starts from one integer seed. Each check derives its own
:class:`numpy.random.SeedSequence` from the seed and stable string keys
(:func:`derive`), and work is cut into fixed-size chunks, chunk ``i`` drawing
from child ``i`` of that sequence. Results are therefore identical whatever the
number of workers. Running the chunks is the job of :mod:`privcheck.base.scheduler`.
"""

from __future__ import annotations

import os
import zlib
from typing import Sequence

import numpy as np

DEFAULT_CHUNK = 1 << 18


def _key(part) -> int:
    if isinstance(part, (int, np.integer)):
        return int(part) & 0xFFFFFFFF
    return zlib.crc32(str(part).encode("utf-8"))


def derive(seed: int | np.random.SeedSequence, *keys) -> np.random.SeedSequence:
    """A SeedSequence for ``keys`` (strings or ints) below ``seed``, stable across runs and platforms."""
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + tuple(_key(k) for k in keys))
    return np.random.SeedSequence(int(seed), spawn_key=tuple(_key(k) for k in keys))


def generator(seed: int | np.random.SeedSequence, *keys) -> np.random.Generator:
    """A PCG64 ``Generator`` for ``keys`` below ``seed`` (see :func:`derive`)."""
    return np.random.Generator(np.random.PCG64(derive(seed, *keys)))


def default_jobs() -> int:
    """Worker count used when none is given: all cores."""
    return max(1, os.cpu_count() or 1)


def chunk_sizes(n: int, chunk: int = DEFAULT_CHUNK) -> list[int]:
    """Split ``n`` draws into chunks of ``chunk`` (the last one shorter)."""
    if n <= 0:
        return []
    full, rest = divmod(n, chunk)
    return [chunk] * full + ([rest] if rest else [])


def spawn_generators(seed_seq: np.random.SeedSequence, count: int) -> Sequence[np.random.Generator]:
    """``count`` independent generators that are children of ``seed_seq``."""
    return [np.random.Generator(np.random.PCG64(c)) for c in seed_seq.spawn(count)]
