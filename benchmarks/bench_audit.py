"""Audit time against raw draw time, protocol by protocol (not run in CI).

Usage: ``python benchmarks/bench_audit.py [--draws 1e6 1e7] [--jobs 1 2] [--repeat 3] [--only OUE,GRR] [--exact]
[--write]`` (``--write``: the table goes into ``benchmarks/results/performance.json`` and the Performance page)
       ``python benchmarks/bench_audit.py --oue [--before ../privcheck-before] [--jobs 1 2] [--repeat 3]``

For every protocol it prints, in one run, the wall time of a whole Monte Carlo
audit (``privcheck.audit``, exact ε off) and the time to draw the same number
of samples per audited input with the same sampler, in the same chunks
(``2**18`` draws, :data:`privcheck.base.seeding.DEFAULT_CHUNK`) on the same number of
threads (:func:`privcheck.base.scheduler.map_chunks`, draws discarded), and their
ratio, and the ratio of CPU seconds (process time, all threads; less sensitive
than wall time to other load on the machine), and with ``jobs = 1`` the
``split`` ratio: audit wall time over the time spent inside the sampler during
that same audit (1 + the auditor's own work; the most load-robust figure).
Medians of ``--repeat`` runs.
The audit's own overhead is the ratio minus one. ``--exact`` adds the time to exact ε of large FedSel selectors.

``--oue`` (issue 23) prints instead, in one run and interleaved, the wall time of auditing the built-in
``oue`` (d = 100, ε = 1, 10⁶ draws per input unless ``--draws``; packed rows) against auditing the
plain-numpy OUE sampler below (one float per bit), and with ``--before PATH`` against the built-in
``oue`` of an older checkout (run in a subprocess with ``PYTHONPATH=PATH``, timed inside it after a
warm-up), for each ``--jobs``: medians and the ratios over the built-in ``oue``.

Protocols: GRR (k-RR, the built-in ``de``) with k = 2 and 100; symmetric and
optimised unary encoding (SUE/OUE) with k = 100 as bit-vector samplers; OLH
(optimised local hashing) with k = 100 as a support-vector sampler (each
report (hash, value) is mapped to the bit vector of the inputs it supports);
the Piecewise Mechanism (built-in ``pm``). ε = 1 throughout, inputs ``[0, 1]``
(PM: ``[-1, 1]``).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import privcheck
from privcheck.auditor import audit
from privcheck.base.scheduler import get_backend, map_chunks
from privcheck.base.seeding import derive


def unary(k: int, eps: float, optimised: bool):
    """SUE (p = e^(ε/2)/(e^(ε/2)+1), q = 1 − p) or OUE (p = 1/2, q = 1/(e^ε+1)) as a bit-vector sampler."""
    if optimised:
        p, q = 0.5, 1.0 / (math.exp(eps) + 1.0)
    else:
        p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
        q = 1 - p

    def sampler(x, n, rng):
        bits = rng.random((n, k)) < q
        bits[:, x] = rng.random(n) < p
        return bits

    sampler.__name__ = f"{'OUE' if optimised else 'SUE'}(k={k})"
    return sampler


def olh_support(k: int, eps: float):
    """OLH with g = round(e^ε + 1) buckets; each report mapped to its support vector over the k inputs.

    Hash of user i: h_i(v) = ((a_i v + b_i) mod P) mod g with random a_i, b_i
    (a universal family, P prime > k). The reported bucket is h_i(x) with
    probability e^ε/(e^ε + g − 1), else one of the other g − 1 uniformly.
    """
    g = max(2, int(round(math.exp(eps) + 1)))
    prime = 2_147_483_647
    p_keep = math.exp(eps) / (math.exp(eps) + g - 1)
    domain = np.arange(k, dtype=np.int64)

    def sampler(x, n, rng):
        a = rng.integers(1, prime, n, dtype=np.int64)
        b = rng.integers(0, prime, n, dtype=np.int64)
        hx = ((a * x + b) % prime) % g
        other = rng.integers(1, g, n)
        y = np.where(rng.random(n) < p_keep, hx, (hx + other) % g)
        hv = ((a[:, None] * domain[None, :] + b[:, None]) % prime) % g
        return hv == y[:, None]

    sampler.__name__ = f"OLH(k={k}, g={g})"
    return sampler


def raw_draw_seconds(sampler, inputs, draws: int, jobs: int) -> float:
    """Draw ``draws`` outputs per input in the auditor's chunks and threads, discarding them."""
    backend = get_backend(jobs=jobs)
    ss = np.random.SeedSequence(0)
    t, c = time.perf_counter(), time.process_time()
    for i, x in enumerate(inputs):
        map_chunks(
            lambda rng, size, x=x: (sampler(x, size, rng), None)[1], draws, derive(ss, "raw", i), backend=backend
        )
    return time.perf_counter() - t, time.process_time() - c


