"""Issue 33's speed figures, each beside its baseline in one run (not run in CI).

Usage::

    python benchmarks/performance.py --before PATH_TO_OLDER_CHECKOUT             # every figure
    python benchmarks/performance.py --before PATH --only startup percall dask   # a subset
    python benchmarks/performance.py --before PATH --write                       # and regenerate the page

Every figure is measured for this checkout ("after") and, with ``--before``, for that checkout ("before"),
interleaved round by round on the same machine, each tree first on ``PYTHONPATH`` of this interpreter
(bytecode cached once in a temporary directory for both); the test suite runs with each tree's own
``.venv/bin/python`` when it has one. The figures:

- ``startup``: wall time of a tiny CLI audit (``privcheck audit de --samples 2000``, with and without the exact
  ε) in a fresh interpreter, as a multiple of ``python -c 'import numpy'`` in the same round (aim ≤ 1.5×);
- ``percall``: a one-output-per-call sampler (k-RR: plain numpy on the chunk's generator, and a numba-compiled
  one when numba imports) called alone in a loop gives R calls/s; ``privcheck.audit(per_sample(fn), jobs=1)``
  gives draws/s; the figure is draws/s ÷ R (aim ≥ 0.7);
- ``dask``: a warm local Dask cluster (2 single-threaded workers, started and warmed before timing) against
  threads, the OUE d = 100 audit of ``benchmarks/bench_scale.py`` (aim: Dask ≤ 1.1× threads);
- ``verify``: ``privcheck verify --jobs 2`` of the whole default catalogue (aim: after ≤ ½ before);
- ``suite``: ``pytest -q -p no:cacheprovider -n 2`` of each tree's tests (aim: after ≤ ½ before).

The machine may be shared: the load average before and after is recorded with the figures, and the
ratios are of runs in the same round. ``--write`` puts the table into ``benchmarks/results/performance.json``
(entry ``issue33``) and renders ``docs/site/performance.md`` with ``benchmarks/perf_report.py``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

PARTS = ("startup", "percall", "dask", "verify", "suite")

STARTUP = {
    "numpy": ["-c", "import numpy"],
    "audit de, --no-exact": ["-m", "privcheck.cli", "audit", "de", "--samples", "2000", "--no-exact"],
    "audit de, exact ε": ["-m", "privcheck.cli", "audit", "de", "--samples", "2000"],
}

# the child of the per-call figure: R calls/s alone, then the audit's draws/s (one worker), as JSON
_PERCALL = r"""
import json, sys, time
import numpy as np
import privcheck
P = 0.7310585786300049  # e / (1 + e): k-RR with eps = 1
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "numba":
    import numba
    @numba.njit
    def fn(x):
        return x if np.random.random() < P else 1 - x
else:
    def fn(x, rng):
        return x if rng.random() < P else 1 - x
args = (0,) if kind == "numba" else (0, np.random.default_rng(0))
fn(*args)
privcheck.audit(privcheck.per_sample(fn), inputs=[0, 1], eps=1.0, samples=2000, seed=0, jobs=1)  # warm
t = time.perf_counter()
for _ in range(2 * n):
    fn(*args)
