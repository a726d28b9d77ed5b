"""Benchmark (not CI): power of the trade-off-curve auditor and the DP-SGD acceptance run over 20 seeds.

Run: ``python benchmarks/bench_curves.py [--quick] [--json PATH]``.

1. Power target (issue 21): the Gaussian mechanism σ = 1, sensitivity 1 (μ = 1), black box,
   10⁶ draws per input: ``mu_lower`` (target ≥ 0.95) and ``eps_lower_at_delta`` at δ = 1e-5 as a
   fraction of the exact ε(δ) (target ≥ 0.7), from one ``privcheck.audit(..., eps=, delta=)`` run.
2. Acceptance: ``dp-sgd`` (q = 0.5, σ = 1, C = 3, T = 2, d = 2) audited against its own PLD
   accountant over 20 seeds — the correct implementation should hold on every seed (a false
   refutation has probability ≤ 5 % per seed), the one whose noise ignores the clipping norm
   should be refuted on every seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import privcheck  # noqa: E402
from accountants.gdp import gdp_eps  # noqa: E402


def gaussian(x, n, rng):
    """σ = 1 Gaussian noise on x (a plain black-box sampler)."""
    return x + rng.standard_normal(n)


def power(samples: int) -> dict:
    t = time.perf_counter()
    res = privcheck.audit(gaussian, inputs=[0.0, 1.0], eps=100.0, delta=1e-5, samples=samples, seed=0)
    mu_res = privcheck.audit(gaussian, inputs=[0.0, 1.0], mu=1.0, samples=samples, seed=1)
    true = gdp_eps(1.0, 1e-5)
    return {
        "samples_per_input": samples,
        "mu_lower": mu_res.mu_lower,
        "mu_verdict": mu_res.verdict,
        "mu_lower_from_eps_run": res.mu_lower,
        "eps_true_at_1e-5": true,
        "eps_lower_at_delta": res.eps_lower_at_delta,
        "eps_fraction": res.eps_lower_at_delta / true,
        "seconds": time.perf_counter() - t,
    }


def acceptance(seeds: int, samples: int) -> dict:
    kw = dict(q=0.5, sigma=1.0, C=3.0, T=2, d=2)
    out = {}
    for bug in ("none", "noise-ignores-clip"):
        mech = privcheck.mechanism("dp-sgd", bug=bug, **kw)
        verdicts, mus = [], []
        t = time.perf_counter()
        for s in range(seeds):
            r = privcheck.audit(mech, samples=samples, seed=s)
            verdicts.append(r.verdict)
            mus.append(r.mu_lower)
        out[bug] = {
            "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
            "mu_lower_min": min(mus),
            "mu_lower_max": max(mus),
            "seconds": time.perf_counter() - t,
        }
    out["params"] = dict(kw, samples_per_input=samples, seeds=seeds)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10⁵ draws, 3 seeds")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    n, seeds = (100_000, 3) if a.quick else (1_000_000, 20)
    p = power(n)
    print(
        f"Gaussian sigma=1 (mu=1), {n} draws/input: mu_lower {p['mu_lower']:.4f} (target >= 0.95, "
        f"verdict {p['mu_verdict']}); eps at delta=1e-5 certified {p['eps_lower_at_delta']:.4f} of "
        f"{p['eps_true_at_1e-5']:.4f} = {p['eps_fraction']:.1%} (target >= 70%)  [{p['seconds']:.1f} s]"
    )
    acc = acceptance(seeds, 200_000 if not a.quick else 50_000)
    for bug in ("none", "noise-ignores-clip"):
        r = acc[bug]
        print(
            f"dp-sgd {acc['params']} bug={bug}: {r['verdicts']} over {seeds} seeds, mu_lower in "
            f"[{r['mu_lower_min']:.3f}, {r['mu_lower_max']:.3f}]  [{r['seconds']:.1f} s]"
        )
    if a.json:
        Path(a.json).write_text(json.dumps({"power": p, "acceptance": acc}, indent=2, default=float) + "\n")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
