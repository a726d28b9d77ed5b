"""Monte Carlo trials of 002 §7 (synthetic set-up), reproducible from one SeedSequence.

Each trial t draws its instance and its noise from ``generator(seed, key, t)``; methods compared
within a trial share the instance (paired comparisons) but not the noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accountants.spriFed import spriFed_budget
from estimators.spriFed_omp.algorithms import omp_trace, spriFed_omp, spriFed_omp_grad
from estimators.spriFed_omp.baselines import dp_gcd, dp_sgd_l1
from estimators.spriFed_omp.data import synthetic
from privcheck.base.seeding import generator

#: the set-up used by the catalogue (002's own values were lost; docs/site/spriFed-omp.md says why these)
SETUP = {"s": 5, "mu1": 5.0, "mu2": 1.0, "c_x": 2.0, "c_y": 2.0, "sigma_e": 0.1}
#: baseline hyper-parameter grids, tuned non-privately as 002 §7.2 does (with Optuna there)
SGD_GRID = [(lr, lam) for lr in (0.3, 1.0) for lam in (0.0, 0.05)]
GCD_GRID = [0.5, 1.0]
METHODS = ("omp", "omp_noenh", "grad", "sgd", "gcd")


@dataclass
class TrialResult:
    """Per trial and method: test MSE and true basis elements recovered."""

    mse: dict
    recovered: dict


def instance(n: int, d: int, setup: dict, rng: np.random.Generator, sigma_e: float | None = None):
    """A §7.1 instance with the set-up's s and clipping (σₑ overridable)."""
    return synthetic(
        n, d, setup["s"], setup["sigma_e"] if sigma_e is None else sigma_e, rng, c_x=setup["c_x"], c_y=setup["c_y"]
    )


def run_method(name: str, ds, setup: dict, rng: np.random.Generator, tuned: dict | None = None):
    """Run one method on a dataset with the set-up's μ1, μ2 (baselines matched to Theorem 6's total μ)."""
    s, mu1, mu2 = setup["s"], setup["mu1"], setup["mu2"]
    args = (ds.X, ds.y, s, mu1)
    if name == "omp":
        return spriFed_omp(*args, mu2, ds.c_x, ds.c_y, rng)
    if name == "omp_noenh":
        return spriFed_omp(*args, mu2, ds.c_x, ds.c_y, rng, enhancement1=False)
    if name == "grad":
        return spriFed_omp_grad(*args, mu2, ds.c_x, ds.c_y, rng)
    mu_total = spriFed_budget(s, mu1, mu2, "omp").mu_total
    tuned = tuned or {}
    if name == "sgd":
        lr, lam = tuned.get("sgd", SGD_GRID[0])
        return dp_sgd_l1(*args, mu_total, ds.c_x, ds.c_y, rng, lr=lr, lam=lam)
    if name == "gcd":
        return dp_gcd(*args, mu2, mu_total, ds.c_x, ds.c_y, rng, lr=tuned.get("gcd", GCD_GRID[0]))
    raise ValueError(f"unknown method {name!r}; allowed: {', '.join(METHODS)}")


def tune_baselines(n: int, d: int, setup: dict, seed, trials: int = 2) -> dict:
    """Non-private grid search of the baselines' step size (and ℓ1 weight) by mean test MSE on tuning trials."""
    out = {}
    for name, grid in (("sgd", SGD_GRID), ("gcd", GCD_GRID)):
        scores = []
        for h in grid:
            tot = 0.0
            for t in range(trials):
                rng = generator(seed, "tune", n, d, t)
                ds = instance(n, d, setup, rng)
                r = run_method(name, ds, setup, rng, {name: h})
                tot += r.mse(ds.X_test, ds.y_test)
            scores.append(tot)
        out[name] = grid[int(np.argmin(scores))]
    return out


def trials(
    n: int,
    d: int,
    methods,
    R: int,
    setup: dict,
    seed,
    key: str = "trial",
    tuned: dict | None = None,
    sigma_e: float | None = None,
) -> list[TrialResult]:
    """R paired trials at (n, d): every method on the same instance, independent noise per method."""
    out = []
    for t in range(R):
        ds = instance(n, d, setup, generator(seed, key, n, d, t), sigma_e)
        mse, rec = {}, {}
        for m in methods:
            r = run_method(m, ds, setup, generator(seed, key, n, d, t, m), tuned)
            mse[m] = r.mse(ds.X_test, ds.y_test)
            rec[m] = r.recovered(ds.support)
        out.append(TrialResult(mse, rec))
    return out


def figure1_traces(n: int, d: int, R: int, setup: dict, seed) -> list[dict]:
    """Non-private OMP artifact norms (002 Fig. 1) on R instances."""
    return [
        omp_trace(*(lambda ds: (ds.X, ds.y))(instance(n, d, setup, generator(seed, "fig1", t))), setup["s"])
        for t in range(R)
    ]
