"""Start-up time of the CLI against ``python -c 'import numpy'`` measured in the same run (not run in CI).

Usage: ``python benchmarks/bench_cli.py [--repeat 7] [--before /path/to/older/checkout]``

Each command runs as a fresh process (the way a user or CI starts it); the
figure is the median wall time over ``--repeat`` runs, after one warm-up run
that also fills the listing cache (``privcheck list`` reads the catalogue
listing from ``~/.cache/privcheck`` once it was built; ``--cold`` measures it
with an empty cache directory instead). The baseline is the interpreter
importing numpy, which every privcheck command needs. Also reported: which of
sympy, statsmodels, scipy and matplotlib each command imports.

Aims (issue 13): ``privcheck --help`` within 2× of the baseline; (issue 23) a tiny ``privcheck
audit de`` (2·10⁴ draws) and ``privcheck budget gdp`` within 1.5×, ``privcheck verify ONE_CLAIM``
and ``--file`` within 2 s plus the check's own time (the "check s" column: the records' seconds,
from ``--json``). With ``--before PATH`` every command also runs from that checkout (its tree
first on PYTHONPATH), interleaved with this one, so both columns come from the same run on the
same (loaded) machine. Bytecode is compiled once and cached in a temporary directory for both
trees (``PYTHONPYCACHEPREFIX``; ``PYTHONDONTWRITEBYTECODE`` is dropped), as on a user's machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "python -c 'import numpy'": ["-c", "import numpy"],
    "privcheck --help": ["-m", "privcheck.cli", "--help"],
    "privcheck list": ["-m", "privcheck.cli", "list"],
    "privcheck list 'fedsel.*'": ["-m", "privcheck.cli", "list", "fedsel.*"],
    "privcheck audit --help": ["-m", "privcheck.cli", "audit", "--help"],
    "privcheck budget gdp": [
        "-m",
        "privcheck.cli",
        "budget",
        "gdp",
        "--sigma",
        "10",
        "--steps",
        "100",
        "--delta",
        "1e-5",
    ],
    "privcheck audit de (2e4)": ["-m", "privcheck.cli", "audit", "de", "--samples", "20000"],
    "privcheck verify gdp.conversion": ["-m", "privcheck.cli", "verify", "gdp.conversion", "-q"],
    "privcheck verify fedsel.pm.ldp": ["-m", "privcheck.cli", "verify", "fedsel.pm.ldp", "--quick", "-q"],
    "privcheck verify --file toml": ["-m", "privcheck.cli", "verify", "--file", "examples/claims.toml", "-q"],
}
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("sympy", "statsmodels", "scipy", "matplotlib")
_PROBE = (
    "import runpy, sys\nsys.argv = ['privcheck'] + sys.argv[1:]\ntry:\n    runpy.run_module('privcheck.cli', "
    "run_name='__main__')\nexcept SystemExit:\n    pass\nprint('HEAVY', [m for m in %r if m in sys.modules], "
    "file=sys.stderr)\n" % (HEAVY,)
)


def wall(args: list[str], env: dict) -> tuple[float, float]:
    """Wall seconds of one fresh process, and the checks' own seconds (verify: from its --json records)."""
    extra, out = [], None
    if "verify" in args:
        fd, out = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        extra = ["--json", out]
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, *args, *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=env.get("BENCH_TREE", _ROOT),
    )
    dt = time.perf_counter() - t
    check_s = 0.0
    if out:
        with open(out, encoding="utf-8") as fh:
            text = fh.read()
        os.remove(out)
        if text.strip():
            data = json.loads(text)
            recs = data.get("records", data) if isinstance(data, dict) else data
            check_s = sum(float(r.get("seconds", 0.0)) for r in recs if isinstance(r, dict))
    return dt, check_s


def heavy_imports(args: list[str], env: dict) -> str:
    if args[:2] != ["-m", "privcheck.cli"]:
        return ""
    res = subprocess.run(
        [sys.executable, "-c", _PROBE, *args[2:]],
        env=env,
        capture_output=True,
        text=True,
        cwd=env.get("BENCH_TREE", _ROOT),
    )
    line = [ln for ln in res.stderr.splitlines() if ln.startswith("HEAVY")]
    return line[-1][6:] if line else "?"


def _tree_env(env: dict, tree: str) -> dict:
    e = dict(env, PYTHONPATH=tree, BENCH_TREE=tree)
    return e


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cold", action="store_true", help="measure 'list' with an empty listing cache each time")
    ap.add_argument(
        "--before",
        default=None,
        help="an older checkout to measure in the same run (e.g. ../privcheck-before, made by `git worktree add --detach ../privcheck-before REV`)",
    )
    ap.add_argument(
        "--only", default=None, help="only the commands whose label contains this (the baseline always runs)"
    )
    args = ap.parse_args()
    env = dict(os.environ)
    cache = tempfile.mkdtemp(prefix="privcheck-bench-cache-")
    env["PRIVCHECK_CACHE_DIR"] = cache
    # compiled bytecode is cached (as on a user's machine) outside both trees, so --before never writes there
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="privcheck-bench-pyc-")
    trees = {"now": _ROOT} if not args.before else {"before": os.path.abspath(args.before), "now": _ROOT}
    base: dict[str, float] = {}
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median wall s of {args.repeat} runs "
        "(interleaved); × numpy = median / median of `import numpy` in the same tree and run; "
        "check s = the checks' own seconds"
    )
    head = f"{'command':<34}"
    for name in trees:
        head += f" {name + ' s':>9} {'check s':>7} {'× numpy':>8}"
    if len(trees) == 2:
        head += f" {'now/before':>10}"
    print(head + "  heavy imports (now)")
    for label, cmd in COMMANDS.items():
        if args.only and args.only not in label and label != next(iter(COMMANDS)):
            continue
        for name, tree in trees.items():
            wall(cmd, _tree_env(env, tree))  # warm-up: disk cache, listing cache, bytecode
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
        for _ in range(args.repeat):
            for name, tree in trees.items():  # interleaved: both trees see the same load
                if args.cold and "list" in cmd:
                    for fn in os.listdir(cache):
                        os.remove(os.path.join(cache, fn))
                times[name].append(wall(cmd, _tree_env(env, tree)))
        row = f"{label:<34}"
        med: dict[str, float] = {}
        for name in trees:
            med[name] = statistics.median(t for t, _ in times[name])
            chk = statistics.median(c for _, c in times[name])
            base.setdefault(name, med[name])
            row += f" {med[name]:9.3f} {chk:7.2f} {med[name] / base[name]:8.2f}"
        if len(trees) == 2:
            row += f" {med['now'] / med['before']:10.2f}"
        print(row + f"  {heavy_imports(cmd, _tree_env(env, trees['now']))}", flush=True)


if __name__ == "__main__":
    main()
