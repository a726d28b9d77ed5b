"""Wireless over-the-air aggregation with user sampling — 004 (Seif, Chang, Tandon), Sec. II.

K users hold local gradients g_k (‖g_k‖ ≤ L); user k participates w.p. p_k
(eq. 6), adds artificial noise n_k ~ N(0, σ_k² I) and pre-scales by α_k with
channel inversion h_k α_k = 1 (eq. 8); the server receives
y = Σ_{k∈K} h_k α_k (g_k + n_k) + m, m ~ N(0, N0 I) (eq. 7), and estimates the
target g = Σ_k D_k g_k / Σ_k D_k (eq. 5) by

- eq. 10 (|K| unknown): ĝ = y/μ_K, μ_K = Σ_k p_k;
- eq.  9 (|K| known):   ĝ = y/(ζ|K|), ζ = 1 − Π_k(1 − p_k); undefined when
  nobody participates (|K| = 0): ``empty`` chooses the convention.

Simulation (:func:`draw`) is vectorised over replicates: the participation
mask and the channels are drawn per replicate and user; the total noise
Σ_{k∈K} h_kα_k n_k + m is, given the mask and channels, Gaussian with variance
Σ_{k∈K}(h_kα_k)²σ_k² + N0 per coordinate and is drawn as such (exact in
distribution). Exact moments: :func:`exact_moments_eq10` (closed form) and
:func:`exact_moments_eq9` (enumeration of all participant sets, K ≤ 16).
Taylor approximations of eq. 24–25: :func:`inverse_moments_exact`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_int, check_nonnegative, check_probability

SOURCE = "004_cc7ee25c83388ef6.txt"


@dataclass(frozen=True)
class WirelessSetup:
    """One iteration of 004's wireless FedSGD.

    grads: (K, d) local gradients (their means when ``iid_sd`` > 0); D: (K,)
    local dataset sizes (> 0); p: (K,) participation probabilities in (0, 1];
    sigma: (K,) artificial noise standard deviations (≥ 0); N0: receiver noise
    variance (≥ 0); iid_sd: if > 0, each replicate draws g_k = grads_k + ξ_k,
    ξ_k ~ N(0, iid_sd² I) (i.i.d. local SGD noise, as App. E assumes);
    channel: 'rayleigh' (|h| Rayleigh(1)) or 'unit'.
    """

    grads: np.ndarray
    D: np.ndarray
    p: np.ndarray
    sigma: np.ndarray
    N0: float = 0.0
    iid_sd: float = 0.0
    channel: str = "rayleigh"

    @property
    def K(self) -> int:
        return int(self.grads.shape[0])

    @property
    def d(self) -> int:
        return int(self.grads.shape[1])

    @property
    def mu(self) -> float:
        """μ_K = Σ p_k (eq. 10)."""
        return float(self.p.sum())

    @property
    def zeta(self) -> float:
        """ζ = 1 − Π(1 − p_k) (eq. 9) = P(|K| ≥ 1)."""
        return float(1.0 - np.prod(1.0 - self.p))

    @property
    def target(self) -> np.ndarray:
        """g_t of eq. 5: Σ D_k g_k / Σ D_k (the mean gradients when iid_sd > 0)."""
        return (self.D[:, None] * self.grads).sum(axis=0) / self.D.sum()


def setup(grads, D, p, sigma, N0: float = 0.0, iid_sd: float = 0.0, channel: str = "rayleigh") -> WirelessSetup:
    """Validated :class:`WirelessSetup` (one-line errors naming the bad parameter)."""
    g = np.asarray(grads, dtype=float)
    if g.ndim != 2 or g.shape[0] < 1 or not np.all(np.isfinite(g)):
        raise PrivcheckUsageError("grads must be a finite (K, d) array with K >= 1")
    K = g.shape[0]

    def vec(name, v):
        a = np.broadcast_to(np.asarray(v, dtype=float), (K,)).copy()
        if not np.all(np.isfinite(a)):
            raise PrivcheckUsageError(f"{name} must be finite")
        return a

    Dv, pv, sv = vec("D", D), vec("p", p), vec("sigma", sigma)
    if np.any(Dv <= 0):
        raise PrivcheckUsageError("D (dataset sizes) must be > 0")
    for x in pv:
        check_probability("p_k", x, open_low=True)
    if np.any(sv < 0):
        raise PrivcheckUsageError("sigma must be >= 0")
    if channel not in ("rayleigh", "unit"):
        raise PrivcheckUsageError(f"channel must be 'rayleigh' or 'unit', got {channel!r}")
    return WirelessSetup(g, Dv, pv, sv, check_nonnegative("N0", N0), check_nonnegative("iid_sd", iid_sd), channel)


def draw(s: WirelessSetup, rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(mask (size, K) bool, y (size, d)) for ``size`` replicates of one iteration (eq. 6–8)."""
    mask = rng.random((size, s.K)) < s.p
    if s.channel == "rayleigh":
        h = rng.rayleigh(1.0, (size, s.K))
    else:
        h = np.ones((size, s.K))
    alpha = 1.0 / h  # channel inversion, eq. 8
    eff = mask * (h * alpha)  # h_k α_k for participants, 0 otherwise
    if s.iid_sd > 0:
        g = s.grads[None, :, :] + s.iid_sd * rng.standard_normal((size, s.K, s.d))
        signal = np.einsum("rk,rkd->rd", eff, g)
    else:
        signal = eff @ s.grads
    noise_var = (eff**2) @ (s.sigma**2) + s.N0
    y = signal + np.sqrt(noise_var)[:, None] * rng.standard_normal((size, s.d))
    return mask, y


