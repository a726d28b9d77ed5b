"""One-run ε lower bounds (Steinke, Nasr & Jagielski 2023), certified.

Setting (their Sect. 3): m canaries, each included in the training run independently with
probability ½; from the trained model the auditor guesses "in" or "out" for r of them (abstains on
the rest, the guesses being a function of the output only) and v guesses are correct. If the
training is (ε, δ)-DP then, with q = e^ε/(1 + e^ε) and f(w) = P[Binomial(r, q) ≥ w],

    P[V ≥ v] ≤ f(v) + 2mδ · max_{i ∈ {1, …, v}} (f(v − i) − f(v)) / i        (their Thm 5.2;
                                                                                Thm 3.1 for δ = 0)

(for i > v the ratio only falls, f(v − i) being 1, so i ≤ v suffices). The claim (ε, δ) is
rejected at level α when the right-hand side (the p-value) is ≤ α; the ε lower bound is the
largest ε rejected (their Algorithm, App. D: a bisection on ε).

Certification here:
- δ = 0: f(v) ≤ α  ⟺  q ≤ the Clopper–Pearson lower limit L of v successes in r at level α
  (I_q(v, r − v + 1) is the tail), so ε_lower = logit(L) with L from the certified inverse
  :func:`privcheck.base.betainc.betaincinv_safe` (never above the exact limit) and the logit
  rounded down in mpmath.
- δ > 0: the p-value is bounded from above with certified binomial tails
  (:func:`privcheck.base.betainc.binomial_tail_log_bounds`, log space, exact for r up to 2^53);
  the window term max_i S(i)/i (S(i) = P[v − i ≤ B ≤ v − 1]) is the largest running mean of the
  binomial pmf read leftwards from v − 1: the pmf is log-concave, so that running mean is unimodal
  in i (it rises while the next term exceeds it and falls for ever after the first time it does
  not). The peak is located by a ternary search and certified by the two neighbour comparisons on
  interval values (A(i*) ≥ A(i* − 1) and A(i* + 1) < A(i*)), walking outwards until both hold, so
  the value used is a certified upper bound of the maximum. A bisection on ε keeps only points whose
  certified p-value is ≤ α; the result (rounded down) is never above the exact inverse.

The returned bound is valid as a 1 − α lower confidence bound on ε when the p-value is
non-increasing in v, which holds when 2mδ ≤ 1 (then f falls by the pmf at least as fast as the
δ term can rise); :class:`OneRunBound` notes when 2mδ > 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from privcheck.base.betainc import betaincinv_safe, binomial_tail_log_bounds
from privcheck.base.errors import PrivcheckUsageError
from privcheck.canaries.numeric import logistic, logit_down, up

__all__ = ["OneRunBound", "one_run_bound", "steinke_eps", "steinke_p_upper", "check_counts"]

_EPS_TOL = 1e-12  # relative width at which the ε bisection stops (far below the 1e-6 the benchmark asks)


@dataclass(frozen=True)
class OneRunBound:
    """A certified one-run ε lower bound (Steinke, Nasr & Jagielski 2023, Thm 3.1 / 5.2).

    eps_lower: the bound (0 when ε = 0 is not rejected); guesses r, correct v, canaries m;
    delta, confidence as requested; eps_max: the largest bound these r guesses could give
    (all correct); notes: caveats (e.g. 2mδ > 1).
    """

    eps_lower: float
    guesses: int
    correct: int
    canaries: int
    delta: float
    confidence: float
    eps_max: float
    method: str = "one-run (Steinke, Nasr & Jagielski 2023, Thm 3.1/5.2)"
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return {
            "eps_lower": self.eps_lower,
            "guesses": self.guesses,
            "correct": self.correct,
            "canaries": self.canaries,
            "delta": self.delta,
            "confidence": self.confidence,
            "eps_max": self.eps_max,
            "method": self.method,
            "notes": list(self.notes),
        }


def _count(name: str, value) -> int:
    if isinstance(value, bool):
        raise PrivcheckUsageError(f"{name} must be a whole number >= 0, got {value!r}")
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise PrivcheckUsageError(f"{name} must be a whole number >= 0, got {value!r}") from None
    if not math.isfinite(f) or f != math.floor(f) or f < 0:
        raise PrivcheckUsageError(f"{name} must be a whole number >= 0, got {value!r}")
    if f > 2.0**53:
        raise PrivcheckUsageError(f"{name} must be at most 2**53, got {value!r}")
    return int(f)


def check_counts(guesses, correct, canaries, delta, confidence) -> tuple[int, int, int, float, float]:
    """Validated (r, v, m, δ, α) of a one-run bound; one-line :class:`PrivcheckUsageError` otherwise."""
    r = _count("guesses", guesses)
    v = _count("correct", correct)
    m = r if canaries is None else _count("canaries", canaries)
    if v > r:
        raise PrivcheckUsageError(f"correct ({v}) cannot exceed guesses ({r})")
    if r > m:
        raise PrivcheckUsageError(f"guesses ({r}) cannot exceed canaries ({m})")
    try:
        d = float(delta)
        c = float(confidence)
    except (TypeError, ValueError):
        raise PrivcheckUsageError("delta and confidence must be numbers") from None
    if not (0.0 <= d < 1.0):
        raise PrivcheckUsageError(f"delta must be in [0, 1), got {delta!r}")
    if not (0.0 < c < 1.0):
        raise PrivcheckUsageError(f"confidence must be in (0, 1), got {confidence!r}")
    return r, v, m, d, 1.0 - c


# ---------------------------------------------------------------- certified binomial pieces


def _upper_tail(r: int, w: int, q: float) -> tuple[float, float]:
    """Bounds on P[Bin(r, q) ≥ w] for any integer w."""
    if w <= 0:
        return 1.0, 1.0
    if w > r:
        return 0.0, 0.0
    lo, hi = binomial_tail_log_bounds(w, r - w + 1, q)
    return max(0.0, math.exp(lo) * (1 - 1e-15)), min(1.0, up(math.exp(hi)))


def _lower_tail(r: int, k: int, q: float) -> tuple[float, float]:
    """Bounds on P[Bin(r, q) ≤ k] for any integer k."""
    if k < 0:
        return 0.0, 0.0
    if k >= r:
        return 1.0, 1.0
    lo, hi = binomial_tail_log_bounds(k + 1, r - k, q, lower=True)
    return max(0.0, math.exp(lo) * (1 - 1e-15)), min(1.0, up(math.exp(hi)))


class _Window:
    """Interval values of A(i) = P[v − i ≤ B ≤ v − 1] / i for B ~ Bin(r, q), cached."""

    def __init__(self, r: int, v: int, q: float):
        self.r, self.v, self.q = r, v, q
        self.t_v = _upper_tail(r, v, q)
        self.c_v1 = _lower_tail(r, v - 1, q)
        self.cache: dict[int, tuple[float, float]] = {}

    def __call__(self, i: int) -> tuple[float, float]:
        got = self.cache.get(i)
        if got is not None:
            return got
        r, v, q = self.r, self.v, self.q
        t = _upper_tail(r, v - i, q)  # S = T(v − i) − T(v)
        c = _lower_tail(r, v - i - 1, q)  # S = C(v − 1) − C(v − i − 1)
        lo = max(t[0] - self.t_v[1], self.c_v1[0] - c[1], 0.0)
        hi = min(t[1] - self.t_v[0], self.c_v1[1] - c[0], 1.0)
        val = (max(0.0, lo * (1 - 4e-16)) / i * (1 - 4e-16), up(hi / i) if hi > 0 else 0.0)
        self.cache[i] = val
        return val


def _window_max_upper(r: int, v: int, q: float) -> float:
    """A certified upper bound on max_{1 ≤ i ≤ v} P[v − i ≤ B ≤ v − 1] / i (0 when v = 0)."""
    if v <= 0:
        return 0.0
    A = _Window(r, v, q)
    mid = lambda i: 0.5 * (A(i)[0] + A(i)[1])  # noqa: E731
    a, b = 1, v
    while b - a > 2:  # ternary search for the peak of a unimodal sequence
        m1, m2 = a + (b - a) // 3, b - (b - a) // 3
        if mid(m1) < mid(m2):
            a = m1 + 1
        else:
            b = m2
    peak = max(range(a, b + 1), key=mid)
    left = right = peak
    for _ in range(256):  # C1 at the left end: A(left) ≥ A(left − 1), so A rises up to it
        if left == 1 or A(left)[0] >= A(left - 1)[1]:
            break
        left -= 1
    else:
        return 1.0
    for _ in range(256):  # C2 at the right end: A(right + 1) < A(right), so A falls for ever after
        if right == v or A(right + 1)[1] < A(right)[0]:
            break
        right += 1
    else:
        return 1.0
    return max(A(i)[1] for i in range(left, right + 1))


def steinke_p_upper(r: int, v: int, m: int, delta: float, q: float) -> float:
    """Certified upper bound on the one-run p-value f(v) + 2mδ·max_i (f(v − i) − f(v))/i at a double q."""
    f_hi = _upper_tail(r, v, q)[1]
    if delta == 0.0 or f_hi >= 1.0:
        return f_hi
    return min(1.0, up(f_hi + up(2.0 * m * delta * _window_max_upper(r, v, q), 3)))


def eps_delta0(r: int, v: int, alpha: float) -> float:
    """δ = 0: logit of the certified Clopper–Pearson lower limit (0 when it is ≤ ½)."""
    if v == 0:
        return 0.0
    lim = betaincinv_safe(v, r - v + 1, alpha)
    return max(0.0, logit_down(lim)) if lim > 0.5 else 0.0


def _log_excess(r: int, v: int, m: int, delta: float, alpha: float, eps: float) -> tuple[float, float]:
    """(log p_upper(q) − log α, q) at q = logistic(ε) as a double (≤ 0: ε certified rejected)."""
    q = logistic(eps)
    p = steinke_p_upper(r, v, m, delta, q)
    return (math.log(p) - math.log(alpha) if p > 0 else -math.inf), q


def steinke_eps(r: int, v: int, m: int, delta: float, alpha: float, floor: float = 0.0) -> float:
    """The certified one-run ε lower bound for r guesses, v correct, m canaries, at δ and level α.

    Never above the exact inverse of the published p-value (see the module docstring). ``floor``:
    return 0 at once unless ε = floor is rejected (candidates that cannot beat a bound in hand).
    The search is an Illinois (regula falsi) iteration on log p − log α, bracketed by a rejected
    lower end (only a certified rejection moves it) and the δ = 0 bound above."""
    eps0 = eps_delta0(r, v, alpha)
    if delta == 0.0 or eps0 <= max(0.0, floor):
        return eps0 if (delta == 0.0 and eps0 > floor) else 0.0
    lo = max(0.0, floor)
    f_lo, q_lo = _log_excess(r, v, m, delta, alpha, lo)
    if f_lo > 0:
        return 0.0
    hi = eps0
    f_hi = max(_log_excess(r, v, m, delta, alpha, hi)[0], 1e-300)
    side = 0
    while hi - lo > _EPS_TOL * max(1.0, hi):
        if math.isfinite(f_lo) and f_hi - f_lo > 0:
            x = hi - f_hi * (hi - lo) / (f_hi - f_lo)
            x = min(max(x, lo + 0.01 * (hi - lo)), hi - 0.01 * (hi - lo))
        else:
            x = 0.5 * (lo + hi)
        f, q = _log_excess(r, v, m, delta, alpha, x)
        if f <= 0:
            lo, f_lo, q_lo = x, f, q
            if side == -1:
                f_hi /= 2
            side = -1
        else:
            hi, f_hi = x, f
            if side == 1:
                f_lo /= 2
            side = 1
    return max(0.0, logit_down(q_lo)) if q_lo > 0.5 else 0.0


def one_run_bound(guesses, correct, *, canaries=None, delta: float = 0.0, confidence: float = 0.95) -> OneRunBound:
    """The certified one-run ε lower bound of Steinke, Nasr & Jagielski (2023), Thm 3.1 (δ = 0) / 5.2 (δ > 0).

    guesses r ≥ 0 and correct v ≤ r: the auditor's non-abstaining guesses and how many were right;
    canaries m ≥ r: how many canaries were randomised (default r: no abstentions) — it enters the
    δ term 2mδ; delta in [0, 1); confidence in (0, 1). The bound holds with probability ≥ confidence
    when each canary was included independently with probability ½ and the guesses depend only on
    the trained model. Exact binomial tails in log space (r up to 2^53); the ε inversion is
    bracketed and rounded down, never above the exact inverse.
    """
    r, v, m, d, alpha = check_counts(guesses, correct, canaries, delta, confidence)
    notes: list[str] = []
    if 2.0 * m * d > 1.0:
        notes.append(
            f"2*m*delta = {2 * m * d:.3g} > 1: the delta term can outgrow the tail; the bound is as published "
            "(its p-value need not fall with v)"
        )
    if r == 0:
        notes.append("no guesses: nothing to certify")
        return OneRunBound(0.0, r, v, m, d, 1 - alpha, 0.0, notes=tuple(notes))
    eps = steinke_eps(r, v, m, d, alpha)
    eps_max = eps if v == r else steinke_eps(r, r, m, d, alpha)
    return OneRunBound(eps, r, v, m, d, 1 - alpha, eps_max, notes=tuple(notes))
