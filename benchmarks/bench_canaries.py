"""Canary-score audits of correct training runs: privcheck's certified bounds next to the published formulas.

For DP-SGD (numpy, logistic regression, q = 0.1, 100 steps, gradient canaries, all-iterates scores;
σ so that the PLD accountant's ε(δ = 1e−5) ≈ 1, 4, 10) trained once with m ∈ {10^3, 10^4} canaries,
each method of :func:`privcheck.canaries.audit_scores` certifies an ε lower bound (δ = 1e−5,
confidence 0.95, Bonferroni over every rule tried, both directions). Next to it, the value the
*same* scores give under the published formula evaluated in mpmath (privcheck.canaries.reference)
at the rule privcheck chose, with the same error level per test: privcheck must never be above it
and within 1e−6 relative. cp and gdp assume one independent run per score (Nasr et al. 2021/2023):
on one-run canary scores their numbers are shown for the formula comparison only. For gdp the μ
bound is compared (and ε_if_gdp, the ε of that μ at δ).

A second table: the null false-positive rate of jax_privacy's one-run f-DP test when its Bonferroni
divisor is the number of Pareto-hull thresholds (a reimplementation of its selection, not its code),
against privcheck's correction over every rule, on normal null scores.

Usage: python benchmarks/bench_canaries.py [--quick]   (--quick: m = 10^3 only, fewer null runs)
Timings are wall-clock seconds on a shared machine: noisy.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from estimators.training import TrainingConfig, run
from privcheck.canaries import audit_scores
from privcheck.canaries.fdp import dp_family, gdp_family, reject_many
from privcheck.canaries.reference import (
    ref_cp_eps,
    ref_cp_upper,
    ref_eps_of_mu,
    ref_fdp_sup,
    ref_gdp_mu,
    ref_steinke_eps,
)
from privcheck.canaries.training import claimed_curve
from privcheck.catalogue.onerun import SIGMA

DELTA = 1e-5


def _reference(res) -> list[tuple[str, float, float]]:
    """(quantity, ours, published formula in mpmath) for one ScoreAudit."""
    rows = []
    if res.method in ("cp", "gdp"):
        a = res.rule["alpha_per_bound"]
        for key in ("eps", "mu"):
            ch = res.chosen.get(key)
            if not ch:  # nothing certified: compared with 0
                rows.append((f"{key}_lower", getattr(res, f"{key}_lower"), 0.0))
                continue
            fu = ref_cp_upper(ch["false_positives"], ch["n_out"], a)
            nu = ref_cp_upper(ch["false_negatives"], ch["n_in"], a)
            if key == "eps":
                rows.append(("eps_lower", res.eps_lower, max(0.0, float(ref_cp_eps(fu, nu, res.delta)))))
            else:
                mu = max(0.0, float(ref_gdp_mu(fu, nu)))
                rows.append(("mu_lower", res.mu_lower, mu))
                if res.method == "gdp" and mu > 0:
                    rows.append(("eps_if_gdp", res.eps_if_gdp, float(ref_eps_of_mu(mu, res.delta))))
        return rows
    a, m = res.rule["alpha_per_test"], res.rule["canaries_m"]
    ch = res.chosen.get("eps")
    if res.method == "one-run":
        ref = float(ref_steinke_eps(ch["guesses"], ch["correct"], m, res.delta, a)) if ch else 0.0
        return [("eps_lower", res.eps_lower, ref)]
    ref = float(ref_fdp_sup(ch["guesses"], ch["correct"], m, a, dp_family(res.delta))) if ch else 0.0
    rows.append(("eps_lower", res.eps_lower, ref))
    chm = res.chosen.get("mu")
    refm = float(ref_fdp_sup(chm["guesses"], chm["correct"], m, a, gdp_family())) if chm else 0.0
    rows.append(("mu_lower", res.mu_lower, refm))
    return rows


def table(ms) -> bool:
    ok = True
    print("eps_acc  m      method       quantity     privcheck    published(mpmath)  rel.diff    <=   s/audit")
    for eps in (1, 4, 10):
        cfg = TrainingConfig(q=0.1, steps=100, sigma=SIGMA[eps])
        eps_acc = float(claimed_curve(cfg.q, cfg.sigma, cfg.steps, DELTA)[0].upper)
        for m in ms:
            r = run(cfg.with_(canaries=m), seed=0)
            for method in ("cp", "gdp", "one-run", "one-run-fdp"):
                t0 = time.perf_counter()
                res = audit_scores(r.scores_in, r.scores_out, method=method, delta=DELTA)
                secs = time.perf_counter() - t0
                for name, ours, ref in _reference(res):
                    rel = 0.0 if ref == 0 else (ours - ref) / ref
                    good = ours <= ref and (ref == 0 or rel >= -1e-6)
                    ok &= good
                    print(
                        f"{eps_acc:7.4f}  {m:<6d} {method:<12s} {name:<12s} {ours:11.7f}  {ref:17.9f}  "
                        f"{rel:10.2e}  {'yes' if good else 'NO'}  {secs:6.2f}",
                        flush=True,
                    )
    return ok


def _pareto(points: np.ndarray) -> np.ndarray:
    idx = np.arange(points.shape[0])
    while idx.size > 2:
        d = np.diff(points[idx], axis=0)
        dom = d[:-1, 1] * d[1:, 0] - d[1:, 1] * d[:-1, 0] <= 0
        if not dom.any():
            break
        idx = idx[np.r_[True, ~dom, True]]
    return idx


def null_rates(n: int, runs: int, alpha: float = 0.05) -> None:
    """Share of null runs in which ε = 0 (μ = 0: perfect privacy) is rejected."""
    rng = np.random.default_rng(11)
    hull_hits = ours_hits = 0
    divisors = []
    for _ in range(runs):
        s_in, s_out = rng.normal(size=n), rng.normal(size=n)
        thr = np.concatenate([np.union1d(s_in, s_out), [np.inf]])
        fn = np.searchsorted(np.sort(s_in), thr, "left")
        tn = np.searchsorted(np.sort(s_out), thr, "left")
        idx = _pareto(np.stack([fn, tn], 1))
        tp, fp = n - fn[idx], n - tn[idx]
        keep = tp + fp > 0
        divisors.append(idx.size)
        rej = reject_many((tp + fp)[keep], tp[keep], 2 * n, alpha / idx.size, lambda y: np.minimum(y, 1.0))
        hull_hits += bool(rej.any())
        ours_hits += audit_scores(s_in, s_out, method="one-run-fdp", sides="forward").mu_lower > 0
    print(
        f"null n={n} per side, {runs} runs, alpha {alpha}: hull-count Bonferroni (mean divisor "
        f"{np.mean(divisors):.1f} of {2 * n + 1} thresholds) rejects mu=0 in {hull_hits / runs:.3f}; "
        f"privcheck (every rule) in {ours_hits / runs:.3f}"
    )


def main(argv) -> int:
    quick = "--quick" in argv
    ok = table((1_000,) if quick else (1_000, 10_000))
    print()
    null_rates(1000, 100 if quick else 300)
    print("\nall privcheck values <= the published formula and within 1e-6 relative:", "yes" if ok else "NO")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
