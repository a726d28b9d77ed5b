"""Per-call speed of the certified Clopper–Pearson limits (privcheck/base/betainc.py) before/after, and
against statsmodels/scipy, in one run (not run in CI).

Usage: ``python benchmarks/bench_betainc.py [--before /path/to/older/checkout] [--repeat 5]``

``--before`` loads that checkout's ``privcheck/base/betainc.py`` as a second module in this process, so
both versions are timed interleaved on the same (loaded) machine. Reported per limit (one
``betaincinv_safe``/``betainccinv_safe`` call): the median over ``--repeat`` passes of the mean
time over the cases below (both tails, α = 0.05 and 1e−6), the tail evaluations per call, and
statsmodels' ``proportion_confint(method="beta")`` (scipy's beta quantiles, uncertified) per limit.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import time

from privcheck.base import betainc as new

CASES = [
    (1, 20000),
    (7, 20000),
    (9000, 20000),
    (19990, 20000),
    (10**5, 10**6),
    (3, 10**9),
    (500, 1000),
    (10**6, 10**12),
]
ALPHAS = (0.05, 1e-6)


def _load(path: str):
    spec = importlib.util.spec_from_file_location("betainc_before", os.path.join(path, "privcheck", "betainc.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pass(mod) -> tuple[float, int]:
    """Mean seconds per limit over CASES × ALPHAS × both tails, and the tail evaluations made."""
    calls = [0]
    orig = mod.binomial_tail_log_bounds

    def counted(*a, **k):
        calls[0] += 1
        return orig(*a, **k)

    mod.binomial_tail_log_bounds = counted
    try:
        t = time.perf_counter()
        for k, n in CASES:
            for a in ALPHAS:
                mod.betaincinv_safe(k, n - k + 1, a)
                mod.betainccinv_safe(k + 1, n - k, a)
        dt = time.perf_counter() - t
    finally:
        mod.binomial_tail_log_bounds = orig
    m = len(CASES) * len(ALPHAS) * 2
    return dt / m, calls[0] / m


def _statsmodels_pass() -> float:
    from statsmodels.stats.proportion import proportion_confint

    t = time.perf_counter()
    for k, n in CASES:
        for a in ALPHAS:
            proportion_confint(k, n, alpha=2 * a, method="beta")
    return (time.perf_counter() - t) / (len(CASES) * len(ALPHAS) * 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    mods = {"now": new} if not args.before else {"before": _load(args.before), "now": new}
    times: dict[str, list[float]] = {k: [] for k in [*mods, "statsmodels"]}
    evals: dict[str, float] = {}
    _statsmodels_pass()  # warm-up: imports
    for _ in range(args.repeat):
        for name, mod in mods.items():
            dt, ev = _pass(mod)
            times[name].append(dt)
            evals[name] = ev
        times["statsmodels"].append(_statsmodels_pass())
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; median of {args.repeat} passes, "
        f"{len(CASES) * len(ALPHAS) * 2} limits each"
    )
    ref = statistics.median(times["now"])
    print(f"{'version':<12} {'ms/limit':>9} {'evals/limit':>12} {'× now':>7}")
    for name, ts in times.items():
        med = statistics.median(ts)
        ev = f"{evals[name]:12.1f}" if name in evals else f"{'-':>12}"
        print(f"{name:<12} {med * 1e3:9.3f} {ev} {med / ref:7.2f}")


if __name__ == "__main__":
    main()