def audit_seconds(sampler, inputs, draws: int, jobs: int):
    t, c = time.perf_counter(), time.process_time()
    res = audit(sampler, inputs=inputs, eps=1.0, samples=draws, exact=False, jobs=jobs, seed=0)
    return time.perf_counter() - t, time.process_time() - c, res


class TimedSampler:
    """The sampler, timing its own calls (to split an audit into drawing and the auditor's own work)."""

    def __init__(self, sampler):
        self.sampler = sampler
        self.seconds = 0.0

    def __call__(self, x, n, rng):
        t = time.perf_counter()
        out = self.sampler(x, n, rng)
        self.seconds += time.perf_counter() - t
        return out


def own_overhead(sampler, inputs, draws: int) -> float:
    """(audit time − time inside the sampler) / time inside the sampler, one thread (jobs = 1)."""
    timed = TimedSampler(sampler)
    t = time.perf_counter()
    audit(timed, inputs=inputs, eps=1.0, samples=draws, exact=False, jobs=1, seed=0)
    wall = time.perf_counter() - t
    return (wall - timed.seconds) / timed.seconds


def protocols():
    pm = privcheck.mechanism("pm", eps=1.0)
    return [
        ("GRR k=2", privcheck.mechanism("de", m=2, eps=1.0), [0, 1]),
        ("GRR k=100", privcheck.mechanism("de", m=100, eps=1.0), [0, 1]),
        ("SUE k=100", unary(100, 1.0, optimised=False), [0, 1]),
        ("OUE k=100", unary(100, 1.0, optimised=True), [0, 1]),
        ("OLH k=100 (support)", olh_support(100, 1.0), [0, 1]),
        ("PM", pm, [-1.0, 1.0]),
    ]


def import_overhead(repeat: int) -> tuple[float, float]:
    """A tiny audit in a fresh interpreter against ``python -c 'import numpy'``."""
    tiny = (
        "import privcheck; privcheck.audit(lambda x, n, rng: rng.random(n) < (0.6 if x else 0.4), "
        "inputs=[0, 1], eps=1.0, samples=20000)"
    )

    def run(code):
        out = []
        for _ in range(repeat):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            out.append(time.perf_counter() - t)
        return statistics.median(out)

    a, b = run("import numpy"), run(tiny)
    print(f"fresh interpreter: import numpy {a:.3f} s; tiny audit (2e4 draws) {b:.3f} s; ratio {b / a:.2f}x")
    return a, b


_BEFORE_CODE = """
import json, sys, time
import privcheck
from privcheck.auditor import audit
n, jobs = int(sys.argv[1]), int(sys.argv[2])
m = privcheck.mechanism("oue", d=100, eps=1.0)
audit(m, samples=min(n, 100_000), exact=False, jobs=jobs, seed=0)
t = time.perf_counter()
res = audit(m, samples=n, exact=False, jobs=jobs, seed=0)
print(json.dumps([time.perf_counter() - t, res.eps_lower]))
"""


