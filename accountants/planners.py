"""Planners: the inverse questions a practitioner asks before a run.

- :func:`noise_for_budget` — the noise σ for a target (ε, δ) over T rounds (full participation:
  exact GDP; Poisson sampling at rate q: autodp's RDP accountant, a safe upper bound).
- :func:`max_steps` — the largest T that fits a budget.
- :func:`best_sampling` — the sampling probability p minimising 004's central ε (eq. 14) for K users.
- :func:`min_users` — the smallest K for which 004's central ε (at the best p) meets a target.

Each returns a :class:`Plan`: the answer and the guarantee actually achieved with it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from accountants.amplification import subsampled_gaussian
from accountants.gdp import compose_gdp, gdp_eps, gdp_mu
from accountants.wireless import central_uniform, optimal_p
from privcheck.errors import PrivcheckUsageError
from privcheck.validation import check_delta, check_eps, check_int, check_positive, check_probability

__all__ = ["Plan", "noise_for_budget", "max_steps", "best_sampling", "min_users"]


@dataclass(frozen=True)
class Plan:
    """A planner's answer and the (ε, δ) achieved with it."""

    question: str
    answer: float
    achieved_eps: float
    achieved_delta: float
    method: str
    details: dict = field(default_factory=dict)


def _rdp_eps(sigma: float, q: float, steps: int, delta: float) -> float:
    return subsampled_gaussian(sigma, q, steps, delta).eps_rdp


def noise_for_budget(eps: float, delta: float, steps: int, sensitivity: float = 1.0, q: float | None = None) -> Plan:
    """Smallest Gaussian noise σ meeting (ε, δ) after ``steps`` rounds.

    q None or 1: full participation, σ = Δ √T / gdp_mu(ε, δ) (exact). 0 < q < 1: Poisson
    sampling at rate q, σ found by bisection on autodp's RDP ε (relative tolerance 1e−4, rounded up).
    """
    eps = check_eps(eps)
    delta = check_delta(delta)
    T = check_int("steps", steps, minimum=1)
    sens = check_positive("sensitivity", sensitivity)
    if q is None or float(q) == 1.0:
        mu = gdp_mu(eps, delta)
        sigma = sens * math.sqrt(T) / mu
        return Plan("noise sigma", sigma, gdp_eps(compose_gdp(sens / sigma, T), delta), delta, "exact GDP",
                    {"mu_total": mu, "mu_per_step": mu / math.sqrt(T)})
    q = check_probability("q", q, open_low=True)
    lo, hi = 0.3, 1.0
    while _rdp_eps(hi, q, T, delta) > eps:
        lo, hi = hi, hi * 2
        if hi > 1e4:
            raise PrivcheckUsageError(f"no sigma <= 1e4 reaches eps={eps} (RDP)")
    while hi / lo > 1 + 1e-4:
        mid = math.sqrt(lo * hi)
        if _rdp_eps(mid, q, T, delta) > eps:
            lo = mid
        else:
            hi = mid
    achieved = subsampled_gaussian(hi, q, T, delta)
    return Plan("noise multiplier sigma (per unit sensitivity)", hi * sens, achieved.eps_rdp, delta, "RDP (autodp)",
                {"q": q, "eps_clt_not_a_bound": achieved.eps_clt})


def max_steps(eps: float, delta: float, sigma: float, sensitivity: float = 1.0, q: float | None = None,
              limit: int = 10**7) -> Plan:
    """Largest number of rounds T with ε(δ) ≤ eps for Gaussian noise σ (full participation: exact GDP;
    0 < q < 1: autodp RDP). Raises if even one round exceeds the budget."""
    eps = check_eps(eps)
    delta = check_delta(delta)
    sigma = check_positive("sigma", sigma)
    sens = check_positive("sensitivity", sensitivity)
    mu1 = sens / sigma
    if q is None or float(q) == 1.0:
        f = lambda T: gdp_eps(compose_gdp(mu1, T), delta)  # noqa: E731
        method = "exact GDP"
        T = int(math.floor((gdp_mu(eps, delta) / mu1) ** 2 * (1 + 1e-12)))
        while T >= 1 and f(T) > eps:
            T -= 1
        while f(T + 1) <= eps:
            T += 1
    else:
        q = check_probability("q", q, open_low=True)
        method = "RDP (autodp)"
        f = lambda T: _rdp_eps(sigma / sens, q, T, delta)  # noqa: E731
        if f(1) > eps:
            T = 0
        else:
            lo, hi = 1, 2
            while hi <= limit and f(hi) <= eps:
                lo, hi = hi, hi * 2
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if f(mid) <= eps:
                    lo = mid
                else:
                    hi = mid
            T = lo
    if T < 1:
        raise PrivcheckUsageError(f"one round with sigma={sigma} already exceeds eps={eps} at delta={delta}")
    return Plan("max steps T", T, f(T), delta, method, {"eps_at_T_plus_1": f(T + 1)})


def best_sampling(K: int, c: float, delta_prime: float, delta_l: float) -> Plan:
    """Sampling probability minimising 004 eq. 14 for K users; reports the paper's p* (Lemma 1) too."""
    o = optimal_p(K, c, delta_prime, delta_l)
    g = central_uniform(K, o.p_numeric, c, delta_prime, delta_l)
    return Plan("sampling probability p", o.p_numeric, g.eps, g.delta, "004 eq. 14, numerical minimum",
                {"p_paper": o.p_paper, "eps_at_p_paper": o.eps_paper, "beta": o.beta})


def min_users(eps_target: float, c: float, delta_prime: float, delta_l: float, K_max: int = 10**9) -> Plan:
    """Smallest K whose central ε (004 eq. 14 at the best p for that K) is ≤ ``eps_target``.

    Assumes (and checks at the answer) that the optimised ε_c decreases with K.
    """
    eps_target = check_eps(eps_target, "eps_target")

    def best(K: int) -> float:
        try:
            return optimal_p(K, c, delta_prime, delta_l).eps_numeric
        except PrivcheckUsageError:
            return math.inf

    hi = 2
    while best(hi) > eps_target:
        hi *= 2
        if hi > K_max:
            raise PrivcheckUsageError(f"no K <= {K_max} reaches eps_target={eps_target}")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if best(mid) <= eps_target:
            hi = mid
        else:
            lo = mid
    o = optimal_p(hi, c, delta_prime, delta_l)
    g = central_uniform(hi, o.p_numeric, c, delta_prime, delta_l)
    return Plan("min users K", hi, g.eps, g.delta, "004 eq. 14 at the best p",
                {"p": o.p_numeric, "eps_at_K_minus_1": best(hi - 1)})
