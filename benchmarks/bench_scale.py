"""Scale-out throughput and memory: audits of OUE d = 100 on threads and on Dask (not run in CI).

Usage::

    python benchmarks/bench_scale.py                       # 1e6 and 1e7 draws per input
    python benchmarks/bench_scale.py --sizes 1e6 1e7 1e8   # 1e8 needs the streaming selection
    python benchmarks/bench_scale.py --backends threads    # skip Dask
    python benchmarks/bench_scale.py --sizes 1e6 --write   # and store the table for the Performance page
    python benchmarks/bench_scale.py --compare --before ../privcheck-before   # Dask vs threads, today vs new

``--compare`` measures, in ONE run and interleaved, the audit of this OUE sampler at ``--sizes[0]``
draws per input on threads and on a warm local Dask cluster (``--jobs`` single-threaded workers,
started and warmed before timing) for this tree and, with ``--before PATH``, for that older
checkout (each tree in a server subprocess with the tree first on PYTHONPATH, its cluster's
workers inheriting it); then ``privcheck audit oue --param d=100`` from the command line
(interpreter start-up and, for ``--dask local``, the cluster's start-up included) for each tree and
backend. It prints medians over ``--repeat`` rounds and the median of the per-round Dask/threads
ratios (paired ratios are the robust figure on a loaded machine), and checks that every
configuration found the same ``eps_lower`` (chunk seeds do not depend on the backend).

For every size and backend it measures, in the same run,

- ``raw``: the bare sampler drawing the same samples (the audit's draws: every
  input's selection and estimation share) in the same chunks on the same
  backend, outputs discarded: the least any audit must cost;
- ``audit``: ``privcheck.audit`` of the same sampler (selection, events,
  estimation, bounds);

and reports draws per second, the audit/raw time ratio, the Dask/threads ratio,
and the peak resident memory of the whole process tree (this process plus
every worker process; psutil if available, else /proc), sampled every 50 ms.
At the end it projects how many cores of the measured speed an audit of
10^10 draws would need to finish in an hour (linear scaling assumed: chunks are
independent tasks; the scheduler's overhead per task is in the measurement).
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import threading
import time

import numpy as np

D = 100
EPS = 1.0
INPUTS = [0, 1]


def oue(x, n, rng, d=D, eps=EPS):
    """Optimized unary encoding (Wang et al., USENIX Security 2017): n reports of input x as d bits.

    The true bit is 1 w.p. 1/2, every other bit w.p. 1/(e^ε + 1); ε-LDP with ε = ``eps``.
    """
    q = 1.0 / (math.exp(eps) + 1.0)
    bits = rng.random((n, d)) < q
    bits[:, x] = rng.random(n) < 0.5
    return bits.view(np.uint8)


# --------------------------------------------------------------------------- memory of the process tree


def _tree_rss_psutil(proc) -> int:
    total = 0
    for p in [proc] + proc.children(recursive=True):
        try:
            total += p.memory_info().rss
        except Exception:  # a worker that just exited
            pass
    return total


def _tree_rss_proc(pid: int) -> int:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(entry))
            except OSError:
                pass
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += kids.get(p, [])
        try:
            with open(f"/proc/{p}/statm") as fh:
                total += int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
    return total


class PeakMemory:
    """Samples the resident memory of this process and all its descendants; ``peak`` in bytes."""

    def __init__(self, every: float = 0.05):
        try:
            import psutil

            proc = psutil.Process()
            self._measure = lambda: _tree_rss_psutil(proc)
            self.how = "psutil"
        except ImportError:
            self._measure = lambda: _tree_rss_proc(os.getpid())
            self.how = "/proc"
        self.every = every
        self.peak = 0

    def __enter__(self):
        self.peak = self._measure()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self):
        while not self._stop.wait(self.every):
            self.peak = max(self.peak, self._measure())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._measure())


# --------------------------------------------------------------------------- measurements


def raw_sampling(backend, n: int, seed: int) -> float:
    """Seconds for the bare sampler to draw the audit's samples (n per input, same chunks), outputs discarded."""
    from privcheck.auditor import SELECTION_SHARE
    from privcheck.base.scheduler import map_chunks
    from privcheck.base.seeding import derive

    n_sel = max(10, int(round(n * SELECTION_SHARE)))
    n_est = n - n_sel
    ss = np.random.SeedSequence(seed)
    t = time.perf_counter()
    for i, x in enumerate(INPUTS):
        for stage, m in (("selection", n_sel), ("estimation", n_est)):
            map_chunks(
                lambda rng, size, x=x: int(oue(x, size, rng).shape[0]),
                m,
                derive(ss, "raw", stage, i),
                backend=backend,
                reduce=lambda a, b: a + b,
            )
    return time.perf_counter() - t


