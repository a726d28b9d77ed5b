"""Benchmark (not CI): privcheck's certified PLD accountant against dp_accounting, in one run.

Run: ``python benchmarks/bench_accountants.py [--quick]``. For each query of issue 9's table it
prints privcheck's interval [lower, upper], dp_accounting's value (when installed; PLD with the
given discretisation interval), the reference truth, the relative error of privcheck's upper
end, and the time ratio dp_accounting / privcheck measured in this run.
``--horizons`` prints issue 23's PLD table instead: DP-SGD (q=0.01, σ=1.1) at T = 10²…10⁶, q=1e−3 σ=0.8
T=10⁶, and 50 distinct subsampled Gaussians, with the time ratio dp_accounting/ours (> 1: ours faster)
and, with ``--memory``, peak traced memory of both (a second run under tracemalloc).
"""
from __future__ import annotations

import argparse
import math
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accountants import planners as pl  # noqa: E402
from accountants.pld import (GaussianEvent, LaplaceEvent, PLDAccountant, PoissonSampledEvent,  # noqa: E402
                             RandomizedResponseEvent)

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
    acc.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), T))
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


MEMORY = False  # --memory: a second run of each case under tracemalloc (slow; timings come from the first)


def peak(fn):
    """(result, seconds, peak traced MB or nan) of fn(); numpy buffers are traced by tracemalloc."""
    out, t = timed(fn)
    if not MEMORY:
        return out, t, math.nan
    tracemalloc.start()
    try:
        fn()
        return out, t, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


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
        acc.compose(dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), c))
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


def horizons(quick: bool) -> None:
    """Issue 23's PLD rows, both accountants in this run: time ratio dp_accounting/ours (> 1: ours faster),
    our certified width, dp_accounting's point value, peak traced memory of each."""
    print(f"{'case':<40} {'ours [lower, upper]':>26} {'width':>9} {'s':>7} {'MB':>6} | "
          f"{'dp_acc eps':>10} {'s':>7} {'MB':>6} | dp/ours time  dp/ours mem")
    cases = [(f"DP-SGD q=.01 s=1.1 T=1e{k} d=1e-5", (1.1, 0.01, 10**k, 1e-5, 1e-4)) for k in range(2, 6 if quick else 7)]
    if not quick:
        cases.append(("q=1e-3 s=0.8 T=1e6 d=1e-5", (0.8, 1e-3, 10**6, 1e-5, 3e-5)))
    for name, (s, q, T, d, h) in cases:
        iv, t, m = peak(lambda: ours_sgd(s, q, T, d))
        v, td, md = peak(lambda: dp_sgd(s, q, T, d, h)) if dp_accounting else (None, 0.0, 0.0)
        _hrow(name, iv, t, m, v, td, md)
    evs = events50()
    iv, t, m = peak(lambda: ours_many(evs, 1e-5))
    v, td, md = peak(lambda: dp_many(evs, 1e-5, 1e-4)) if dp_accounting else (None, 0.0, 0.0)
    _hrow("50 distinct subsampled Gaussians x20", iv, t, m, v, td, md)
    pv, tp = timed(lambda: prv_many(evs, 1e-5))
    if pv is not None:
        print(f"{'  prv_accountant (eps_error 0.01)':<40} eps {pv:.6f} {tp:7.2f}s | prv/ours time {tp / t:.2f}")


def _hrow(name, iv, t, m, v, td, md):
    w = (iv.upper - iv.lower) / iv.upper if iv.upper else math.nan
    dps = f"{v:.6f}" if isinstance(v, float) else "—"
    print(f"{name:<40} [{iv.lower:.6f}, {iv.upper:.6f}] {w:9.2e} {t:7.2f} {m:6.0f} | {dps:>10} {td:7.2f} {md:6.0f} | "
          f"{(td / t if td else math.nan):12.2f} {md / m:12.2f}")


def row(name, iv, t_ours, truth, dp_val, t_dp):
    rel = (iv.upper - truth) / truth if truth else math.nan
    ratio = (t_dp / t_ours) if (t_dp and t_ours) else math.nan
    dps = f"{dp_val:.6f}" if isinstance(dp_val, float) else str(dp_val)
    print(f"{name:<44} [{iv.lower:.6f}, {iv.upper:.6f}] {t_ours:7.2f}s | dp_accounting {dps:>12} "
          f"{(t_dp or 0):7.2f}s | truth {truth if truth else '—'} | upper rel.err {rel:+.2e} | time dp/ours {ratio:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the 10^6-step row and the calibrations")
    ap.add_argument("--horizons", action="store_true", help="only issue 23's PLD table (horizons, 50 events)")
    ap.add_argument("--memory", action="store_true", help="with --horizons: also peak memory (a second, traced run)")
    args = ap.parse_args()
    if args.horizons:
        global MEMORY
        MEMORY = args.memory
        horizons(args.quick)
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
        print(f"{'Gaussian mu=1 delta=%g' % d:<44} [{iv.lower:.6f}, {iv.upper:.6f}] {t:7.3f}s {iv.method} (truth {truth})")
    if args.quick:
        return
    # 6. q=1e-3, sigma=0.8, 1e6 steps
    iv, t = timed(lambda: ours_sgd(0.8, 1e-3, 10**6, 1e-5))
    v, td = timed(lambda: dp_sgd(0.8, 1e-3, 10**6, 1e-5, 3e-5))
    row("q=1e-3 s=0.8 T=1e6 d=1e-5 (dp h=3e-5)", iv, t, 9.69294, v, td)
    # 7. calibration: smallest sigma for (8, 1e-5) and (5, 1e-5)
    for e, ref in ((8.0, 0.883442), (5.0, 1.12458)):
        p, t = timed(lambda: pl.noise_for_budget(e, 1e-5, 10_000, q=0.01))
        print(f"{'smallest sigma for (%g, 1e-5)' % e:<44} sigma={p.answer:.6f} certified eps<= {p.achieved_eps:.6f} "
              f"bracket {p.details['sigma_bracket']} {t:7.1f}s (dp_accounting PLD calibration {ref}, RDP planner "
              f"{pl.noise_for_budget(e, 1e-5, 10_000, q=0.01, accountant='rdp').answer:.4f})")


if __name__ == "__main__":
    main()
