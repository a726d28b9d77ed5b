"""Fused audit rounds: every input of a stage in one map (map_streams), the sampler scattered once, several
chunks per Dask task folded on the worker, one backend per audit / verify run — and results bit-identical
to one map per input on threads."""

from __future__ import annotations

import functools
import sys

import numpy as np
import pytest

import privcheck
import privcheck.base.scheduler as scheduler
from privcheck.base.scheduler import (
    DaskBackend,
    ProcessBackend,
    Stream,
    ThreadBackend,
    map_chunks,
    map_streams,
    plan_tasks,
)
from privcheck.base.seeding import derive

distributed = pytest.importorskip("distributed")
import cloudpickle  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import this test module


def _stats(shared, s, rng, size):
    x = rng.integers(0, 1000, size) + shared[s]
    return np.array([x.sum(), (x * x).sum(), x.min(), x.max(), size], dtype=np.int64)


SHARED = np.array([0, 10_000, 20_000])
SEED = np.random.SeedSequence(99)
STREAMS = [Stream(10_000, derive(SEED, "a", 0)), Stream(3_000, derive(SEED, "a", 1)), Stream(0, derive(SEED, "a", 2))]


def _reference(reduce=None):
    """One map_chunks per stream on one thread: what the fused map must reproduce exactly."""
    return [
        map_chunks(functools.partial(_stats, SHARED, s), st.n, st.seed_seq, chunk=700, jobs=1, reduce=reduce)
        for s, st in enumerate(STREAMS)
    ]


def _plain(results):
    return [None if r is None else np.asarray(r).tolist() for r in results]


def test_plan_keeps_every_chunk_and_its_index():
    for per_task in (1, 2, 4, 7):
        tasks = plan_tasks(STREAMS, 700, per_task)
        for s, st in enumerate(STREAMS):
            mine = [t for t in tasks if t.stream == s]
            assert [t.first for t in mine] == list(range(0, len(mine) * per_task, per_task))
            assert sum(sum(t.sizes) for t in mine) == st.n
            assert all(len(t.sizes) <= per_task for t in mine)


def test_streams_identical_to_one_map_per_stream_on_every_backend(dask_client):
    ref, ref_sum = _reference(), _reference(np.add)
    assert len(ref[0]) == 15 and len(ref[1]) == 5 and ref[2] == [] and ref_sum[2] is None
    with ProcessBackend(2) as processes:
        for b in (ThreadBackend(1), ThreadBackend(2), processes, DaskBackend(dask_client)):
            got = map_streams(_stats, STREAMS, shared=SHARED, chunk=700, backend=b)
            assert [_plain(r) for r in got] == [_plain(r) for r in ref], b.name
            folded = map_streams(_stats, STREAMS, shared=SHARED, chunk=700, backend=b, reduce=np.add)
            assert _plain(folded) == _plain(ref_sum), b.name
    other = map_streams(_stats, [Stream(10_000, derive(SEED, "b", 0))], shared=SHARED, chunk=700, jobs=1)
    assert _plain(other[0]) != _plain(ref[0])  # another seed gives other draws: the equality above can fail


def test_dask_runs_several_chunks_per_task_and_folds_them_on_the_worker(dask_client):
    backend = DaskBackend(dask_client)
    seen = []
    folded = map_streams(
        _stats, STREAMS, shared=SHARED, chunk=700, backend=backend, reduce=np.add, progress=seen.append
    )
    per_task = backend._per_task(STREAMS, 700)
    assert per_task > 1
    assert len(seen) == len(plan_tasks(STREAMS, 700, per_task)) < 20  # one result per task, not per chunk
    assert sum(seen) == 13_000 and _plain(folded) == _plain(_reference(np.add))


def test_shared_object_is_scattered_once_per_backend(dask_client, monkeypatch):
    backend = DaskBackend(dask_client)
    scattered = []
    real = dask_client.scatter
    monkeypatch.setattr(dask_client, "scatter", lambda data, **kw: scattered.append(len(data[0])) or real(data, **kw))
    shared = np.arange(50_000)  # large enough to tell its payload from the chunk function's
    for _ in range(3):
        map_streams(_stats, STREAMS[:2], shared=shared, chunk=700, backend=backend, reduce=np.add)
    big = [n for n in scattered if n > shared.nbytes]
    assert len(big) == 1 and len(scattered) == 1  # the shared object once; the small chunk function rides inline
    backend.close()
    assert backend._shared == {}


def _laplace(x, n, rng):
    return x + rng.laplace(0.0, 1.0, n)


