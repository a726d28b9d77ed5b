"""Reproducible, chunked, parallel sampling from one seed.

A run starts from one integer seed. Each check derives its own
:class:`numpy.random.SeedSequence` from the seed and stable string keys
(:func:`derive`), and work is cut into fixed-size chunks, chunk ``i`` drawing
from child ``i`` of that sequence. Results are therefore identical whatever the
number of worker threads.
"""
from __future__ import annotations

import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence, TypeVar

import numpy as np

T = TypeVar("T")

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


def map_chunks(
    fn: Callable[[np.random.Generator, int], T],
    n: int,
    seed_seq: np.random.SeedSequence,
    *,
    jobs: int | None = None,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> list[T]:
    """Run ``fn(rng_i, size_i)`` over the chunks of ``n`` draws and return results in chunk order.

    Chunk ``i`` uses the generator built from ``seed_seq.spawn``-style child
    ``i`` (independent of ``jobs``), so the output is reproducible for any
    number of threads. Threads are used (numpy releases the GIL in bulk
    sampling) so plain Python callables, lambdas included, work unchanged.
    ``progress(k)`` is called with the size of each finished chunk.
    """
    sizes = chunk_sizes(n, chunk)
    children = [np.random.SeedSequence(seed_seq.entropy, spawn_key=tuple(seed_seq.spawn_key) + (i,))
                for i in range(len(sizes))]
    rngs = [np.random.Generator(np.random.PCG64(c)) for c in children]
    jobs = default_jobs() if jobs is None else max(1, int(jobs))
    if jobs == 1 or len(sizes) <= 1:
        out = []
        for r, s in zip(rngs, sizes):
            out.append(fn(r, s))
            if progress:
                progress(s)
        return out
    with ThreadPoolExecutor(max_workers=min(jobs, len(sizes))) as pool:
        futures = [pool.submit(fn, r, s) for r, s in zip(rngs, sizes)]
        out = []
        for f, s in zip(futures, sizes):
            out.append(f.result())
            if progress:
                progress(s)
        return out


def spawn_generators(seed_seq: np.random.SeedSequence, count: int) -> Sequence[np.random.Generator]:
    """``count`` independent generators that are children of ``seed_seq``."""
    return [np.random.Generator(np.random.PCG64(c)) for c in seed_seq.spawn(count)]
