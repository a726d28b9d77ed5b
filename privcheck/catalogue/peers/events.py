"""Library-independent descriptions of mechanisms (:class:`Ev`) and the constants of the peer audits."""

from __future__ import annotations

from dataclasses import dataclass

#: relative allowance for floating-point disagreement before an answer is called below the truth
REL_FLOAT = 1e-9
#: relative widening of the exact closed-form oracles (their root finders are accurate to ~1e-14)
REL_EXACT = 1e-9
#: an upper (lower) bound within this relative distance below (above) the certified upper (lower) end holds: it
#: covers the widening of the closed-form oracles on both sides plus the float allowance, so an interval this
#: narrow counts as a point; an answer strictly inside a wider interval is undecided
REL_DECIDE = REL_FLOAT + 2 * REL_EXACT
INSTALL_HINT = "not installed: pip install 'privcheck[peers]'"
OPACUS_HINT = "not installed: pip install opacus (pulls torch; not part of privcheck[peers])"
RELATIONS = ("add_remove", "replace_one")
ROLES = ("upper", "lower", "approximation", "calibration")


# ---------------------------------------------------------------- library-independent events
@dataclass(frozen=True)
class Ev:
    """One mechanism invoked ``count`` times, described independently of any library.

    kind/params: ``gaussian`` (sigma, sensitivity: ℓ2 distance between neighbouring means),
    ``laplace`` (b, sensitivity 1), ``discrete_laplace`` (a, integer sensitivity), ``rr`` (eps, k: k-ary randomised response), ``pure``
    (eps: the worst pure ε-DP pair, i.e. binary RR), ``approx`` ((ε, δ)-DP, worst pair),
    ``subsampled_gaussian`` (q, sigma: Poisson rate and noise multiplier, sensitivity 1),
    ``subsampled_laplace`` (q, b).
    """

    kind: str
    params: tuple
    count: int = 1

    def p(self, name: str) -> float:
        """The value of parameter ``name``."""
        return dict(self.params)[name]

    def __str__(self) -> str:
        ps = ",".join(f"{k}={v:g}" for k, v in self.params)
        return f"{self.kind}({ps})" + (f"x{self.count}" if self.count != 1 else "")


def gaussian(sigma: float, sensitivity: float = 1.0, count: int = 1) -> Ev:
    """Gaussian mechanism N(0, σ²) vs N(Δ, σ²); σ > 0, Δ > 0, count ≥ 1."""
    return Ev("gaussian", (("sigma", float(sigma)), ("sensitivity", float(sensitivity))), int(count))


def laplace(b: float, count: int = 1) -> Ev:
    """Laplace mechanism with scale b (ℓ1 sensitivity 1, so ε0 = 1/b); b > 0."""
    return Ev("laplace", (("b", float(b)),), int(count))


def rr(eps: float, k: int = 2, count: int = 1) -> Ev:
    """k-ary randomised response, truth with probability e^ε/(e^ε + k − 1); ε > 0, k ≥ 2."""
    return Ev("rr", (("eps", float(eps)), ("k", int(k))), int(count))


def discrete_laplace(a: float, sensitivity: int = 1, count: int = 1) -> Ev:
    """Discrete Laplace mechanism P(k) ∝ e^{−a|k|} with integer sensitivity Δ ≥ 1; a > 0."""
    return Ev("discrete_laplace", (("a", float(a)), ("sensitivity", int(sensitivity))), int(count))


def pure(eps: float, count: int = 1) -> Ev:
    """A pure ε-DP mechanism (worst case: binary randomised response); ε > 0."""
    return Ev("pure", (("eps", float(eps)),), int(count))


def approx(eps: float, delta: float, count: int = 1) -> Ev:
    """An (ε, δ)-DP mechanism (worst case: RR with a δ-atom); ε > 0, δ ∈ [0, 1)."""
    return Ev("approx", (("eps", float(eps)), ("delta", float(delta))), int(count))


def subsampled_gaussian(q: float, sigma: float, count: int = 1) -> Ev:
    """Poisson-subsampled Gaussian (DP-SGD step): rate q ∈ (0, 1], noise multiplier σ > 0."""
    return Ev("subsampled_gaussian", (("q", float(q)), ("sigma", float(sigma))), int(count))


def subsampled_laplace(q: float, b: float, count: int = 1) -> Ev:
    """Poisson-subsampled Laplace mechanism: rate q ∈ (0, 1], scale b > 0 (sensitivity 1)."""
    return Ev("subsampled_laplace", (("q", float(q)), ("b", float(b))), int(count))


#: DP-SGD regimes where accountants are known to break (issue 18 §5): large ε (q up to 0.5, σ down to 0.5),
#: asked of every library that accounts Poisson-subsampled Gaussians (full runs only; a few seconds each)
LARGE_EPS_DPSGD: tuple[tuple[float, float, int], ...] = ((0.5, 1.0, 100), (0.5, 0.5, 10))
#: a long run (T = 10⁵), asked of dp_accounting's PLD accountant only: its certified interval alone takes ~25 s
LONG_RUN_DPSGD: tuple[float, float, int] = (0.01, 2.0, 100_000)

#: calibration targets ε at δ = 1e-5 (full runs), from a tight budget to a large one
CALIBRATION_TARGETS: tuple[float, ...] = (0.5, 2.0, 8.0)
