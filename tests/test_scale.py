"""Scale-out backends: threads, worker processes and Dask give identical results; bounded windows,
progress, Ctrl-C, unpicklable samplers and a missing Dask give one clear line."""

from __future__ import annotations

import dataclasses
import json
import sys
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner

import privcheck
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.scheduler import (
    WINDOW_PER_WORKER,
    DaskBackend,
    ProcessBackend,
    ThreadBackend,
    chunk_generator,
    get_backend,
    map_chunks,
)
from privcheck.cli import main
from privcheck.runner import RunOptions, load_catalogue, run, select

distributed = pytest.importorskip("distributed")
# this module's functions travel by value, so workers need not import the test module (and its imports)
import cloudpickle  # noqa: E402

cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def processes():
    with ProcessBackend(2) as pb:
        yield pb


def _chunk_stats(rng, size):
    x = rng.integers(0, 1000, size)
    return np.array([x.sum(), (x * x).sum(), x.min(), x.max()], dtype=np.int64)


def _no_timings(obj):
    """JSON text of a record or audit result without wall-clock fields."""
    if dataclasses.is_dataclass(obj):
        obj = dataclasses.asdict(obj)

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if "second" not in k}  # seconds, draws_per_second
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return json.dumps(strip(obj), sort_keys=True, default=str)


# --------------------------------------------------------------------------- the scheduler


def test_chunks_identical_on_every_backend(dask_client, processes):
    ss = np.random.SeedSequence(2024, spawn_key=(7,))
    ref = map_chunks(_chunk_stats, 10_000, ss, chunk=700, backend=ThreadBackend(1))
    assert len(ref) == 15
    backends = [ThreadBackend(2), processes, DaskBackend(dask_client)]
    for b in backends:
        got = map_chunks(_chunk_stats, 10_000, ss, chunk=700, backend=b)
        assert [r.tolist() for r in got] == [r.tolist() for r in ref], b.name
        folded = map_chunks(_chunk_stats, 10_000, ss, chunk=700, backend=b, reduce=np.add)
        assert folded.tolist() == np.sum(ref, axis=0).tolist(), b.name
    # a different seed gives different draws: the comparison above can fail
    other = map_chunks(_chunk_stats, 10_000, np.random.SeedSequence(2025), chunk=700, jobs=1)
    assert [r.tolist() for r in other] != [r.tolist() for r in ref]


def test_reduce_of_nothing_is_none():
    assert map_chunks(_chunk_stats, 0, np.random.SeedSequence(1), jobs=2, reduce=np.add) is None


def test_progress_reports_every_draw(dask_client):
    for b in (ThreadBackend(2), DaskBackend(dask_client)):
        seen = []
        map_chunks(_chunk_stats, 5_000, np.random.SeedSequence(3), chunk=600, backend=b, progress=seen.append)
        assert sum(seen) == 5_000 and len(seen) == 9, b.name


def test_window_bounds_the_tasks_in_flight():
    """While chunk 0 is stuck, at most the window of later chunks may start (never all of them)."""
    jobs = 2
    window = WINDOW_PER_WORKER * jobs
    ss = np.random.SeedSequence(0)
    first_of_chunk0 = chunk_generator(ss, 0).random()
    started: list[int] = []
    lock = threading.Lock()

    def fn(rng, size):
        is_chunk0 = rng.random() == first_of_chunk0
        with lock:
            started.append(0 if is_chunk0 else 1)
        if is_chunk0:
            time.sleep(1.0)
            with lock:
                started.append(-1)  # marks the moment chunk 0 finished
        return size

    out = map_chunks(fn, 40, ss, chunk=1, backend=ThreadBackend(jobs))
    assert out == [1] * 40
    before_release = started.index(-1)
    assert before_release <= window, started


def test_ctrl_c_cancels_promptly(dask_client, processes):
    """An interrupt in the driver (as Ctrl-C raises it) cancels the pending tasks and propagates fast."""

    def _slow(rng, size):  # nested: travels by value, workers need not import this test module
        import time

        time.sleep(0.3)
        return size

    def interrupt(k):
        raise KeyboardInterrupt

    processes.map(abs, [-1, -2])  # the pool is started (starting is not what is timed)
    for b in (ThreadBackend(2), processes, DaskBackend(dask_client)):
        t = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            map_chunks(_slow, 100, np.random.SeedSequence(0), chunk=1, backend=b, progress=interrupt)
        assert time.perf_counter() - t < 5.0, b.name  # 100 chunks would take 15 s
    # the process pool restarts and the cluster is still usable afterwards
    assert map_chunks(_slow, 2, np.random.SeedSequence(0), chunk=1, backend=processes) == [1, 1]
    assert (
        map_chunks(
            _chunk_stats, 100, np.random.SeedSequence(0), chunk=50, backend=DaskBackend(dask_client), reduce=np.add
        )
        is not None
    )


