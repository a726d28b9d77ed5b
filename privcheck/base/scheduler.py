"""The one chunk scheduler: seeded chunks of draws run on a backend, results in chunk order.

Every Monte Carlo computation in privcheck cuts its ``n`` draws into fixed-size
chunks (:func:`privcheck.base.seeding.chunk_sizes`); chunk ``i`` draws from the
generator of child ``i`` of the computation's SeedSequence
(:func:`chunk_generator`), built wherever the chunk runs. Which backend runs
the chunks therefore never changes a result:

- :class:`ThreadBackend` — threads of this process (numpy samplers release the GIL);
- :class:`ProcessBackend` — worker processes (pure-Python per-sample samplers);
  the chunk function is shipped with cloudpickle;
- :class:`DaskBackend` — a dask.distributed cluster (``"local"``, a scheduler
  address, or a ``Client``); optional extra ``pip install 'privcheck[dask]'``.

:func:`map_streams` runs several such computations (every input of one audit stage) as one map:
chunks and seeds are unchanged, only the barriers between inputs go, an object ``shared`` by every
chunk (the sampler and the inputs) is scattered to Dask workers once per backend, and a Dask task
runs up to :data:`DASK_CHUNKS_PER_TASK` consecutive chunks, folding them on the worker.
:class:`LazyBackend` / :func:`one_backend_per_call` give one call (an audit) one backend, built at
its first draw and closed when the call ends.

All three keep a bounded window of tasks in flight (never all chunks at once),
report progress as tasks finish, fold or collect results in chunk order, and on
``KeyboardInterrupt`` cancel what is still pending and re-raise promptly.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import signal
import time
import types
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Protocol, Sequence, TypeVar

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.seeding import DEFAULT_CHUNK, chunk_sizes, default_jobs

if TYPE_CHECKING:  # the pools' modules load in the backends that use them (start-up, issue 23)
    import concurrent.futures as cf

T = TypeVar("T")

ChunkFn = Callable[[np.random.Generator, int], T]
Progress = Callable[[int], None]

#: how many tasks per worker may be in flight (submitted or finished but not yet folded)
WINDOW_PER_WORKER = 2
#: a thread map of at most this many draws in all runs in the calling thread (same chunks, seeds and
#: results; a pool's start-up would cost more than the draws: a tiny audit, issue 33)
THREADS_INLINE_DRAWS = 1 << 14
#: at most this many consecutive chunks of one stream run as one Dask task (fewer round trips per draw)
DASK_CHUNKS_PER_TASK = 4
#: a chunk function pickled to at most this many bytes travels with each task instead of being scattered
DASK_INLINE_BYTES = 1 << 16
#: seconds for which a Dask backend trusts its last count of the cluster's worker threads
DASK_THREADS_TTL = 5.0
#: seconds to wait for an existing Dask scheduler to answer
DASK_CONNECT_TIMEOUT = 10.0
DASK_INSTALL_HINT = "pip install 'privcheck[dask]'"


def chunk_generator(seed_seq: np.random.SeedSequence, index: int) -> np.random.Generator:
    """The PCG64 generator of chunk ``index`` below ``seed_seq`` (independent of the backend)."""
    child = np.random.SeedSequence(seed_seq.entropy, spawn_key=tuple(seed_seq.spawn_key) + (int(index),))
    return np.random.Generator(np.random.PCG64(child))


class Backend(Protocol):
    """Runs seeded chunks and whole tasks.

    ``run_chunks`` returns ``fn``'s results in chunk order (or their in-order
    fold with ``reduce``); ``map`` runs ``fn(item)`` for each item and returns
    the results in item order; ``close`` releases what the backend started.
    """

    name: str

    def run_chunks(
        self,
        fn: ChunkFn,
        sizes: list[int],
        seed_seq: np.random.SeedSequence,
        progress: Progress | None = None,
        reduce: Callable[[Any, Any], Any] | None = None,
    ) -> Any: ...

    def map(self, fn: Callable[[Any], T], items: Sequence, progress: Callable[[T], None] | None = None) -> list[T]: ...

    def close(self) -> None: ...


# --------------------------------------------------------------------------- shared machinery


_NO_START = object()


class _Ordered:
    """Collects results that arrive in any order and hands them on in index order.

    With ``reduce`` only the running fold is kept (plus results that finished
    ahead of an earlier one, at most the window), starting from ``start`` when
    given (else from the first result); without it, a list.
    """

    def __init__(self, reduce: Callable[[Any, Any], Any] | None, start: Any = _NO_START):
        self.reduce = reduce
        self.next = 0
        self.ahead: dict[int, Any] = {}
        self.items: list = []
        self.start = start
        self.acc: Any = None if start is _NO_START else start

    def put(self, i: int, value: Any) -> None:
        self.ahead[i] = value
        while self.next in self.ahead:
            v = self.ahead.pop(self.next)
            if self.reduce is None:
                self.items.append(v)
            elif self.next == 0 and self.start is _NO_START:
                self.acc = v
            else:
                self.acc = self.reduce(self.acc, v)
            self.next += 1

    def result(self) -> Any:
        return self.items if self.reduce is None else self.acc


def _collect(
    run: Callable[[Callable[[int, Any], None], Callable[[], int]], None],
    reduce,
    progress: Progress | None,
    amount: Callable[[int, Any], int],
    start: Any = _NO_START,
) -> Any:
    """Results of the tasks that ``run(on_done, folded)`` drives, handed on in index order.

    ``on_done(i, value)`` is called as task ``i`` finishes; ``folded()`` is how many
    leading tasks are folded already (the in-flight window counts from it);
    ``progress(amount(i, value))`` reports each finished task.
    """
    out = _Ordered(reduce, start)

    def done(i, value):
        out.put(i, value)
        if progress:
            progress(amount(i, value))

    run(done, lambda: out.next)
    return out.result()


def _results_one_by_one(futures: list) -> list:
    return [f.result() for f in futures]


def _drive(
    count: int,
    submit: Callable[[int], Any],
    wait_first: Callable[[list], Iterable],
    cancel: Callable[[list], Any],
    window: int,
    on_done: Callable[[int, Any], None],
    folded: Callable[[], int],
    results: Callable[[list], list] = _results_one_by_one,
    order: Sequence[int] | None = None,
) -> None:
    """Run tasks ``0..count-1`` with at most ``window`` of them not yet folded.

    ``submit(i)`` returns a future, ``wait_first(futures)`` the finished ones
    (at least one), ``results(finished)`` their results (one call: a Dask client
    fetches them together), ``on_done(i, result)`` consumes a result, ``folded()``
    says how many leading tasks are consumed in order. ``order`` (a permutation,
    only when all ``count`` tasks fit in the window) is the order of submission,
    e.g. the largest tasks first. On any exception (including ``KeyboardInterrupt``)
    the pending futures are cancelled and it re-raises.
    """
    pending: dict[Any, int] = {}
    seq = list(range(count)) if order is None or count > window else list(order)
    nxt = 0
    try:
        while nxt < count or pending:
            while nxt < count and nxt - folded() < window:
                pending[submit(seq[nxt])] = seq[nxt]
                nxt += 1
            done = list(wait_first(list(pending)))
            for fut, value in zip(done, results(done)):
                on_done(pending.pop(fut), value)
    except BaseException:
        cancel(list(pending))
        raise


def _describe(obj) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return f"{name!r}"


def _unpicklable_part(obj, dumps, depth: int = 0) -> tuple[str, str | None]:
    """The innermost callable in ``obj`` that cannot be pickled, and the variable it fails on."""
    parts: list[tuple[str, Any]] = []
    code = getattr(obj, "__code__", None)
    cells = getattr(obj, "__closure__", None) or ()
    if code is not None:
        parts += [(n, c.cell_contents) for n, c in zip(code.co_freevars, cells) if _has_contents(c)]
        parts += [(f"default #{k}", v) for k, v in enumerate(getattr(obj, "__defaults__", None) or ())]
        glb = getattr(obj, "__globals__", None) or {}
        parts += [(n, glb[n]) for n in code.co_names if n in glb and not isinstance(glb[n], types.ModuleType)]
    if isinstance(obj, (tuple, list)):  # e.g. (sampler, inputs) shared by the tasks of an audit
        parts += [(f"item #{k}", v) for k, v in enumerate(obj)]
    if hasattr(obj, "__self__"):  # bound method
        parts.append(("self", obj.__self__))
    if hasattr(obj, "func") and hasattr(obj, "args"):  # functools.partial
        parts += [("func", obj.func)] + [(f"arg #{k}", v) for k, v in enumerate(obj.args)]
    if not parts and not hasattr(obj, "__code__") and hasattr(obj, "__dict__"):
        parts += list(vars(obj).items())
    for var, val in parts:
        try:
            dumps(val)
        except Exception:
            if callable(val) and depth < 4:
                inner, inner_var = _unpicklable_part(val, dumps, depth + 1)
                if inner_var is not None or depth == 0:
                    return inner, inner_var
            return _describe(obj), f"{var} ({type(val).__module__}.{type(val).__qualname__})"
    return _describe(obj), None


def _has_contents(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True


def _cloudpickle():
    try:
        import cloudpickle
    except ImportError:  # pragma: no cover - cloudpickle is a dependency
        raise PrivcheckUsageError("worker processes need cloudpickle: pip install cloudpickle") from None
    return cloudpickle


def dumps_task(fn: Any, what: str = "the sampler") -> bytes:
    """``fn`` serialised with cloudpickle for worker processes or Dask.

    Raises :class:`PrivcheckUsageError` (one line, naming the function that
    holds the unpicklable object and that object's variable) when it cannot
    be pickled.
    """
    cp = _cloudpickle()
    try:
        return cp.dumps(fn)
    except Exception as exc:
        name, var = _unpicklable_part(fn, cp.dumps)
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        held = f" (it holds {var})" if var else ""
        raise PrivcheckUsageError(
            f"{what} {name} cannot be pickled to run in worker processes or on Dask{held}: {reason}; "
            "define it at module level without locks, open files, sockets or generators, or run on threads"
        ) from None


_LOADED: dict[bytes, Callable] = {}


def _load(payload: bytes) -> Any:
    key = hashlib.blake2b(payload, digest_size=16).digest()
    fn = _LOADED.get(key)
    if fn is None:
        import pickle

        fn = pickle.loads(payload)
        if len(_LOADED) > 32:
            _LOADED.clear()
        _LOADED[key] = fn
    return fn


def run_item_task(payload: bytes, item):
    """Worker side of one whole task: ``fn(item)`` for the pickled ``fn``."""
    return _load(payload)(item)


# --------------------------------------------------------------------------- streams: several chunked draws in one map


StreamFn = Callable[[Any, int, np.random.Generator, int], T]


@dataclass(frozen=True)
class Stream:
    """``n`` draws whose chunk ``i`` uses :func:`chunk_generator` ``(seed_seq, i)`` (one input of one stage)."""

    n: int
    seed_seq: np.random.SeedSequence


@dataclass(frozen=True)
class StreamTask:
    """Consecutive chunks ``first, first+1, …`` (of sizes ``sizes``) of stream ``stream``: one task."""

    stream: int
    first: int
    sizes: tuple


def plan_tasks(streams: Sequence[Stream], chunk: int = DEFAULT_CHUNK, per_task: int = 1) -> list[StreamTask]:
    """The tasks of a map over ``streams``: each stream's chunks (:func:`chunk_sizes`), ``per_task`` (≥ 1)
    consecutive chunks of one stream per task, streams in order. The chunks and their seeds do not depend
    on ``per_task``: only how many of them one task runs."""
    per_task = max(1, int(per_task))
    tasks = []
    for s, st in enumerate(streams):
        sizes = chunk_sizes(int(st.n), chunk)
        tasks += [StreamTask(s, k, tuple(sizes[k : k + per_task])) for k in range(0, len(sizes), per_task)]
    return tasks


def run_stream_chunks(fn: StreamFn, reduce, shared, seed_seq: np.random.SeedSequence, task: StreamTask):
    """One task's chunks: ``fn(shared, task.stream, chunk_generator(seed_seq, i), size)`` for each of its
    chunks, folded in chunk order with ``reduce`` (only the fold is kept) or listed."""
    out: Any = _NO_START if reduce is not None else []
    for k, size in enumerate(task.sizes):
        v = fn(shared, task.stream, chunk_generator(seed_seq, task.first + k), size)
        if reduce is None:
            out.append(v)
        else:
            out = v if out is _NO_START else reduce(out, v)
    return out


def run_stream_task(payload: bytes, shared_payload: bytes | None, seed_seq: np.random.SeedSequence, task: StreamTask):
    """Worker side of :func:`run_stream_chunks`: ``payload`` is the pickled ``(fn, reduce)``,
    ``shared_payload`` the pickled shared object (unpickled once per worker process)."""
    fn, reduce = _load(payload)
    shared = None if shared_payload is None else _load(shared_payload)
    return run_stream_chunks(fn, reduce, shared, seed_seq, task)


class _ChunkFn:
    """``fn(rng, size)`` called as a stream function ``(shared, stream, rng, size)`` (one stream, nothing shared)."""

    def __init__(self, fn: ChunkFn):
        self.fn = fn

    def __call__(self, shared, stream, rng, size):
        return self.fn(rng, size)


def _chunk_tasks(sizes: Sequence[int]) -> list[StreamTask]:
    return [StreamTask(0, i, (int(size),)) for i, size in enumerate(sizes)]


def _collect_streams(
    run: Callable[[Callable[[int, Any], None], Callable[[], int]], None],
    tasks: list[StreamTask],
    count: int,
    reduce,
    progress: Progress | None,
) -> list:
    """Per stream, the in-order fold (``reduce``) or concatenated list of the results of ``tasks`` that
    ``run`` drives (task results arrive in any order; they are handed on in task order)."""

    def step(acc: list, item):
        i, value = item
        s = tasks[i].stream
        if reduce is None:
            acc[s].extend(value)
        else:
            acc[s] = value if acc[s] is _NO_START else reduce(acc[s], value)
        return acc

    start = [[] for _ in range(count)] if reduce is None else [_NO_START] * count
    acc = _collect(
        lambda done, folded: run(lambda i, v: done(i, (i, v)), folded),
        step,
        progress,
        lambda i, _: sum(tasks[i].sizes),
        start=start,
    )
    return [None if a is _NO_START else a for a in acc]


# --------------------------------------------------------------------------- threads


class ThreadBackend:
    """Chunks on a pool of ``jobs`` threads (numpy releases the GIL in bulk sampling)."""

    name = "threads"

    def __init__(self, jobs: int | None = None):
        self.jobs = default_jobs() if jobs is None else max(1, int(jobs))

    def _run(
        self,
        count: int,
        call: Callable[[int], Any],
        on_done: Callable[[int, Any], None],
        folded: Callable[[], int],
        inline: bool = False,
    ) -> None:
        if self.jobs == 1 or count <= 1 or inline:
            for i in range(count):
                on_done(i, call(i))
            return
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(max_workers=min(self.jobs, count))
        try:
            _drive(
                count,
                lambda i: pool.submit(call, i),
                _wait_first_cf,
                lambda fs: [f.cancel() for f in fs],
                WINDOW_PER_WORKER * self.jobs,
                on_done,
                folded,
            )
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def _run_tasks(self, fn: StreamFn, reduce, shared, seeds: list, tasks: list[StreamTask], progress) -> list:
        # a map of few draws runs in this thread: starting a pool (and importing concurrent.futures) costs more
        inline = sum(sum(t.sizes) for t in tasks) <= THREADS_INLINE_DRAWS
        return _collect_streams(
            lambda done, folded: self._run(
                len(tasks),
                lambda i: run_stream_chunks(fn, reduce, shared, seeds[tasks[i].stream], tasks[i]),
                done,
                folded,
                inline,
            ),
            tasks,
            len(seeds),
            reduce,
            progress,
        )

    def run_chunks(self, fn, sizes, seed_seq, progress=None, reduce=None):
        """``fn(chunk_generator(seed_seq, i), sizes[i])`` for each chunk, in chunk order (folded with ``reduce``)."""
        return self._run_tasks(_ChunkFn(fn), reduce, None, [seed_seq], _chunk_tasks(sizes), progress)[0]

    def run_streams(self, fn, streams, shared=None, chunk=DEFAULT_CHUNK, progress=None, reduce=None):
        """All chunks of all ``streams`` in one map (one barrier): chunk ``i`` of stream ``s`` is
        ``fn(shared, s, chunk_generator(streams[s].seed_seq, i), size)``. Per stream, the chunk results
        in chunk order, or their fold with ``reduce`` (associative, e.g. adding counts; ``None`` for an
        empty stream)."""
        return self._run_tasks(
            fn, reduce, shared, [st.seed_seq for st in streams], plan_tasks(streams, chunk), progress
        )

    def map(self, fn, items, progress=None):
        """``[fn(item) for item in items]`` on the threads; ``progress(result)`` as each finishes."""
        items = list(items)
        return _collect(
            lambda done, folded: self._run(len(items), lambda i: fn(items[i]), done, folded),
            None,
            progress,
            lambda _, value: value,
        )

    def close(self) -> None:
        """Nothing to release (threads live only during a call)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _wait_first_cf(futures: list):
    import concurrent.futures as cf

    done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
    return done


# --------------------------------------------------------------------------- processes


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle, and the worker dies with its parent (the
    forkserver, which ends with the process that started the pool)."""
    from privcheck.base.children import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def _mp_context():
    import multiprocessing as mp

    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    # workers fork from a server that has numpy and this module imported: cheap (re)starts
    ctx.set_forkserver_preload(["privcheck.base.scheduler"])
    return ctx


def _shutdown_pool(pool: cf.ProcessPoolExecutor, kill: bool = False) -> None:
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=not kill, cancel_futures=True)
    if kill:
        for p in procs:
            if p.is_alive():
                p.terminate()


class ProcessBackend:
    """Chunks in ``jobs`` worker processes (forkserver or spawn), the chunk function shipped with cloudpickle.

    For samplers that hold the GIL (pure-Python, per-sample). The pool starts
    on first use and is reused until :meth:`close` (or garbage collection).
    Chunk ``i``'s generator is built in the worker from ``(seed_seq, i)``, so
    results equal the threads backend's bit for bit.
    """

    name = "processes"

    def __init__(self, jobs: int | None = None):
        self.jobs = default_jobs() if jobs is None else max(1, int(jobs))
        self._pool: cf.ProcessPoolExecutor | None = None
        self._finalizer: weakref.finalize | None = None

    def _get_pool(self) -> cf.ProcessPoolExecutor:
        import concurrent.futures as cf

        if self._pool is None:
            self._pool = cf.ProcessPoolExecutor(
                max_workers=self.jobs, mp_context=_mp_context(), initializer=_ignore_sigint
            )
            self._finalizer = weakref.finalize(self, _shutdown_pool, self._pool)
        return self._pool

    def _run(self, count, submit_one, on_done, folded):
        import concurrent.futures.process

        pool = self._get_pool()
        try:
            _drive(
                count,
                lambda i: submit_one(pool, i),
                _wait_first_cf,
                lambda fs: [f.cancel() for f in fs],
                WINDOW_PER_WORKER * self.jobs,
                on_done,
                folded,
            )
        except concurrent.futures.process.BrokenProcessPool:
            from privcheck.base.errors import UserCodeError
            from privcheck.base.resources import describe_exit

            codes = [
                p.exitcode for p in (getattr(pool, "_processes", None) or {}).values() if p.exitcode not in (None, 0)
            ]
            self._kill()
            how = (
                describe_exit(codes[0])
                if codes
                else "ended the worker process running it (os._exit, a crash or out of memory)"
            )
            raise UserCodeError(f"the sampler {how} in a worker process", None, "died") from None
        except BaseException:  # Ctrl-C, or a chunk failed (e.g. the user's code): no worker outlives the run
            self._kill()
            raise

    def _kill(self) -> None:
        if self._pool is not None:
            if self._finalizer is not None:
                self._finalizer.detach()
            _shutdown_pool(self._pool, kill=True)
            self._pool = None

    def _run_tasks(self, fn: StreamFn, reduce, shared, seeds: list, tasks: list[StreamTask], progress) -> list:
        payload = dumps_task((fn, reduce))
        shared_payload = None if shared is None else dumps_task(shared)
        return _collect_streams(
            lambda done, folded: self._run(
                len(tasks),
                lambda pool, i: pool.submit(run_stream_task, payload, shared_payload, seeds[tasks[i].stream], tasks[i]),
                done,
                folded,
            ),
            tasks,
            len(seeds),
            reduce,
            progress,
        )

    def run_chunks(self, fn, sizes, seed_seq, progress=None, reduce=None):
        """As :meth:`ThreadBackend.run_chunks`, in worker processes."""
        return self._run_tasks(_ChunkFn(fn), reduce, None, [seed_seq], _chunk_tasks(sizes), progress)[0]

    def run_streams(self, fn, streams, shared=None, chunk=DEFAULT_CHUNK, progress=None, reduce=None):
        """As :meth:`ThreadBackend.run_streams`, in worker processes (``shared`` pickled once per map)."""
        return self._run_tasks(
            fn, reduce, shared, [st.seed_seq for st in streams], plan_tasks(streams, chunk), progress
        )

    def map(self, fn, items, progress=None):
        """As :meth:`ThreadBackend.map`, in worker processes (``fn`` and items pickled)."""
        items = list(items)
        payload = dumps_task(fn, "the task")
        return _collect(
            lambda done, folded: self._run(
                len(items), lambda pool, i: pool.submit(run_item_task, payload, items[i]), done, folded
            ),
            None,
            progress,
            lambda _, value: value,
        )

    def close(self) -> None:
        """Shut the worker pool down (it restarts on the next call)."""
        if self._pool is not None:
            if self._finalizer is not None:
                self._finalizer.detach()
            _shutdown_pool(self._pool)
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# --------------------------------------------------------------------------- Dask


def import_distributed():
    """``dask.distributed``, or one line telling how to install it."""
    try:
        import distributed
    except ImportError:
        raise PrivcheckUsageError(
            f"--dask / client= needs the optional dependency dask.distributed: {DASK_INSTALL_HINT}"
        ) from None
    return distributed


#: per Dask client: (when asked, its worker threads); read by :func:`_client_threads`
_CLIENT_THREADS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _client_threads(client) -> int:
    """Worker threads of ``client``'s cluster, asked of its scheduler at most every :data:`DASK_THREADS_TTL`
    seconds (a count of 0 — workers still starting — is asked again next time)."""
    now = time.monotonic()
    hit = _CLIENT_THREADS.get(client)
    if hit is not None and now - hit[0] <= DASK_THREADS_TTL:
        return hit[1]
    try:
        n = sum(client.nthreads().values())
    except Exception:  # pragma: no cover - scheduler gone; the tasks will say why
        n = 0
    if n > 0:
        _CLIENT_THREADS[client] = (now, n)
    else:
        _CLIENT_THREADS.pop(client, None)
    return max(1, n)


def largest_first(tasks: Sequence[StreamTask]) -> list[int]:
    """Task indices by decreasing draws (ties in index order): submitted in this order, a Dask scheduler that
    places tasks as they arrive (each worker takes its next ones at once) gives every worker about the same
    number of draws — in index order, a map of 2 streams of chunks ``[F, F, F, f]`` in tasks ``[F+F, F+f]``
    would put ``4F`` on one worker and ``2F + 2f`` on the other. Results are folded in index order all the same."""
    return sorted(range(len(tasks)), key=lambda i: (-sum(tasks[i].sizes), i))


class DaskBackend:
    """Chunks as tasks on a dask.distributed cluster.

    ``client``: ``"local"`` starts a ``LocalCluster`` of ``jobs`` (default: all
    cores) single-threaded worker processes; ``"tcp://HOST:PORT"`` (or any
    scheduler address) joins an existing cluster; a ``distributed.Client`` is
    used as is. Only what this object started is closed by :meth:`close`.
    Each task carries the chunk index; its generator is built on the worker
    from ``(seed_seq, index)``, so the results equal the threads backend's.
    """

    name = "dask"

    def __init__(self, client: Any = "local", jobs: int | None = None, connect_timeout: float = DASK_CONNECT_TIMEOUT):
        distributed = import_distributed()
        self._owned: list = []
        self._finalizer = None
        self._shared: dict[int, tuple] = {}
        if isinstance(client, distributed.Client):
            self.client = client
        elif isinstance(client, str) and client.strip() == "local":
            n = default_jobs() if jobs is None else max(1, int(jobs))
            scratch = _ScratchDir(_new_scratch_dir())
            try:
                cluster = _start_local_cluster(distributed, n, scratch.path)
                self.client = distributed.Client(cluster)
            except BaseException:
                scratch.close()
                raise
            self._owned = [self.client, cluster, scratch]
        elif isinstance(client, str) and _looks_like_address(client.strip()):
            addr = client.strip()
            probe_scheduler(addr, connect_timeout)
            try:
                self.client = distributed.Client(addr, timeout=connect_timeout)
            except (OSError, TimeoutError) as exc:
                raise PrivcheckUsageError(
                    f"cannot reach the Dask scheduler at {addr} within {connect_timeout:g} s "
                    f"({type(exc).__name__}); start one with 'dask scheduler' and 'dask worker {addr}'"
                ) from None
            self._owned = [self.client]
        else:
            raise PrivcheckUsageError(
                f"--dask takes 'local' or a scheduler address such as tcp://HOST:8786, got {client!r}"
            )
        if self._owned:  # a cluster or connection this object started ends with it at the latest
            self._finalizer = weakref.finalize(self, _close_all, list(self._owned))

    def _threads(self) -> int:
        """Worker threads of the cluster, asked of the scheduler at most every :data:`DASK_THREADS_TTL` seconds
        per client (each ask is a round trip; an audit's maps ask several times, and every audit given the same
        client builds a backend of its own: issue 33)."""
        return _client_threads(self.client)

    def _results(self, futures: list) -> list:
        """The results of finished ``futures`` in one gather (one round trip for all, not one each); straight
        from the workers when they are this machine's (a LocalCluster), not relayed by the scheduler."""
        if len(futures) == 1 and not self._direct:
            return [futures[0].result()]
        return self.client.gather(futures, direct=self._direct)

    @functools.cached_property
    def _direct(self) -> bool:
        distributed = import_distributed()
        return isinstance(getattr(self.client, "cluster", None), distributed.LocalCluster)

    def _window(self) -> int:
        return max(2, WINDOW_PER_WORKER * self._threads())

    def _share(self, obj) -> Any:
        """``obj`` pickled: the bytes themselves when at most :data:`DASK_INLINE_BYTES`, else a future of them on
        every worker, scattered once for this backend's lifetime (the tasks of every later map that shares the
        same object reuse it)."""
        hit = self._shared.get(id(obj))
        if hit is None or hit[0] is not obj:
            data = dumps_task(obj)
            if len(data) <= DASK_INLINE_BYTES:  # small: rides along with each task (no scatter round trip)
                hit = self._shared[id(obj)] = (obj, data)
            else:
                [fut] = self.client.scatter([data], hash=False, broadcast=True)
                hit = self._shared[id(obj)] = (obj, fut)  # obj kept alive: its id cannot be reused meanwhile
        return hit[1]

    def _per_task(self, streams: Sequence[Stream], chunk: int) -> int:
        """Chunks per Dask task: up to :data:`DASK_CHUNKS_PER_TASK`, keeping at least
        :data:`WINDOW_PER_WORKER` tasks per worker thread for balance."""
        chunks = sum(len(chunk_sizes(int(st.n), chunk)) for st in streams)
        return max(1, min(DASK_CHUNKS_PER_TASK, chunks // (WINDOW_PER_WORKER * self._threads())))

    def _run_tasks(self, fn: StreamFn, reduce, shared, seeds: list, tasks: list[StreamTask], progress) -> list:
        payload = dumps_task((fn, reduce))
        shared_fut = None if shared is None else self._share(shared)
        return _collect_streams(
            lambda done, folded: self._run(
                payload,
                len(tasks),
                lambda pf, i: self.client.submit(
                    run_stream_task, pf, shared_fut, seeds[tasks[i].stream], tasks[i], pure=False
                ),
                done,
                folded,
                largest_first(tasks),
            ),
            tasks,
            len(seeds),
            reduce,
            progress,
        )

    def _run(self, payload: bytes, count: int, submit_one, on_done, folded, order=None) -> None:
        distributed = import_distributed()
        client = self.client
        # a small payload rides along with each task (no round trip); a large one is on every worker once
        inline = len(payload) <= DASK_INLINE_BYTES
        [pfut] = [payload] if inline else client.scatter([payload], hash=False, broadcast=True)

        def wait_first(futs):
            return distributed.wait(futs, return_when="FIRST_COMPLETED").done

        try:
            _drive(
                count,
                lambda i: submit_one(pfut, i),
                wait_first,
                lambda fs: client.cancel(fs),
                self._window(),
                on_done,
                folded,
                self._results,
                order,
            )
        except ImportError as exc:  # raised on a worker: its environment lacks a module the task needs
            raise PrivcheckUsageError(
                f"a Dask worker cannot import {exc.name or exc}: install privcheck and the sampler's modules "
                "in the workers' environment (functions defined in a script or claims file travel by themselves)"
            ) from None
        finally:
            if not inline:
                client.cancel([pfut])

    def run_chunks(self, fn, sizes, seed_seq, progress=None, reduce=None):
        """As :meth:`ThreadBackend.run_chunks`, one Dask task per chunk."""
        return self._run_tasks(_ChunkFn(fn), reduce, None, [seed_seq], _chunk_tasks(sizes), progress)[0]

    def run_streams(self, fn, streams, shared=None, chunk=DEFAULT_CHUNK, progress=None, reduce=None):
        """As :meth:`ThreadBackend.run_streams`; ``shared`` is scattered to the workers once for this
        backend's lifetime, and one task runs up to :data:`DASK_CHUNKS_PER_TASK` consecutive chunks of a
        stream, folding them with ``reduce`` on the worker (only the fold travels back)."""
        streams = list(streams)
        return self._run_tasks(
            fn,
            reduce,
            shared,
            [st.seed_seq for st in streams],
            plan_tasks(streams, chunk, self._per_task(streams, chunk)),
            progress,
        )

    def map(self, fn, items, progress=None):
        """As :meth:`ThreadBackend.map`, one Dask task per item."""
        items = list(items)
        payload = dumps_task(fn, "the task")
        return _collect(
            lambda done, folded: self._run(
                payload,
                len(items),
                lambda pf, i: self.client.submit(run_item_task, pf, items[i], pure=False),
                done,
                folded,
            ),
            None,
            progress,
            lambda _, value: value,
        )

    def close(self) -> None:
        """Close the client and LocalCluster this backend started (never a client it was given);
        release the shared objects scattered on a client it was given."""
        shared, self._shared = [f for _, f in self._shared.values() if not isinstance(f, bytes)], {}
        if shared and not self._owned:
            with contextlib.suppress(Exception):  # the client may be closed already
                self.client.cancel(shared)
        if self._finalizer is not None:
            self._finalizer()
        self._owned = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


#: the largest first message (bytes) a Dask scheduler's handshake may announce; anything above is another protocol
MAX_HANDSHAKE_BYTES = 1 << 26
#: scratch folders of the local clusters started by this process (removed on close and on Ctrl-C)
_SCRATCH_DIRS: set = set()


def _split_host_port(addr: str) -> tuple[str, int] | None:
    """(host, port) of ``tcp://HOST:PORT`` / ``HOST:PORT`` / ``tcp://[v6]:PORT``; None for other schemes."""
    scheme, sep, rest = addr.partition("://")
    if not sep:
        scheme, rest = "tcp", addr
    if scheme != "tcp":
        return None
    host, _, port = rest.rstrip("/").rpartition(":")
    if not port.isdigit() or not host:
        return None
    return host.strip("[]"), int(port)


def probe_scheduler(addr: str, timeout: float = DASK_CONNECT_TIMEOUT) -> None:
    """Refuse (one line) an address where no Dask scheduler answers, before ``distributed.Client`` is made.

    A Dask scheduler sends its handshake as soon as a connection is accepted:
    8 bytes (little-endian length of the message) then the message. This opens
    a TCP connection within ``timeout`` seconds and reads those 8 bytes within
    ``timeout`` seconds more; a refused or silent address, or a server that
    speaks another protocol (an HTTP port such as the dashboard's: "HTTP/1.0"
    read as a length is 3.5 exabytes, which ``distributed`` would try to
    allocate), is refused with a :class:`PrivcheckUsageError`. Only plain
    ``tcp://`` addresses are probed (TLS and other transports go straight to
    ``distributed``).
    """
    import socket
    import struct

    hp = _split_host_port(addr)
    if hp is None:
        return
    start = f"start one with 'dask scheduler' and 'dask worker {addr}'"
    try:
        sock = socket.create_connection(hp, timeout=timeout)
    except socket.timeout:
        raise PrivcheckUsageError(
            f"cannot reach the Dask scheduler at {addr}: no answer within {timeout:g} s; {start}"
        ) from None
    except OSError as exc:
        raise PrivcheckUsageError(
            f"cannot reach the Dask scheduler at {addr}: {exc.strerror or exc}; {start}"
        ) from None
    head = b""
    try:
        sock.settimeout(timeout)
        while len(head) < 8:
            part = sock.recv(8 - len(head))
            if not part:
                break
            head += part
    except OSError:  # socket.timeout included: the server waits for us to speak first
        pass
    finally:
        sock.close()
    size = struct.unpack("<Q", head)[0] if len(head) == 8 else None
    if size is None or not 0 < size <= MAX_HANDSHAKE_BYTES:
        raise PrivcheckUsageError(
            f"{addr} does not answer as a Dask scheduler (no Dask handshake within {timeout:g} s; is it another "
            f"service, e.g. the dashboard's HTTP port?); give the scheduler's address, usually tcp://HOST:8786"
        )


class _ScratchDir:
    """A local cluster's scratch folder, removed when closed (also at Ctrl-C: :func:`remove_scratch_dirs`)."""

    def __init__(self, path: str):
        self.path = path
        _SCRATCH_DIRS.add(path)

    def close(self) -> None:
        import shutil

        shutil.rmtree(self.path, ignore_errors=True)
        _SCRATCH_DIRS.discard(self.path)


def _new_scratch_dir() -> str:
    import tempfile

    from privcheck.base.children import scratch_prefix

    return tempfile.mkdtemp(prefix=scratch_prefix())  # named after the group: removable by whoever kills it


def remove_scratch_dirs() -> None:
    """Remove the scratch folders of every local cluster this process started (the CLI calls it on exit and Ctrl-C)."""
    import shutil

    for path in list(_SCRATCH_DIRS):
        shutil.rmtree(path, ignore_errors=True)
        _SCRATCH_DIRS.discard(path)


#: preloaded by every local worker (a script, as distributed accepts it): Ctrl-C is the client's to handle
_WORKER_IGNORES_SIGINT = "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"


def _start_local_cluster(distributed, n: int, scratch: str):
    """A LocalCluster of ``n`` single-threaded worker processes whose files live in ``scratch``.

    Every worker ignores Ctrl-C (a preload script run in its main thread): a
    Ctrl-C sent to the terminal's process group is this process's alone to
    handle — it closes the cluster, or kills the workers on a forced exit —
    instead of printing a traceback from every worker.
    """
    import logging
    import os

    import dask

    # workers killed at Ctrl-C leave semaphores the resource tracker reports at exit: noise, not the user's business
    os.environ.setdefault("PYTHONWARNINGS", "ignore::UserWarning:multiprocessing.resource_tracker")
    preload = list(dask.config.get("distributed.worker.preload", None) or []) + [_WORKER_IGNORES_SIGINT]
    with (
        dask.config.set(
            {
                "temporary-directory": scratch,
                "distributed.worker.preload": preload,
                # glibc's malloc keeps large freed blocks for reuse unless MALLOC_TRIM_THRESHOLD_ is set (Dask's
                # default sets it, to report memory tidily): samplers allocate big temporaries in every chunk,
                # which then cost fresh zeroed pages each time (issue 33: ~10% more CPU for a numpy sampler)
                "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
            }
        ),
        _children_start_with_sigint_blocked(),
    ):
        return distributed.LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
            local_directory=scratch,
        )


@contextlib.contextmanager
def _children_start_with_sigint_blocked():
    """While the block runs, processes spawned by multiprocessing start with SIGINT blocked.

    The signal mask survives fork and exec, so a worker interrupted while it is
    still importing (before its preload makes it ignore Ctrl-C) prints nothing;
    only the spawning thread's mask changes, for the instant of the spawn.
    """
    from multiprocessing import util

    mask = getattr(signal, "pthread_sigmask", None)
    original = util.spawnv_passfds
    if mask is None:
        yield
        return

    def spawn(path, args, passfds):
        old = mask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return original(path, args, passfds)
        finally:
            mask(signal.SIG_SETMASK, old)

    util.spawnv_passfds = spawn
    try:
        yield
    finally:
        util.spawnv_passfds = original


def _close_all(objects: list) -> None:
    for obj in objects:
        try:
            obj.close()
        except Exception:  # pragma: no cover - closing is best effort
            pass


def _looks_like_address(text: str) -> bool:
    if "://" in text:
        return text.split("://", 1)[1] != ""
    host, sep, port = text.rpartition(":")
    return bool(sep and host and port.isdigit())


# --------------------------------------------------------------------------- entry points


class _Borrowed:
    """A backend the caller built and owns: used as is, never closed here (its pool outlives the call)."""

    def __init__(self, backend):
        self._backend = backend
        self.name = backend.name

    def run_chunks(self, *args, **kwargs):
        return self._backend.run_chunks(*args, **kwargs)

    def map(self, *args, **kwargs):
        return self._backend.map(*args, **kwargs)

    def run_streams(self, fn, streams, shared=None, chunk=DEFAULT_CHUNK, progress=None, reduce=None):
        return map_streams(
            fn, streams, shared=shared, backend=self._backend, chunk=chunk, progress=progress, reduce=reduce
        )

    def close(self) -> None:
        """Nothing: the owner closes the backend."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def is_backend(obj) -> bool:
    """Whether ``obj`` is an already built backend (anything with ``run_chunks``, ``map`` and ``close``)."""
    return isinstance(obj, _Borrowed) or all(hasattr(obj, a) for a in ("run_chunks", "map", "close"))


class LazyBackend:
    """The backend :func:`get_backend` ``(jobs, client)`` would build, built at its first use (so that bad
    input is refused before a cluster starts) and then reused by every map until :meth:`close`.

    One audit (all its stages, adaptive rounds and curve draws) or one ``verify`` run uses one of these:
    a ``"local"`` cluster starts once and the sampler is scattered once.
    """

    def __init__(self, jobs: int | None = None, client: Any = None):
        self.jobs, self.client = jobs, client
        self._backend: Any = None

    def _get(self):
        if self._backend is None:
            self._backend = get_backend(self.jobs, self.client)
        return self._backend

    @property
    def name(self) -> str:
        return self._get().name

    def run_chunks(self, *args, **kwargs):
        return self._get().run_chunks(*args, **kwargs)

    def run_streams(self, fn, streams, shared=None, chunk=DEFAULT_CHUNK, progress=None, reduce=None):
        return map_streams(
            fn, streams, shared=shared, backend=self._get(), chunk=chunk, progress=progress, reduce=reduce
        )

    def map(self, *args, **kwargs):
        return self._get().map(*args, **kwargs)

    def close(self) -> None:
        """Close what was built (a cluster this object started), if anything."""
        backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def one_backend_per_call(fn: Callable[..., T]) -> Callable[..., T]:
    """Decorator: a call of ``fn`` with ``client=`` a Dask client, ``"local"`` or an address runs with
    ONE :class:`LazyBackend` for that client (passed on as ``client=``), closed when the call returns
    or raises (Ctrl-C included); a backend given as ``client=`` is used as is."""

    @functools.wraps(fn)
    def call(*args, **kwargs):
        client = kwargs.get("client")
        if client is None or is_backend(client):
            return fn(*args, **kwargs)
        with LazyBackend(kwargs.get("jobs"), client) as backend:
            return fn(*args, **dict(kwargs, client=backend))

    return call


def process_obstacle() -> str | None:
    """Why worker processes cannot be used from this program, or None when they can.

    Worker processes (forkserver or spawn) re-import the main program: a
    script without the ``if __name__ == "__main__":`` guard would run again in
    every worker (and its audit with it), and a program read from standard input
    (``python -``, ``__file__ == "<stdin>"``) cannot be re-imported at all.
    Programs with no main file (``python -c``, the REPL, notebooks) and guarded
    scripts (the ``privcheck`` command, pytest) are fine: functions defined in
    ``__main__`` travel by value with cloudpickle.
    """
    import os
    import sys

    main = sys.modules.get("__main__")
    if main is None:
        return None
    spec = getattr(main, "__spec__", None)
    name = getattr(spec, "name", None)
    if name is not None:  # python -m NAME: re-imported by name (never for a package's __main__)
        if name == "__main__" or name.endswith(".__main__"):
            return None
        path = getattr(spec, "origin", None)
    else:
        path = getattr(main, "__file__", None)
    if path is None:
        return None
    if not os.path.isfile(path):
        return f"the main program {path} is not a file worker processes could re-import"
    try:
        with open(path, "rb") as fh:
            source = fh.read()
    except OSError:
        return f"the main program {path} cannot be read by worker processes"
    if not _has_main_guard(source):
        return (
            f"the script {os.path.basename(path)} has no \"if __name__ == '__main__':\" guard, so worker "
            "processes would run it again"
        )
    return None


def _has_main_guard(source: bytes) -> bool:
    """Whether a module's top level has an ``if __name__ == "__main__":`` block (or cannot be parsed: assume so)."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            names = [node.test.left, *node.test.comparators]
            if any(isinstance(n, ast.Name) and n.id == "__name__" for n in names) and any(
                isinstance(n, ast.Constant) and n.value == "__main__" for n in names
            ):
                return True
    return False


_NOTED: set[str] = set()


def _note_once(text: str) -> None:
    """Print ``privcheck: note: text`` on standard error, once per process and text."""
    import sys

    if text not in _NOTED:
        _NOTED.add(text)
        print(f"privcheck: note: {text}", file=sys.stderr, flush=True)


def get_backend(jobs: int | None = None, client=None, processes: bool = False) -> Backend:
    """The backend that runs chunks.

    jobs: worker count ≥ 1 (default: all cores; for ``client="local"`` the
    number of worker processes). client: ``None`` (no Dask), ``"local"``, a
    scheduler address ``"tcp://HOST:PORT"``, a ``dask.distributed.Client``,
    or an already built backend (used as is; closing the result leaves it
    open for its owner). processes: without a
    client, use worker processes instead of threads (for pure-Python
    per-sample samplers) when more than one worker is asked for (one worker
    runs in this process) and the main program allows it (:func:`process_obstacle`;
    otherwise threads, with a one-line note on standard error). Use the result as a context manager (or call
    ``close()``) so that a cluster or pool it started is shut down.
    """
    if client is not None:
        if is_backend(client):
            return client if isinstance(client, _Borrowed) else _Borrowed(client)
        return DaskBackend(client, jobs)
    if processes and (default_jobs() if jobs is None else int(jobs)) > 1:
        obstacle = process_obstacle()
        if obstacle is None:
            return ProcessBackend(jobs)
        _note_once(
            f"{obstacle}; running on threads instead (same results; for speed add the guard "
            "and run the script from a file)"
        )
    return ThreadBackend(jobs)


def map_chunks(
    fn: ChunkFn,
    n: int,
    seed_seq: np.random.SeedSequence,
    *,
    jobs: int | None = None,
    backend: Backend | None = None,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    reduce: Callable[[Any, Any], Any] | None = None,
) -> Any:
    """Run ``fn(rng_i, size_i)`` over the chunks of ``n`` draws; results in chunk order.

    Chunk ``i`` uses :func:`chunk_generator` ``(seed_seq, i)``, so the output is
    the same for any backend and any number of workers. ``backend`` defaults
    to :func:`get_backend` ``(jobs)`` (threads). ``progress(k)`` is called with
    the size of each finished chunk. With ``reduce`` (e.g. ``numpy.add``) the
    results are folded in chunk order as they arrive and only the fold is
    returned (``None`` when ``n == 0``), so memory does not grow with ``n``;
    without it, the list of results.
    """
    backend = backend if backend is not None else get_backend(jobs)
    sizes = chunk_sizes(n, chunk)
    if reduce is None:  # any object with run_chunks(fn, sizes, seed_seq, progress) is a backend
        return backend.run_chunks(fn, sizes, seed_seq, progress)
    return backend.run_chunks(fn, sizes, seed_seq, progress, reduce=reduce)


def map_streams(
    fn: StreamFn,
    streams: Sequence[Stream],
    *,
    shared: Any = None,
    jobs: int | None = None,
    backend: Backend | None = None,
    chunk: int = DEFAULT_CHUNK,
    progress: Progress | None = None,
    reduce: Callable[[Any, Any], Any] | None = None,
) -> list:
    """Run the chunks of several streams (e.g. every input of one audit stage) as ONE map.

    Chunk ``i`` of stream ``s`` is ``fn(shared, s, chunk_generator(streams[s].seed_seq, i), size)`` with
    the sizes of :func:`chunk_sizes` ``(streams[s].n, chunk)``: exactly the chunks and generators that
    :func:`map_chunks` would run for each stream alone, so results equal one :func:`map_chunks` per
    stream on any backend. Returns, per stream, the list of chunk results in chunk order, or their fold
    with ``reduce`` (which must be associative: a Dask task folds its own chunks first; ``None`` for an
    empty stream). ``shared`` (e.g. the sampler and the inputs) is passed to every chunk; Dask scatters
    it once per backend. A backend with ``run_chunks`` alone runs one map per stream.
    """
    backend = backend if backend is not None else get_backend(jobs)
    streams = list(streams)
    run = getattr(backend, "run_streams", None)
    if run is not None:
        return run(fn, streams, shared=shared, chunk=chunk, progress=progress, reduce=reduce)
    out = [
        backend.run_chunks(functools.partial(fn, shared, s), chunk_sizes(st.n, chunk), st.seed_seq, progress)
        for s, st in enumerate(streams)
    ]  # the minimal protocol: no reduce
    return out if reduce is None else [functools.reduce(reduce, parts) if parts else None for parts in out]
