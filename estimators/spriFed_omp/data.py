"""The synthetic set-up of 002 §7.1 (constants lost in conversion: see docs/site/spriFed-omp.md).

"Given n and d, we first generate X with i.i.d. elements, each of which is from N(0, 1). Given the
model sparsity s, we then generate the non-zero coefficients of the model parameters [...]. We then
add additive error with mean zero and standard deviation σₑ to generate the response. We then clip
[...] every element in X and y with magnitude greater than [c] and then re-scale the whole
matrix/vector appropriately to maintain their unit variance."

Reconstruction: the support is uniform among the d features; the non-zero coefficients are
±U(0.5, 1.5)-shaped draws (``beta_low``, ``beta_high``, random signs) — the distribution was lost;
the rescaling factors are the standard deviations of the clipped *population* distributions
(computed in closed form, not from the data, so that rescaling is data-independent and does not
change the sensitivity analysis); after rescaling the bounds become c/sd. A test set of
``n_test`` rows is drawn from the same model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from privcheck.base.validation import check_int, check_nonnegative, check_positive


@dataclass
class Dataset:
    """One synthetic instance: train/test data, the truth and the data bounds after rescaling."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    beta: np.ndarray
    support: np.ndarray
    c_x: float
    c_y: float
    scale_y: float


def clipped_normal_sd(sd: float, c: float) -> float:
    """Standard deviation of clip(Z, −c, c) for Z ~ N(0, sd²) (closed form, the rescaling factor).

    sd · √((2Φ(a) − 1) − 2aφ(a) + 2a²(1 − Φ(a))) with a = c/sd: scale-free, so no square overflows; for
    a > 38 the clipped tail is below 1e-300 of the variance and the factor is sd.
    """
    a = c / sd
    if a > 38.0:
        return float(sd)
    if a < 1e-4:  # all but a sliver of the mass sits at ±c: (2Φ(a) − 1) − 2aφ(a) = ∫₀ᵃ 2t²φ(t)dt ≈ (2/3)a³φ(0)
        return float(sd) * a * math.sqrt(2 * stats.norm.sf(a) + (2.0 / 3.0) * a * stats.norm.pdf(0.0))
    unit = (2 * stats.norm.cdf(a) - 1) - 2 * a * stats.norm.pdf(a) + 2 * a * a * stats.norm.sf(a)
    return float(sd) * math.sqrt(unit)


def synthetic(
    n: int,
    d: int,
    s: int,
    sigma_e: float = 0.1,
    rng: np.random.Generator | None = None,
    c_x: float = 2.0,
    c_y: float = 2.0,
    n_test: int = 500,
    beta_low: float = 0.5,
    beta_high: float = 1.5,
) -> Dataset:
    """A §7.1 instance: X ~ N(0,1) i.i.d. (n×d), s-sparse β, y = Xβ + e, e ~ N(0, σₑ²), clipped and rescaled.

    n ≥ 1, d ≥ 1, 1 ≤ s ≤ d; sigma_e ≥ 0; c_x, c_y > 0: clipping thresholds in units of the
    element's standard deviation (x is N(0,1); y is N(0, ‖β‖² + σₑ²) before clipping).
    Returns a :class:`Dataset` whose c_x, c_y are the element bounds *after* rescaling.
    """
    n = check_int("n", n, minimum=1)
    d = check_int("d", d, minimum=1)
    s = check_int("s", s, minimum=1, maximum=d)
    n_test = check_int("n_test", n_test, minimum=1)
    sigma_e = check_nonnegative("sigma_e", sigma_e)
    c_x, c_y = check_positive("c_x", c_x), check_positive("c_y", c_y)
    rng = rng if rng is not None else np.random.default_rng(0)
    support = np.sort(rng.choice(d, s, replace=False))
    beta = np.zeros(d)
    beta[support] = rng.uniform(beta_low, beta_high, s) * rng.choice([-1.0, 1.0], s)
    sd_y = math.hypot(float(np.linalg.norm(beta)), sigma_e)  # no overflow for any finite sigma_e
    sx, sy = clipped_normal_sd(1.0, c_x), clipped_normal_sd(sd_y, c_y * sd_y)

    def draw(m):
        X = rng.standard_normal((m, d))
        y = X @ beta + rng.normal(0.0, sigma_e, m) if sigma_e > 0 else X @ beta
        return np.clip(X, -c_x, c_x) / sx, np.clip(y, -c_y * sd_y, c_y * sd_y) / sy

    X, y = draw(n)
    Xt, yt = draw(n_test)
    # the model in rescaled units: y/sy ≈ (X/sx)·(β sx/sy) (clipping aside)
    return Dataset(X, y, Xt, yt, beta * sx / sy, support, c_x / sx, c_y * sd_y / sy, sy)
