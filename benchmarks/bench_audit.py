"""Throughput of the samplers and the auditor, and time to exact ε (not run in CI).

Usage: ``python benchmarks/bench_audit.py [--n 4000000]``

Every figure is also reported as a ratio against a baseline measured in the
same run: the rate at which numpy draws float64 uniforms (``rng.random``) on
one core, the least work any sampler needs per output.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import privcheck
from privcheck.auditor import audit


def rate(fn, n: int, repeat: int = 3) -> float:
    """Best-of-``repeat`` draws per second of ``fn(n)``."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - t)
    return n / best


def seconds(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=4_000_000, help="draws per throughput measurement")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    base = rate(lambda n: rng.random(n), args.n)
    print(f"baseline: numpy uniforms {base:.3g}/s/core")
    rows = []
    krr = privcheck.mechanism("de", m=100, eps=1.0)
    rows.append(("k-RR m=100 sample", rate(lambda n: krr.sample(3, n, rng), args.n)))
    try:
        pe = privcheck.mechanism("fedsel-pe", d=5, k=2, eps=1.0)
        x = pe.inputs()[0]
        rows.append(("FedSel PE d=5 sample", rate(lambda n: pe.sample(x, n, rng), args.n)))
    except Exception as exc:  # pragma: no cover - report, do not hide
        print(f"PE: {exc}")
    try:
        pm = privcheck.mechanism("pm", eps=1.0)
        rows.append(("PM sample", rate(lambda n: pm.sample(0.3, n, rng), args.n)))
    except Exception as exc:  # pragma: no cover
        print(f"PM: {exc}")
    print(f"{'sampler':28s} {'samples/s/core':>15s} {'x baseline':>11s}")
    for name, r in rows:
        print(f"{name:28s} {r:15.3g} {r / base:11.3f}")
    print()
    print("whole audits (Monte Carlo, 10^6 samples per input, exact off):")
    for label, mech, jobs in [("k-RR m=2", privcheck.mechanism("de", m=2, eps=1.0), 1),
                              ("k-RR m=100", krr, 1), ("k-RR m=100", krr, 2)]:
        s = seconds(lambda: audit(mech, samples=1_000_000, exact=False, jobs=jobs))
        n_inputs = len(mech.inputs())
        print(f"  {label:12s} jobs={jobs}: {s:.3f} s  ({n_inputs} inputs; {n_inputs * 1e6 / s / base:.3f} x baseline per sample)")
    print()
    print("time to exact ε:")
    cases = [("fedsel-exp", dict(d=100_000, k=100, eps=1.0)), ("fedsel-pe", dict(d=100_000, k=100, eps=1.0)),
             ("fedsel-ps", dict(d=100_000, k=100, eps=1.0)), ("privquant", None)]
    for name, params in cases:
        try:
            if name == "privquant":
                params = {"d": 1000, "K": 16, "kappa": 100, "p": 0.55}
                mech = privcheck.mechanism("privquant", **params)
            else:
                mech = privcheck.mechanism(name, **params)
            s = seconds(mech.exact_epsilon, repeat=1)
            print(f"  {name:11s} {params}: {s:.3f} s  (eps = {mech.exact_epsilon().eps:.6g})")
        except Exception as exc:  # pragma: no cover
            print(f"  {name}: {type(exc).__name__}: {exc}")


if __name__ == "__main__":
    main()