rate = 2 * n / (time.perf_counter() - t)
t = time.perf_counter()
res = privcheck.audit(privcheck.per_sample(fn), inputs=[0, 1], eps=1.0, samples=n, seed=0, jobs=1)
print(json.dumps({"R": rate, "audit": 2 * n / (time.perf_counter() - t), "verdict": res.verdict}))
"""


def _env(tree: str, cache: str) -> dict:
    env = dict(os.environ, PYTHONPATH=tree, PYTHONPYCACHEPREFIX=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _wall(cmd: list[str], env: dict, cwd: str) -> float:
    t = time.perf_counter()
    out = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])}...: exit {out.returncode}: {out.stderr[-400:]}")
    return time.perf_counter() - t


def startup(trees: dict, env: dict, repeat: int) -> list[list]:
    """Median wall seconds of each start-up command per tree, and the median per-round ratio to numpy."""
    secs: dict = {}
    for _ in range(repeat + 1):  # round 0 compiles the bytecode and is dropped
        for label, tree in trees.items():
            for name, args in STARTUP.items():
                secs.setdefault((label, name), []).append(_wall([sys.executable, *args], env[label], tree))
    rows = []
    for name in list(STARTUP)[1:]:
        cells = {}
        for label in trees:
            ratios = [a / b for a, b in zip(secs[(label, name)][1:], secs[(label, "numpy")][1:])]
            cells[label] = (statistics.median(secs[(label, name)][1:]), statistics.median(ratios))
        rows.append(
            _row(
                f"`privcheck {name}` ÷ `import numpy`",
                cells,
                lambda v: f"{v[1]:.2f}× ({v[0]:.2f} s)",
                "≤ 1.5×",
                lambda v: v[1] <= 1.5,
                compare=lambda a, b: a[1] / b[1],
            )
        )
    numpy_s = statistics.median(secs[("after", "numpy")][1:])
    rows.append(["`python -c 'import numpy'` (the unit above)", "", f"{numpy_s:.2f} s", "", "", ""])
    return rows


def percall(trees: dict, env: dict, repeat: int, n: int, kinds: list[str]) -> list[list]:
    """Audited draws/s ÷ the sampler's own calls/s, per kind of client and tree (medians over rounds)."""
    rows = []
    for kind in kinds:
        got: dict = {}
        for _ in range(repeat):
            for label, tree in trees.items():
                out = subprocess.run(
                    [sys.executable, "-c", _PERCALL, kind, str(n)],
                    env=env[label],
                    cwd=tree,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                ans = json.loads(out.stdout.strip().splitlines()[-1])
                got.setdefault(label, []).append((ans["audit"] / ans["R"], ans["R"]))
        cells = {k: (statistics.median(r for r, _ in v), statistics.median(c for _, c in v)) for k, v in got.items()}
        rows.append(
            _row(
                f"per-call {kind} k-RR: audited draws/s ÷ calls/s alone",
                cells,
                lambda v: f"{v[0]:.2f} (R = {v[1]:.2g}/s)",
                "≥ 0.7",
                lambda v: v[0] >= 0.7,
                compare=lambda a, b: a[0] / b[0],
            )
        )
    return rows


def dask_vs_threads(trees: dict, env: dict, repeat: int, n: int) -> list[list]:
    """Warm Dask ÷ threads time of the OUE audit (bench_scale's server per tree), median of per-round ratios."""
    servers, times = {}, {}
    try:
        for label, tree in trees.items():
            servers[label] = subprocess.Popen(
                [sys.executable, str(ROOT / "benchmarks" / "bench_scale.py"), "--serve", "--jobs", "2"],
                env=env[label],
                cwd=tree,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            json.loads(servers[label].stdout.readline())
        for r in range(repeat):
            for label in trees:
                for backend in ("threads", "dask"):
                    servers[label].stdin.write(f"{backend} {n} {r}\n")
                    servers[label].stdin.flush()
                    times.setdefault((label, backend), []).append(json.loads(servers[label].stdout.readline())["s"])
    finally:
        for proc in servers.values():
            proc.stdin.close()
            proc.wait(timeout=120)
    cells = {
        label: (
            statistics.median(d / t for d, t in zip(times[(label, "dask")], times[(label, "threads")])),
            statistics.median(times[(label, "threads")]),
        )
        for label in trees
    }
    return [
        _row(
            f"warm `--dask local` ÷ threads (OUE d = 100, {n:.0e} draws/input)",
            cells,
            lambda v: f"{v[0]:.2f}× (threads {v[1]:.2f} s)",
            "≤ 1.1×",
            lambda v: v[0] <= 1.1,
            compare=lambda a, b: a[0] / b[0],
        )
    ]


def verify(trees: dict, env: dict, repeat: int) -> list[list]:
    """Wall seconds of ``privcheck verify --jobs 2`` (whole default catalogue) per tree, median over rounds."""
    secs: dict = {}
    for _ in range(repeat):
        for label, tree in trees.items():
            with tempfile.TemporaryDirectory() as tmp:
                cmd = [sys.executable, "-m", "privcheck.cli", "verify", "--jobs", "2", "-q", "--json", f"{tmp}/r.json"]
                t = time.perf_counter()
                subprocess.run(cmd, env=env[label], cwd=tree, capture_output=True)  # exit 1 on an error record
                secs.setdefault(label, []).append(time.perf_counter() - t)
                recs = json.loads(Path(f"{tmp}/r.json").read_text())
                recs = recs.get("records", recs) if isinstance(recs, dict) else recs
                secs.setdefault((label, "checks"), []).append(len(recs))
    cells = {k: (statistics.median(secs[k]), secs[(k, "checks")][-1]) for k in trees}
    return [
        _row(
            "`privcheck verify --jobs 2`, whole catalogue",
            cells,
            lambda v: f"{v[0]:.0f} s ({v[1]} checks)",
            "≤ ½ before",
            None,
            compare=lambda a, b: a[0] / b[0],
            half=True,
        )
    ]


def suite(trees: dict, env: dict) -> list[list]:
    """Wall seconds of each tree's test suite on 2 workers, with its own virtual environment when it has one."""
    cells = {}
    for label, tree in trees.items():
        py = Path(tree) / ".venv" / "bin" / "python"
        cmd = [str(py) if py.exists() else sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2"]
        t = time.perf_counter()
        out = subprocess.run(cmd, env=dict(env[label], PYTHONPATH=""), cwd=tree, capture_output=True, text=True)
        tail = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else f"exit {out.returncode}"
        cells[label] = (time.perf_counter() - t, tail.strip("= "))
    return [
        _row(
            "test suite, `pytest -n 2`",
            cells,
            lambda v: f"{v[0]:.0f} s ({v[1]})",
            "≤ ½ before",
            None,
            compare=lambda a, b: a[0] / b[0],
            half=True,
        )
    ]


def _row(what, cells, fmt, target, ok, compare, half=False) -> list:
    """One table row: what, before, after, after ÷ before, target, met."""
    after, before = cells["after"], cells.get("before")
    ratio = compare(after, before) if before is not None else None
    if half:
        met = "—" if ratio is None else ("yes" if ratio <= 0.5 else "no")
    else:
        met = "yes" if ok(after) else "no"
    return [
        what,
        fmt(before) if before is not None else "—",
        fmt(after),
        "—" if ratio is None else f"{ratio:.2f}",
        target,
        met,
    ]


def _numba_available() -> bool:
    return subprocess.run([sys.executable, "-c", "import numba"], capture_output=True).returncode == 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None, help="an older checkout measured in the same run")
    ap.add_argument(
        "--only",
        nargs="+",
        default=list(PARTS),
        choices=PARTS,
    )
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds (verify: 1, suite: 1)")
    ap.add_argument("--percall-draws", type=int, default=200_000, help="draws per input of the per-call audit")
    ap.add_argument("--dask-draws", type=float, default=1e6, help="draws per input of the Dask/threads audit")
    ap.add_argument("--write", action="store_true", help="store the table and regenerate docs/site/performance.md")
    args = ap.parse_args()
    trees = {"after": str(ROOT)} | ({"before": str(Path(args.before).resolve())} if args.before else {})
    load0 = os.getloadavg()[0]
    started = time.time()
    rows: list[list] = []
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as cache:
        env = {label: _env(tree, cache) for label, tree in trees.items()}
        for part in args.only:
            print(f"measuring {part} ...", flush=True)
            first = len(rows)
            if part == "startup":
                rows += startup(trees, env, args.repeat)
            elif part == "percall":
                kinds = ["numpy"] + (["numba"] if _numba_available() else [])
                if "numba" not in kinds:
                    notes.append("The numba row is missing: numba does not import in this interpreter.")
                rows += percall(trees, env, max(1, args.repeat // 2), args.percall_draws, kinds)
            elif part == "dask":
                rows += dask_vs_threads(trees, env, args.repeat, int(args.dask_draws))
            elif part == "verify":
                rows += verify(trees, env, 1)
            else:
                rows += suite(trees, env)
            for r in rows[first:]:
                print("  " + " | ".join(map(str, r)), flush=True)
    load1 = os.getloadavg()[0]
    commit = _commit(ROOT)
    skipped = [p for p in PARTS if p not in args.only]
    if args.before:
        notes.append(f"Baseline (before): the checkout at {_commit(Path(args.before))}.")
    if skipped:
        notes.append(
            "Not measured in this run: " + ", ".join(skipped) + " (`--only`); the whole-catalogue verify and the "
            "test suite take an hour per pair of runs on a loaded 2-core machine."
        )
    only = "" if not skipped else " --only " + " ".join(args.only)
    table = {
        "id": "issue33",
        "title": "Start-up, per-call wrappers, Dask and the main job against the baseline (issue 33)",
        "command": "python benchmarks/performance.py --before BASELINE_CHECKOUT" + only + f" --repeat {args.repeat}",
        "measured": f"{datetime.date.today()}, commit {commit}, {os.cpu_count()} shared cores, load average "
        f"{load0:.1f} at the start and {load1:.1f} at the end, {(time.time() - started) / 60:.0f} min",
        "columns": ["figure", "before", "after", "after ÷ before", "target", "met"],
        "rows": rows,
        "notes": [
            "Before and after ran interleaved in the same rounds; on a loaded machine the seconds are inflated and "
            "only the ratios in one row compare. Start-up ratios are medians of per-round ratios to "
            "`python -c 'import numpy'` (bytecode cached for both); the per-call figure uses one worker "
            "(`jobs=1`); Dask is the warm `LocalCluster` that `--dask local` starts in each tree (started and warmed before timing) given as `client=`."
        ]
        + notes,
    }
    print(json.dumps(table, indent=1, ensure_ascii=False))
    if args.write:
        import perf_report

        perf_report.store_table(table)


def _commit(tree: Path) -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tree, capture_output=True, text=True)
    return out.stdout.strip() or "?"


if __name__ == "__main__":
    main()
