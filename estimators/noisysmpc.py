"""NoisySMPC — 002 (Mulay, Lin: SPriFed-OMP), Alg. 1, and the sensitivities of Lemma 4.

Each of n clients adds N(0, σ²/n) noise to its contribution and the server
only sees the secure-aggregated sum, whose total noise is N(0, σ²): by the
Gaussian mechanism (Dong, Roth & Su 2019, Thm 2.7) the sum is μ-GDP with
μ = Δ/σ for ℓ2-sensitivity Δ. (002's formulas were lost in conversion; the
statement checked is the one in CLAIMS.md.)
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_positive

SOURCE = "002_53ad70670a94e98a.txt"


def noisy_smpc(values, sigma: float, rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` replicates of the NoisySMPC sum of ``values`` (n clients × d): Σ_i (v_i + N(0, σ²/n)).

    The per-client noises are drawn individually (n·d per replicate), so the
    aggregation is simulated as the algorithm runs it. Returns (size, d).
    """
    v = np.atleast_2d(np.asarray(values, dtype=float))
    sigma = check_positive("sigma", sigma)
    n, d = v.shape
    noise = rng.normal(0.0, sigma / np.sqrt(n), (size, n, d))
    return v.sum(axis=0)[None, :] + noise.sum(axis=1)


def aggregate_variance_exact(n: int, sigma2: Fraction) -> Fraction:
    """Σ_{i=1}^n σ²/n in rational arithmetic (the variance of the aggregated noise)."""
    n = check_int("n", n, minimum=1)
    return sum((Fraction(sigma2) / n for _ in range(n)), Fraction(0))


def gdp_mu(sensitivity: float, sigma: float) -> float:
    """μ = Δ/σ of the Gaussian mechanism N(f, σ²) with ℓ2-sensitivity Δ (μ-GDP)."""
    return check_positive("sensitivity", sensitivity) / check_positive("sigma", sigma)


def correlation_change(x, y, x2, y2) -> np.ndarray:
    """Change of the per-row contribution x·y to X_jᵀy when a row (x, y) becomes (x2, y2)."""
    return np.asarray(x) * np.asarray(y)[..., None] - np.asarray(x2) * np.asarray(y2)[..., None]


def covariance_change(x, x2, j: int) -> np.ndarray:
    """Change of the row's contribution x_j·x_l to X_jᵀX_l (l = 1..d) when row x becomes x2."""
    x, x2 = np.asarray(x), np.asarray(x2)
    return x[..., j : j + 1] * x - x2[..., j : j + 1] * x2


def max_sensitivity_vertices(d: int, c_x: float, c_y: float) -> dict:
    """Maximum changes over all vertices of the box |x| ≤ c_x, |y| ≤ c_y (exact for these multilinear maps).

    Returns the max per-entry and ℓ2 changes of the correlation vector Xᵀy and
    of one covariance column X_jᵀX (j = 0), each with a maximising row pair.
    """
    d = check_int("d", d, minimum=1, maximum=6)
    c_x, c_y = check_positive("c_x", c_x), check_positive("c_y", c_y)
    xs = np.array(list(itertools.product([-c_x, c_x], repeat=d)))
    ys = np.array([-c_y, c_y])
    X, Y, X2, Y2 = (
        a.reshape(-1, *a.shape[4:])
        for a in np.meshgrid(np.arange(len(xs)), np.arange(2), np.arange(len(xs)), np.arange(2), indexing="ij")
    )
    dc = correlation_change(xs[X], ys[Y], xs[X2], ys[Y2])
    i_entry = int(np.abs(dc).max(axis=1).argmax())
    i_l2 = int(np.linalg.norm(dc, axis=1).argmax())
    A, B = np.meshgrid(np.arange(len(xs)), np.arange(len(xs)), indexing="ij")
    dv = covariance_change(xs[A.ravel()], xs[B.ravel()], 0)
    off = np.abs(dv[:, 1:]).max(axis=1) if d > 1 else np.zeros(len(dv))
    return {
        "corr_entry": float(np.abs(dc).max()),
        "corr_l2": float(np.linalg.norm(dc, axis=1).max()),
        "corr_entry_argmax": (
            xs[X[i_entry]].tolist(),
            float(ys[Y[i_entry]]),
            xs[X2[i_entry]].tolist(),
            float(ys[Y2[i_entry]]),
        ),
        "corr_l2_argmax": (xs[X[i_l2]].tolist(), float(ys[Y[i_l2]]), xs[X2[i_l2]].tolist(), float(ys[Y2[i_l2]])),
        "cov_entry_offdiag": float(off.max()),
        "cov_entry_diag": float(np.abs(dv[:, 0]).max()),
        "cov_l2": float(np.linalg.norm(dv, axis=1).max()),
    }


def lemma4_bounds(d: int, c_x: float, c_y: float) -> dict:
    """The bounds of 002 Lemma 4 as stated in CLAIMS.md: 2c_xc_y and 2c_x² per entry, ×√d in ℓ2."""
    if d < 1:
        raise PrivcheckUsageError(f"d must be >= 1, got {d!r}")
    return {
        "corr_entry": 2 * c_x * c_y,
        "corr_l2": 2 * c_x * c_y * np.sqrt(d),
        "cov_entry": 2 * c_x**2,
        "cov_l2": 2 * c_x**2 * np.sqrt(d),
    }