def one(backend_name: str, backend, client, n: int, seed: int) -> dict:
    import privcheck

    with PeakMemory() as mem_raw:
        t_raw = raw_sampling(backend, n, seed)
    with PeakMemory() as mem:
        t = time.perf_counter()
        res = privcheck.audit(
            oue,
            inputs=INPUTS,
            eps=EPS,
            samples=n,
            seed=seed,
            **({"client": client} if client is not None else {"jobs": backend.jobs}),
        )
        t_audit = time.perf_counter() - t
    draws = n * len(INPUTS)
    return {
        "backend": backend_name,
        "n": n,
        "raw_s": t_raw,
        "audit_s": t_audit,
        "raw_rate": draws / t_raw,
        "audit_rate": draws / t_audit,
        "ratio": t_audit / t_raw,
        "peak_raw": mem_raw.peak,
        "peak_audit": mem.peak,
        "eps_lower": res.eps_lower,
        "verdict": res.verdict,
    }


# --------------------------------------------------------------------------- --compare: today vs new, one run

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def serve(jobs: int) -> None:
    """Server of one tree (``--serve``): a warm LocalCluster; reads ``BACKEND N SEED`` lines, answers JSON."""
    import json
    import sys

    import cloudpickle
    import distributed

    import privcheck

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need not import this script
    try:  # the cluster `--dask local` starts in this tree (its worker settings included)
        from privcheck.base.scheduler import DaskBackend

        local = DaskBackend("local", jobs)
        cluster, client = local, local.client
    except ImportError:  # an older tree: a plain LocalCluster like the one it started
        cluster = distributed.LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
        )
        client = distributed.Client(cluster)
    try:
        for backend in ({"jobs": jobs}, {"client": client}):  # warm: imports on the workers, caches
            privcheck.audit(oue, inputs=INPUTS, eps=EPS, samples=20_000, seed=0, **backend)
        print(json.dumps({"ready": privcheck.__file__}), flush=True)
        for line in sys.stdin:
            name, n, seed = line.split()
            kw = {"client": client} if name == "dask" else {"jobs": jobs}
            t = time.perf_counter()
            res = privcheck.audit(oue, inputs=INPUTS, eps=EPS, samples=int(n), seed=int(seed), **kw)
            print(json.dumps({"s": time.perf_counter() - t, "eps_lower": res.eps_lower}), flush=True)
    finally:
        client.close()
        cluster.close()


def _cli_seconds(tree: str, jobs: int, n: int, seed: int, dask: bool) -> tuple[float, float]:
    """Wall seconds of ``privcheck audit oue --param d=100`` from ``tree`` (start-up included), and its eps_lower."""
    import json
    import subprocess
    import sys

    cmd = [
        sys.executable,
        "-c",
        "from privcheck.cli import main; main()",
        "audit",
        "oue",
        "--param",
        f"d={D}",
        "--param",
        f"eps={EPS:g}",
        "--samples",
        str(n),
        "--seed",
        str(seed),
        "--jobs",
        str(jobs),
        "--no-exact",
        "--json",
        "-",
    ] + (["--dask", "local"] if dask else [])
    t = time.perf_counter()
    out = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=tree), capture_output=True, text=True, check=True)
    return time.perf_counter() - t, json.loads(out.stdout)["eps_lower"]


