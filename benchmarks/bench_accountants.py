"""Benchmark (not CI): privcheck's certified PLD accountant against dp_accounting, in one run.

Run: ``python benchmarks/bench_accountants.py [--quick]``. For each query of issue 9's table it
prints privcheck's interval [lower, upper], dp_accounting's value (when installed; PLD with the
given discretisation interval), the reference truth, the relative error of privcheck's upper
end, and the time ratio dp_accounting / privcheck measured in this run.
``--horizons [--memory] [--before ../privcheck-before]`` prints issue 23's PLD table instead: DP-SGD (q=0.01,
σ=1.1) at T = 10²…10⁶, q=1e−3 σ=0.8 T=10⁶, and 50 distinct subsampled Gaussians; every measurement runs
in a fresh interpreter, interleaved per row: the ``--before`` checkout ("today"), this tree ("new"),
dp_accounting (and prv_accountant on the 50-event row); seconds, certified width, peak traced MB
(``--memory``: a second call under tracemalloc) and the ratios (> 1: new faster / smaller).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # (imported by the worker below: the tree under test is on PYTHONPATH)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accountants import planners as pl  # noqa: E402
from accountants.pld import GaussianEvent, LaplaceEvent, PLDAccountant, PoissonSampledEvent, RandomizedResponseEvent  # noqa: E402

try:
    import dp_accounting
    from dp_accounting.pld import pld_privacy_accountant
except ImportError:  # pragma: no cover - optional
    dp_accounting = None


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def ours_sgd(sigma, q, T, delta, **kw):
    return PLDAccountant(**kw).compose(PoissonSampledEvent(GaussianEvent(sigma), q), T).epsilon(delta)


def dp_sgd(sigma, q, T, delta, h):
    if dp_accounting is None:
        return None
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=h)
    acc.compose(
        dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), T
        )
    )
    return acc.get_epsilon(delta)


def dp_mixed(delta, h):
    if dp_accounting is None:
        return None
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=h)
    try:
        acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(1.0), 5))
        acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(2.0), 10))
        acc.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.RandomizedResponseDpEvent(1.0, 2), 3))
    except Exception as exc:  # noqa: BLE001 - report what the library says
        return f"refused: {type(exc).__name__}"
    return acc.get_epsilon(delta)


def events50():
    """50 distinct Poisson-subsampled Gaussians (σ = 0.8 + 0.01 i, q = 0.01), 20 steps each."""
    return [(0.8 + 0.01 * i, 0.01, 20) for i in range(50)]


def ours_many(evs, delta):
    acc = PLDAccountant()
    for s, q, c in evs:
        acc.compose(PoissonSampledEvent(GaussianEvent(s), q), c)
    return acc.epsilon(delta)


def dp_many(evs, delta, h):
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=h)
    for s, q, c in evs:
        acc.compose(
            dp_accounting.SelfComposedDpEvent(
                dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), c
            )
        )
    return acc.get_epsilon(delta)


def prv_many(evs, delta):
    try:
        from prv_accountant import PRVAccountant
        from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism
    except ImportError:  # pragma: no cover - optional
        return None
    prvs = [PoissonSubsampledGaussianMechanism(sampling_probability=q, noise_multiplier=s) for s, q, _ in evs]
    acc = PRVAccountant(prvs=prvs, max_self_compositions=[c for _, _, c in evs], eps_error=0.01, delta_error=1e-9)
    return acc.compute_epsilon(delta=delta, num_self_compositions=[c for _, _, c in evs])[2]


#: issue 23's rows: (name, kind, args); kind "sgd": (sigma, q, T, delta, dp_accounting's h); "many": 50 events
HORIZON_CASES = [(f"DP-SGD q=.01 s=1.1 T=1e{k} d=1e-5", "sgd", (1.1, 0.01, 10**k, 1e-5, 1e-4)) for k in range(2, 7)] + [
    ("q=1e-3 s=0.8 T=1e6 d=1e-5", "sgd", (0.8, 1e-3, 10**6, 1e-5, 3e-5)),
    ("50 distinct subsampled Gaussians x20", "many", (1e-5, 1e-4)),
]

# One measurement in a fresh interpreter (the tree under test comes first on PYTHONPATH): time of the
# first call, then, with memory, the peak traced memory of a second call under tracemalloc.
_WORKER = r"""
import json, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
import bench_accountants as B
who, kind, args, mem = sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), sys.argv[5] == "1"
if kind == "sgd":
    s, q, T, d, h = args
    fn = {"ours": lambda: B.ours_sgd(s, q, T, d), "dp": lambda: B.dp_sgd(s, q, T, d, h)}[who]
