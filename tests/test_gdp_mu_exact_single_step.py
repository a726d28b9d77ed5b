"""The certified μ of one Poisson-subsampled Gaussian step against an exact threshold sweep.

One step of the subsampled Gaussian (σ = 1, q = 0.01) has a closed-form trade-off curve: the likelihood
ratio of N(0, 1) against (1 − q)N(0, 1) + qN(1, 1) is monotone in x, so threshold tests are optimal in both
directions. The μ of :meth:`PLDAccountant.gdp` (smallest μ with G_μ ≤ f wherever α, β ≥ alpha_min) is the
supremum of Φ⁻¹(1 − α) + Φ⁻¹(1 − β) over those tests. The sweep below computes it from scipy's tail functions
(no subtraction near 1), and the certified interval must contain it. It also pins the premise of the peers
finding on gdpnum 0.1.2 (its μ for this row is 0.1345, below the exact 0.2557273; a 50-digit mpmath
evaluation at the binding point α = alpha_min gave 0.25572725827177751).
"""

import numpy as np
import pytest
from scipy.stats import norm

from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent

SIGMA, Q, ALPHA_MIN = 1.0, 0.01, 1e-10


def _swept_mu(lo: float, hi: float, n: int) -> tuple[float, float]:
    """max of Φ⁻¹(1−α) + Φ⁻¹(1−β) over thresholds t ∈ [lo, hi] (both directions), α, β ≥ ALPHA_MIN."""
    t = np.linspace(lo, hi, n)
    a = norm.sf(t)  # N(0,1) above t
    one_minus_b = (1 - Q) * norm.sf(t) + Q * norm.sf(t - 1 / SIGMA)  # the mixture above t
    b = (1 - Q) * norm.cdf(t) + Q * norm.cdf(t - 1 / SIGMA)
    best, arg = -np.inf, 0.0
    for al, be, one_minus_be in ((a, b, one_minus_b), (b, a, norm.cdf(t))):
        ok = (al >= ALPHA_MIN) & (be >= ALPHA_MIN)
        with np.errstate(invalid="ignore"):  # both tails 0 far out: excluded by ``ok`` anyway
            mu = norm.isf(al) + norm.ppf(one_minus_be)  # Φ⁻¹(1−β) = Φ⁻¹(one_minus_be)
        mu = np.where(ok, mu, -np.inf)
        i = int(np.argmax(mu))
        if mu[i] > best:
            best, arg = float(mu[i]), float(t[i])
    return best, arg


def test_certified_mu_contains_the_swept_supremum():
    coarse, t0 = _swept_mu(-12.0, 12.0, 24001)
    fine, _ = _swept_mu(t0 - 2e-3, t0 + 2e-3, 4001)
    swept = max(coarse, fine)
    # the supremum sits where the constraint binds, α = alpha_min (the sweep agrees to its grid step)
    t = norm.isf(ALPHA_MIN)
    exact = t + norm.ppf((1 - Q) * norm.sf(t) + Q * norm.sf(t - 1 / SIGMA))
    assert exact == pytest.approx(0.25572725827177751, rel=1e-9)
    assert exact - 1e-4 <= swept <= exact + 1e-9
    res = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(sigma=SIGMA), q=Q), 1).gdp(alpha_min=ALPHA_MIN)
    lo, hi = res.mu.lower, res.mu.upper
    assert lo <= exact <= hi
    assert hi - lo < 0.01 * exact  # and tight: not a vacuous interval
