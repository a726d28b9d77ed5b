"""Planners: the inverse questions a practitioner asks before a run.

- :func:`noise_for_budget` — the noise σ for a target (ε, δ) over T rounds (full participation:
  exact GDP; Poisson sampling at rate q: the certified PLD accountant, accountants.pld; autodp's
  RDP value is reported next to it as a cross-check).
- :func:`max_steps` — the largest T that fits a budget (same routes).
- :func:`max_sampling_rate` — the largest Poisson rate q for (σ, T, ε, δ) (PLD).
- :func:`laplace_scale` — the smallest Laplace scale b for T compositions at (ε, δ) (PLD).

The PLD planners bisect on the certified upper end of ε(δ), so the returned value always meets
the budget (conservative side); ``details`` gives the bracket, whose other end is certified
(through the lower end) to violate it.
- :func:`best_sampling` — the sampling probability p minimising 004's central ε (eq. 14) for K users.
- :func:`min_users` — the smallest K for which 004's central ε (at the best p) meets a target.

Each returns a :class:`Plan`: the answer and the guarantee actually achieved with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

from accountants.amplification import subsampled_gaussian
from accountants.gdp import compose_gdp, gdp_eps, gdp_mu
from accountants.wireless import central_uniform, optimal_p
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_delta, check_eps, check_int, check_positive, check_probability

__all__ = ["Plan", "noise_for_budget", "max_steps", "max_sampling_rate", "laplace_scale", "best_sampling", "min_users"]


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
    try:
        return subsampled_gaussian(sigma, q, steps, delta).eps_rdp
    except (OverflowError, ValueError, ZeroDivisionError, FloatingPointError):
        return math.inf


PLD_FFT_SIZES = {"coarse": 2**14, "fine": 2**18}  # accuracy of the search and of the final check
#: the largest target ε the sampled noise planner searches: beyond it σ is so small that each certified
#: PLD evaluation takes minutes (ε = 1e4, q = 0.01, T = 1000 needs σ ≈ 0.03: 25 s per coarse evaluation)
MAX_PLAN_EPS = 100.0


def _pld_interval(events, delta: float, fine: bool):
    from accountants.pld import PLDAccountant

    acc = PLDAccountant(target_fft_size=PLD_FFT_SIZES["fine" if fine else "coarse"])
    for ev, c in events:
        acc.compose(ev, c)
    try:
        return acc.epsilon(delta)
    except PrivcheckUsageError:
        return None


@dataclass(frozen=True)
class _Search:
    """One search for the edge of a budget: the composition at a value and which way ε grows.

    increasing: ε grows with the value (steps, rate: the answer is the largest good value); otherwise
    (noise, scale) the smallest. integer: the value is a count; cap: the largest value allowed."""

    events_of: Callable[[Any], Any]
    eps: float
    delta: float
    increasing: bool
    integer: bool
    cap: float | None

    def excess(self, v, fine: bool) -> float:
        """Certified ε_upper(δ) at value v minus the target ε (inf when the accountant cannot answer)."""
        iv = _pld_interval(self.events_of(v), self.delta, fine)
        return (math.inf if iv is None else iv.upper) - self.eps

    def away(self, v):
        """A value further on the safe side than v (half or twice it)."""
        return (max(1, v // 2) if self.integer else v / 2) if self.increasing else v * 2

    def toward(self, v, i: int):
        """The i-th move from v towards violating the budget: 2**i doublings (at most 1000).

        A far boundary (b from 1e300 down to 5e4) is bracketed in ~10 moves instead of never
        within 60 halvings; the bracket is then bisected in log."""
        k = int(min(2**i, 1000))
        try:
            nv = math.ldexp(v, k if self.increasing else -k)
        except OverflowError:
            nv = math.inf
        nv = max(nv, 5e-324)
        if self.integer:
            nv = int(min(nv, 2.0**62))
        return min(nv, self.cap) if self.cap is not None else nv

    def done(self, good, bad, tol: float) -> bool:
        """True when the bracket [good, bad] is narrow enough (adjacent counts, or relative tol)."""
        return (abs(good - bad) <= 1) if self.integer else (abs(bad - good) <= tol * abs(good))

    def widen(self, bad, tol: float):
        """The failing end moved out a little for the fine pass (the fine grid is tighter)."""
        if self.increasing:
            bad = bad + 1 if self.integer else bad * (1 + tol)
        else:
            bad = max(1, bad - 1) if self.integer else bad / (1 + tol)
        return min(bad, self.cap) if self.cap is not None else bad


def _find_good(s: _Search, good, fine: bool):
    """Move ``good`` away from the edge until it meets the budget; returns (good, excess at good)."""
    fg = s.excess(good, fine)
    for _ in range(60):
        if fg <= 0:
            return good, fg
        good = s.away(good)
        fg = s.excess(good, fine)
    raise PrivcheckUsageError("no value in the search range meets the budget")


def _find_bad(s: _Search, good, fg, bad, fine: bool):
    """Move ``bad`` towards the edge (each passed value becomes the good end) until it violates the
    budget; returns (good, fg, bad, fb), or None when ``bad`` reached the cap still meeting it."""
    fb = s.excess(bad, fine)
    for i in range(60):
        if fb > 0:
            return good, fg, bad, fb
        if s.cap is not None and bad >= s.cap:
            return None
        good, fg = bad, fb
        bad = s.toward(bad, i)
        fb = s.excess(bad, fine)
    raise PrivcheckUsageError("no value in the search range violates the budget: the boundary is out of range")


def _next_point(s: _Search, good, fg, bad, fb):
    """The next value to evaluate inside the bracket: the midpoint in log while the bracket is wider
    than a factor 4, else regula falsi in log of the value (kept 2 % inside the bracket)."""
    lg, lb = math.log(good), math.log(bad)
    if abs(lb - lg) > math.log(4.0):  # a wide bracket: halve it in log first
        lm = 0.5 * (lg + lb)
    elif math.isfinite(fb) and fb != fg:
        lm = lg - fg * (lb - lg) / (fb - fg)
        lo_, hi_ = min(lg, lb), max(lg, lb)
        lm = min(max(lm, lo_ + 0.02 * (hi_ - lo_)), hi_ - 0.02 * (hi_ - lo_))
    else:
        lm = 0.5 * (lg + lb)
    mid = math.exp(lm)
    if s.integer:
        mid = int(round(mid))
        if mid in (good, bad):
            mid = (good + bad) // 2
    return mid


def _narrow(s: _Search, good, fg, bad, fb, fine: bool, tol: float):
    """Shrink the bracket by the Illinois variant of regula falsi (the end kept twice in a row has
    its excess halved), always keeping one certified-good and one failing end; returns (good, bad)."""
    side = 0
    while not s.done(good, bad, tol):
        mid = _next_point(s, good, fg, bad, fb)
        fm = s.excess(mid, fine)
        if fm <= 0:
            good, fg = mid, fm
            if side == -1:
                fb /= 2
            side = -1
        else:
            bad, fb = mid, fm
            if side == 1:
                fg /= 2
            side = 1
    return good, bad


def _bisect(
    events_of,
    good: float,
    bad: float,
    eps: float,
    delta: float,
    increasing: bool,
    rel: float,
    integer: bool = False,
    cap: float | None = None,
):
    """Boundary of the budget: ``good`` meets it (certified ε_upper(δ) <= eps), ``bad`` does not.

    increasing: ε grows with the value (steps, rate: the answer is the largest good value);
    otherwise (noise, scale) the smallest. A coarse grid first, then the default grid; the
    bracket shrinks by the Illinois variant of regula falsi on ε_upper (in log of the value),
    always keeping one certified-good and one failing end. Returns (good, bad, interval at good)."""
    s = _Search(events_of, eps, delta, increasing, integer, cap)
    for fine, tol in ((False, max(20 * rel, 2e-3)), (True, rel)):
        good, fg = _find_good(s, good, fine)
        found = _find_bad(s, good, fg, bad, fine)
        if found is None:
            return bad, bad, _pld_interval(events_of(bad), delta, True)
        good, fg, bad, fb = found
        good, bad = _narrow(s, good, fg, bad, fb, fine, tol)
        if not fine:
            bad = s.widen(bad, tol)
    return good, bad, _pld_interval(events_of(good), delta, True)


def _no_noise_needed(q: float, steps: int, delta: float) -> bool:
    """True when T rounds of Poisson sampling at rate q are (0, δ)-DP whatever the mechanism: the
    total variation between neighbouring runs is at most P(the record is ever sampled) =
    1 − (1 − q)^T, so 1 − (1 − q)^T <= δ gives δ(0) <= δ even with no noise. Evaluated as
    −expm1(T·log1p(−q)) (a few ulps) and raised by a relative 1e-12 so that the test errs towards searching."""
    p = min(-math.expm1(steps * math.log1p(-q)), q * steps)
    return p * (1 + 1e-12) <= delta


def noise_for_budget(
    eps: float, delta: float, steps: int, sensitivity: float = 1.0, q: float | None = None, accountant: str = "pld"
) -> Plan:
    """Smallest Gaussian noise σ meeting (ε, δ) after ``steps`` rounds.

    q None or 1: full participation, σ = Δ √T / gdp_mu(ε, δ) (exact). 0 < q < 1: Poisson
    sampling at rate q; accountant "pld" (default): σ by regula falsi on the certified PLD upper
    end (relative bracket 2e−5, the returned end meets the budget); "rdp": bisection on
    autodp's RDP ε (a looser safe bound, relative tolerance 1e−4, rounded up).
    """
    eps = check_eps(eps)
    delta = check_delta(delta)
    T = check_int("steps", steps, minimum=1)
    sens = check_positive("sensitivity", sensitivity)
    if q is None or float(q) == 1.0:
        mu = gdp_mu(eps, delta)
        sigma = sens * math.sqrt(T) / mu
        return Plan(
            "noise sigma",
            sigma,
            gdp_eps(compose_gdp(sens / sigma, T), delta),
            delta,
            "exact GDP",
            {"mu_total": mu, "mu_per_step": mu / math.sqrt(T)},
        )
    q = check_probability("q", q, open_low=True)
    if _no_noise_needed(q, T, delta):
        return Plan(
            "noise multiplier sigma (per unit sensitivity)",
            0.0,
            0.0,
            delta,
            "no noise needed: a record is sampled at all with probability 1-(1-q)^T <= delta",
            {"q": q, "p_ever_sampled": -math.expm1(T * math.log1p(-q))},
        )
    if accountant == "rdp":
        return _noise_rdp(eps, delta, T, sens, q)
    if eps > MAX_PLAN_EPS:
        raise PrivcheckUsageError(
            f"plan sigma with sampling searches eps <= {MAX_PLAN_EPS:g} (the noise for eps={eps:g} is so small that "
            "the certified accountant's grid takes minutes per evaluation); plan a smaller eps, or q=1 for the exact GDP answer"
        )
    if accountant != "pld":
        raise PrivcheckUsageError(f"accountant must be 'pld' or 'rdp', got {accountant!r}")
    from accountants.pld import GaussianEvent, PoissonSampledEvent

    ev = lambda s_: [(PoissonSampledEvent(GaussianEvent(s_), q), T)]  # noqa: E731
    good, bad, iv = _bisect(ev, 2.0, 0.5, eps, delta, increasing=False, rel=2e-5)
    rdp = _rdp_eps(good, q, T, delta)
    ivb = _pld_interval(ev(bad), delta, True)
    return Plan(
        "noise multiplier sigma (per unit sensitivity)",
        good * sens,
        iv.upper,
        delta,
        "certified PLD",
        {
            "q": q,
            "sigma_bracket": [bad * sens, good * sens],
            "eps_lower_at_bracket_low": ivb.lower if ivb else None,
            "eps_interval": [iv.lower, iv.upper],
            "eps_rdp_crosscheck": rdp,
            "eps_clt_not_a_bound": _clt(good, q, T, delta),
        },
    )


def _noise_rdp(eps, delta, T, sens, q) -> Plan:
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
    return Plan(
        "noise multiplier sigma (per unit sensitivity)",
        hi * sens,
        achieved.eps_rdp,
        delta,
        "RDP (autodp)",
        {"q": q, "eps_clt_not_a_bound": achieved.eps_clt},
    )


def _clt(sigma, q, T, delta):
    try:
        return subsampled_gaussian(sigma, q, T, delta).eps_clt
    except Exception:  # noqa: BLE001 - the CLT view is informational only
        return math.nan


def max_steps(
    eps: float, delta: float, sigma: float, sensitivity: float = 1.0, q: float | None = None, limit: int = 10**7
) -> Plan:
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
        ratio = gdp_mu(eps, delta) / mu1
        if not ratio < 3e7:  # (μ_total/μ1)² rounds: beyond ~1e15 no integer answer is meaningful
            raise PrivcheckUsageError(
                f"sigma={sigma:g} allows more than 1e15 rounds within (eps={eps:g}, delta={delta:g}): nothing to plan"
            )
        T = int(math.floor(ratio**2 * (1 + 1e-12)))
        while T >= 1 and f(T) > eps:
            T -= 1
        while f(T + 1) <= eps:
            T += 1
    else:
        q = check_probability("q", q, open_low=True)
        from accountants.pld import GaussianEvent, PoissonSampledEvent

        method = "certified PLD"
        ev = lambda TT: [(PoissonSampledEvent(GaussianEvent(sigma / sens), q), int(TT))]  # noqa: E731
        f = lambda TT: _pld_interval(ev(TT), delta, True).upper  # noqa: E731
        if f(1) > eps:
            T = 0
        else:
            hi = 2
            while hi <= limit and _pld_interval(ev(hi), delta, False).upper <= eps:
                hi *= 2
            good, bad, iv = _bisect(
                ev, max(1, hi // 2), min(hi, limit + 1), eps, delta, increasing=True, rel=0, integer=True, cap=limit + 1
            )
            T = int(good)
            return Plan(
                "max steps T",
                T,
                iv.upper,
                delta,
                method,
                {
                    "eps_interval": [iv.lower, iv.upper],
                    "steps_bracket": [T, int(bad)],
                    "eps_rdp_crosscheck": _rdp_eps(sigma / sens, q, T, delta),
                },
            )
    if T < 1:
        raise PrivcheckUsageError(f"one round with sigma={sigma} already exceeds eps={eps} at delta={delta}")
    return Plan("max steps T", T, f(T), delta, method, {"eps_at_T_plus_1": f(T + 1)})


def max_sampling_rate(eps: float, delta: float, sigma: float, steps: int, sensitivity: float = 1.0) -> Plan:
    """Largest Poisson sampling rate q ∈ (0, 1] with certified ε(δ) <= eps for T steps of the
    subsampled Gaussian (noise σ, sensitivity Δ); bisection on the PLD upper end."""
    eps = check_eps(eps)
    delta = check_delta(delta)
    sigma = check_positive("sigma", sigma)
    T = check_int("steps", steps, minimum=1)
    sens = check_positive("sensitivity", sensitivity)
    from accountants.pld import GaussianEvent, PoissonSampledEvent

    full = gdp_eps(compose_gdp(sens / sigma, T), delta)
    if full <= eps:
        return Plan("sampling rate q", 1.0, full, delta, "exact GDP (q = 1 fits)", {})
    ev = lambda qq: [(PoissonSampledEvent(GaussianEvent(sigma / sens), min(qq, 1.0)), T)]  # noqa: E731
    good, bad, iv = _bisect(ev, 1e-3, 2e-3, eps, delta, increasing=True, rel=1e-4, cap=1.0)
    return Plan(
        "sampling rate q",
        good,
        iv.upper,
        delta,
        "certified PLD",
        {"q_bracket": [good, bad], "eps_interval": [iv.lower, iv.upper]},
    )


def laplace_scale(eps: float, delta: float, steps: int = 1, sensitivity: float = 1.0) -> Plan:
    """Smallest Laplace scale b with certified ε(δ) <= eps after ``steps`` compositions
    (one step: δ is irrelevant below the pure bound, b = Δ/ε exactly when δ = 0 is asked)."""
    eps = check_eps(eps)
    delta = check_delta(delta, allow_zero=True)
    T = check_int("steps", steps, minimum=1)
    sens = check_positive("sensitivity", sensitivity)
    pure = sens * T / eps  # basic composition: T·Δ/b <= ε — the pure-DP answer
    if delta == 0:
        return Plan("laplace scale b", pure, eps, 0.0, "pure DP (basic composition)", {})
    from accountants.pld import LaplaceEvent

    ev = lambda b: [(LaplaceEvent(b=b, sensitivity=sens), T)]  # noqa: E731
    good, bad, iv = _bisect(ev, pure, pure / 2, eps, delta, increasing=False, rel=2e-5)
    return Plan(
        "laplace scale b",
        good,
        iv.upper,
        delta,
        "certified PLD",
        {"b_bracket": [bad, good], "b_pure_dp": pure, "eps_interval": [iv.lower, iv.upper]},
    )


def best_sampling(K: int, c: float, delta_prime: float, delta_l: float) -> Plan:
    """Sampling probability minimising 004 eq. 14 for K users; reports the paper's p* (Lemma 1) too."""
    o = optimal_p(K, c, delta_prime, delta_l)
    g = central_uniform(K, o.p_numeric, c, delta_prime, delta_l)
    return Plan(
        "sampling probability p",
        o.p_numeric,
        g.eps,
        g.delta,
        "004 eq. 14, numerical minimum",
        {"p_paper": o.p_paper, "eps_at_p_paper": o.eps_paper, "beta": o.beta},
    )


def min_users(eps_target: float, c: float, delta_prime: float, delta_l: float, K_max: int = 10**9) -> Plan:
    """Smallest K whose central ε (004 eq. 14 at the best p for that K) is ≤ ``eps_target``.

    Assumes (and checks at the answer) that the optimised ε_c decreases with K.
    """
    eps_target = check_eps(eps_target, "eps_target")
    c = check_positive("c", c)

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
    return Plan(
        "min users K",
        hi,
        g.eps,
        g.delta,
        "004 eq. 14 at the best p",
        {"p": o.p_numeric, "eps_at_K_minus_1": best(hi - 1)},
    )
