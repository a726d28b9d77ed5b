"""Benchmark (not CI): a gray-box trace against a black-box audit of the same pipeline — seconds to a verdict.

Run: ``python benchmarks/bench_trace.py [--quick]``. The pipeline releases the sum of a dataset of ``N``
records with Laplace(1/ε) noise, ε = 1, declared sensitivity 1 (records clipped to [0, 1]; add/remove).
Three versions: ``correct``; ``gross`` (the sum is clipped instead of the records: one record of 5 moves it
by 5, true ε = 5); ``subtle`` (records clipped to [0, 1.1]: sensitivity 1.1, true ε = 1.1 against the
claimed 1). For each, on the same neighbouring pair, the table gives:

- trace: :func:`privcheck.trace` (10 coupled runs, NaN/±inf neighbours included) — seconds and verdict;
- audit: :func:`privcheck.audit` of the same function through :func:`privcheck.per_sample` at
  10⁴, 10⁵, 10⁶ draws per input (stopping at the first refutation) — the cumulative seconds until
  a verdict and the verdict;

and the ratio audit seconds / trace seconds measured in this run (timings on a shared machine are noisy;
the ratio is the figure to quote). A black-box audit that does not refute within the ladder is shown as
"holds" (no violation detected at that power), with the seconds it spent.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import privcheck  # noqa: E402

N = 200  # records per dataset


def _release(data, rng, lo: float, hi: float, clip_sum: bool) -> float:
    x = np.asarray(data, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError("non-finite record")
    s = float(np.clip(x.sum(), lo * len(x), hi * len(x))) if clip_sum else float(np.clip(x, lo, hi).sum())
    return s + rng.laplace(0.0, 1.0)


def correct(data, rng):
    return _release(data, rng, 0.0, 1.0, False)


def gross(data, rng):
    return _release(data, rng, 0.0, 1.0, True)


def subtle(data, rng):
    return _release(data, rng, 0.0, 1.1, False)


def pair() -> tuple[tuple, tuple]:
    base = tuple(float(v) for v in np.random.default_rng(0).uniform(0.0, 1.0, size=N))
    return base, base + (5.0,)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def black_box(fn, pr, ladder) -> tuple[str, float, int]:
    total = 0.0
    verdict, n = "holds", 0
    for n in ladder:
        res, dt = timed(
            lambda n=n: privcheck.audit(privcheck.per_sample(fn), pairs=[pr], eps=1.0, samples=n, seed=0, jobs=1)
        )
        total += dt
        verdict = res.verdict
        if verdict == "refuted":
            break
    return verdict, total, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="ladder up to 10^5 draws per input")
    args = ap.parse_args()
    ladder = (10_000, 100_000) if args.quick else (10_000, 100_000, 1_000_000)
    pr = pair()
    print(f"pipeline: noisy sum of {N} records, Laplace(1), declared sensitivity 1 (eps = 1); pair (D, D + [5.0])")
    print(f"{'version':8} {'trace':>22} {'black-box audit':>38} {'ratio':>8}")
    for name, fn in (("correct", correct), ("gross", gross), ("subtle", subtle)):
        res, t_trace = timed(lambda fn=fn: privcheck.trace(fn, pairs=[pr], sensitivity=1.0, norm="l1", runs=10))
        verdict, t_audit, n = black_box(fn, pr, ladder)
        print(
            f"{name:8} {res.verdict:>10} {t_trace:9.3f} s   {verdict:>10} at {n:>9} draws {t_audit:9.2f} s "
            f"{t_audit / t_trace:8.0f}x   (trace measured sensitivity {res.sensitivity_lower:.4g})"
        )


if __name__ == "__main__":
    main()