def test_whole_tasks_map_in_order(dask_client, processes):
    for b in (ThreadBackend(2), processes, DaskBackend(dask_client)):
        done = []
        assert b.map(lambda v: v * v, range(7), progress=done.append) == [v * v for v in range(7)]
        assert sorted(done) == sorted(v * v for v in range(7))


# --------------------------------------------------------------------------- audits


def _oue(x, n, rng, d=8, eps=1.0):
    """Optimized unary encoding (Wang et al. 2017): the true bit kept w.p. 1/2, others set w.p. 1/(e^ε+1)."""
    q = 1.0 / (np.exp(eps) + 1.0)
    bits = rng.random((n, d)) < q
    bits[:, x] = rng.random(n) < 0.5
    return bits.view(np.uint8)


def test_audit_identical_on_threads_processes_and_dask(dask_client, processes):
    kw = dict(inputs=[0, 1, 2], eps=1.0, samples=6_000, seed=11)
    ref = privcheck.audit(_oue, jobs=2, **kw)
    assert ref.eps_lower > 0  # the audit found something, so equality is not vacuous
    for client in (processes, dask_client):
        got = privcheck.audit(_oue, client=client, **kw)
        assert _no_timings(got) == _no_timings(ref)


def test_cli_audit_dask_local_matches_threads():
    args = [
        "audit",
        "de",
        "--param",
        "m=4",
        "--param",
        "eps=1.5",
        "--samples",
        "20000",
        "--seed",
        "5",
        "--jobs",
        "2",
        "--json",
        "-",
    ]
    a = CliRunner().invoke(main, args)
    b = CliRunner().invoke(main, args + ["--dask", "local"])
    assert a.exit_code == 0 and b.exit_code == 0, (a.output, b.output)
    ja, jb = json.loads(a.output), json.loads(b.output)
    assert ja["eps_lower"] is not None and ja["eps_lower"] > 0
    assert _no_timings(ja) == _no_timings(jb)


# --------------------------------------------------------------------------- catalogue runs


def test_verify_selection_identical_on_dask(dask_client):
    load_catalogue()
    checks = select(["fedsel.pe.*", "biswas.de.ldp"])
    assert len(checks) >= 4
    opts = dict(seed=3, samples=2_000, quick=True)
    ref = run(checks, RunOptions(jobs=1, **opts))
    got = run(checks, RunOptions(client=dask_client, **opts))
    assert [r.verdict for r in ref] and all(r.verdict != "error" for r in ref)
    assert [_no_timings(r) for r in got] == [_no_timings(r) for r in ref]


def test_cli_verify_joins_a_running_scheduler(dask_client, tmp_path):
    addr = dask_client.scheduler.address
    common = ["verify", "fedsel.pe.ldp", "--samples", "2000", "--seed", "4", "--quick"]
    a = CliRunner().invoke(main, common + ["--jobs", "1", "--json", str(tmp_path / "a.json")])
    b = CliRunner().invoke(main, common + ["--dask", addr, "--json", str(tmp_path / "b.json")])
    assert a.exit_code == 0 and b.exit_code == 0, (a.output, b.output)
    ra = json.loads((tmp_path / "a.json").read_text())
    rb = json.loads((tmp_path / "b.json").read_text())
    assert ra and [_no_timings(r) for r in ra] == [_no_timings(r) for r in rb]
    assert dask_client.status == "running"  # joining did not close the cluster


# --------------------------------------------------------------------------- one clear line


