"""Start-up time of the CLI against ``python -c 'import numpy'`` measured in the same run (not run in CI).

Usage: ``python benchmarks/bench_cli.py [--repeat 7]``

Each command runs as a fresh process (the way a user or CI starts it); the
figure is the median wall time over ``--repeat`` runs, after one warm-up run
that also fills the listing cache (``privcheck list`` reads the catalogue
listing from ``~/.cache/privcheck`` once it was built; ``--cold`` measures it
with an empty cache directory instead). The baseline is the interpreter
importing numpy, which every privcheck command needs. Also reported: which of
sympy, statsmodels, scipy and matplotlib each command imports.

Aim (issue 13): ``privcheck --help`` within 2× of the baseline.
"""
from __future__ import annotations

import argparse
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
    "privcheck budget gdp": ["-m", "privcheck.cli", "budget", "gdp", "--sigma", "10", "--steps", "100",
                             "--delta", "1e-5"],
}
HEAVY = ("sympy", "statsmodels", "scipy", "matplotlib")
_PROBE = ("import runpy, sys\nsys.argv = ['privcheck'] + sys.argv[1:]\ntry:\n    runpy.run_module('privcheck.cli', "
          "run_name='__main__')\nexcept SystemExit:\n    pass\nprint('HEAVY', [m for m in %r if m in sys.modules], "
          "file=sys.stderr)\n" % (HEAVY,))


def wall(args: list[str], env: dict) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def heavy_imports(args: list[str], env: dict) -> str:
    if args[:2] != ["-m", "privcheck.cli"]:
        return ""
    res = subprocess.run([sys.executable, "-c", _PROBE, *args[2:]], env=env, capture_output=True, text=True)
    line = [ln for ln in res.stderr.splitlines() if ln.startswith("HEAVY")]
    return line[-1][6:] if line else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--cold", action="store_true", help="measure 'list' with an empty listing cache each time")
    args = ap.parse_args()
    env = dict(os.environ)
    cache = tempfile.mkdtemp(prefix="privcheck-bench-cache-")
    env["PRIVCHECK_CACHE_DIR"] = cache
    base = None
    print(f"{'command':<28} {'median s':>9} {'min s':>7} {'× numpy':>8}  heavy imports")
    for label, cmd in COMMANDS.items():
        wall(cmd, env)  # warm-up: disk cache, listing cache
        times = []
        for _ in range(args.repeat):
            if args.cold and "list" in cmd:
                for fn in os.listdir(cache):
                    os.remove(os.path.join(cache, fn))
            times.append(wall(cmd, env))
        med = statistics.median(times)
        base = base or med
        print(f"{label:<28} {med:9.3f} {min(times):7.3f} {med / base:8.2f}  {heavy_imports(cmd, env)}")


if __name__ == "__main__":
    main()
