"""SPriFed-OMP budget planner and NoisySMPC noise split (paper 002).

Source: Mulay & Lin, SPriFed-OMP (``002_53ad70670a94e98a.txt``). Its formulas were lost in the
text conversion; the privacy accounting is Gaussian DP (Dong, Roth & Su 2019) as the paper says:
Theorem 6 composes a μ1-GDP mechanism (lines 5 and 11 of Alg. 3, line 4 of Alg. 4) and a μ2-GDP
mechanism (lines 4 and 6 of Alg. 2, PRIVATE-OLS) over the OMP steps, so the run is
√(n1 μ1² + n2 μ2²)-GDP (002 Lemma 3), converted to (ε, δ) by 002 Lemma 2.

The invocation counts n1, n2 per variant are our reading of Theorem 6's proof (the counts
themselves were lost): one μ1 and one μ2 invocation per selected feature, i.e. n1 = n2 = s for
both SPriFed-OMP (Alg. 3) and SPriFed-OMP-GRAD (Alg. 4). Pass ``invocations=(n1, n2)`` to
override.

NoisySMPC (Alg. 1): each of n clients adds N(0, σ²/n), so the securely aggregated sum carries
N(0, σ²) and is (Δ/σ)-GDP; a single client's message *without* secure aggregation carries only
σ/√n of noise, i.e. it is (√n · Δ/σ)-GDP — :func:`noisysmpc_exposure`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from accountants.gdp import gaussian_mu, gdp_eps
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_delta, check_int, check_positive

__all__ = ["VARIANTS", "SpriFedBudget", "spriFed_budget", "NoisySMPC", "noisysmpc_sigma", "noisysmpc_exposure"]

#: variant name -> (description, n1(s), n2(s)) — see the module docstring.
VARIANTS: dict[str, tuple[str, object, object]] = {
    "omp": ("SPriFed-OMP (Alg. 3)", lambda s: s, lambda s: s),
    "grad": ("SPriFed-OMP-GRAD (Alg. 4)", lambda s: s, lambda s: s),
}


@dataclass(frozen=True)
class SpriFedBudget:
    """Total GDP budget of one SPriFed-OMP run and its (ε, δ) conversion."""

    variant: str
    sparsity: int
    mu1: float
    mu2: float
    n1: int
    n2: int
    mu_total: float
    eps: float
    delta: float


def spriFed_budget(
    sparsity: int,
    mu1: float,
    mu2: float,
    variant: str = "omp",
    delta: float = 1e-5,
    invocations: tuple[int, int] | None = None,
) -> SpriFedBudget:
    """Total μ = √(n1 μ1² + n2 μ2²) of a SPriFed run (002 Thm 6 via Lemma 3) and ε at ``delta`` (Lemma 2).

    sparsity: s ≥ 1 (model support size); mu1, mu2 > 0; variant: 'omp' or 'grad';
    delta ∈ (0, 1); invocations: optional (n1, n2) ≥ 0 overriding the variant's counts.
    """
    s = check_int("sparsity", sparsity, minimum=1)
    mu1 = check_positive("mu1", mu1)
    mu2 = check_positive("mu2", mu2)
    delta = check_delta(delta)
    if variant not in VARIANTS:
        raise PrivcheckUsageError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if invocations is None:
        n1, n2 = VARIANTS[variant][1](s), VARIANTS[variant][2](s)
    else:
        n1 = check_int("n1", invocations[0], minimum=0)
        n2 = check_int("n2", invocations[1], minimum=0)
        if n1 + n2 == 0:
            raise PrivcheckUsageError("invocations must contain at least one mechanism call")
    m = max(mu1, mu2)  # scaled, so that μ1 up to the float limit does not overflow in μ1²
    mu = m * math.sqrt(n1 * (mu1 / m) ** 2 + n2 * (mu2 / m) ** 2)
    if not math.isfinite(mu):
        raise PrivcheckUsageError(
            f"the total mu = sqrt(n1 mu1^2 + n2 mu2^2) overflows (mu1={mu1:g}, mu2={mu2:g}, n1={n1}, n2={n2})"
        )
    return SpriFedBudget(variant, s, mu1, mu2, n1, n2, mu, gdp_eps(mu, delta), delta)


@dataclass(frozen=True)
class NoisySMPC:
    """NoisySMPC noise split (002 Alg. 1) and what one unprotected message exposes."""

    clients: int
    sigma_total: float
    sigma_client: float
    mu_aggregate: float
    mu_exposed: float
    eps_aggregate: float
    eps_exposed: float
    delta: float


def noisysmpc_sigma(sigma: float, clients: int) -> float:
    """Per-client noise standard deviation σ/√n so that n clients' noise sums to N(0, σ²) (002 Alg. 1)."""
    return check_positive("sigma", sigma) / math.sqrt(check_int("clients", clients, minimum=1))


def noisysmpc_exposure(sensitivity: float, sigma: float, clients: int, delta: float = 1e-5) -> NoisySMPC:
    """GDP of the aggregate (Δ/σ) and of one client's message seen without secure aggregation (√n·Δ/σ).

    sensitivity Δ > 0; sigma: total noise σ > 0; clients n ≥ 1; delta ∈ (0, 1) for the ε reported.
    """
    n = check_int("clients", clients, minimum=1)
    sc = noisysmpc_sigma(sigma, n)
    mu_a = gaussian_mu(sigma, sensitivity)
    mu_e = gaussian_mu(sc, sensitivity)
    delta = check_delta(delta)
    return NoisySMPC(n, float(sigma), sc, mu_a, mu_e, gdp_eps(mu_a, delta), gdp_eps(mu_e, delta), delta)