def test_fused_audit_identical_to_threads_on_dask(dask_client, monkeypatch):
    """Pairs restrict the inputs; Dask tasks forced to 2 chunks each (3 estimation chunks per input)."""
    monkeypatch.setattr(DaskBackend, "_per_task", lambda self, streams, chunk: 2)
    kw = dict(inputs=[0.0, 1.0, 3.0], pairs=[(0.0, 1.0)], eps=1.0, samples=700_000, seed=7)
    ref = privcheck.audit(_laplace, jobs=2, **kw)
    got = privcheck.audit(_laplace, client=dask_client, **kw)
    assert ref.eps_lower > 0.5
    assert got.eps_lower == ref.eps_lower and got.details["candidates"] == ref.details["candidates"]


class _Counting(ThreadBackend):
    built: list = []
    closed: list = []

    def __init__(self, jobs=None):
        super().__init__(jobs)
        _Counting.built.append(self)

    def close(self):
        _Counting.closed.append(self)


@pytest.fixture
def counting(monkeypatch):
    _Counting.built, _Counting.closed = [], []

    def fake_get_backend(jobs=None, client=None, processes=False):
        if client == "fake-cluster":
            return _Counting(2)
        return real(jobs, client, processes)

    real = scheduler.get_backend
    monkeypatch.setattr(scheduler, "get_backend", fake_get_backend)
    return _Counting


def test_one_backend_for_all_stages_rounds_and_curve_draws(counting):
    g = privcheck.mechanism("gaussian", eps=1.0, delta=1e-5)
    a = privcheck.audit(g, samples=4_000, seed=2, client="fake-cluster")  # ε/δ stages + curve stages
    assert len(counting.built) == 1 and counting.closed == counting.built
    b = privcheck.audit(g, samples=4_000, seed=2, jobs=2)
    assert a.delta_lower == b.delta_lower and a.eps_lower_at_delta == b.eps_lower_at_delta
    counting.built.clear(), counting.closed.clear()
    grr = privcheck.mechanism("grr", d=3, eps=0.5)
    r = privcheck.audit(grr, samples="auto:first=2000,max_draws=40000", seed=1, client="fake-cluster")
    assert len(r.details["adaptive"]["rounds"]) >= 2  # several rounds, one backend
    assert len(counting.built) == 1 and counting.closed == counting.built


def test_backend_closed_on_ctrl_c_and_bad_input_starts_none(counting):
    def interrupt(_):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        privcheck.audit(_laplace, inputs=[0.0, 1.0], eps=1.0, samples=3_000, client="fake-cluster", progress=interrupt)
    assert len(counting.built) == 1 and counting.closed == counting.built
    with pytest.raises(privcheck.PrivcheckUsageError):
        privcheck.audit(_laplace, inputs=[0.0, 1.0], eps=-1.0, samples=3_000, client="fake-cluster")
    assert len(counting.built) == 1  # refused before any cluster was started


def test_verify_run_uses_one_backend(counting):
    from privcheck.runner import RunOptions, load_catalogue, run, select

    load_catalogue()
    checks = select(["fedsel.exp.ldp", "fedsel.pe.ldp", "fedsel.ps.ldp"], methods=["exact"])
    assert len(checks) == 3
    recs = run(checks, RunOptions(seed=3, client="fake-cluster"))
    assert [r.verdict for r in recs] == [r.verdict for r in run(checks, RunOptions(seed=3, jobs=1))]
    assert len(counting.built) == 1 and counting.closed == counting.built


def test_largest_tasks_are_submitted_first_and_results_still_fold_in_index_order(dask_client, monkeypatch):
    tasks = plan_tasks([Stream(3 * 700 + 50, SEED), Stream(3 * 700 + 50, SEED)], 700, 2)
    assert [sum(t.sizes) for t in tasks] == [1400, 750, 1400, 750]
    assert scheduler.largest_first(tasks) == [0, 2, 1, 3]  # round-robin placement: 2150 draws per worker
    backend = DaskBackend(dask_client)
    order = []
    real = dask_client.submit
    monkeypatch.setattr(dask_client, "submit", lambda fn, *a, **kw: order.append(a[3].first) or real(fn, *a, **kw))
    streams = [Stream(3 * 700 + 50, derive(SEED, "o", s)) for s in range(2)]
    monkeypatch.setattr(DaskBackend, "_per_task", lambda self, streams, chunk: 2)
    got = map_streams(_stats, streams, shared=SHARED, chunk=700, backend=backend)
    ref = map_streams(_stats, streams, shared=SHARED, chunk=700, jobs=1)
    assert order == [0, 0, 2, 2] and [_plain(r) for r in got] == [_plain(r) for r in ref]


def test_worker_threads_are_asked_once_per_client_not_once_per_backend(dask_client, monkeypatch):
    asked = []
    real = dask_client.nthreads
    monkeypatch.setattr(dask_client, "nthreads", lambda *a: asked.append(1) or real(*a))
    scheduler._CLIENT_THREADS.pop(dask_client, None)
    counts = [DaskBackend(dask_client)._threads() for _ in range(3)]
    assert len(asked) == 1 and counts[0] == sum(real().values()) == counts[2]
