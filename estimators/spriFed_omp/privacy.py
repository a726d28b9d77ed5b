"""The whole SPriFed algorithm as a central mechanism on neighbouring datasets (for the black-box audit).

Neighbouring datasets differ in one client's row ("neighboring distributed datasets differing in one
of their clients", 002 Def. 2.1): D has n clients with rows drawn from the §7 set-up and clipped, its
client 0 holding the vertex row (x = c_x·1, y = c_y); D' replaces that row by (x = −c_x·1, y = c_y),
the pair at which every entry of x·y changes by 2c_x c_y, so the first release Xᵀy + N(0, σ²) moves
by exactly its Lemma 4 sensitivity 2c_x c_y √d — the worst case of that release.

Output audited: each replicate runs the whole algorithm (every NOISY-SMPC call, selection and
PRIVATE-OLS) and returns the transcript's log-likelihood-ratio statistic for D against D' —
a post-processing of the released transcript, so a lower bound on its privacy is a lower bound on the
algorithm's. With s = 1 the transcript is (c̃, PRIVATE-OLS release of the chosen j); for every j the
row change moves the chosen correlation by 2c_x c_y and leaves the diagonal covariance unchanged,
so the statistic is ⟨Δc, c̃⟩/σ_c² + 2c_x c_y·ĉ_j/σ_2² (constants dropped; monotone in the likelihood
ratio). Its privacy is exactly √(μ1² + (2c_x c_y/σ_2)²)-GDP ≤ Theorem 6's √(μ1² + μ2²).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from estimators.spriFed_omp.algorithms import spriFed_omp, spriFed_omp_grad
from estimators.spriFed_omp.mechanisms import corr_sensitivity, ols_sensitivity, validate_run
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.seeding import generator


@dataclass
class CentralRun:
    """A neighbouring pair and the whole-algorithm sampler ``sample(x, m, rng)`` (x ∈ {0, 1} picks D, D')."""

    datasets: tuple
    variant: str
    s: int
    mu1: float
    mu2: float
    c_x: float
    c_y: float
    share_factor: float = 1.0

    def statistic(self, releases: list) -> float:
        """The transcript's log-likelihood-ratio statistic (see the module docstring)."""
        d = self.datasets[0][0].shape[1]
        sc = corr_sensitivity(self.c_x, self.c_y, d) / self.mu1
        s2 = ols_sensitivity(self.c_x, self.c_y, self.s) / self.mu2
        shift = 2 * self.c_x * self.c_y
        ols = releases[-1]  # s = 1: the last release is PRIVATE-OLS (correlation first)
        return float(shift * releases[0].sum() / sc**2 + shift * ols[0] / s2**2)

    def sample(self, x, m: int, rng: np.random.Generator) -> np.ndarray:
        """m independent whole-algorithm runs on dataset x (0: D, 1: D'), each reduced to the statistic."""
        X, y = self.datasets[int(x)]
        run = spriFed_omp if self.variant == "omp" else spriFed_omp_grad
        out = np.empty(m)
        for i in range(m):
            r = run(
                X, y, self.s, self.mu1, self.mu2, self.c_x, self.c_y, rng, share_factor=self.share_factor, keep=True
            )
            out[i] = self.statistic(r.ledger.releases)
        return out


def central_run(
    n: int = 10,
    d: int = 3,
    mu1: float = 1.5,
    mu2: float = 1.0,
    c_x: float = 1.0,
    c_y: float = 1.0,
    variant: str = "omp",
    share_factor: float = 1.0,
    seed: int = 0,
) -> CentralRun:
    """The neighbouring pair (D, D') and the whole-algorithm mechanism for the audit (s = 1).

    n ≥ 2 clients, d ≥ 1, μ1, μ2 > 0, c_x, c_y > 0; variant 'omp' (Alg. 3) or 'grad' (Alg. 4, whose
    first gradient at β̃ = 0 is the correlation); share_factor: 1 for the algorithm, 0.5 for the broken
    NoisySMPC whose shares sum to half the stated variance; seed: the rows of D.
    """
    n, d, s, mu1, mu2, c_x, c_y = validate_run(n, d, 1, mu1, mu2, c_x, c_y)
    if n < 2:
        raise PrivcheckUsageError(f"n (clients) must be at least 2 for a neighbouring pair, got {n}")
    if variant not in ("omp", "grad"):
        raise PrivcheckUsageError(f"variant must be 'omp' or 'grad', got {variant!r}")
    rng = generator(seed, "spriFed.omp.central")
    X = np.clip(rng.standard_normal((n, d)), -c_x, c_x)
    y = np.clip(X.sum(axis=1) + rng.normal(0, 0.1, n), -c_y, c_y)
    X[0], y[0] = c_x, c_y
    X2, y2 = X.copy(), y.copy()
    X2[0] = -c_x
    return CentralRun(((X, y), (X2, y2)), variant, s, mu1, mu2, c_x, c_y, share_factor)