def estimate_eq10(s: WirelessSetup, obs) -> np.ndarray:
    """ĝ = y/μ_K — 004 eq. 10 (the participant set is unknown to the server)."""
    _, y = obs
    return y / s.mu


def estimate_eq9(s: WirelessSetup, obs, empty: str = "zero") -> np.ndarray:
    """ĝ = y/(ζ|K|) — 004 eq. 9 (the participant set is known).

    empty: convention when |K| = 0 (the formula divides by zero): 'zero'
    (the server outputs 0) or 'nan' (left undefined; the checker then refuses
    to summarise and reports how often it happened).
    """
    mask, y = obs
    cnt = mask.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = y / (s.zeta * cnt[:, None])
    if empty == "zero":
        out[cnt == 0] = 0.0
    elif empty == "nan":
        out[cnt == 0] = np.nan
    else:
        raise PrivcheckUsageError(f"empty must be 'zero' or 'nan', got {empty!r}")
    return out


def exact_moments_eq10(s: WirelessSetup) -> tuple[np.ndarray, np.ndarray]:
    """Exact per-coordinate (mean, variance) of eq. 10 (perfect channel inversion)."""
    mean = (s.p[:, None] * s.grads).sum(axis=0) / s.mu
    var = ((s.p * (1 - s.p))[:, None] * s.grads**2).sum(axis=0)
    var = var + (s.p * (s.sigma**2 + s.iid_sd**2)).sum() + s.N0
    return mean, var / s.mu**2


def _subsets(K: int) -> np.ndarray:
    return np.array(list(itertools.product([0, 1], repeat=K)), dtype=bool)


def exact_moments_eq9(s: WirelessSetup, empty: str = "zero") -> tuple[np.ndarray, np.ndarray, float]:
    """Exact per-coordinate (mean, variance) of eq. 9 with ĝ = 0 on |K| = 0, and P(|K| = 0).

    Enumerates all 2^K participant sets (K ≤ 16): given the set A ≠ ∅ the
    estimate is Gaussian with mean Σ_{k∈A} g_k/(ζ|A|) and variance
    (Σ_{k∈A}(σ_k² + iid_sd²) + N0)/(ζ|A|)².
    """
    if empty != "zero":
        raise PrivcheckUsageError(
            "exact moments exist only with the 'zero' convention (else the estimator is undefined)"
        )
    check_int("K", s.K, maximum=16)
    A = _subsets(s.K)
    prob = np.prod(np.where(A, s.p, 1 - s.p), axis=1)
    cnt = A.sum(axis=1)
    nz = cnt > 0
    scale = np.zeros(len(A))
    scale[nz] = 1.0 / (s.zeta * cnt[nz])
    m_A = (A.astype(float) @ s.grads) * scale[:, None]
    v_A = ((A.astype(float) @ (s.sigma**2 + s.iid_sd**2)) + s.N0) * scale**2
    v_A[~nz] = 0.0
    mean = prob @ m_A
    second = prob @ (m_A**2 + v_A[:, None])
    return mean, second - mean**2, float(prob[~nz].sum())


def count_pmf(p) -> np.ndarray:
    """P(|K| = j), j = 0..K, for independent participation probabilities p (Poisson binomial, exact DP)."""
    p = np.asarray(p, dtype=float)
    pmf = np.zeros(p.size + 1)
    pmf[0] = 1.0
    for pk in p:
        pmf[1:] = pmf[1:] * (1 - pk) + pmf[:-1] * pk
        pmf[0] *= 1 - pk
    return pmf


@dataclass(frozen=True)
class InverseMoments:
    """E[1/|K|] and E[1/|K|²] given |K| ≥ 1 (exact) against eq. 24–25 and the first-order 1/μ, 1/μ²."""

    mu: float
    var: float
    p_empty: float
    e_inv: float
    e_inv2: float
    taylor_inv: float
    taylor_inv2: float

    @property
    def rel_err_inv(self) -> float:
        return abs(self.taylor_inv - self.e_inv) / self.e_inv

    @property
    def rel_err_inv2(self) -> float:
        return abs(self.taylor_inv2 - self.e_inv2) / self.e_inv2


def taylor_inverse(mu: float, var: float) -> tuple[float, float]:
    """004 eq. 24–25: E[1/|K|] ≈ 1/μ + σ²/μ³, E[1/|K|²] ≈ 1/μ² + 3σ²/μ⁴."""
    return 1 / mu + var / mu**3, 1 / mu**2 + 3 * var / mu**4


def inverse_moments_exact(p) -> InverseMoments:
    """Exact E[1/|K| | |K| ≥ 1] and E[1/|K|² | |K| ≥ 1] (Poisson binomial) with eq. 24–25 beside them."""
    p = np.asarray(p, dtype=float)
    pmf = count_pmf(p)
    j = np.arange(1, p.size + 1)
    tail = pmf[1:].sum()
    mu = float(p.sum())
    var = float((p * (1 - p)).sum())
    t1, t2 = taylor_inverse(mu, var)
    return InverseMoments(
        mu, var, float(pmf[0]), float((pmf[1:] / j).sum() / tail), float((pmf[1:] / j**2).sum() / tail), t1, t2
    )
