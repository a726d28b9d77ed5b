"""Wireless aggregation with user sampling: the privacy bounds of paper 004.

Source: Seif, Chang & Tandon, "Privacy amplification for federated learning via user sampling
and wireless aggregation" (``004_cc7ee25c83388ef6.txt``). Notation: K users, user k participates
with probability p_k, μ_K = Σ_k p_k, c = (2L/σ_min) √(2 log(1.25/δ_ℓ)) (Thm 1),
β = √(0.5 log(2/δ′)) / √K (Thm 1 / Lemma 3).

- :func:`central_nonuniform` — Theorem 1, eq. 13, valid for δ′ ∈ (2e^{−2μ_K²/K}, 1) and μ_K > βK.
- :func:`central_uniform` — Corollary 1, eq. 14, valid for δ′ ∈ (2e^{−2p²K}, 1), i.e. p ∈ (β, 1].
- :func:`paper_popt` — Lemma 1, eq. 15: p* = min(1, 2β); :func:`optimal_p` — the true
  numerical minimiser of eq. 14 (Lemma 1 minimises a linearisation, eq. 38–40).
- :func:`lemma1_eps` — eq. 16 as printed.
- :func:`local_eps` — Lemma 2, eq. 17.
- :func:`total_eq18`, :func:`total_eq19`, :func:`total_delta_eq20` — heterogeneous totals over
  T iterations; :func:`total_time_invariant` — the DRV form of Sec. III-A.
- :func:`k_slope` — the K^{−3/4} scaling of eq. 16 (fitted slope with an interval).
- :data:`PRINTED_TABLES` / :func:`reproduce_tables` — Tables II and III, uniform-sampling cells.

Every validity condition the paper states raises :class:`PrivcheckUsageError`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from accountants.composition import drv_composition
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.validation import check_delta, check_int, check_positive, check_probability

__all__ = [
    "wireless_c",
    "hoeffding_beta",
    "CentralGuarantee",
    "central_nonuniform",
    "central_uniform",
    "paper_popt",
    "optimal_p",
    "OptimalP",
    "lemma1_eps",
    "LocalGuarantee",
    "local_eps",
    "total_eq18",
    "total_eq19",
    "total_delta_eq20",
    "total_time_invariant",
    "KSlope",
    "k_slope",
    "PRINTED_TABLES",
    "TableCell",
    "reproduce_tables",
    "participation_pmf",
    "local_exact_delta",
]


def wireless_c(L: float, sigma_min: float, delta_l: float) -> float:
    """c = (2L/σ_min) √(2 log(1.25/δ_ℓ)) (004 Thm 1). L > 0, sigma_min > 0, δ_ℓ ∈ (0, 1)."""
    L = check_positive("L", L)
    sigma_min = check_positive("sigma_min", sigma_min)
    delta_l = check_delta(delta_l, "delta_l")
    return 2.0 * L / sigma_min * math.sqrt(2.0 * math.log(1.25 / delta_l))


def hoeffding_beta(K: int, delta_prime: float) -> float:
    """β = √(0.5 log(2/δ′)) / √K (004 Thm 1, Lemma 3). K ≥ 1, δ′ ∈ (0, 1)."""
    K = check_int("K", K, minimum=1)
    delta_prime = check_delta(delta_prime, "delta_prime")
    return math.sqrt(0.5 * math.log(2.0 / delta_prime)) / math.sqrt(K)


def _log1p_exp_scaled(log_scale: float, g: float) -> float:
    """log(1 + e^{log_scale} (e^g − 1)) without overflow (g > 0)."""
    log_em1 = g + math.log(-math.expm1(-g)) if g > 0 else -math.inf
    return float(np.logaddexp(0.0, log_scale + log_em1))


@dataclass(frozen=True)
class CentralGuarantee:
    """Per-iteration central (ε_c, δ_c) of 004 eq. 13/14 with the quantities it was built from."""

    eps: float
    delta: float
    K: int
    mu_K: float
    beta: float
    p_max: float
    c: float
    delta_prime: float
    delta_l: float
    equation: str


def _check_probs(p) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(p, dtype=float))
    if arr.ndim != 1 or arr.size < 1:
        raise PrivcheckUsageError("p must be a non-empty list of sampling probabilities")
    if not np.all((arr >= 0) & (arr <= 1)):
        bad = arr[~((arr >= 0) & (arr <= 1))][0]
        raise PrivcheckUsageError(f"p_k must be a probability in [0, 1], got {float(bad)!r}")
    return arr


def _check_c_dl(c: float, delta_l: float) -> tuple[float, float]:
    return check_positive("c", c), check_delta(delta_l, "delta_l")


def central_nonuniform(p: Sequence[float], c: float, delta_prime: float, delta_l: float) -> CentralGuarantee:
    """Theorem 1 (eq. 13): ε_c = log[1 + max_k p_k/(1−δ′) (e^{c/√(μ_K − βK)} − 1)], δ_c = δ′ + max_k p_k δ_ℓ/(1−δ′).

    p: the K sampling probabilities p_k ∈ [0, 1]; c > 0; δ_ℓ ∈ (0, 1);
    δ′ must lie in (2e^{−2μ_K²/K}, 1) and μ_K > βK (the paper's validity conditions).
    """
    arr = _check_probs(p)
    K = arr.size
    c, delta_l = _check_c_dl(c, delta_l)
    delta_prime = check_delta(delta_prime, "delta_prime")
    mu = float(arr.sum())
    lo = 2.0 * math.exp(-2.0 * mu * mu / K)
    if not delta_prime > lo:
        raise PrivcheckUsageError(
            f"delta_prime must be in (2exp(-2 mu_K^2/K), 1) = ({lo:.6g}, 1) for mu_K={mu:g}, K={K}; got {delta_prime!r}"
        )
    beta = hoeffding_beta(K, delta_prime)
    gap = mu - beta * K
    if not gap > 0:
        raise PrivcheckUsageError(
            f"need mu_K > beta*K (mu_K={mu:g}, beta*K={beta * K:g}): raise the p_k or delta_prime"
        )
    pmax = float(arr.max())
    g = c / math.sqrt(gap)
    eps = _log1p_exp_scaled(math.log(pmax) - math.log1p(-delta_prime), g) if pmax > 0 else 0.0
    delta = delta_prime + pmax * delta_l / (1.0 - delta_prime)
    return CentralGuarantee(eps, delta, K, mu, beta, pmax, c, delta_prime, delta_l, "eq. 13")


def central_uniform(K: int, p: float, c: float, delta_prime: float, delta_l: float) -> CentralGuarantee:
    """Corollary 1 (eq. 14): ε_c = log[1 + p/(1−δ′) (e^{c/√(K(p−β))} − 1)], δ_c = δ′ + pδ_ℓ/(1−δ′).

    K ≥ 1; p ∈ (β, 1] (equivalently δ′ ∈ (2e^{−2p²K}, 1), the paper's condition); c > 0;
    δ′, δ_ℓ ∈ (0, 1).
    """
    K = check_int("K", K, minimum=1)
    p = check_probability("p", p, open_low=True)
    c, delta_l = _check_c_dl(c, delta_l)
    delta_prime = check_delta(delta_prime, "delta_prime")
    lo = 2.0 * math.exp(-2.0 * p * p * K)
    beta = hoeffding_beta(K, delta_prime)
    if not (delta_prime > lo and p > beta):
        raise PrivcheckUsageError(
            f"delta_prime must be in (2exp(-2p^2K), 1) = ({lo:.6g}, 1), i.e. p in (beta, 1] = ({beta:.6g}, 1]; "
            f"got p={p!r}, delta_prime={delta_prime!r}"
        )
    g = c / math.sqrt(K * (p - beta))
    eps = _log1p_exp_scaled(math.log(p) - math.log1p(-delta_prime), g)
    delta = delta_prime + p * delta_l / (1.0 - delta_prime)
    return CentralGuarantee(eps, delta, K, K * p, beta, p, c, delta_prime, delta_l, "eq. 14")


def paper_popt(K: int, delta_prime: float) -> float:
    """Lemma 1 (eq. 15): p* = min(1, 2β) = min(1, (2/√K) √(½ log(2/δ′)))."""
    return min(1.0, 2.0 * hoeffding_beta(K, delta_prime))


@dataclass(frozen=True)
class OptimalP:
    """The paper's p* (eq. 15) and the true minimiser of eq. 14, with ε_c at both."""

    p_paper: float
    eps_paper: float
    p_numeric: float
    eps_numeric: float
    beta: float

    @property
    def excess(self) -> float:
        """Relative excess of ε_c at the paper's p* over the true minimum."""
        return self.eps_paper / self.eps_numeric - 1.0


def optimal_p(K: int, c: float, delta_prime: float, delta_l: float) -> OptimalP:
    """Minimise eq. 14 over p ∈ (β, 1] numerically and report it next to the paper's p* (Lemma 1).

    Search: a log-spaced grid of p − β on (0, 1 − β], then bounded Brent refinement around the
    best grid point; the endpoint p = 1 is always considered.
    """
    K = check_int("K", K, minimum=1)
    c, delta_l = _check_c_dl(c, delta_l)
    beta = hoeffding_beta(K, delta_prime)
    if beta >= 1:
        raise PrivcheckUsageError(f"beta = {beta:.4g} >= 1: no valid p for K={K}, delta_prime={delta_prime}")

    def f(p: float) -> float:
        return central_uniform(K, min(p, 1.0), c, delta_prime, delta_l).eps

    width = 1.0 - beta
    xs = beta + width * np.logspace(-9, 0, 400)
    xs[-1] = 1.0
    vals = np.array([f(x) for x in xs])
    i = int(np.argmin(vals))
    best_p, best_v = float(xs[i]), float(vals[i])
    if 0 < i < xs.size - 1:
        from scipy import optimize

        res = optimize.minimize_scalar(
            f,
            bounds=(float(xs[i - 1]), float(xs[i + 1])),
            method="bounded",
            options={"xatol": 1e-13 * max(1.0, float(xs[i]))},
        )
        if res.fun <= best_v:
            best_p, best_v = float(res.x), float(res.fun)
    pp = paper_popt(K, delta_prime)
    return OptimalP(pp, f(pp), best_p, best_v, beta)


def lemma1_eps(K: int, c: float, delta_prime: float) -> float:
    """eq. 16 as printed: log[ 2√(½log(2/δ′)) / (√K (1−δ′)) (e^{c / (K ½ log(2/δ′))^{1/4}} − 1) + 1 ]."""
    K = check_int("K", K, minimum=1)
    c = check_positive("c", c)
    delta_prime = check_delta(delta_prime, "delta_prime")
    a = math.sqrt(0.5 * math.log(2.0 / delta_prime))
    g = c / (K * 0.5 * math.log(2.0 / delta_prime)) ** 0.25
    return _log1p_exp_scaled(math.log(2.0 * a) - 0.5 * math.log(K) - math.log1p(-delta_prime), g)


@dataclass(frozen=True)
class LocalGuarantee:
    """Lemma 2 (eq. 17): local (ε_ℓ, δ) of user k per iteration."""

    eps: float
    delta: float
    kappa: float
    k: int


def local_eps(p: Sequence[float], k: int, c: float, delta_prime: float, delta_l: float) -> LocalGuarantee:
    """Lemma 2: ε_ℓ ≤ c/√(1 + κ), κ = Σ_{i≠k} p_i − βK, with δ = p_k(δ_ℓ + δ′).

    p: the K sampling probabilities; k: the user (0-based index); requires 1 + κ > 0.
    """
    arr = _check_probs(p)
    K = arr.size
    k = check_int("k", k, minimum=0, maximum=K - 1)
    c, delta_l = _check_c_dl(c, delta_l)
    beta = hoeffding_beta(K, delta_prime)
    kappa = float(arr.sum() - arr[k]) - beta * K
    if not 1 + kappa > 0:
        raise PrivcheckUsageError(
            f"Lemma 2 needs 1 + kappa > 0, got kappa = {kappa:.6g} (raise the p_i or delta_prime)"
        )
    return LocalGuarantee(c / math.sqrt(1.0 + kappa), float(arr[k]) * (delta_l + delta_prime), kappa, k)


def total_eq18(eps_per_iteration: Sequence[float], delta_tilde: float) -> float:
    """eq. 18: Σ_t (e^{ε_t} − 1) ε_t/(e^{ε_t} + 1) + √(2 log(1/δ̃) Σ_t ε_t²) (KOV, heterogeneous)."""
    e = np.atleast_1d(np.asarray(eps_per_iteration, dtype=float))
    if e.size == 0 or np.any(~np.isfinite(e)) or np.any(e < 0):
        raise PrivcheckUsageError("eps_per_iteration must be finite numbers >= 0")
    dt = check_delta(delta_tilde, "delta_tilde")
    return float(np.sum(e * np.tanh(e / 2.0)) + math.sqrt(2.0 * math.log(1.0 / dt) * float(np.sum(e * e))))


def total_eq19(p_matrix: Sequence[Sequence[float]], c: float, delta_prime: float, delta_tilde: float) -> float:
    """eq. 19 (upper bound on eq. 18): with x = e^{c/√(min_t μ_t − βK)} − 1 and P = Σ_t (max_k p_{k,t})²,
    x² P / (2(1−δ′)²) + √(2 log(1/δ̃)) x √P / (1−δ′).

    p_matrix: T rows of K sampling probabilities.
    """
    P = np.atleast_2d(np.asarray(p_matrix, dtype=float))
    T, K = P.shape
    c = check_positive("c", c)
    dt = check_delta(delta_tilde, "delta_tilde")
    beta = hoeffding_beta(K, delta_prime)
    gap = float(P.sum(axis=1).min()) - beta * K
    if not gap > 0:
        raise PrivcheckUsageError(f"need min_t mu_t > beta*K, got gap {gap:.6g}")
    x = math.expm1(c / math.sqrt(gap))
    s = float(np.sum(P.max(axis=1) ** 2))
    return x * x * s / (2 * (1 - delta_prime) ** 2) + math.sqrt(2 * math.log(1 / dt)) * x * math.sqrt(s) / (
        1 - delta_prime
    )


def total_delta_eq20(delta_per_iteration: Sequence[float], delta_tilde: float) -> float:
    """eq. 20: δ_c^(T) = 1 − (1 − δ̃) Π_t (1 − δ_{c,t})."""
    d = np.atleast_1d(np.asarray(delta_per_iteration, dtype=float))
    for v in d:
        check_delta(v, "delta_c", allow_zero=True)
    dt = check_delta(delta_tilde, "delta_tilde")
    return float(-math.expm1(math.log1p(-dt) + float(np.sum(np.log1p(-d)))))


def total_time_invariant(eps_c: float, delta_c: float, steps: int, delta_tilde: float) -> tuple[float, float]:
    """Sec. III-A time-invariant total (DRV): (√(2T log(1/δ̃)) ε_c + T ε_c (e^{ε_c} − 1), T δ_c + δ̃)."""
    r = drv_composition(eps_c, steps, delta_tilde, delta_c)
    return r.eps, r.delta


@dataclass(frozen=True)
class KSlope:
    """Fit of log ε_c (eq. 16) against log K."""

    slope: float
    interval: tuple[float, float]
    confidence: float
    asymptotic_slope: float
    Ks: list[float]
    eps: list[float]
    residual_sd: float


def k_slope(
    c: float, delta_prime: float, K_min: float = 1e3, K_max: float = 1e8, points: int = 26, confidence: float = 0.95
) -> KSlope:
    """Slope of log ε_c(K) from eq. 16 over K ∈ [K_min, K_max] (log-spaced), OLS with a t-interval,
    and the local slope over the top decade (K_max/10 … K_max) as the asymptotic value.

    The paper (Lemma 1) claims ε_c = O(K^{−3/4}).
    """
    Ks = np.unique(np.round(np.logspace(math.log10(K_min), math.log10(K_max), points)))
    eps = np.array([lemma1_eps(int(k), c, delta_prime) for k in Ks])
    x, y = np.log(Ks), np.log(eps)
    from scipy import stats

    fit = stats.linregress(x, y)
    tq = stats.t.ppf(0.5 + confidence / 2, Ks.size - 2)
    resid = y - (fit.intercept + fit.slope * x)
    top = (
        math.log(lemma1_eps(int(K_max), c, delta_prime)) - math.log(lemma1_eps(int(K_max / 10), c, delta_prime))
    ) / math.log(10)
    return KSlope(
        float(fit.slope),
        (float(fit.slope - tq * fit.stderr), float(fit.slope + tq * fit.stderr)),
        confidence,
        float(top),
        Ks.tolist(),
        eps.tolist(),
        float(np.std(resid, ddof=2)),
    )


# Tables II and III of 004 (Sec. IV): K = 200, δ_ℓ = 1e-5, δ′ = 2e^{-2μ_K²/K} + 1e-5, μ_K = Kp.
# Printed values for the uniform-sampling columns (p = 0.3, p = 0.9).
PRINTED_TABLES: list[dict] = [
    {"table": "II(a)", "sigma2": 0.1, "L": 1.0, "T": 400, "p": 0.3, "eps_l": 5.124, "eps_c": 5.61},
    {"table": "II(a)", "sigma2": 0.1, "L": 1.0, "T": 400, "p": 0.9, "eps_l": 2.46, "eps_c": 3.132},
    {"table": "II(b)", "sigma2": 0.1, "L": 0.1, "T": 2500, "p": 0.3, "eps_l": 0.5124, "eps_c": 0.2258},
    {"table": "II(b)", "sigma2": 0.1, "L": 0.1, "T": 2500, "p": 0.9, "eps_l": 0.2460, "eps_c": 0.2317},
    {"table": "III(a)", "sigma2": 0.8, "L": 1.0, "T": None, "p": 0.3, "eps_l": 2.084, "eps_c": 1.653},
    {"table": "III(a)", "sigma2": 0.8, "L": 1.0, "T": None, "p": 0.9, "eps_l": 0.8953, "eps_c": 1.487},
    {"table": "III(b)", "sigma2": 0.8, "L": 0.2, "T": None, "p": 0.3, "eps_l": 0.4169, "eps_c": 0.1505},
    {"table": "III(b)", "sigma2": 0.8, "L": 0.2, "T": None, "p": 0.9, "eps_l": 0.1791, "eps_c": 0.1633},
]
TABLE_K = 200
TABLE_DELTA_L = 1e-5


def _printed_tolerance(value: float) -> float:
    """Half a unit in the last printed significant digit (values are printed to 3–4 digits)."""
    s = f"{value:.4g}"
    if "." in s:
        decimals = len(s.split(".")[1])
    else:
        decimals = 0
    return 0.5 * 10 ** (-decimals)


@dataclass(frozen=True)
class TableCell:
    """One uniform-sampling cell of Tables II/III: printed vs computed (eq. 14 and Lemma 2)."""

    table: str
    p: float
    L: float
    sigma2: float
    c: float
    delta_prime: float
    eps_c_printed: float
    eps_c_computed: float
    eps_c_reproduced: bool
    eps_l_printed: float
    eps_l_computed: float
    eps_l_reproduced: bool
    notes: dict = field(default_factory=dict)


def reproduce_tables() -> list[TableCell]:
    """Recompute every uniform-sampling cell of Tables II–III from eq. 14 (ε_c) and Lemma 2 (ε_ℓ),
    with the paper's stated parameters (K = 200, δ_ℓ = 1e-5, δ′ = 2e^{−2μ_K²/K} + 1e-5,
    σ_min = √σ², L as captioned). A cell reproduces when it matches to half a unit in the last
    printed digit.
    """
    out = []
    for row in PRINTED_TABLES:
        p, K = row["p"], TABLE_K
        mu = K * p
        dprime = 2 * math.exp(-2 * mu * mu / K) + 1e-5
        c = wireless_c(row["L"], math.sqrt(row["sigma2"]), TABLE_DELTA_L)
        ec = central_uniform(K, p, c, dprime, TABLE_DELTA_L).eps
        el = local_eps([p] * K, 0, c, dprime, TABLE_DELTA_L).eps
        out.append(
            TableCell(
                row["table"],
                p,
                row["L"],
                row["sigma2"],
                c,
                dprime,
                row["eps_c"],
                ec,
                abs(ec - row["eps_c"]) <= _printed_tolerance(row["eps_c"]),
                row["eps_l"],
                el,
                abs(el - row["eps_l"]) <= _printed_tolerance(row["eps_l"]),
            )
        )
    return out


def participation_pmf(p: Sequence[float]) -> np.ndarray:
    """Exact pmf of the number of participants (Poisson-binomial) for probabilities p (O(K²) convolution)."""
    arr = np.atleast_1d(np.asarray(p, dtype=float))
    pmf = np.zeros(arr.size + 1)
    pmf[0] = 1.0
    for i, pi in enumerate(arr):
        pmf[1 : i + 2] = pmf[1 : i + 2] * (1 - pi) + pmf[0 : i + 1] * pi
        pmf[0] *= 1 - pi
    return pmf


def local_exact_delta(p: Sequence[float], k: int, L: float, sigma: float, eps: float, N0: float = 0.0) -> float:
    """Exact δ(ε) of user k's participation in one iteration, seen by a PS that knows who took part.

    With r other participants the PS sees user k's gradient (sensitivity 2L after channel
    inversion, 004 eq. 43) under Gaussian noise of variance (r+1)σ² + N0, so
    δ(ε) = p_k Σ_r P(r) δ_GDP(2L/√((r+1)σ² + N0), ε). A PS that does not know the set sees a
    post-processing of this, so this is an upper bound there. N0 = 0 is the worst case.
    """
    from accountants.gdp import gdp_delta

    arr = _check_probs(p)
    k = check_int("k", k, minimum=0, maximum=arr.size - 1)
    L = check_positive("L", L)
    sigma = check_positive("sigma", sigma)
    others = np.delete(arr, k)
    pmf = participation_pmf(others)
    r = np.arange(pmf.size)
    keep = pmf > 1e-300
    mus = 2 * L / np.sqrt((r[keep] + 1) * sigma**2 + N0)
    ds = np.array([gdp_delta(float(m), eps) for m in mus])
    return float(arr[k] * np.sum(pmf[keep] * ds))