else:
    d, h = args
    evs = B.events50()
    fn = {"ours": lambda: B.ours_many(evs, d), "dp": lambda: B.dp_many(evs, d, h), "prv": lambda: B.prv_many(evs, d)}[who]
t = time.perf_counter()
out = fn()
sec = time.perf_counter() - t
mb = float("nan")
if mem:
    tracemalloc.start()
    fn()
    mb = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
lo, up = (out.lower, out.upper) if hasattr(out, "lower") else (out, out)
import accountants
print(json.dumps({"s": sec, "lo": lo, "up": up, "mb": mb, "src": accountants.__file__}))
"""


def measure(tree: str | None, who: str, kind: str, args, memory: bool) -> dict | None:
    """Run one case in a fresh interpreter with ``tree`` (a checkout) first on PYTHONPATH (None: this
    tree); returns {"s", "lo", "up", "mb"} or None when the library is missing or the run failed."""
    import json
    import os
    import subprocess

    here = str(Path(__file__).resolve().parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([tree or str(Path(here).parent), here]))
    res = subprocess.run(
        [sys.executable, "-c", _WORKER, here, who, kind, json.dumps(args), "1" if memory else "0"],
        env=env,
        capture_output=True,
        text=True,
        cwd=here,
    )
    if res.returncode != 0 or not res.stdout.strip():
        print(f"  ({who} failed: {res.stderr.strip().splitlines()[-1:] or res.returncode})", file=sys.stderr)
        return None
    out = json.loads(res.stdout.strip().splitlines()[-1])
    want = Path(tree or Path(here).parent).resolve()
    if not Path(out["src"]).resolve().is_relative_to(want):
        raise RuntimeError(f"worker imported {out['src']}, not the tree {want}")
    return out


def horizons(quick: bool, memory: bool, before: str | None, only: str | None = None) -> None:
    """Issue 23's PLD table from ONE run, every measurement in a fresh interpreter, interleaved per row:
    today's code (``before``, e.g. ../privcheck-before), the new code, dp_accounting (and prv_accountant on
    the 50-event row). Prints seconds, certified width (relative), peak traced MB and the ratios."""

    def w(r):
        return (r["up"] - r["lo"]) / r["up"] if r and r["up"] else math.nan

    def f(r, key, fmt):
        return format(r[key], fmt) if r else "—"

    print(
        f"{'case':<38} | {'today s':>8} {'width':>8} {'MB':>5} | {'new s':>7} {'width':>8} {'MB':>5} | "
        f"{'dp_acc s':>8} {'MB':>5} {'dp eps in new?':>14} | new/today  dp/new  dp_MB/new_MB"
    )
    cases = [
        c
        for c in HORIZON_CASES
        if not (quick and (c[0].endswith("T=1e6 d=1e-5") or c[1] == "many")) and (only is None or only in c[0])
    ]
    for name, kind, args in cases:
        old = measure(before, "ours", kind, args, memory) if before else None
        new = measure(None, "ours", kind, args, memory)
        dp = measure(None, "dp", kind, args, memory) if dp_accounting else None
        inside = "—" if not (dp and new) else ("yes" if new["lo"] <= dp["up"] <= new["up"] else f"no ({dp['up']:.5f})")
        r_old = (old["s"] / new["s"]) if (old and new) else math.nan
        r_dp = (dp["s"] / new["s"]) if (dp and new) else math.nan
        r_mb = (dp["mb"] / new["mb"]) if (dp and new and new["mb"] == new["mb"]) else math.nan
        print(
            f"{name:<38} | {f(old, 's', '8.2f'):>8} {w(old):8.2e} {f(old, 'mb', '5.0f'):>5} | {f(new, 's', '7.2f'):>7} "
            f"{w(new):8.2e} {f(new, 'mb', '5.0f'):>5} | {f(dp, 's', '8.2f'):>8} {f(dp, 'mb', '5.0f'):>5} {inside:>14} | "
            f"{r_old:9.2f} {r_dp:7.2f} {r_mb:13.2f}",
            flush=True,
        )
        if kind == "many":
            pv = measure(None, "prv", kind, args, memory)
            if pv:
                print(
                    f"{'  prv_accountant (eps_error 0.01)':<38} | eps {pv['up']:.6f} {pv['s']:.2f} s, "
                    f"{f(pv, 'mb', '.0f')} MB | prv/new time {pv['s'] / new['s']:.2f}",
                    flush=True,
                )


def row(name, iv, t_ours, truth, dp_val, t_dp):
    rel = (iv.upper - truth) / truth if truth else math.nan
    ratio = (t_dp / t_ours) if (t_dp and t_ours) else math.nan
    dps = f"{dp_val:.6f}" if isinstance(dp_val, float) else str(dp_val)
    print(
        f"{name:<44} [{iv.lower:.6f}, {iv.upper:.6f}] {t_ours:7.2f}s | dp_accounting {dps:>12} "
        f"{(t_dp or 0):7.2f}s | truth {truth if truth else '—'} | upper rel.err {rel:+.2e} | time dp/ours {ratio:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the 10^6-step row and the calibrations")
    ap.add_argument("--horizons", action="store_true", help="only issue 23's PLD table (horizons, 50 events)")
    ap.add_argument("--memory", action="store_true", help="with --horizons: also peak memory (a second, traced run)")
    ap.add_argument(
        "--before",
        default=None,
        help="with --horizons: an older checkout measured in the same run "
        "(e.g. ../privcheck-before), in its own interpreter with PYTHONPATH=PATH",
    )
    ap.add_argument("--only", default=None, help="with --horizons: only the rows whose name contains this text")
    args = ap.parse_args()
    if args.horizons:
        horizons(args.quick, args.memory, args.before, args.only)
        return
    print(f"dp_accounting: {'installed' if dp_accounting else 'not installed'}")
    # 1. DP-SGD: privcheck at two accuracies, dp_accounting at 1e-4 and 1e-3
    for tf in (2**16, 2**18):
        iv, t = timed(lambda: ours_sgd(1.1, 0.01, 10_000, 1e-5, target_fft_size=tf))
        for h in (1e-3, 1e-4):
            v, td = timed(lambda: dp_sgd(1.1, 0.01, 10_000, 1e-5, h))
            row(f"DP-SGD q=.01 s=1.1 T=1e4 d=1e-5 (fft {tf}, dp h={h:g})", iv, t, 5.1926, v, td)
    # 2. q=0.01, sigma=0.3, 100 steps
    iv, t = timed(lambda: ours_sgd(0.3, 0.01, 100, 1e-5))
    v, td = timed(lambda: dp_sgd(0.3, 0.01, 100, 1e-5, 1e-4))
    row("q=.01 s=0.3 T=100 d=1e-5", iv, t, None, v, td)
    # 3. mixed Laplace + Gaussian + RR
    acc = PLDAccountant()
    acc.compose(LaplaceEvent(b=1.0), 5).compose(GaussianEvent(2.0), 10).compose(RandomizedResponseEvent(1.0), 3)
    iv, t = timed(lambda: acc.epsilon(1e-5))
    v, td = timed(lambda: dp_mixed(1e-5, 1e-4))
    row("Laplace x5 + Gaussian(2) x10 + RR(1) x3", iv, t, None, v, td)
    # 4. eps -> delta for the subsampled mechanism
    acc = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(1.1), 0.01), 10_000)
    ivd, t = timed(lambda: acc.delta(5.192620))
    print(f"{'DP-SGD delta(5.192620)':<44} [{ivd.lower:.6e}, {ivd.upper:.6e}] {t:7.2f}s (truth ≈ 1e-5)")
    # 5. Gaussian mu=1 at tiny delta
    for d, truth in ((1e-12, 7.238494), (1e-50, 15.247865), (1e-100, None)):
        iv, t = timed(lambda: PLDAccountant().compose(GaussianEvent(1.0)).epsilon(d))
        print(
            f"{'Gaussian mu=1 delta=%g' % d:<44} [{iv.lower:.6f}, {iv.upper:.6f}] {t:7.3f}s {iv.method} (truth {truth})"
        )
    if args.quick:
        return
    # 6. q=1e-3, sigma=0.8, 1e6 steps
    iv, t = timed(lambda: ours_sgd(0.8, 1e-3, 10**6, 1e-5))
    v, td = timed(lambda: dp_sgd(0.8, 1e-3, 10**6, 1e-5, 3e-5))
    row("q=1e-3 s=0.8 T=1e6 d=1e-5 (dp h=3e-5)", iv, t, 9.69294, v, td)
    # 7. calibration: smallest sigma for (8, 1e-5) and (5, 1e-5)
    for e, ref in ((8.0, 0.883442), (5.0, 1.12458)):
        p, t = timed(lambda: pl.noise_for_budget(e, 1e-5, 10_000, q=0.01))
        print(
            f"{'smallest sigma for (%g, 1e-5)' % e:<44} sigma={p.answer:.6f} certified eps<= {p.achieved_eps:.6f} "
            f"bracket {p.details['sigma_bracket']} {t:7.1f}s (dp_accounting PLD calibration {ref}, RDP planner "
            f"{pl.noise_for_budget(e, 1e-5, 10_000, q=0.01, accountant='rdp').answer:.4f})"
        )


if __name__ == "__main__":
    main()
