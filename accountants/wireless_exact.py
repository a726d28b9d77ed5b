"""Exact privacy profile of 004's wireless mechanism with user sampling (the system model itself).

Source: Seif, Chang & Tandon (``004_cc7ee25c83388ef6.txt``), Sec. II and Appendix B.

The mechanism (one iteration, Sec. II)
--------------------------------------
K users; user i takes part independently with probability p_i (Sec. II, "user sampling"). A
participant sends x_i = α_i (g_i + n_i) (eq. 6) with its gradient g_i ∈ R^d, ‖g_i‖₂ ≤ L, and
artificial noise n_i ~ N(0, σ_i² I_d); channel inversion h_i α_i = 1 (eq. 8) aligns the
gradients, so the parameter server (PS) receives (eq. 1, 7)

    y = Σ_{i∈𝒦} g_i + Σ_{i∈𝒦} n_i + m,      m ~ N(0, N0 I_d),

i.e. given the participating set 𝒦 = A, y ~ N(S_A, (Σ_{i∈A} σ_i² + N0) I_d). We take σ_i = σ for
every user (σ = σ_min of Thm 1; the theorem must hold in particular for equal noises), so the
noise variance given |A| = r is s_r² = rσ² + N0. What the PS observes is y alone (case (b) of
Sec. II, 𝒦 unknown; revealing 𝒦 can only increase the leakage). Its law is a mixture of
isotropic Gaussians over the 2^K participation patterns; with equal σ and the witness datasets
below, only the *count* of the other participants matters, so the mixture is over
r ~ Poisson-binomial(p_{−k}) (:func:`accountants.wireless.participation_pmf`).

Neighbouring relations
----------------------
- ``"remove"`` — **the paper's**. Def. 2 (eq. 12): D = X_1 × … × X_K and D′ is "obtained from D by
  removing one data element x_i for some i ∈ [K]", i.e. user k's data is removed; the proof of
  Thm 1 (eq. 28, Lemma 4, eq. 33–36) compares Y with Y_{−k}, "the output when user k does not
  participate". Under D′ user k sends nothing: no gradient *and no artificial noise*. With the
  other users' gradients at 0 (a valid dataset) and g_k = m e_1, m ≤ L:

      Q = P_{D′} = Σ_r π_r N(0, s_r² I_d),
      P = P_D   = (1 − p_k) Q + p_k Σ_r π_r N(m e_1, s_{r+1}² I_d).

  The direction of eq. 12/28 is H_ε(P ‖ Q) (P_D on the left); the reverse direction is also
  computed. The covariances of P's and Q's components differ (s_{r+1}² ≠ s_r²), so the
  divergence depends on d: the radius ‖y‖² estimates the number of noise sources.
- ``"replace"`` — user k's gradient g → g′ with both in the L-ball (‖g − g′‖ ≤ 2L, the
  sensitivity of eq. 43 that defines c); user k's sampling and noise are unchanged. Witness:
  others at 0, g = L e_1, g′ = −L e_1. Given the participating count this is the Gaussian
  mechanism, so a PS that knew 𝒦 would get exactly :func:`accountants.wireless.local_exact_delta`
  (d-independent); from y alone the value is smaller and increases with d towards it.

For both relations the computed value is the exact hockey-stick divergence of one neighbouring
pair, hence a *lower bound* on the mechanism's privacy profile δ(ε) = sup over pairs; it is the
right object for a counterexample (δ(ε_c) > δ_c at one pair refutes (ε_c, δ_c)-DP).

Numerics (:func:`hockey_stick`)
-------------------------------
For mixtures of isotropic Gaussians with means on the e_1 axis, write y = (u, v), u = y_1,
v ∈ R^{d−1}. Each component's density factorises as φ(u; m_j, v_j) · f_j(ρ), ρ = ‖v‖², with
ρ/v_j ~ χ²_{d−1}; so H_ε(P‖Q) = ∫∫ (p − e^ε q)_+ du dρ is a two-dimensional integral for every d.
For each t = log ρ the u-integral is done exactly: the roots of u ↦ p − e^ε q are bracketed on a
uniform grid (spacing a fixed fraction of the narrowest component's sd) and refined by Newton
steps, and on the positive set the integral is a sum of normal CDF differences. The t-integral
is adaptive Gauss–Kronrod (7/15) until |K15 − G7| ≤ tol on every panel (tol·width share). The
box covers every component to a tail probability ≤ 1e−18 per coordinate. Error bound reported:
the rigorous truncation bound (P-mass outside the box + pruned mixture weights), plus the
a-posteriori estimates Σ|K15 − G7| (t-quadrature) and |H_h − H_{h/2}| (root-bracketing grid
halved; catches roots missed inside one grid cell), plus a rounding bound (64 ulp of the
magnitudes summed). d = 1 is the one-dimensional case. Checked against the Gaussian mechanism
(equal covariances), the closed form for two centred Gaussians of different variance
(:func:`chi2_pair_delta`, d up to 10^4), direct 2-D quadrature and Monte Carlo
(tests/test_wireless_exact.py).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from accountants import wireless as wl
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import (
    check_delta,
    check_int,
    check_nonnegative,
    check_positive,
)

__all__ = [
    "RELATIONS",
    "HockeyStick",
    "IsoMixture",
    "ProfilePoint",
    "Thm1Comparison",
    "chi2_pair_delta",
    "compare_thm1",
    "hockey_stick",
    "neighbouring_pair",
    "profile_delta",
    "profile_eps",
]

RELATIONS: tuple[str, ...] = ("remove", "replace")
_TAIL = 1e-18  # per-coordinate tail probability left outside the integration box
_PRUNE = 1e-18  # mixture weights below this are dropped (counted in the error bound)
_MAX_CELLS = 2_000_000  # grid cells evaluated per block (memory)
_ROUND = 64 * float(np.finfo(float).eps)  # rounding bound per unit of summed magnitude


@functools.cache
def _box_halfwidth() -> float:
    """Half-width of the integration box in standard deviations of u: Φ^{-1}(1 − _TAIL/2) ≈ 8.9."""
    from scipy import special

    return float(-special.ndtri(_TAIL / 2))


@dataclass(frozen=True)
class IsoMixture:
    """Σ_j w_j N(m_j e_1, v_j I_d): a mixture of isotropic Gaussians with means on the e_1 axis.

    weights w_j ≥ 0; means m_j (real, the offset along e_1); variances v_j ≥ 0 (v_j = 0 is a point
    mass at m_j e_1). The three arrays have one entry per component.
    """

    weights: np.ndarray
    means: np.ndarray
    variances: np.ndarray

    def __post_init__(self) -> None:
        w = np.atleast_1d(np.asarray(self.weights, dtype=float))
        m = np.atleast_1d(np.asarray(self.means, dtype=float))
        v = np.atleast_1d(np.asarray(self.variances, dtype=float))
        if not (w.shape == m.shape == v.shape) or w.ndim != 1 or w.size == 0:
            raise PrivcheckUsageError("weights, means, variances must be 1-d arrays of one common non-zero length")
        if not (np.all(np.isfinite(w)) and np.all(np.isfinite(m)) and np.all(np.isfinite(v))):
            raise PrivcheckUsageError("mixture weights, means and variances must be finite")
        if np.any(w < 0) or np.any(v < 0):
            raise PrivcheckUsageError("mixture weights and variances must be >= 0")
        object.__setattr__(self, "weights", w)
        object.__setattr__(self, "means", m)
        object.__setattr__(self, "variances", v)

    @property
    def total(self) -> float:
        """Total mass Σ_j w_j."""
        return float(self.weights.sum())


@dataclass(frozen=True)
class HockeyStick:
    """H_ε(P‖Q) = ∫ (p − e^ε q)_+ for two :class:`IsoMixture` in R^d, with its numerical error.

    delta: the value on the fine u-grid (clipped at 0); truncation: rigorous bound on the mass left
    out (box tails and pruned weights); discretisation: |H_h − H_{h/2}| + Σ|K15 − G7| (a-posteriori
    estimates of the root-bracketing and t-quadrature errors) + 64 ulp of the magnitudes summed
    (rounding); error_bound = truncation + discretisation;
    nodes: (n_u, number of t evaluations) of the fine run.
    """

    delta: float
    error_bound: float
    truncation: float
    discretisation: float
    eps: float
    d: int
    nodes: tuple[int, int]


def _prune(P: IsoMixture) -> tuple[IsoMixture, float]:
    keep = P.weights > _PRUNE
    dropped = float(P.weights[~keep].sum())
    if not keep.any():
        keep = P.weights >= P.weights.max()
        dropped = float(P.weights[~keep].sum())
    return IsoMixture(P.weights[keep], P.means[keep], P.variances[keep]), dropped


def _signed_components(P: IsoMixture, Q: IsoMixture, eps: float):
    """Merge P (+w) and e^ε·Q (−e^ε w) into unique (mean, variance) components with signed coefficients."""
    m = np.concatenate([P.means, Q.means])
    v = np.concatenate([P.variances, Q.variances])
    c = np.concatenate([P.weights, -math.exp(eps) * Q.weights])
    keys = np.stack([m, v], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    coef = np.zeros(uniq.shape[0])
    np.add.at(coef, inv.ravel(), c)
    pw = np.zeros(uniq.shape[0])  # P weight of each merged component (for the truncation bound)
    np.add.at(pw, inv.ravel()[: P.weights.size], P.weights)
    return uniq[:, 0], uniq[:, 1], coef, pw


def _stirling_remainder(k: float) -> float:
    """lgamma(k) − [(k − ½) log k − k + ½ log 2π], accurately also for large k."""
    from scipy import special

    if k < 8:
        return float(special.gammaln(k) - ((k - 0.5) * math.log(k) - k + 0.5 * math.log(2 * math.pi)))
    ik = 1.0 / k
    ik2 = ik * ik
    return ik / 12 - ik * ik2 / 360 + ik * ik2 * ik2 / 1260 - ik * ik2**3 / 1680


def _logchi_range(k: float) -> tuple[float, float, float]:
    """For x = log(G), G ~ Gamma(k, 1): the (_TAIL/2, 1 − _TAIL/2) quantiles of x and its sd."""
    from scipy import special

    lo = math.log(special.gammaincinv(k, _TAIL / 2))
    hi = math.log(special.gammainccinv(k, _TAIL / 2))
    return lo, hi, math.sqrt(float(special.polygamma(1, k)))


def _psi(z: np.ndarray) -> np.ndarray:
    """ψ(z) = Φ(z) − 1{z > 0}: Φ(z) for z ≤ 0, −Φ(−z) for z > 0 (small in both tails)."""
    from scipy import special

    return np.where(z > 0, -special.ndtr(-z), special.ndtr(z))


def _u_integral(f: np.ndarray, u: np.ndarray, A: np.ndarray, means, sd) -> tuple[np.ndarray, np.ndarray]:
    """∫ (Σ_j A[b, j] φ(u; m_j, v_j))_+ du for each column b, with f[:, b] that function on the grid u.

    The roots of f are bracketed by the sign changes on the grid u, started by linear interpolation
    and refined by two Newton steps on the exact mixture (kept inside the bracket); on the positive
    set so found (a union of intervals [a, b)) the integral is exact. Each component's share
    Σ_intervals Φ(b_j) − Φ(a_j) (z-scores) is evaluated as Σ_intervals ψ(b_j) − ψ(a_j) + 1{m_j in the
    set}, ψ(z) = Φ(z) − 1{z > 0}, which keeps full precision when an interval lies in a far tail of
    a component with a huge coefficient (e^ε·w for large ε).
    Also returns, per column, the sum of the magnitudes of all terms added (for the rounding bound).
    """
    pos = f > 0
    ncol = f.shape[1]
    ch = pos[1:] != pos[:-1]  # a root between nodes i and i+1
    i, b = np.nonzero(ch)
    out = np.zeros(ncol)
    mag = np.zeros(ncol)
    xs, bs = np.empty(0), np.empty(0, dtype=int)
    if i.size:
        f0, f1 = f[i, b], f[i + 1, b]
        x = u[i] - f0 * (u[i + 1] - u[i]) / (f1 - f0)
        Ab = A[b]
        for _ in range(2):  # Newton steps on the exact f, kept inside the bracket
            z = (x[:, None] - means[None, :]) / sd[None, :]
            dens = Ab * np.exp(-0.5 * z * z) / (sd[None, :] * math.sqrt(2 * math.pi))
            fx = dens.sum(axis=1)
            fpx = -(dens * z / sd[None, :]).sum(axis=1)
            step = np.divide(fx, fpx, out=np.zeros_like(fx), where=fpx != 0)
            x = np.clip(x - step, u[i], u[i + 1])
        sign = np.where(pos[i + 1, b], -1.0, 1.0)  # up-crossing opens an interval (−ψ), down closes (+ψ)
        ps = _psi((x[:, None] - means[None, :]) / sd[None, :])
        np.add.at(out, b, sign * np.einsum("cj,cj->c", Ab, ps))
        np.add.at(mag, b, np.einsum("cj,cj->c", np.abs(Ab), np.abs(ps)))
        xs, bs = x, b
    for end, sgn in ((0, -1.0), (-1, 1.0)):  # intervals reaching the box edge
        cols = np.nonzero(pos[end])[0]
        if cols.size:
            ps = _psi((u[end] - means) / sd)
            out[cols] += sgn * (A[cols] @ ps)
            mag[cols] += np.abs(A[cols]) @ np.abs(ps)
    # 1{m_j in the positive set}: the state at u_lo flipped once per root left of m_j
    for mu in np.unique(means):
        left = np.bincount(bs[xs < mu], minlength=ncol) if xs.size else np.zeros(ncol, dtype=int)
        inside = pos[0] ^ (left % 2 == 1)
        jj = means == mu
        out += inside * A[:, jj].sum(axis=1)
        mag += inside * np.abs(A[:, jj]).sum(axis=1)
    return out, mag


# Gauss–Kronrod 7/15 nodes and weights on [−1, 1]
_XK = np.array(
    [
        -0.991455371120813,
        -0.949107912342759,
        -0.864864423359769,
        -0.741531185599394,
        -0.586087235467691,
        -0.405845151377397,
        -0.207784955007898,
        0.0,
        0.207784955007898,
        0.405845151377397,
        0.586087235467691,
        0.741531185599394,
        0.864864423359769,
        0.949107912342759,
        0.991455371120813,
    ]
)
_WK = np.array(
    [
        0.022935322010529,
        0.063092092629979,
        0.104790010322250,
        0.140653259715525,
        0.169004726639267,
        0.190350578064785,
        0.204432940075298,
        0.209482141084728,
        0.204432940075298,
        0.190350578064785,
        0.169004726639267,
        0.140653259715525,
        0.104790010322250,
        0.063092092629979,
        0.022935322010529,
    ]
)
_WG = np.zeros(15)
_WG[1::2] = [
    0.129484966168870,
    0.279705391489277,
    0.381830050505119,
    0.417959183673469,
    0.381830050505119,
    0.279705391489277,
    0.129484966168870,
]


def _adaptive_gk(
    F, a: float, b: float, panels: int, tol: float, max_rounds: int = 40, max_panels: int = 20_000
) -> tuple[float, float, int]:
    """∫_a^b F by adaptive Gauss–Kronrod (7/15): panels are halved until |K15 − G7| ≤ tol·width/(b − a)
    (or below the floating-point noise of the panel: 64 ulp of ∫ mag, where F returns (values, mag)
    and mag bounds the magnitude of the terms summed into each value); refinement stops after
    ``max_rounds`` rounds or when more than ``max_panels`` panels would be split.

    F maps an array of points to (values, magnitudes). Returns (value, Σ|K15 − G7| over the accepted
    panels — the usual conservative error estimate, ∫ mag by K15, number of F evaluations).
    """
    lo = np.linspace(a, b, panels + 1)
    left, right = lo[:-1], lo[1:]
    value = err = mag_total = 0.0
    evals = 0
    for rnd in range(max_rounds):
        mid, half = (left + right) / 2, (right - left) / 2
        x = mid[:, None] + half[:, None] * _XK[None, :]
        fx, mag = F(x.ravel())
        fx, mag = fx.reshape(x.shape), mag.reshape(x.shape)
        evals += fx.size
        k15 = half * (fx @ _WK)
        g7 = half * (fx @ _WG)
        e = np.abs(k15 - g7)
        floor = _ROUND * half * (mag @ _WK)  # rounding noise of the panel sum
        ok = (e <= np.maximum(tol * (right - left) / (b - a), floor)) | (rnd == max_rounds - 1)
        if (~ok).sum() > max_panels:  # give up refining: accept all, their |K15 − G7| is in the error
            ok[:] = True
        value += float(k15[ok].sum())
        err += float(e[ok].sum())
        mag_total += float((half * (mag @ _WK))[ok].sum())
        if ok.all():
            break
        l2, r2, m2 = left[~ok], right[~ok], mid[~ok]
        left, right = np.concatenate([l2, m2]), np.concatenate([m2, r2])
    return value, err, mag_total, evals


def _hs_continuous(
    means, variances, coef, d: int, per_sd: float, tol: float
) -> tuple[float, float, float, tuple[int, int]]:
    """∫∫ (Σ_j c_j φ(u; m_j, v_j) f_j(ρ))_+: exact in u given the roots located on a grid with
    ``per_sd`` nodes per sd (:func:`_u_integral`), adaptive Gauss–Kronrod in t = log ρ (d ≥ 2).
    Returns (value, t-quadrature error estimate, rounding bound, (n_u, number of t evaluations)).
    """
    sd = np.sqrt(variances)
    h_u = float(sd.min()) / per_sd
    z = _box_halfwidth()
    u_lo = float((means - z * sd).min())
    u_hi = float((means + z * sd).max())
    n_u = int(math.ceil((u_hi - u_lo) / h_u)) + 1
    u = np.linspace(u_lo, u_hi, n_u)
    phi = np.exp(-0.5 * ((u[:, None] - means[None, :]) / sd[None, :]) ** 2) / (sd * math.sqrt(2 * math.pi))
    if d == 1:
        f = phi @ coef
        val, mag = _u_integral(f[:, None], u, coef[None, :], means, sd)
        return float(val[0]), 0.0, _ROUND * float(mag[0]), (n_u, 0)
    k = (d - 1) / 2.0
    x_lo, x_hi, x_sd = _logchi_range(k)
    shift = np.log(2.0 * variances)  # t = log ρ = log(2 v_j) + x,  x = log Gamma(k, 1)
    t_lo, t_hi = float(shift.min() + x_lo), float(shift.max() + x_hi)
    shift_k = shift + math.log(k)  # the mode of t under component j
    log_norm = 0.5 * math.log(k / (2 * math.pi)) - _stirling_remainder(k)
    block = max(1, _MAX_CELLS // n_u)

    def F(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = np.empty(t.size)
        mag = np.empty(t.size)
        for s in range(0, t.size, block):
            y = t[s : s + block, None] - shift_k[None, :]
            # density of t = log ρ under component j: exp(k x − e^x − lgamma k), x = log k + y, written
            # without the cancellation of k·x against lgamma k (both ~ k log k for large d)
            A = np.exp(log_norm - k * (np.expm1(y) - y)) * coef[None, :]
            out[s : s + block], mag[s : s + block] = _u_integral(phi @ A.T, u, A, means, sd)
        return out, mag

    panels = max(4, int(math.ceil((t_hi - t_lo) / (2 * x_sd))))
    val, err, mag_total, evals = _adaptive_gk(F, t_lo, t_hi, panels, tol)
    return val, err, _ROUND * mag_total, (n_u, evals)


def hockey_stick(
    P: IsoMixture, Q: IsoMixture, eps: float, d: int, *, per_sd: float = 8.0, tol: float = 1e-11
) -> HockeyStick:
    """Exact (to the stated error) hockey-stick divergence H_ε(P‖Q) = sup_S P(S) − e^ε Q(S) in R^d.

    P, Q: :class:`IsoMixture` (means along one axis, isotropic covariances; point masses allowed);
    eps: ε ≥ 0; d ≥ 1 the dimension; per_sd > 0: grid nodes per standard deviation of the coarse
    u-grid that locates the roots (the fine one doubles it); tol > 0: absolute error target of the
    adaptive t-quadrature. Cost is O(n_u · n_t · J) with J the number of distinct components and
    n_t the number of t-evaluations (grows like √d · log(v_max/v_min)). Method: module docstring.
    """
    eps = check_nonnegative("eps", eps)
    d = check_int("d", d, minimum=1)
    per_sd = check_positive("per_sd", per_sd)
    tol = check_positive("tol", tol)
    P, dropped_p = _prune(P)
    Q, dropped_q = _prune(Q)
    means, variances, coef, pw = _signed_components(P, Q, eps)
    atom = variances == 0
    h_atoms = 0.0
    if atom.any():  # point masses: P-atom minus e^ε Q-atom at the same point (continuous parts add no mass there)
        h_atoms = float(np.maximum(coef[atom], 0.0).sum())
    cont = ~atom
    trunc = dropped_p + math.exp(eps) * dropped_q  # pruned weights
    if not cont.any():
        return HockeyStick(h_atoms, trunc, trunc, 0.0, eps, d, (0, 0))
    m, v, c = means[cont], variances[cont], coef[cont]
    coarse, _, _, _ = _hs_continuous(m, v, c, d, per_sd, tol)
    fine, t_err, rounding, nodes = _hs_continuous(m, v, c, d, 2 * per_sd, tol)
    tails = _TAIL * (1 if d == 1 else 2)
    trunc += float(pw[cont].sum()) * tails
    disc = abs(fine - coarse) + t_err + rounding
    return HockeyStick(max(0.0, h_atoms + fine), trunc + disc, trunc, disc, eps, d, nodes)


def chi2_pair_delta(v1: float, v0: float, eps: float, d: int) -> float:
    """Closed form of H_ε(N(0, v1 I_d) ‖ N(0, v0 I_d)) for v1 > v0 > 0 (a test oracle).

    p/q > e^ε ⟺ ‖y‖² > τ = 2(ε + (d/2) log(v1/v0)) / (1/v0 − 1/v1), so
    H = P(χ²_d > τ/v1) − e^ε P(χ²_d > τ/v0).
    """
    from scipy import stats

    v1 = check_positive("v1", v1)
    v0 = check_positive("v0", v0)
    if not v1 > v0:
        raise PrivcheckUsageError(f"v1 must be > v0, got v1={v1!r}, v0={v0!r}")
    eps = check_nonnegative("eps", eps)
    d = check_int("d", d, minimum=1)
    tau = 2 * (eps + 0.5 * d * math.log(v1 / v0)) / (1 / v0 - 1 / v1)
    return float(stats.chi2.sf(tau / v1, d) - math.exp(eps) * stats.chi2.sf(tau / v0, d))


def _check_p(p) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(p, dtype=float))
    if arr.ndim != 1 or arr.size < 1 or not np.all((arr >= 0) & (arr <= 1)):
        raise PrivcheckUsageError("p must be a non-empty list of sampling probabilities in [0, 1]")
    return arr


def neighbouring_pair(
    relation: str, p: Sequence[float], k: int, L: float, sigma: float, N0: float, grad_norm: float | None = None
) -> tuple[IsoMixture, IsoMixture]:
    """The output laws (P_D, P_D′) of y for the witness neighbouring pair of ``relation`` (module docstring).

    relation: "remove" (the paper's, Def. 2 / App. B: user k absent under D′) or "replace"
    (user k's gradient L e_1 → −L e_1); p: the K sampling probabilities; k: the user (0-based);
    L > 0: gradient norm bound; sigma > 0: artificial noise sd of every user; N0 ≥ 0: receiver
    noise variance; grad_norm ∈ [0, L]: ‖g_k‖ under "remove" (default L). Other users' gradients are 0.
    """
    if relation not in RELATIONS:
        raise PrivcheckUsageError(f"relation must be one of {', '.join(RELATIONS)}, got {relation!r}")
    arr = _check_p(p)
    k = check_int("k", k, minimum=0, maximum=arr.size - 1)
    L = check_positive("L", L)
    sigma = check_positive("sigma", sigma)
    N0 = check_nonnegative("N0", N0)
    m = L if grad_norm is None else check_nonnegative("grad_norm", grad_norm)
    if m > L:
        raise PrivcheckUsageError(f"grad_norm must be in [0, L] = [0, {L}], got {grad_norm!r}")
    pk = float(arr[k])
    pi = wl.participation_pmf(np.delete(arr, k))  # count of the other participants, r = 0..K−1
    r = np.arange(pi.size, dtype=float)
    s_r = r * sigma**2 + N0
    s_r1 = (r + 1) * sigma**2 + N0
    zero = np.zeros_like(r)
    if relation == "remove":
        Q = IsoMixture(pi, zero, s_r)
        P = IsoMixture(
            np.concatenate([(1 - pk) * pi, pk * pi]), np.concatenate([zero, zero + m]), np.concatenate([s_r, s_r1])
        )
    else:
        P = IsoMixture(
            np.concatenate([(1 - pk) * pi, pk * pi]), np.concatenate([zero, zero + L]), np.concatenate([s_r, s_r1])
        )
        Q = IsoMixture(
            np.concatenate([(1 - pk) * pi, pk * pi]), np.concatenate([zero, zero - L]), np.concatenate([s_r, s_r1])
        )
    return P, Q


@dataclass(frozen=True)
class ProfilePoint:
    """δ(ε) of one neighbouring pair of the mechanism, both directions, with error bounds."""

    relation: str
    eps: float
    d: int
    delta: float  # H_ε(P_D ‖ P_D′), the direction of eq. 12 / 28
    delta_error: float
    delta_reverse: float  # H_ε(P_D′ ‖ P_D)
    delta_reverse_error: float
    nodes: tuple[int, int]


def profile_delta(
    relation: str,
    p: Sequence[float],
    k: int,
    L: float,
    sigma: float,
    N0: float,
    d: int,
    eps: float,
    grad_norm: float | None = None,
    per_sd: float = 8.0,
) -> ProfilePoint:
    """Exact δ(ε) of the witness pair of ``relation`` (see :func:`neighbouring_pair`) in dimension d."""
    P, Q = neighbouring_pair(relation, p, k, L, sigma, N0, grad_norm)
    a = hockey_stick(P, Q, eps, d, per_sd=per_sd)
    b = hockey_stick(Q, P, eps, d, per_sd=per_sd)
    return ProfilePoint(relation, float(eps), int(d), a.delta, a.error_bound, b.delta, b.error_bound, a.nodes)


def profile_eps(
    relation: str,
    p: Sequence[float],
    k: int,
    L: float,
    sigma: float,
    N0: float,
    d: int,
    delta: float,
    grad_norm: float | None = None,
    both_directions: bool = False,
    eps_max: float = 60.0,
) -> float:
    """Smallest ε with δ(ε) ≤ δ for the witness pair: δ(ε) = H_ε(P_D ‖ P_D′) (eq. 12's direction), or
    the max over both directions with ``both_directions``. Brent's method on log δ(ε) (δ decreases
    in ε), to |Δε| ≤ 1e−6. Returns ``eps_max`` when δ(eps_max) > δ, and 0 when δ(0) ≤ δ.
    """
    from scipy import optimize

    delta = check_delta(delta, "delta")
    P, Q = neighbouring_pair(relation, p, k, L, sigma, N0, grad_norm)

    def g(e: float) -> float:
        v = hockey_stick(P, Q, e, d).delta
        if both_directions:
            v = max(v, hockey_stick(Q, P, e, d).delta)
        return math.log(max(v, 1e-300)) - math.log(delta)

    if g(0.0) <= 0:
        return 0.0
    if g(eps_max) > 0:
        return eps_max
    return float(optimize.brentq(g, 0.0, eps_max, xtol=1e-6, rtol=1e-8))


@dataclass(frozen=True)
class Thm1Comparison:
    """004 Thm 1's (ε_c, δ_c) (eq. 13) against the exact δ(ε_c) of the system model at one cell.

    true_delta: H_{ε_c}(P_D ‖ P_D′) for the paper's relation ("remove"), error its numerical error
    bound; violated: true_delta − error > δ_c. replace_*: the same for the "replace" relation from y
    alone, and the known-set value (:func:`accountants.wireless.local_exact_delta`).
    """

    K: int
    p: list[float]
    L: float
    sigma2: float
    N0: float
    d: int
    delta_prime: float
    delta_l: float
    eps_c: float
    delta_c: float
    true_delta: float
    error: float
    true_delta_reverse: float
    violated: bool
    replace_delta: float | None = None
    replace_delta_known_set: float | None = None
    notes: dict = field(default_factory=dict)


def compare_thm1(
    p: Sequence[float],
    L: float,
    sigma2: float,
    N0: float,
    d: int,
    delta_prime: float,
    delta_l: float,
    *,
    k: int | None = None,
    with_replace: bool = False,
) -> Thm1Comparison:
    """Evaluate Thm 1 (eq. 13, via :func:`accountants.wireless.central_nonuniform`) at one cell and the
    exact δ(ε_c) of the mechanism's witness pair under the paper's "remove" relation.

    p: K sampling probabilities (uniform p gives eq. 14); L, sigma2 = σ², N0 ≥ 0, d ≥ 1; δ′, δ_ℓ as in
    Thm 1 (δ′ must satisfy its validity range); k: the user removed (default: the one with max p_k,
    the user eq. 13 is written for); with_replace: also compute the "replace" relation.
    """
    arr = _check_p(p)
    sigma = math.sqrt(check_positive("sigma2", sigma2))
    c = wl.wireless_c(L, sigma, delta_l)
    g = wl.central_nonuniform(arr, c, delta_prime, delta_l)
    if k is None:
        k = int(np.argmax(arr))
    pt = profile_delta("remove", arr, k, L, sigma, N0, d, g.eps)
    rep = rep_known = None
    if with_replace:
        rep = profile_delta("replace", arr, k, L, sigma, N0, d, g.eps).delta
        rep_known = wl.local_exact_delta(arr, k, L, sigma, g.eps, N0)
    return Thm1Comparison(
        int(arr.size),
        arr.tolist() if arr.size <= 8 else [float(arr.min()), float(arr.max())],
        float(L),
        float(sigma2),
        float(N0),
        int(d),
        float(delta_prime),
        float(delta_l),
        g.eps,
        g.delta,
        pt.delta,
        pt.delta_error,
        pt.delta_reverse,
        bool(pt.delta - pt.delta_error > g.delta),
        rep,
        rep_known,
        {"c": c, "beta": g.beta, "nodes": pt.nodes},
    )