def compare(trees: dict[str, str], jobs: int, n: int, seed: int, repeat: int) -> None:
    """Dask vs threads for every tree, warm (interleaved server calls) and from the CLI; medians and ratios."""
    import json
    import statistics
    import subprocess
    import sys

    servers = {}
    try:
        for label, tree in trees.items():
            servers[label] = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--serve", "--jobs", str(jobs)],
                env=dict(os.environ, PYTHONPATH=tree),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            ready = json.loads(servers[label].stdout.readline())
            print(
                f"{label:8s} tree {tree} (privcheck from {os.path.dirname(os.path.dirname(ready['ready']))})",
                flush=True,
            )
        warm: dict = {}
        cli: dict = {}
        lowers: dict = {}  # (tree, path) -> eps_lower values seen on threads and on Dask
        for r in range(repeat):
            for label in trees:
                for backend in ("threads", "dask"):
                    servers[label].stdin.write(f"{backend} {n} {seed}\n")
                    servers[label].stdin.flush()
                    ans = json.loads(servers[label].stdout.readline())
                    warm.setdefault((label, backend), []).append(ans["s"])
                    lowers.setdefault((label, "warm"), set()).add(ans["eps_lower"])
            print(
                f"round {r + 1}: warm " + "  ".join(f"{k[0]}/{k[1]} {v[-1]:.2f}s" for k, v in warm.items()), flush=True
            )
        for r in range(repeat):
            for label, tree in trees.items():
                for backend in ("threads", "dask"):
                    s_, low = _cli_seconds(tree, jobs, n, seed, backend == "dask")
                    cli.setdefault((label, backend), []).append(s_)
                    lowers.setdefault((label, "cli"), set()).add(low)
            print(
                f"round {r + 1}: cli  " + "  ".join(f"{k[0]}/{k[1]} {v[-1]:.2f}s" for k, v in cli.items()), flush=True
            )
    finally:
        for proc in servers.values():
            proc.stdin.close()
            proc.wait(timeout=60)
    print(
        f"\nOUE d={D}, {n:.0e} draws/input, {jobs} workers, {repeat} interleaved rounds; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (medians; ratio = median of per-round dask/threads)"
    )
    print(f"{'':6s} {'tree':8s} {'threads s':>10s} {'dask s':>8s} {'dask/threads':>13s}")
    for what, table in (("warm", warm), ("cli", cli)):
        for label in trees:
            th, dk = table[(label, "threads")], table[(label, "dask")]
            ratio = statistics.median(d / t for d, t in zip(dk, th))
            print(f"{what:6s} {label:8s} {statistics.median(th):10.2f} {statistics.median(dk):8.2f} {ratio:13.2f}")
    if len(trees) > 1:
        for what, table in (("warm", warm), ("cli", cli)):
            a, b = list(trees)
            sp = statistics.median(x / y for x, y in zip(table[(a, "dask")], table[(b, "dask")]))
            print(f"{what}: dask {a}/{b} time ratio {sp:.2f}")
    # threads and Dask must agree exactly within one tree and path (the chunk seeds do not depend on the backend);
    # trees may differ (their interval routines differ in the last digits) and so may paths (the CLI audits
    # the built-in oue, the warm server this script's plain-numpy sampler)
    same = all(len(v) == 1 for v in lowers.values())
    print(
        f"eps_lower identical on threads and Dask within each tree and path: {same} "
        f"({ {f'{k[0]}/{k[1]}': sorted(v) for k, v in lowers.items()} })"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7], help="draws per input")
    ap.add_argument("--backends", nargs="+", default=["threads", "dask"], choices=["threads", "dask"])
    ap.add_argument("--jobs", type=int, default=None, help="threads / local Dask worker processes (default: cores)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compare", action="store_true", help="Dask vs threads, warm and from the CLI, per tree")
    ap.add_argument("--before", default=None, help="with --compare: an older checkout measured in the same run")
    ap.add_argument("--repeat", type=int, default=5, help="with --compare: interleaved rounds")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument(
        "--write", action="store_true", help="store the table in benchmarks/results/performance.json and the page"
    )
    args = ap.parse_args()
    if args.serve:
        return serve(args.jobs or 2)
    if args.compare:
        from privcheck.base.seeding import default_jobs

        trees = ({"today": os.path.abspath(args.before)} if args.before else {}) | {"new": _ROOT}
        return compare(trees, args.jobs or default_jobs(), int(args.sizes[0]), args.seed, args.repeat)

    from privcheck.base.scheduler import DaskBackend, ThreadBackend
    from privcheck.base.seeding import default_jobs

    jobs = args.jobs or default_jobs()
    load0, started = os.getloadavg()[0], time.time()
    print(
        f"OUE d={D}, eps={EPS}, inputs {INPUTS}; {jobs} workers; load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} cores"
    )
    rows = []
    print(
        f"{'backend':8s} {'draws/input':>11s} {'raw s':>8s} {'audit s':>8s} {'raw/s':>9s} {'audit/s':>9s} "
        f"{'audit/raw':>9s} {'idle tree':>9s} {'peak raw':>9s} {'peak audit':>10s}  eps_lower"
    )

    def measure(name, backend, client):
        idle = PeakMemory()
        with idle:
            pass
        for n in (int(s) for s in args.sizes):
            r = one(name, backend, client, n, args.seed)
            r["idle"] = idle.peak
            rows.append(r)
            print(
                f"{name:8s} {n:11.0e} {r['raw_s']:8.2f} {r['audit_s']:8.2f} {r['raw_rate']:9.3g} "
                f"{r['audit_rate']:9.3g} {r['ratio']:9.2f} {idle.peak / 2**20:7.0f}MB {r['peak_raw'] / 2**20:7.0f}MB "
                f"{r['peak_audit'] / 2**20:8.0f}MB  {r['eps_lower']:.4f}",
                flush=True,
            )

    if "threads" in args.backends:  # first, so that no Dask worker is in the process tree
        measure("threads", ThreadBackend(jobs), None)
    if "dask" in args.backends:
        import distributed

        t = time.perf_counter()
        cluster = distributed.LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
        )
        client = distributed.Client(cluster)
        print(
            f"(dask LocalCluster of {jobs} single-threaded worker processes started in "
            f"{time.perf_counter() - t:.1f} s, not counted)"
        )
        try:
            backend = DaskBackend(client)
            one("dask", backend, client, 20_000, args.seed)  # warm the workers' imports
            measure("dask", backend, client)
        finally:
            client.close()
            cluster.close()
    by = {(r["backend"], r["n"]): r for r in rows}
    for n in sorted({r["n"] for r in rows}):
        if ("threads", n) in by and ("dask", n) in by:
            print(
                f"dask / threads audit time at {n:.0e} draws per input: "
                f"{by[('dask', n)]['audit_s'] / by[('threads', n)]['audit_s']:.2f}"
            )
    if rows:
        best = max(rows, key=lambda r: (r["n"], r["backend"] == "dask"))
        per_core = best["audit_rate"] / jobs
        need = 1e10 / 3600.0
        print(
            f"projection: 10^10 draws in an hour need {need:.3g} draws/s; at {per_core:.3g} audit draws/s per "
            f"core ({best['backend']}, {best['n']:.0e} draws per input) that is about "
            f"{math.ceil(need / per_core)} cores (e.g. {math.ceil(need / per_core / 32)} nodes of 32 cores), "
            "assuming linear scaling over independent chunk tasks"
        )
    if args.write and rows:
        write_table(rows, jobs, load0, started)


