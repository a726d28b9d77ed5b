"""Binary threshold rules: Clopper–Pearson ε bounds (Nasr et al. 2021) and μ-GDP fits (Nasr et al. 2023).

Design: every score comes from its own training run (or its own independent draw), n_in scores
of runs with the canary and n_out without. For the rule "in when score ≥ t" the false positives
FP(t) ~ Bin(n_out, FPR(t)) and false negatives FN(t) ~ Bin(n_in, FNR(t)).

Bounds (certified Clopper–Pearson upper limits, :func:`privcheck.base.stats.clopper_pearson`):

- ε (Nasr, Song, Thakurta, Papernot & Carlini 2021, "Adversary instantiation", Sect. 4.1): an
  (ε, δ)-DP training run has FPR + e^ε·FNR ≥ 1 − δ and FNR + e^ε·FPR ≥ 1 − δ, so
  ε ≥ max(log((1 − δ − FNR_u)/FPR_u), log((1 − δ − FPR_u)/FNR_u));
- μ (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis 2023, "Tight auditing of
  DP-SGD", Sect. 3; Dong, Roth & Su 2022 eq. 6): a μ-GDP run has FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ), so
  μ ≥ Φ⁻¹(1 − FPR_u) − Φ⁻¹(FNR_u) (a negative value is no evidence: reported as 0, never folded
  to its absolute value — the reverse rule is bounded separately, on the negated scores);
- a curve claim f (symmetric): refuted when FNR_u < f(FPR_u) or FPR_u < f(FNR_u).

Multiplicity (``thresholds="bonferroni"``): the bounds are made simultaneous over *every*
threshold t at once by correcting over every count value: an upper limit U(k) is exceeded by the
true rate at some t with FP(t) = k only if the count at one fixed population threshold is ≤ k,
an event of probability ≤ α_e; so α_e = α / (D·(n_in + n_out + 2)) with D directions makes all
bounds at all thresholds hold together with probability ≥ 1 − α (jax_privacy divides by the number
of thresholds it keeps after a label-dependent hull pruning instead). The maximising threshold is
searched in floats (scipy) on a grid of counts and refined locally, and only the best few are
certified; skipping a threshold can only lower the result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from privcheck.base.stats import clopper_pearson
from privcheck.canaries.numeric import down, mp_down, z_lower

__all__ = ["BinaryChoice", "binary_counts", "certify_point", "approx_upper", "best_binary", "eps_formula_mp"]

_GRID_RATIO = 1.05
_DENSE = 4096  # with at most this many thresholds all of them are ranked
_CERTIFY_TOP = 3


@dataclass(frozen=True)
class BinaryChoice:
    """One certified binary rule: direction (+1 forward, −1 reverse), threshold (on the direction's scores),
    counts, certified rate upper limits, and the ε and μ they give (−inf / 0 when no evidence)."""

    direction: int
    threshold: float
    fp: int
    fn: int
    n_in: int
    n_out: int
    alpha_each: float
    fpr_upper: float
    fnr_upper: float
    eps: float
    mu: float

    def to_dict(self) -> dict:
        """JSON-ready fields (threshold on the original score scale)."""
        return {
            "direction": "forward (in when score >= t)" if self.direction > 0 else "reverse (in when score <= t)",
            "threshold": self.threshold * self.direction,
            "false_positives": self.fp,
            "false_negatives": self.fn,
            "n_in": self.n_in,
            "n_out": self.n_out,
            "alpha_per_bound": self.alpha_each,
            "fpr_upper": self.fpr_upper,
            "fnr_upper": self.fnr_upper,
        }


def binary_counts(s_in: np.ndarray, s_out: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(thresholds, FP, FN) for every distinct threshold (the pooled scores and +inf), rule score ≥ t.

    One sort of the pooled scores: FN(t) = #in below t, FP(t) = #out at or above t."""
    vals = np.concatenate([s_in, s_out])
    order = np.argsort(vals)  # ties need no order: counts are taken before each group of equal values
    v = vals[order]
    is_in = order < s_in.size
    first = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    below_in = np.concatenate([[0], np.cumsum(is_in)])[first]
    fn = np.r_[below_in, s_in.size]
    fp = np.r_[s_out.size - (first - below_in), 0]
    return np.r_[v[first], np.inf], fp, fn


def approx_upper(k: np.ndarray, n: int, a: float) -> np.ndarray:
    """Clopper–Pearson upper limits in floats (scipy) — for ranking only."""
    from scipy.special import betaincinv

    k = np.asarray(k, dtype=float)
    out = np.ones(k.shape)
    m = k < n
    out[m] = betaincinv(k[m] + 1.0, n - k[m], 1.0 - a)
    return out


def _objective(fpr_u: np.ndarray, fnr_u: np.ndarray, delta: float, want: str) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        if want == "gdp":
            from scipy.special import ndtri

            return -ndtri(fpr_u) - ndtri(fnr_u)
        e1 = np.log(np.maximum(1.0 - delta - fnr_u, 0.0)) - np.log(fpr_u)
        e2 = np.log(np.maximum(1.0 - delta - fpr_u, 0.0)) - np.log(fnr_u)
        return np.maximum(e1, e2)


def _rank_indices(fp: np.ndarray, fn: np.ndarray) -> np.ndarray:
    """Threshold indices to rank: all when few, else those whose FP or FN count lies on a geometric grid."""
    if fp.size <= _DENSE:
        return np.arange(fp.size)
    top = int(max(fp.max(), fn.max()))
    grid, k = [], 1.0
    while k <= top:
        grid.append(int(k))
        k = max(k * _GRID_RATIO, k + 1.0)
    grid = np.asarray([0] + grid)
    keep = np.isin(fp, grid) | np.isin(fn, grid)
    keep[[0, -1]] = True
    return np.flatnonzero(keep)


def eps_formula_mp(fpr_u: float, fnr_u: float, delta: float):
    """Nasr et al. (2021) ε from rate upper limits, in mpmath (−inf when neither inequality has evidence)."""
    with mpmath.workdps(40):
        a, b, d = mpmath.mpf(fpr_u), mpmath.mpf(fnr_u), mpmath.mpf(delta)
        vals = []
        if 1 - d - b > 0 and a > 0:
            vals.append(mpmath.log((1 - d - b) / a))
        if 1 - d - a > 0 and b > 0:
            vals.append(mpmath.log((1 - d - a) / b))
        return max(vals) if vals else mpmath.mpf("-inf")


def certify_point(direction, t, fp, fn, n_in, n_out, a_each, delta) -> BinaryChoice:
    """Certified rate limits at one rule and the ε (rounded down) and μ (rounded down) they give."""
    fpr_u = float(clopper_pearson(int(fp), n_out, a_each, "upper"))
    fnr_u = float(clopper_pearson(int(fn), n_in, a_each, "upper"))
    eps = mp_down(eps_formula_mp(fpr_u, fnr_u, delta))
    mu = -math.inf
    if 0.0 < fpr_u < 1.0 and 0.0 < fnr_u < 1.0:
        mu = down(z_lower(fpr_u) + z_lower(fnr_u), 1)
    return BinaryChoice(int(direction), float(t), int(fp), int(fn), n_in, n_out, a_each, fpr_u, fnr_u, eps, mu)


def _direction_candidates(counts, n_in, n_out, a_each, delta, want):
    """(thresholds, FP, FN) of the thresholds worth certifying in one direction (``counts`` from binary_counts)."""
    thr, fp, fn = counts
    idx = _rank_indices(fp, fn)
    fpr_all = approx_upper(fp[idx], n_out, a_each)
    fnr_all = approx_upper(fn[idx], n_in, a_each)
    obj = np.nan_to_num(_objective(fpr_all, fnr_all, delta, want), nan=-np.inf)
    top = idx[np.argsort(-obj)[:_CERTIFY_TOP]]
    while idx.size < thr.size:  # refine between the neighbours of the best, 128 evenly spaced points at a time
        best = int(np.argmax(obj))
        lo, hi = idx[max(best - 1, 0)], idx[min(best + 1, idx.size - 1)]
        idx = np.unique(np.linspace(lo, hi, 129).astype(int))
        obj = _objective(approx_upper(fp[idx], n_out, a_each), approx_upper(fn[idx], n_in, a_each), delta, want)
        obj = np.nan_to_num(obj, nan=-np.inf)
        top = np.unique(np.r_[top, idx[np.argsort(-obj)[:_CERTIFY_TOP]]])
        if hi - lo <= 128:
            break
    return thr[top], fp[top], fn[top]


def direction_counts(s_in, s_out, dirs) -> dict:
    """{direction: (thresholds, FP, FN)} for the forward (+1) and reverse (−1, on negated scores) rules.

    The reverse counts come from the same sort: "in when s ≤ w_j" has FP' = n_out − FP_{j+1} and
    FN' = n_in − FN_{j+1} (the forward counts at the next distinct value)."""
    thr, fp, fn = binary_counts(s_in, s_out)
    out = {1: (thr, fp, fn)}
    if -1 in dirs:
        w = thr[:-1]
        out[-1] = (
            np.r_[-w[::-1], np.inf],
            np.r_[(s_out.size - fp[1:])[::-1], 0],
            np.r_[(s_in.size - fn[1:])[::-1], s_in.size],
        )
    return {d: out[d] for d in dirs}


def best_binary(s_in, s_out, a_each: float, delta: float, dirs, want: str, counts=None) -> BinaryChoice | None:
    """The certified binary rule maximising ε (``want="cp"``) or μ (``"gdp"``) over the directions."""
    counts = counts or direction_counts(s_in, s_out, dirs)
    best: BinaryChoice | None = None
    for d in dirs:
        for t, fp, fn in zip(*_direction_candidates(counts[d], s_in.size, s_out.size, a_each, delta, want)):
            ch = certify_point(d, t, fp, fn, s_in.size, s_out.size, a_each, delta)
            key = ch.mu if want == "gdp" else ch.eps
            if best is None or key > (best.mu if want == "gdp" else best.eps):
                best = ch
    return best


def curve_violation(s_in, s_out, a_each: float, dirs, f_lower, counts=None) -> tuple[float, BinaryChoice | None]:
    """The largest certified margin f_lo(FPR_u) − FNR_u (or mirrored) over thresholds: > 0 refutes the curve.

    ``f_lower(x)``: a certified lower bound on the claimed symmetric trade-off curve, vectorised."""
    counts = counts or direction_counts(s_in, s_out, dirs)
    best, where = -math.inf, None
    for d in dirs:
        a, b = (s_in, s_out) if d > 0 else (-s_in, -s_out)
        thr, fp, fn = counts[d]
        idx = _rank_indices(fp, fn)
        fpr_u = approx_upper(fp[idx], b.size, a_each)
        fnr_u = approx_upper(fn[idx], a.size, a_each)
        margin = np.maximum(f_lower(fpr_u) - fnr_u, f_lower(fnr_u) - fpr_u)
        for j in idx[np.argsort(-margin)[:_CERTIFY_TOP]]:
            ch = certify_point(d, thr[j], fp[j], fn[j], a.size, b.size, a_each, 0.0)
            x = np.array([ch.fpr_upper, ch.fnr_upper])
            f = f_lower(x)
            m = max(f[0] - ch.fnr_upper, f[1] - ch.fpr_upper)
            if m > best:
                best, where = m, ch
    return best, where
