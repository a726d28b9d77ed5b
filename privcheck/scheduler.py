"""The one chunk scheduler: seeded chunks of draws run on a backend, results in chunk order.

Every Monte Carlo computation in privcheck cuts its ``n`` draws into fixed-size
chunks (:func:`privcheck.seeding.chunk_sizes`); chunk ``i`` draws from the
generator of child ``i`` of the computation's SeedSequence. Which backend runs
the chunks (threads today; processes and Dask are backends behind the same
interface) therefore never changes a result.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Protocol, TypeVar

import numpy as np

from privcheck.seeding import DEFAULT_CHUNK, chunk_sizes, default_jobs

T = TypeVar("T")

ChunkFn = Callable[[np.random.Generator, int], T]


def chunk_generator(seed_seq: np.random.SeedSequence, index: int) -> np.random.Generator:
    """The PCG64 generator of chunk ``index`` below ``seed_seq`` (independent of the backend)."""
    child = np.random.SeedSequence(seed_seq.entropy, spawn_key=tuple(seed_seq.spawn_key) + (int(index),))
    return np.random.Generator(np.random.PCG64(child))


class Backend(Protocol):
    """Runs seeded chunks; ``run_chunks`` returns ``fn``'s results in chunk order."""

    name: str

    def run_chunks(self, fn: ChunkFn, sizes: list[int], seed_seq: np.random.SeedSequence,
                   progress: Callable[[int], None] | None = None) -> list: ...


class ThreadBackend:
    """Chunks on a pool of ``jobs`` threads (numpy releases the GIL in bulk sampling)."""

    name = "threads"

    def __init__(self, jobs: int | None = None):
        self.jobs = default_jobs() if jobs is None else max(1, int(jobs))

    def run_chunks(self, fn, sizes, seed_seq, progress=None):
        rngs = [chunk_generator(seed_seq, i) for i in range(len(sizes))]
        if self.jobs == 1 or len(sizes) <= 1:
            out = []
            for r, s in zip(rngs, sizes):
                out.append(fn(r, s))
                if progress:
                    progress(s)
            return out
        with ThreadPoolExecutor(max_workers=min(self.jobs, len(sizes))) as pool:
            futures = [pool.submit(fn, r, s) for r, s in zip(rngs, sizes)]
            out = []
            for f, s in zip(futures, sizes):
                out.append(f.result())
                if progress:
                    progress(s)
            return out


def get_backend(jobs: int | None = None, client=None, processes: bool = False) -> Backend:
    """The backend that runs chunks.

    jobs: worker count (default: all cores); client: a ``dask.distributed.Client``
    (or ``"local"`` / a scheduler address) to run on Dask; processes: prefer
    worker processes (pure-Python per-sample samplers). Today only threads are
    implemented; the other two are the Dask/process backends' slots.
    """
    if client is not None:
        from privcheck.errors import PrivcheckUsageError

        raise PrivcheckUsageError("the Dask backend is not available in this version")
    return ThreadBackend(jobs)


def map_chunks(
    fn: ChunkFn,
    n: int,
    seed_seq: np.random.SeedSequence,
    *,
    jobs: int | None = None,
    backend: Backend | None = None,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable[[int], None] | None = None,
) -> list:
    """Run ``fn(rng_i, size_i)`` over the chunks of ``n`` draws and return results in chunk order.

    Chunk ``i`` uses :func:`chunk_generator` ``(seed_seq, i)``, so the output is
    the same for any backend and any number of workers. ``backend`` defaults
    to :func:`get_backend` ``(jobs)``. ``progress(k)`` is called with the size
    of each finished chunk.
    """
    backend = backend if backend is not None else get_backend(jobs)
    return backend.run_chunks(fn, chunk_sizes(n, chunk), seed_seq, progress)
