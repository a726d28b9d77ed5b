"""Benchmark (not CI): the sequential audit of (ε, δ) and μ-GDP claims (``samples="auto"`` with ``delta=`` / ``mu=``).

Usage: ``python benchmarks/bench_sequential_delta.py [--runs 500] [--seeds 20] [--budget 20000] [--out PATH]``

1. **False refutations** of correct mechanisms audited at their exact claim (the tight case), α = 0.05, target 1
   (no early stop at a target: every run spends its whole budget, the most exposure it gives), over ``--runs``
   seeded runs: randomised response at ε = 1 with a δ = 0.01 atom that reveals the input (exactly (1, 0.01)-DP),
   and x + N(0, 1) on x ∈ {0, 1} at μ = 1 (exactly 1-GDP; audited on its values, ``view=False``). The count and its
   Clopper–Pearson 95 % upper bound on the rate.
2. **Draws to refutation** of grossly broken ones (the δ atom 10× the claim; μ = 3× the claim) over ``--seeds``
   seeds: median / 90th percentile / largest draws per input at stop, against the fixed-sample audit
   (``samples=N``: the δ bound at ε, or the trade-off-curve audit of μ) at the same budget, whose draws are
   always N, and its refutation count at N = the sequential runs' p90.

It prints the tables and writes them to ``benchmarks/results/sequential_delta.md`` (``--out``). Seconds are
wall time on a shared machine: read them as ratios within the run.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privcheck.auditor import audit  # noqa: E402
from privcheck.base.stats import clopper_pearson  # noqa: E402

ALPHA = 0.05


def rr_leak(eps: float, delta: float) -> Callable:
    """Randomised response at ε with a δ-mass atom revealing the input: exactly (ε, δ)-DP."""
    p = math.exp(eps) / (1.0 + math.exp(eps))

    def sampler(x, n, rng):
        leak = rng.random(n) < delta
        out = np.where(rng.random(n) < p, x, 1 - x).astype(float)
        return np.where(leak, 2.0 + x, out)

    return sampler


def gauss(mu: float) -> Callable:
    """x + N(0, 1/μ²) on x ∈ {0, 1}: exactly μ-GDP on its values."""

    def sampler(x, n, rng):
        return x + rng.normal(0.0, 1.0 / mu, n)

    return sampler


#: (name, sampler, claim keywords, extra audit keywords)
CORRECT = [
    ("RR ε=1 + δ-atom 0.01, claim (1, 0.01)", rr_leak(1.0, 0.01), {"eps": 1.0, "delta": 0.01}, {}),
    ("Gaussian μ=1, claim 1-GDP", gauss(1.0), {"mu": 1.0}, {"view": False}),
]
BROKEN = [
    ("RR ε=1 + δ-atom 0.1, claim (1, 0.01)", rr_leak(1.0, 0.1), {"eps": 1.0, "delta": 0.01}, {}),
    ("Gaussian μ=3, claim 1-GDP", gauss(3.0), {"mu": 1.0}, {"view": False}),
]


def run(sampler, claim: dict, extra: dict, samples, seed: int):
    """One audit: (verdict, draws per input)."""
    r = audit(sampler, inputs=[0, 1], samples=samples, seed=seed, exact=False, **claim, **extra)
    return r.verdict, r.samples


def false_refutations(runs: int, budget: int) -> list[str]:
    """Table 1 rows."""
    rows = [
        "| mechanism (tight claim) | runs | refuted | rate | CP 95 % upper | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for name, smp, claim, extra in CORRECT:
        t = time.perf_counter()
        k = sum(run(smp, claim, extra, f"auto:draws={budget},target=1", s)[0] == "refuted" for s in range(runs))
        up = float(clopper_pearson(k, runs, ALPHA, "upper"))
        rows.append(f"| {name} | {runs} | {k} | {k / runs:.4f} | {up:.4f} | {time.perf_counter() - t:.0f} |")
        print(rows[-1], flush=True)
    return rows


def draws_to_refute(seeds: int, budget: int) -> list[str]:
    """Table 2 rows."""
    rows = [
        "| mechanism | seeds | sequential refuted | median | p90 | max | fixed N=p90 refuted | fixed N=budget draws |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, smp, claim, extra in BROKEN:
        res = [run(smp, claim, extra, f"auto:draws={budget}", s) for s in range(seeds)]
        draws = np.array([d for _, d in res])
        k = sum(v == "refuted" for v, _ in res)
        p90 = int(np.percentile(draws, 90))
        fixed = sum(run(smp, claim, extra, max(p90, 100), s)[0] == "refuted" for s in range(seeds))
        rows.append(
            f"| {name} | {seeds} | {k} | {int(np.median(draws))} | {p90} | {int(draws.max())} | {fixed}/{seeds} "
            f"| {budget} |"
        )
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--budget", type=int, default=20000)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "sequential_delta.md"))
    a = ap.parse_args()
    t0 = time.perf_counter()
    head = [
        "# Sequential audit of (ε, δ) and μ-GDP claims",
        "",
        f"Generated by `benchmarks/bench_sequential_delta.py --runs {a.runs} --seeds {a.seeds} --budget {a.budget}` "
        f"(python {platform.python_version()}, α = {ALPHA}; wall time on a shared machine).",
        "",
        "## Draws to refutation (grossly broken)",
        "",
    ]
    t2 = draws_to_refute(a.seeds, a.budget)
    t1 = false_refutations(a.runs, a.budget)
    body = head + t2 + ["", f"## False refutations (correct, tight claim, target 1, budget {a.budget})", ""] + t1
    body += ["", f"Total {time.perf_counter() - t0:.0f} s."]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(body) + "\n")
    print(f"written {a.out}")


if __name__ == "__main__":
    main()