def before_oue_seconds(path: str, n: int, jobs: int) -> tuple[float, float]:
    """(seconds, eps_lower) of auditing the built-in ``oue`` (d = 100) with the code at ``path`` (a subprocess)."""
    import json
    import os

    env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
    out = subprocess.run(
        [sys.executable, "-c", _BEFORE_CODE, str(n), str(jobs)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=os.path.abspath(path),
    )
    return tuple(json.loads(out.stdout.strip().splitlines()[-1]))


def oue_table(n: int, jobs_list, repeat: int, before: str | None) -> None:
    """Issue 23's sampler comparison: built-in ``oue`` vs a plain-numpy OUE sampler (vs ``before``), one run."""
    mech = privcheck.mechanism("oue", d=100, eps=1.0)
    plain = unary(100, 1.0, optimised=True)
    print(
        f"OUE d=100 eps=1, {n:.0e} draws/input, inputs [0, 1], medians of {repeat} interleaved runs "
        "(2 shared cores, other jobs running: compare ratios, not seconds)"
    )
    print(
        f"{'jobs':>4s} {'built-in oue s':>14s} {'plain numpy s':>13s} {'ratio':>6s}"
        + (f" {'before oue s':>12s} {'ratio':>6s}" if before else "")
        + f" {'eps_lower new/plain/before':>28s}"
    )
    for jobs in jobs_list:
        audit(mech, samples=min(n, 100_000), exact=False, jobs=jobs, seed=0)  # warm-up
        new, old, prev, eps = [], [], [], None
        for _ in range(repeat):
            t = time.perf_counter()
            r_new = audit(mech, samples=n, exact=False, jobs=jobs, seed=0)
            new.append(time.perf_counter() - t)
            t = time.perf_counter()
            r_old = audit(plain, inputs=[0, 1], eps=1.0, samples=n, exact=False, jobs=jobs, seed=0)
            old.append(time.perf_counter() - t)
            eps = [r_new.eps_lower, r_old.eps_lower]
            if before:
                s, e = before_oue_seconds(before, n, jobs)
                prev.append(s)
                eps.append(e)
        a, b = statistics.median(new), statistics.median(old)
        line = f"{jobs:4d} {a:14.3f} {b:13.3f} {b / a:6.2f}"
        if before:
            c = statistics.median(prev)
            line += f" {c:12.3f} {c / a:6.2f}"
        print(line + "  " + " / ".join(f"{e:.4f}" for e in eps), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=float, nargs="+", default=[1e6], help="draws per input (e.g. 1e6 1e7)")
    ap.add_argument(
        "--jobs",
        type=int,
        nargs="+",
        default=[2],
        help="threads, for the audit and the raw draws alike (several: one row each, e.g. 1 2)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    ap.add_argument("--only", default="", help="comma-separated protocol name prefixes")
    ap.add_argument("--exact", action="store_true", help="also time exact ε of large FedSel selectors")
    ap.add_argument(
        "--write", action="store_true", help="store the table in benchmarks/results/performance.json and the page"
    )
    ap.add_argument("--oue", action="store_true", help="only issue 23's table: built-in oue vs plain-numpy OUE")
    ap.add_argument(
        "--before", default=None, help="with --oue: an older checkout (e.g. ../privcheck-before) measured too"
    )
    args = ap.parse_args()
    if args.oue:
        oue_table(int(args.draws[0]), args.jobs, args.repeat, args.before)
        return
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    print(f"chunks of 2^18 draws, medians of {args.repeat}; eps=1, 95 % confidence")
    print(
        f"{'protocol':22s} {'jobs':>4s} {'draws/input':>11s} {'audit s':>9s} {'raw draw s':>10s} {'ratio':>6s} {'cpu':>6s} {'split':>6s} "
        f"{'eps_lower':>9s}  event"
    )
    load0, started = os.getloadavg()[0], time.time()
    rows = []
    for name, sampler, inputs in protocols():
        if only and not any(name.startswith(o) for o in only):
            continue
        for draws in args.draws:
            for jobs in args.jobs:
                rows.append(bench_row(name, sampler, inputs, int(draws), jobs, args.repeat))
    numpy_s, tiny_s = import_overhead(args.repeat)
    exact = exact_times() if args.exact else []
    if args.write:
        write_table(rows, exact, (numpy_s, tiny_s), load0, started)


def write_table(rows: list[dict], exact: list[tuple], start: tuple[float, float], load0: float, started: float):
    """Store the run as table ``bench_audit`` of the Performance page (see ``benchmarks/perf_report.py``)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import perf_report

    cmd = "python benchmarks/bench_audit.py " + " ".join(a for a in sys.argv[1:])
    out = [
        [
            r["name"],
            f"{r['jobs']}",
            f"{r['n']:.0e}",
            f"{r['audit_s']:.3f} s",
            f"{r['raw_s']:.3f} s",
            f"{r['ratio']:.2f}",
            f"{r['cpu']:.2f}",
            "—" if math.isnan(r["split"]) else f"{r['split']:.2f}",
            f"{r['eps_lower']:.4f}",
        ]
        for r in rows
    ]
    notes = [
        "Baseline of each row: the bare sampler drawing the same samples per input in the same chunks "
        "(2¹⁸ draws) on the same threads, outputs discarded, measured alternately with the audit in the same run "
        "(medians). *audit ÷ raw* is the wall-time ratio, *CPU* the ratio of process CPU seconds (all threads; "
        "less sensitive to other load), *split* (one thread only) the audit's wall time over the time spent "
        "inside the sampler during that audit. ε = 1, 95 % confidence, exact ε off.",
        f"In the same run a tiny audit (2×10⁴ draws per input) in a fresh interpreter took {start[1]:.2f} s, "
        f"{start[1] / start[0]:.2f}× `python -c 'import numpy'` ({start[0]:.2f} s).",
    ]
    if exact:
        notes.append(
            "Time to exact ε (one call each, cold): "
            + "; ".join(f"{name} {params}: {s:.3f} s (ε = {eps:.6g})" for name, params, s, eps in exact)
            + "."
        )
    perf_report.store_table(
        {
            "id": "bench_audit",
            "title": "Audits against raw sampling, protocol by protocol",
            "command": cmd,
            "measured": perf_report.measured_on(started, load0),
            "columns": [
                "protocol",
                "jobs",
                "draws/input",
                "audit",
                "raw draws",
                "audit ÷ raw",
                "CPU",
                "split",
                "ε lower",
            ],
            "rows": out,
            "notes": notes,
        }
    )


def bench_row(name, sampler, inputs, n: int, jobs: int, repeat: int) -> dict:
    """One table row (printed and returned): median audit and raw draw seconds, measured alternately."""
    audit_seconds(sampler, inputs, min(n, 100_000), jobs)  # warm-up (imports, caches)
    a_runs, r_runs, ac_runs, rc_runs, res = [], [], [], [], None
    for _ in range(repeat):  # interleaved, so load changes hit both alike
        s, c = raw_draw_seconds(sampler, inputs, n, jobs)
        r_runs.append(s)
        rc_runs.append(c)
        s, c, res = audit_seconds(sampler, inputs, n, jobs)
        a_runs.append(s)
        ac_runs.append(c)
    a, r = statistics.median(a_runs), statistics.median(r_runs)
    cpu = statistics.median(ac_runs) / statistics.median(rc_runs)
    own = statistics.median(own_overhead(sampler, inputs, n) for _ in range(repeat)) if jobs == 1 else float("nan")
    event = (res.event or "")[:40]
    print(
        f"{name:22s} {jobs:4d} {n:11.0e} {a:9.3f} {r:10.3f} {a / r:6.2f} {cpu:6.2f} {1 + own:6.2f} {res.eps_lower:9.4f}  {event}",
        flush=True,
    )
    return {
        "name": name,
        "jobs": jobs,
        "n": n,
        "audit_s": a,
        "raw_s": r,
        "ratio": a / r,
        "cpu": cpu,
        "split": 1 + own,
        "eps_lower": res.eps_lower,
    }


def exact_times() -> list[tuple]:
    """Seconds to exact ε of large selectors, one cold call each: ``(name, params, seconds, eps)`` rows."""
    print("time to exact ε:")
    out = []
    cases = [
        ("fedsel-exp", dict(d=100_000, k=100, eps=1.0)),
        ("fedsel-pe", dict(d=100_000, k=100, eps=1.0)),
        ("fedsel-ps", dict(d=100_000, k=100, eps=1.0)),
        ("privquant", {"d": 1000, "K": 16, "kappa": 100, "p": 0.55}),
    ]
    for name, params in cases:
        mech = privcheck.mechanism(name, **params)
        t = time.perf_counter()
        ex = mech.exact_epsilon()
        secs = time.perf_counter() - t
        print(f"  {name:11s} {params}: {secs:.3f} s  (eps = {ex.eps:.6g})")
        out.append((name, params, secs, ex.eps))
    return out


if __name__ == "__main__":
    main()
