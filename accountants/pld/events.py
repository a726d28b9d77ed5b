"""Mechanisms as events for the PLD accountant, each with its privacy profile(s).

A *profile* describes one ordered pair (P ‖ Q) of output distributions through its hockey-stick
curve δ(x) = Σ_o (P(o) − e^x Q(o))_+ = E_P[(1 − e^{x − L})_+] for every real x (L the privacy
loss log P/Q under P). Continuous mechanisms give log δ(x) in closed form (tail-stable, log
space); finite mechanisms give their loss atoms. Every event yields two profiles per neighbouring
relation: "remove" (P = output with the record, Q = without) and "add" (the reverse pair);
ε(δ) of the mechanism is the larger of the two directions.

Profiles used here:
- Gaussian, μ = Δ/σ: δ(x) = Φ(−x/μ + μ/2) − e^x Φ(−x/μ − μ/2) (Dong, Roth & Su 2019, Cor. 2.13),
  evaluated as ½e^{−a²/2}[erfcx(−a/√2) − erfcx(−b/√2)] in the tail (as in accountants/gdp.py).
- Laplace, ε0 = Δ/b: δ(x) = 1 − e^{(x − ε0)/2} on [−ε0, ε0], 1 − e^x below, 0 above.
- Poisson subsampling at rate q of a base pair (P, Q) (Zhu, Dong & Wang 2022, Prop. 30; Balle et
  al. 2018): remove direction δ'(x) = q·δ(log(1 + (e^x − 1)/q)) for e^x > 1 − q, else 1 − e^x;
  add direction δ'(x) = (1 − e^x(1 − q))·δ_rev(x + log q − log(1 − e^x(1 − q))) for
  e^x(1 − q) < 1, else 0, where δ_rev is the base's reverse profile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import special

from accountants.pld.profile import _SQRT2, GAUSS_SD_CUT, GAUSS_SD_OPT, Profile
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_nonnegative, check_positive, check_probability

__all__ = [
    "Profile",
    "PLDEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "DiscreteLaplaceEvent",
    "RandomizedResponseEvent",
    "PureDPEvent",
    "FiniteEvent",
    "PoissonSampledEvent",
    "ApproxDPEvent",
    "RELATIONS",
]

RELATIONS = ("add_remove", "replace_one")
# ----------------------------------------------------------------------------- closed forms


def gaussian_log_delta(mu: float, x: np.ndarray) -> np.ndarray:
    """log δ(x) of μ-GDP for all real x (vectorised; relative accuracy ~1e−15 down to δ ≈ 1e−300)."""
    x = np.asarray(x, dtype=float)
    a = -x / mu + mu / 2.0
    b = a - mu
    out = np.empty_like(a)
    neg = a < 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        an, bn = a[neg], b[neg]
        diff = special.erfcx(-an / _SQRT2) - special.erfcx(-bn / _SQRT2)
        out[neg] = -an * an / 2.0 + np.log(0.5 * diff)
        ap, bp, xp = a[~neg], b[~neg], x[~neg]
        # a >= 0: δ = [Φ(a) − Φ(b)] − Φ(b)·expm1(x); the bracket is a sum of positive parts
        first = 0.5 * (special.erf(ap / _SQRT2) - special.erf(bp / _SQRT2))
        second = special.ndtr(bp) * np.expm1(xp)
        val = first - second
        out[~neg] = np.where(val > 0, np.log(np.where(val > 0, val, 1.0)), -np.inf)
    return out


def laplace_log_delta(eps0: float, x: np.ndarray) -> np.ndarray:
    """log δ(x) of the Laplace pair with ε0 = Δ/b: log(1 − e^{(x−ε0)/2}) on [−ε0, ε0)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        mid = np.log(-np.expm1(np.minimum((x - eps0) / 2.0, 0.0)))
        low = np.log(-np.expm1(np.minimum(x, 0.0)))
    return np.where(x >= eps0, -np.inf, np.where(x < -eps0, low, mid))