def write_table(rows: list[dict], jobs: int, load0: float, started: float) -> None:
    """Store the run as table ``bench_scale`` of the Performance page (see ``benchmarks/perf_report.py``)."""
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import perf_report

    threads = {r["n"]: r["audit_s"] for r in rows if r["backend"] == "threads"}
    out = []
    for r in rows:
        vs = threads.get(r["n"]) if r["backend"] == "dask" else None
        out.append(
            [
                "threads" if r["backend"] == "threads" else f"Dask local ({jobs} workers)",
                f"{r['n']:.0e}",
                f"{r['audit_s']:.2f} s",
                f"{r['raw_s']:.2f} s",
                f"{r['audit_rate']:.3g}",
                f"{r['ratio']:.2f}",
                "—" if vs is None else f"{r['audit_s'] / vs:.2f}",
                f"{r['peak_audit'] / 2**20:.0f} MB (idle {r['idle'] / 2**20:.0f} MB)",
            ]
        )
    perf_report.store_table(
        {
            "id": "bench_scale",
            "title": f"Threads against a local Dask cluster (OUE, d = {D})",
            "command": "python benchmarks/bench_scale.py " + " ".join(sys.argv[1:]),
            "measured": perf_report.measured_on(started, load0),
            "columns": [
                "backend",
                "draws/input",
                "audit",
                "raw draws",
                "audit draws/s",
                "audit ÷ raw",
                "Dask ÷ threads",
                "peak memory, process tree",
            ],
            "rows": out,
            "notes": [
                "Baselines in the same run: *raw draws* is the bare sampler drawing the audit's samples (both "
                "stages, every input) in the same chunks on the same backend, outputs discarded; *Dask ÷ threads* "
                "is the audit's time on the warm cluster (started and warmed before timing, not counted) over its "
                f"time on {jobs} threads. One run per figure: on a loaded machine they are noisy; "
                "`benchmarks/performance.py --only dask` gives the median of interleaved rounds.",
            ],
        }
    )


if __name__ == "__main__":
    main()
