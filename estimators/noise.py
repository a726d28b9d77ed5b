"""Additive noise mechanisms: Laplace (pure ε-DP) and Gaussian (μ-GDP, hence (ε, δ)-DP).

Neighbouring inputs are real numbers x, x' with |x − x'| ≤ ``sensitivity``.

- Laplace: x + Lap(b), b = sensitivity/ε; the log density ratio is at most
  |x − x'|/b = ε (Dwork & Roth 2014, Thm 3.6).
- Gaussian: x + N(0, σ²) is μ-GDP with μ = sensitivity/σ, and its exact
  privacy curve is δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su
  2019, Cor. 2.13; 002 Lemma 2). The curve is evaluated by
  :func:`accountants.gdp.gdp_delta` / :func:`accountants.gdp.gdp_eps` (not duplicated here).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from estimators.base import ExactEpsilon, Mechanism
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_delta, check_eps, check_int, check_positive

mpmath.mp.dps = max(mpmath.mp.dps, 50)


def _mpf(x) -> mpmath.mpf:
    f = Fraction(x)
    return mpmath.mpf(f.numerator) / f.denominator


def _check_x(x, n: int) -> np.ndarray | float:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        if not math.isfinite(float(arr)):
            raise PrivcheckUsageError(f"x must be a finite number, got {x!r}")
        return float(arr)
    if arr.shape != (n,):
        raise PrivcheckUsageError(f"x must be a number or an array of shape (n,) = ({n},), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise PrivcheckUsageError("x must contain finite numbers only (no NaN/inf)")
    return arr


def laplace_claimed_epsilon(eps: float) -> float:
    """The ε claimed for the Laplace mechanism with scale sensitivity/ε: ε."""
    return check_eps(eps)


def laplace_exact_epsilon(sensitivity: float, eps: float) -> ExactEpsilon:
    """Exact ε of x + Lap(sensitivity/ε): sup log f(y|x)/f(y|x') = |x−x'|/b at |x−x'| = sensitivity, y ≤ min(x, x')."""
    sensitivity = check_positive("sensitivity", sensitivity)
    eps = check_eps(eps)
    b = _mpf(sensitivity) / _mpf(eps)
    val = _mpf(sensitivity) / b
    return ExactEpsilon(
        eps=float(val),
        eps_text=mpmath.nstr(val, 40),
        worst_pair=(0.0, sensitivity),
        worst_output="any y <= 0",
        method="closed form",
        note="log f(y|0)/f(y|Δ) = (|y−Δ| − |y|)/b = Δ/b for y ≤ 0",
        extra={"claimed": eps},
    )


class LaplaceMechanism(Mechanism):
    """Laplace mechanism (CLI ``laplace``): x + Lap(sensitivity/eps).

    Parameters: ``sensitivity`` > 0, ``eps`` > 0. Input: a real x (scalar, or
    shape (n,) one per draw); neighbours differ by at most ``sensitivity``.
    """

    name = "laplace"
    source = "Dwork & Roth 2014, Thm 3.6"
    output_kind = "continuous"

    def __init__(self, sensitivity: float = 1.0, eps: float = 1.0):
        self.sensitivity = check_positive("sensitivity", sensitivity)
        self.eps_nominal = check_eps(eps)
        self.scale = self.sensitivity / self.eps_nominal
        self._params = {"sensitivity": self.sensitivity, "eps": self.eps_nominal}

    def sample(self, x, n, rng):
        n = check_int("n", n, minimum=0)
        noise = rng.laplace(0.0, self.scale, n)
        noise += _check_x(x, n)
        return noise

    def inputs(self) -> list:
        return [0.0, self.sensitivity]

    def exact_epsilon(self) -> ExactEpsilon:
        return laplace_exact_epsilon(self.sensitivity, self.eps_nominal)

    def sampler_exact_epsilon(self) -> ExactEpsilon:
        """Exact ε = Δ/b of the scale the sampler draws with (``self.scale``, read exactly)."""
        import mpmath

        val = mpmath.mpf(self.sensitivity) / mpmath.mpf(self.scale)
        return ExactEpsilon(
            eps=float(val),
            eps_text=mpmath.nstr(val, 40),
            worst_pair=(0.0, self.sensitivity),
            worst_output="any y <= 0",
            method="closed form",
            note="Δ/b with the sampler's float scale b (read exactly)",
        )


class GaussianMechanism(Mechanism):
    """Gaussian mechanism (CLI ``gaussian``): x + N(0, sigma²), μ-GDP with μ = sensitivity/sigma.

    Parameters: ``sensitivity`` > 0, ``sigma`` > 0, optional ``eps`` > 0 and
    ``delta`` in (0, 1) (the claimed (ε, δ)). ``eps_nominal`` is ``eps`` when
    given, else ∞ (no pure-ε claim); ``delta_nominal`` is ``delta`` when given, else 0.
    Input: a real x (scalar, or shape (n,)); neighbours differ by at most ``sensitivity``.
    """

    name = "gaussian"
    exact_in_mpmath = False  # exact (ε, δ) from accountants.gdp in float, conservative roots
    source = "002_53ad70670a94e98a.txt Lemma 1–2 (Dong, Roth & Su 2019, Cor. 2.13)"
    output_kind = "continuous"

    def __init__(
        self, sensitivity: float = 1.0, sigma: float = 1.0, eps: float | None = None, delta: float | None = None
    ):
        self.sensitivity = check_positive("sensitivity", sensitivity)
        self.sigma = check_positive("sigma", sigma)
        self.mu = self.sensitivity / self.sigma
        self._eps_given = None if eps is None else check_eps(eps)
        self._delta_given = None if delta is None else check_delta(delta)
        self.eps_nominal = math.inf if self._eps_given is None else self._eps_given
        self.delta_nominal = 0.0 if self._delta_given is None else self._delta_given
        self._params = {"sensitivity": self.sensitivity, "sigma": self.sigma}
        if eps is not None:
            self._params["eps"] = self._eps_given
        if delta is not None:
            self._params["delta"] = self._delta_given

    def with_delta(self, delta: float) -> "GaussianMechanism":
        """The same mechanism with claimed δ = ``delta`` in (0, 1) (what ``--delta`` sets on the CLI)."""
        return GaussianMechanism(self.sensitivity, self.sigma, self._eps_given, delta)

    def sample(self, x, n, rng):
        n = check_int("n", n, minimum=0)
        noise = rng.standard_normal(n)
        noise *= self.sigma
        noise += _check_x(x, n)
        return noise

    def inputs(self) -> list:
        return [0.0, self.sensitivity]

    def delta_at(self, eps: float) -> float:
        """Exact δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), μ = sensitivity/σ (via accountants.gdp.gdp_delta)."""
        from accountants.gdp import gdp_delta

        return gdp_delta(self.mu, eps)

    def eps_at(self, delta: float) -> float:
        """Smallest ε ≥ 0 with δ(ε) ≤ δ (via accountants.gdp.gdp_eps; relative tolerance ~1e−15)."""
        from accountants.gdp import gdp_eps

        return gdp_eps(self.mu, delta)

    def exact_epsilon(self) -> ExactEpsilon:
        """ε at the nominal δ (``delta`` filled); without δ: δ at the nominal ε; without both: ε = ∞ at δ = 0.

        Worst pair (0, sensitivity): the privacy-loss curve of two Gaussians at
        distance Δ is the μ-GDP curve, attained exactly (tight).
        """
        pair = (0.0, self.sensitivity)
        extra = {"mu": self.mu}
        if self._delta_given is not None:
            e = self.eps_at(self._delta_given)
            if self._eps_given is not None:
                extra["claimed"] = self._eps_given
                extra["delta_at_claimed_eps"] = self.delta_at(self._eps_given)
            return ExactEpsilon(
                eps=e,
                eps_text=repr(e),
                worst_pair=pair,
                worst_output=f"event y < {self.sensitivity / 2 - self.sigma**2 * e / self.sensitivity:.6g}"
                " (privacy loss log f(y|0)/f(y|Δ) > ε)",
                method="closed form",
                delta=self._delta_given,
                note="μ-GDP curve inverted in ε by accountants.gdp.gdp_eps (float64, rtol 1e-15)",
                extra=extra,
            )
        if self._eps_given is not None:
            d = self.delta_at(self._eps_given)
            return ExactEpsilon(
                eps=self._eps_given,
                eps_text=repr(self._eps_given),
                worst_pair=pair,
                worst_output="privacy-loss level set",
                method="closed form",
                delta=d,
                note="δ(ε) of μ-GDP at the nominal ε (accountants.gdp.gdp_delta)",
                extra=extra,
            )
        return ExactEpsilon(
            eps=math.inf,
            eps_text="inf",
            worst_pair=pair,
            worst_output="y -> ∞",
            method="closed form",
            note="the Gaussian mechanism is not ε-DP for any finite ε at δ = 0",
            extra=extra,
        )


__all__ = ["laplace_claimed_epsilon", "laplace_exact_epsilon", "LaplaceMechanism", "GaussianMechanism"]