def _gauss_profile(mu: float, label: str) -> Profile:
    m, s = mu * mu / 2.0, mu
    f = lambda x: gaussian_log_delta(mu, x)  # noqa: E731
    # pessimistic: up to δ ≈ 0 in float (the +∞ mass is then invisible at every δ); optimistic: 12.5 sd
    return Profile(label, m - GAUSS_SD_OPT * s, m + GAUSS_SD_CUT * s, 0.0, f, None, f, m + GAUSS_SD_OPT * s)


def _laplace_profile(eps0: float, label: str) -> Profile:
    f = lambda x: laplace_log_delta(eps0, x)  # noqa: E731
    return Profile(label, -eps0, eps0, 0.0, f, None, f, bounded=True)


def _atoms_of(p: np.ndarray, q: np.ndarray, label: str) -> Profile:
    pos = p > 0
    with np.errstate(divide="ignore"):
        losses = np.where(q[pos] > 0, np.log(p[pos]) - np.log(np.where(q[pos] > 0, q[pos], 1.0)), np.inf)
    mass = p[pos]
    inf = float(np.sum(mass[np.isinf(losses)]))
    fin = np.isfinite(losses)
    lo = float(losses[fin].min()) if fin.any() else 0.0
    hi = float(losses[fin].max()) if fin.any() else 0.0
    return Profile(label, lo, hi, inf, None, (losses, mass), bounded=True)


def _subsampled_remove(base: Profile, q: float, label: str) -> Profile:
    lq = math.log(q)

    def f(x):
        x = np.asarray(x, dtype=float)
        em = np.expm1(x)
        inside = em > -q
        with np.errstate(divide="ignore", invalid="ignore"):
            xb = np.log1p(np.where(inside, em, 0.0) / q)
            val = np.where(inside, lq + base.log_delta_at(xb), np.log(-np.where(inside, -0.5, em)))
        return val

    def top(bh):
        return math.log1p(q * math.expm1(min(bh, 700.0))) if bh < 700 else bh + lq

    # the base's optimistic range (12.5 sd for a Gaussian) for both measures: the wide pessimistic
    # range would triple the grid; the truncated mass (< q·1e−35) is kept as +∞ mass instead
    return Profile(label, math.log1p(-q), top(base.hi if base.hi_opt is None else base.hi_opt), q * base.inf_mass, f)


def _subsampled_add(base_rev: Profile, base_hi: float, q: float, label: str) -> Profile:
    lq = math.log(q)

    def f(x):
        x = np.asarray(x, dtype=float)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            scale = q * np.exp(x) - np.expm1(x)  # 1 − e^x (1 − q)
            inside = scale > 0
            s = np.where(inside, scale, 1.0)
            xb = x + lq - np.log(s)
            val = np.where(inside, np.log(s) + base_rev.log_delta_at(np.where(inside, xb, 0.0)), -np.inf)
        return val

    lo = -(math.log1p(q * math.expm1(min(base_hi, 700.0))) if base_hi < 700 else base_hi + lq)
    return Profile(label, lo, -math.log1p(-q), 0.0, f)


def _subsampled_pair(p: np.ndarray, q: np.ndarray, rate: float) -> tuple[np.ndarray, np.ndarray]:
    return rate * p + (1.0 - rate) * q, q


# ----------------------------------------------------------------------------- events