def test_unpicklable_sampler_is_named(dask_client, processes):
    lock = threading.Lock()

    def locked_sampler(x, n, rng):
        """A sampler that holds a lock: it cannot travel to another process."""
        with lock:
            return rng.random(n) < 0.5 + 0.1 * x

    for client in (processes, dask_client):
        with pytest.raises(PrivcheckUsageError) as err:
            privcheck.audit(locked_sampler, inputs=[0, 1], eps=1.0, samples=1000, client=client)
        msg = str(err.value)
        assert "\n" not in msg
        assert "locked_sampler" in msg and "lock" in msg and "cannot be pickled" in msg
    # on threads nothing needs pickling
    assert privcheck.audit(locked_sampler, inputs=[0, 1], eps=1.0, samples=1000, jobs=2).verdict


def test_missing_dask_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(PrivcheckUsageError, match=r"pip install 'privcheck\[dask\]'"):
        get_backend(client="local")
    r = CliRunner().invoke(main, ["audit", "de", "--param", "m=3", "--samples", "100", "--dask", "local"])
    assert r.exit_code == 2
    assert "privcheck[dask]" in r.output and "Traceback" not in r.output
    # without --dask nothing needs Dask
    assert isinstance(get_backend(2), ThreadBackend)


@pytest.mark.parametrize("bad", ["nowhere", "tcp://", "local-ish", 42])
def test_bad_dask_address_is_one_line(bad):
    with pytest.raises(PrivcheckUsageError, match="--dask takes 'local' or a scheduler address"):
        DaskBackend(bad)


def test_unreachable_scheduler_is_one_line():
    t = time.perf_counter()
    with pytest.raises(PrivcheckUsageError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskBackend("tcp://127.0.0.1:9", connect_timeout=1.0)
    assert time.perf_counter() - t < 10


@pytest.mark.parametrize("name", ["claims.py", "claims.toml"])
def test_user_claims_files_travel_to_dask(dask_client, tmp_path, name):
    """Checks defined in a user's claims file (not importable on the workers) travel by value."""
    import os

    path = os.path.join(os.path.dirname(__file__), os.pardir, "examples", name)
    common = ["verify", "--file", path, "--quick", "--samples", "2000", "--seed", "2"]
    a = CliRunner().invoke(main, common + ["--jobs", "1", "--json", str(tmp_path / "a.json")])
    b = CliRunner().invoke(main, common + ["--dask", dask_client.scheduler.address, "--json", str(tmp_path / "b.json")])
    assert a.exit_code in (0, 1) and b.exit_code == a.exit_code, (a.output, b.output)  # 1: a small-sample expectation
    ra = json.loads((tmp_path / "a.json").read_text())
    rb = json.loads((tmp_path / "b.json").read_text())
    assert ra and all(r["verdict"] != "error" for r in rb), rb
    assert [_no_timings(r) for r in ra] == [_no_timings(r) for r in rb]


def test_worker_without_the_module_is_one_line(dask_client, tmp_path, monkeypatch):
    """A sampler from a module only the client can import: the worker's ImportError becomes one clear line."""
    (tmp_path / "only_here_sampler.py").write_text(
        "def draw(rng, size):\n    return int(rng.integers(0, 2, size).sum())\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import only_here_sampler

    with pytest.raises(PrivcheckUsageError, match="a Dask worker cannot import only_here_sampler"):
        map_chunks(only_here_sampler.draw, 100, np.random.SeedSequence(0), chunk=50, backend=DaskBackend(dask_client))
    assert map_chunks(only_here_sampler.draw, 100, np.random.SeedSequence(0), chunk=50, jobs=1)


def test_a_local_cluster_ends_with_its_backend():
    """A backend that started a LocalCluster closes it when closed or dropped (callers may forget `with`)."""
    import gc

    b = get_backend(1, "local")
    cluster = b._owned[1]
    assert map_chunks(lambda rng, size: size, 10, np.random.SeedSequence(0), chunk=5, backend=b) == [5, 5]
    del b
    gc.collect()
    assert cluster.status.name == "closed"


def test_minimal_backend_objects_still_work():
    """map_chunks only needs run_chunks(fn, sizes, seed_seq, progress) from a backend (no reduce)."""

    class Minimal:
        name = "minimal"

        def run_chunks(self, fn, sizes, seed_seq, progress=None):
            return [fn(chunk_generator(seed_seq, i), s) for i, s in enumerate(sizes)]

    ss = np.random.SeedSequence(9)
    assert [r.tolist() for r in map_chunks(_chunk_stats, 300, ss, chunk=100, backend=Minimal())] == [
        r.tolist() for r in map_chunks(_chunk_stats, 300, ss, chunk=100, jobs=2)
    ]