class PLDEvent:
    """Base class: a mechanism with its profiles under a neighbouring relation."""

    def profiles(self, relation: str) -> tuple[Profile, Profile]:
        """(remove, add) profiles under ``relation`` ("add_remove" or "replace_one")."""
        raise NotImplementedError

    def gdp_mu(self) -> float | None:
        """μ if the event is exactly μ-GDP (a plain Gaussian), else None."""
        return None

    def pair(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(P, Q) output distributions of a finite worst pair (P: with the record), else None."""
        return None

    dominating: bool = True
    note: str = ""


def _check_relation(relation: str) -> str:
    if relation not in RELATIONS:
        raise PrivcheckUsageError(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    return relation


@dataclass(frozen=True)
class GaussianEvent(PLDEvent):
    """Gaussian mechanism: noise standard deviation ``sigma`` > 0, ℓ2-sensitivity ``sensitivity`` > 0
    under the chosen relation (μ = sensitivity/σ; Dong, Roth & Su 2019)."""

    sigma: float
    sensitivity: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))

    def gdp_mu(self) -> float:
        return self.sensitivity / self.sigma

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        p = _gauss_profile(self.gdp_mu(), f"gaussian(mu={self.gdp_mu():.6g})")
        return p, p


@dataclass(frozen=True)
class LaplaceEvent(PLDEvent):
    """Laplace mechanism: scale ``b`` > 0 with ℓ1-sensitivity ``sensitivity`` (ε0 = Δ/b), or
    directly ``eps`` = ε0 > 0. Give exactly one of b, eps."""

    b: float | None = None
    eps: float | None = None
    sensitivity: float = 1.0

    def __post_init__(self):
        if (self.b is None) == (self.eps is None):
            raise PrivcheckUsageError("LaplaceEvent needs exactly one of b= or eps=")
        sens = check_positive("sensitivity", self.sensitivity)
        object.__setattr__(self, "sensitivity", sens)
        if self.b is not None:
            object.__setattr__(self, "b", check_positive("b", self.b))
        else:
            object.__setattr__(self, "eps", check_positive("eps", self.eps))

    @property
    def eps0(self) -> float:
        """ε of the pure-DP guarantee, Δ/b."""
        if self.eps is not None:
            return self.eps
        assert self.b is not None  # (exactly one of b, eps: __post_init__)
        return self.sensitivity / self.b

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        p = _laplace_profile(self.eps0, f"laplace(eps0={self.eps0:.6g})")
        return p, p


@dataclass(frozen=True)
class DiscreteLaplaceEvent(PLDEvent):
    """Discrete Laplace mechanism P(k) ∝ e^{−a|k|} on the integers, integer sensitivity Δ ≥ 1."""

    a: float
    sensitivity: int = 1

    def __post_init__(self):
        object.__setattr__(self, "a", check_positive("a", self.a))
        object.__setattr__(self, "sensitivity", check_int("sensitivity", self.sensitivity, minimum=1))

    def pair(self):
        a, D = self.a, self.sensitivity
        c = -math.expm1(-a) / (1 + math.exp(-a))
        ks = np.arange(1, D)
        p = np.concatenate(
            [[math.exp(-a * D) / (1 + math.exp(-a))], c * np.exp(-a * (D - ks)), [1 / (1 + math.exp(-a))]]
        )
        q = np.concatenate([[1 / (1 + math.exp(-a))], c * np.exp(-a * ks), [math.exp(-a * D) / (1 + math.exp(-a))]])
        return p, q

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        p, q = self.pair()
        pr = _atoms_of(p, q, f"discrete-laplace(a={self.a:.6g})")
        return pr, pr


@dataclass(frozen=True)
class RandomizedResponseEvent(PLDEvent):
    """k-ary randomised response with parameter ε > 0 (keep with prob e^ε/(e^ε + k − 1)), k ≥ 2."""

    eps: float
    k: int = 2

    def __post_init__(self):
        object.__setattr__(self, "eps", check_positive("eps", self.eps))
        object.__setattr__(self, "k", check_int("k", self.k, minimum=2))
        if self.eps > 700:
            raise PrivcheckUsageError(f"eps must be <= 700 for randomised response, got {self.eps}")

    def pair(self):
        """The dominating pair: outputs x, x' and one atom for the k − 2 other outputs.

        The k − 2 other outputs have probability 1/z under both inputs (privacy
        loss 0); merging outputs with equal likelihood ratio leaves the privacy-loss
        distribution unchanged, so one atom of mass (k − 2)/z stands for them and
        any k (10^9 included) costs three atoms.
        """
        z = math.exp(self.eps) + self.k - 1
        rest = [(self.k - 2) / z] if self.k > 2 else []
        p = np.array([math.exp(self.eps) / z, 1.0 / z] + rest)
        q = np.array([1.0 / z, math.exp(self.eps) / z] + rest)
        return p, q

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        p, q = self.pair()
        pr = _atoms_of(p, q, f"rr(eps={self.eps:.6g},k={self.k})")
        return pr, pr


@dataclass(frozen=True)
class PureDPEvent(PLDEvent):
    """Any ε-DP mechanism, through its dominating pair (binary randomised response; Kairouz,
    Oh & Viswanath 2015)."""

    eps: float

    def __post_init__(self):
        object.__setattr__(self, "eps", check_positive("eps", self.eps))
        if self.eps > 700:
            raise PrivcheckUsageError(f"eps must be <= 700, got {self.eps}")

    def pair(self):
        return RandomizedResponseEvent(self.eps, 2).pair()

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        p, q = self.pair()
        pr = _atoms_of(p, q, f"pure(eps={self.eps:.6g})")
        return pr, pr


@dataclass(frozen=True)
class ApproxDPEvent(PLDEvent):
    """Any (ε, δ)-DP mechanism, through its dominating pair (Kairouz, Oh & Viswanath 2015, Thm 2.1):
    P = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0), Q = its mirror image. Its privacy loss is +∞ with
    mass δ and ±ε otherwise. eps >= 0 (<= 700), delta in [0, 1)."""

    eps: float
    delta: float

    def __post_init__(self):
        object.__setattr__(self, "eps", check_nonnegative("eps", self.eps))
        object.__setattr__(self, "delta", check_probability("delta", self.delta, open_high=True))
        if self.eps > 700:
            raise PrivcheckUsageError(f"eps must be <= 700, got {self.eps}")

    def pair(self):
        d = self.delta
        hi = (1 - d) / (1 + math.exp(-self.eps))
        lo = (1 - d) / (1 + math.exp(self.eps))
        return np.array([d, hi, lo, 0.0]), np.array([0.0, lo, hi, d])

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        p, q = self.pair()
        pr = _atoms_of(p, q, f"approx(eps={self.eps:.6g},delta={self.delta:.6g})")
        return pr, pr


@dataclass(frozen=True, eq=False)
class FiniteEvent(PLDEvent):
    """A mechanism given by two output distributions: ``p`` (the output law with the record /
    on input x) and ``q`` (without it / on input x'). Both directions are accounted.

    dominating: True if this pair is known to dominate every neighbouring pair of the mechanism
    (e.g. the worst pair of k-RR); otherwise results hold for this pair of inputs and the
    accountant says so.
    """

    p: Sequence[float]
    q: Sequence[float]
    dominating: bool = False
    name: str = "finite"

    def __post_init__(self):
        p = np.asarray(self.p, dtype=float).ravel()
        q = np.asarray(self.q, dtype=float).ravel()
        if p.shape != q.shape or p.size == 0:
            raise PrivcheckUsageError("FiniteEvent needs p and q of the same non-zero length")
        for nm, v in (("p", p), ("q", q)):
            if not np.all(np.isfinite(v)) or np.any(v < 0) or abs(v.sum() - 1.0) > 1e-9:
                raise PrivcheckUsageError(f"FiniteEvent {nm} must be a probability vector (entries >= 0, sum 1)")
        object.__setattr__(self, "p", p / p.sum())
        object.__setattr__(self, "q", q / q.sum())

    @property
    def note(self) -> str:  # type: ignore[override]
        return (
            ""
            if self.dominating
            else (
                f"{self.name}: the given pair is not known to dominate every "
                "neighbouring pair; the bounds hold for this pair of inputs"
            )
        )

    def pair(self):
        return self.p, self.q

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        p, q = np.asarray(self.p, dtype=float), np.asarray(self.q, dtype=float)
        return _atoms_of(p, q, f"{self.name}(remove)"), _atoms_of(q, p, f"{self.name}(add)")

    def _key(self):
        return (self.p.tobytes(), self.q.tobytes(), self.dominating, self.name)

    def __eq__(self, other):
        return isinstance(other, FiniteEvent) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())


@dataclass(frozen=True)
class PoissonSampledEvent(PLDEvent):
    """The mechanism ``event`` run on a Poisson sample (each record kept with probability q ∈ (0, 1]).

    add_remove: both directions, remove (qP + (1 − q)Q ‖ Q) and add (Q ‖ qP + (1 − q)Q).
    replace_one (Gaussian and Laplace bases, q < 1): the base's sensitivity is the bound on one
    record's contribution (dp_accounting's convention) and the pair is
    ((1 − q)μ + qμ(· + Δ) ‖ (1 − q)μ + qμ(· − Δ)) (accountants.pld.replace); other bases: refused.
    """

    event: PLDEvent
    q: float

    def __post_init__(self):
        if not isinstance(self.event, PLDEvent) or isinstance(self.event, PoissonSampledEvent):
            raise PrivcheckUsageError("PoissonSampledEvent needs a (non-subsampled) event to sample")
        object.__setattr__(self, "q", check_probability("q", self.q, open_low=True))

    @property
    def dominating(self) -> bool:  # type: ignore[override]
        return self.event.dominating

    @property
    def note(self) -> str:  # type: ignore[override]
        return self.event.note

    def gdp_mu(self):
        return self.event.gdp_mu() if self.q == 1.0 else None

    def pair(self):
        base = self.event.pair()
        return None if base is None else _subsampled_pair(base[0], base[1], self.q)

    def _replace_profiles(self):
        from accountants.pld.replace import gaussian_replace_profile, laplace_replace_profile

        ev, tag = self.event, f"poisson(q={self.q:.6g})-replace"
        if self.q == 1.0:
            raise PrivcheckUsageError(
                "replace_one with q=1 is the unsampled mechanism: give the event itself "
                "with its replace-one sensitivity (twice one record's contribution)"
            )
        if isinstance(ev, GaussianEvent):
            p = gaussian_replace_profile(ev.gdp_mu(), self.q, f"{tag}[gaussian(mu={ev.gdp_mu():.6g})]")
        elif isinstance(ev, LaplaceEvent):
            p = laplace_replace_profile(ev.eps0, self.q, f"{tag}[laplace(eps0={ev.eps0:.6g})]")
        else:
            raise PrivcheckUsageError(
                "Poisson subsampling under replace_one is accounted for gaussian and laplace "
                "events (for others give the sampled pair as a FiniteEvent)"
            )
        return p, p

    def profiles(self, relation: str = "add_remove"):
        _check_relation(relation)
        if relation == "replace_one":
            return self._replace_profiles()
        if self.q == 1.0:
            return self.event.profiles(relation)
        pr = self.pair()
        tag = f"poisson(q={self.q:.6g})"
        if pr is not None:
            p, q = pr
            return _atoms_of(p, q, f"{tag}-remove"), _atoms_of(q, p, f"{tag}-add")
        rem, add = self.event.profiles(relation)
        r = _subsampled_remove(rem, self.q, f"{tag}[{rem.label}]-remove")
        a = _subsampled_add(add, rem.hi if rem.hi_opt is None else rem.hi_opt, self.q, f"{tag}[{rem.label}]-add")
        return (
            Profile(r.label, r.lo, r.hi, r.inf_mass, r.log_delta, None, a.log_delta, r.hi_opt),
            Profile(a.label, a.lo, a.hi, a.inf_mass, a.log_delta, None, r.log_delta, a.hi_opt),
        )
