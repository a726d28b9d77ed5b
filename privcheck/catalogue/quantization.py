"""Checks of the built-in catalogue: sqSGD quantiser and PrivQuant exact checks (001, eq. 5–6, Alg. 1, Thm 1, Sec. 4).

- ``sqsgd.privquant.unbiased`` [exact]: E[Z] by enumerating every output for small d, K
  in rational arithmetic, against X̂ (grid inputs) and against X (with the printed
  quantiser of eq. 6, as Alg. 1 step 1 prescribes);
- ``sqsgd.privquant.m_appendix`` [exact]: Alg. 1's m against App. A.1's m over a grid;
- ``sqsgd.privquant.calibration`` [exact]: the Sec. 4 rule at the paper's experiment
  settings and on a small grid, with the exact ε of the resulting mechanism;
- ``sqsgd.quantize.unbiased.corrected`` [exact]: the corrected rounding probability
  (K−1)(X−B_k*)/(2U) is unbiased (the printed rule's exact means are in the details).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath

from estimators.quantization import (
    binomial_sums,
    calibrate,
    grid_levels_exact,
    normalising_factor_m,
    normalising_factor_m_appendix,
    privquant_distribution_bruteforce,
    privquant_exact_epsilon,
    quantize_exact,
    quantizer_mean_exact,
    tau_of,
)
from privcheck.claims import Outcome, RunContext, check

_P_GRID = (Fraction(1, 2), Fraction(3, 4), Fraction(9, 10))


def _expected_z_given_xhat(d: int, K: int, kappa: int, p: Fraction, U: Fraction) -> dict | None:
    """{u: E[Z | X̂ = u]} for every grid input u (level indices), exact; None when m = 0."""
    m = normalising_factor_m(d, K, kappa, p, exact=True)
    if m == 0:
        return None
    lv = grid_levels_exact(K, U)
    out = {}
    for u in itertools.product(range(K), repeat=d):
        dist = privquant_distribution_bruteforce(u, K, kappa, p)
        ez = [Fraction(0)] * d
        for v, pr in dist.items():
            for j in range(d):
                ez[j] += pr * lv[v[j]]
        out[u] = tuple(e / m for e in ez)
    return out


def _expected_z_given_x(x: tuple, table: dict, K: int, U: Fraction, corrected: bool) -> tuple:
    """E[Z | X = x] = Σ_u P(X̂ = u | x) E[Z | X̂ = u], the quantiser's law from eq. 6 (exact)."""
    d = len(x)
    per = [quantize_exact(xj, K, U, corrected) for xj in x]
    ez = [Fraction(0)] * d
    for u, e in table.items():
        pr = Fraction(1)
        for j, (k0, q) in enumerate(per):
            pr *= q if u[j] == k0 + 1 else (1 - q) if u[j] == k0 else 0
            if pr == 0:
                break
        if pr:
            for j in range(d):
                ez[j] += pr * e[j]
    return tuple(ez)


def _fmt(t) -> list[str]:
    return [str(v) for v in t]


#: the inputs X of the unbiasedness check, per coordinate (every 17th point of the product for d = 3)
_COORD_VALUES = (
    Fraction(-1),
    Fraction(-3, 4),
    Fraction(-1, 5),
    Fraction(0),
    Fraction(1, 3),
    Fraction(5, 7),
    Fraction(1),
)


@dataclass
class _Tally:
    """Cases and failures of one exact identity, with the first counterexample."""

    cases: int = 0
    failures: int = 0
    counterexample: dict | None = None

    def add(self, ok: bool, example: Callable[[], dict]) -> None:
        """Count one case; on the first failure keep ``example()`` as the counterexample."""
        self.cases += 1
        if not ok:
            self.failures += 1
            if self.counterexample is None:
                self.counterexample = example()

    def row(self) -> dict:
        """The tally as a details entry."""
        return {"cases": self.cases, "failures": self.failures, "counterexample": self.counterexample}


def _unbiased_configs(quick: bool) -> list[tuple[int, int, int, Fraction]]:
    """(d, K, κ, p): d ∈ {1, 2, 3}, K ∈ {2, 3, 4}, every κ < d, p ∈ _P_GRID (quick: no d = 3 with K = 4)."""
    configs = [(d, K, kappa, p) for d in (1, 2, 3) for K in (2, 3, 4) for kappa in range(d) for p in _P_GRID]
    if quick:
        configs = [c for c in configs if c[0] <= 2 or c[1] <= 3]
    return configs


def _tally_given_xhat(tally: _Tally, table: dict, d: int, K: int, kappa: int, p: Fraction, U: Fraction) -> None:
    """E[Z | X̂ = u] = u at every grid input u (level indices mapped to levels)."""
    lv = grid_levels_exact(K, U)
    for u, ez in table.items():
        xhat = tuple(lv[a] for a in u)
        tally.add(
            ez == xhat,
            lambda: {"d": d, "K": K, "kappa": kappa, "p": str(p), "xhat": _fmt(xhat), "E[Z]": _fmt(ez)},
        )


def _tally_given_x(tallies: dict, table: dict, d: int, K: int, kappa: int, p: Fraction, U: Fraction) -> None:
    """E[Z | X = x] = x for the printed (tallies[False]) and the corrected (tallies[True]) quantiser."""
    xs = list(itertools.product(_COORD_VALUES, repeat=d))
    if d == 3:
        xs = xs[::17]
    for corrected in (False, True):
        for x in xs:
            ez = _expected_z_given_x(x, table, K, U, corrected)
            tallies[corrected].add(
                ez == x,
                lambda: {
                    "d": d,
                    "K": K,
                    "kappa": kappa,
                    "p": str(p),
                    "U": str(U),
                    "X": _fmt(x),
                    "E[Z]": _fmt(ez),
                    "E[X_hat]": _fmt(quantizer_mean_exact(xj, K, U, corrected) for xj in x),
                },
            )


def _unbiased_outcome(xhat: _Tally, given_x: dict, skipped: list) -> Outcome:
    """Holds when E[Z|X̂] = X̂ and E[Z|X] = X (printed quantiser) in every case; the corrected quantiser's
    tally and a finding (when only the printed quantiser fails) go into the details."""
    holds_xhat = xhat.failures == 0
    holds_x = given_x[False].failures == 0
    verdict = "holds" if holds_xhat and holds_x else "refuted"
    details = {
        "method": "exact enumeration of all K^d outputs per grid input, rational arithmetic (Fraction); "
        "E[Z|X] = Σ_u P(X̂=u|X) E[Z|X̂=u] with the quantiser of eq. 6",
        "grid": "d in {1,2,3}, K in {2,3,4}, every kappa in {0..d-1}, p in {1/2, 3/4, 9/10}, U = 1; "
        "X from {-1,-3/4,-1/5,0,1/3,5/7,1}^d (every 17th point for d = 3)",
        "tolerance": "exact equality",
        "E[Z|Xhat]=Xhat": xhat.row(),
        "E[Z|X]=X, quantiser as printed (eq. 6)": given_x[False].row(),
        "E[Z|X]=X, corrected quantiser (K-1)(X-B_k*)/(2U)": given_x[True].row(),
        "skipped": skipped,
    }
    if not holds_x and holds_xhat:
        details["finding"] = (
            "Alg. 1's m makes Z unbiased for X̂ exactly; E[Z] = X fails only through the "
            "printed quantiser (eq. 6), which is biased for K ≥ 3; with the corrected "
            "rounding probability E[Z] = X holds in every case"
        )
    measured = {
        "E[Z|Xhat]=Xhat": "holds" if holds_xhat else "fails",
        "E[Z|X]=X (printed eq. 6)": "holds" if holds_x else "fails",
        "E[Z|X]=X (corrected quantiser)": "holds" if given_x[True].failures == 0 else "fails",
    }
    return Outcome(verdict=verdict, claimed="E[Z] = X̂ given X̂, and E[Z] = X", measured=measured, details=details)


@check("sqsgd.privquant.unbiased", "exact")
def _privquant_unbiased_exact(ctx: RunContext) -> Outcome:
    """Enumerate all outputs (d ≤ 3, K ≤ 4, every κ, p ∈ {1/2, 3/4, 9/10}) in Fractions (001 Alg. 1, Thm 1)."""
    U = Fraction(1)
    xhat = _Tally()
    given_x = {False: _Tally(), True: _Tally()}
    skipped = []
    for d, K, kappa, p in _unbiased_configs(ctx.quick):
        table = _expected_z_given_xhat(d, K, kappa, p, U)
        if table is None:
            skipped.append({"d": d, "K": K, "kappa": kappa, "p": str(p), "reason": "m = 0 (V independent of X)"})
            continue
        _tally_given_xhat(xhat, table, d, K, kappa, p, U)
        _tally_given_x(given_x, table, d, K, kappa, p, U)
    return _unbiased_outcome(xhat, given_x, skipped)


def _m_grid(quick: bool):
    ds = (1, 2, 3, 4, 5, 6, 7, 8, 20, 100) if quick else (1, 2, 3, 4, 5, 6, 7, 8, 20, 100, 1000)
    for d in ds:
        for K in (2, 3, 4, 16, 128):
            for kappa in sorted({0, (d - 1) // 2, d - 1}):
                for p in _P_GRID + (Fraction(99, 100), Fraction(1)):
                    yield d, K, kappa, p


def _enumerated_m(d: int, K: int, kappa: int, p: Fraction) -> Fraction:
    """E[V^1 | X̂ = u]/u^1 by enumeration (u = all top levels, U = 1): the true normalising factor."""
    u = tuple([K - 1] * d)
    lv = grid_levels_exact(K, 1)
    dist = privquant_distribution_bruteforce(u, K, kappa, p)
    return sum(pr * lv[v[0]] for v, pr in dist.items()) / lv[K - 1]


@dataclass(frozen=True)
class _MPair:
    """Alg. 1's m and App. A.1's m at one grid point: whether they differ, their relative difference, as text."""

    m1: object
    differ: bool
    rel: float
    m1s: str
    m2s: str


def _m_pair_exact(d: int, K: int, kappa: int, p: Fraction, quick: bool, truth: dict) -> _MPair:
    """Both m in Fractions (exact equality); when K^d is small (<= 256 quick, else 4096) also count
    which of them matches the enumerated normalising factor in ``truth``."""
    m1 = normalising_factor_m(d, K, kappa, p, exact=True)
    m2 = normalising_factor_m_appendix(d, K, kappa, p, exact=True)
    differ = m1 != m2
    rel = float(abs(m1 - m2) / abs(m1)) if m1 != 0 else (math.inf if differ else 0.0)
    if K**d <= (256 if quick else 4096):
        true_m = _enumerated_m(d, K, kappa, p)
        truth["cases"] += 1
        truth["alg1_matches_enumeration"] += int(true_m == m1)
        truth["appendix_matches_enumeration"] += int(true_m == m2)
    return _MPair(m1, differ, rel, str(m1), str(m2))


def _m_pair_mp(d: int, K: int, kappa: int, p: Fraction) -> _MPair:
    """Both m in mpmath at 50 digits; they differ when the relative difference exceeds 1e-40."""
    with mpmath.workdps(50):
        m1 = normalising_factor_m(d, K, kappa, p)
        m2 = normalising_factor_m_appendix(d, K, kappa, p)
        rel_mp = abs(m1 - m2) / abs(m1) if m1 != 0 else (mpmath.inf if m1 != m2 else 0)
        return _MPair(m1, rel_mp > mpmath.mpf(10) ** -40, float(rel_mp), mpmath.nstr(m1, 20), mpmath.nstr(m2, 20))


def _m_appendix_outcome(n: int, n_diff: int, n_material: int, max_rel: float, extra: dict) -> Outcome:
    """Holds when the two m agree at every grid point; ``extra``: counterexample, degenerate points, truth."""
    return Outcome(
        verdict="holds" if n_diff == 0 else "refuted",
        claimed="App. A.1 m (coefficient C(d-1, d-tau-1)) equals Alg. 1 m (C(d-1, tau-1))",
        measured={
            "grid_points": n,
            "differ": n_diff,
            "differ_by_more_than_1e-6_relative": n_material,
            "max_relative_difference": max_rel,
        },
        details={
            "tolerance": "exact equality (Fraction) for d <= 20; relative 1e-40 (mpmath, 50 digits) above",
            "grid": "d in {1..8, 20, 100, 1000}, K in {2,3,4,16,128}, kappa in {0, (d-1)//2, d-1}, "
            "p in {1/2, 3/4, 9/10, 99/100, 1}",
            **extra,
            "note": "C(d-1, d-tau-1) = C(d-1, tau) differs from C(d-1, tau-1) for every tau >= (d+1)/2, so "
            "the two m differ whenever p < 1; for large d and K the second term is so small against "
            "the first that they agree to 40 digits (counted as agreeing)",
        },
    )


@check("sqsgd.privquant.m_appendix", "exact")
def _m_appendix_exact(ctx: RunContext) -> Outcome:
    """Compare App. A.1's m (Υ2 coefficient C(d−1, d−τ−1)) with Alg. 1's m (C(d−1, τ−1)) (001 App. A.1)."""
    n = n_diff = n_degenerate = n_material = 0
    first = None
    max_rel = 0.0
    truth = {"alg1_matches_enumeration": 0, "appendix_matches_enumeration": 0, "cases": 0}
    for d, K, kappa, p in _m_grid(ctx.quick):
        n += 1
        pair = _m_pair_exact(d, K, kappa, p, ctx.quick, truth) if d <= 20 else _m_pair_mp(d, K, kappa, p)
        if not pair.differ:
            continue
        n_diff += 1
        if pair.m1 == 0:
            n_degenerate += 1
            continue
        max_rel = max(max_rel, pair.rel)
        n_material += int(pair.rel > 1e-6)
        if first is None:
            first = {"d": d, "K": K, "kappa": kappa, "tau": tau_of(d, kappa), "p": str(p)}
            first |= {"m_alg1": pair.m1s, "m_appendix": pair.m2s}
    extra = {
        "counterexample": first,
        "degenerate_points_with_m_alg1_zero": n_degenerate,
        "which_is_right": truth | {"note": "E[V^1|u]/u^1 by enumerating all outputs (K^d <= 4096)"},
    }
    return _m_appendix_outcome(n, n_diff, n_material, max_rel, extra)


# the paper's experiments (Sec. 4, App. A.3): sampled dimension d~ = 2^ceil(log2(r d)), r = 0.5 %
_LENET_D, _RESNET_D = 119_850, 1_722_224


def _d_tilde(r: float, d: int) -> int:
    """d̃ = 2^⌈log2(r d)⌉ (001 Alg. 2 step 3)."""
    return 2 ** math.ceil(math.log2(r * d))


def _paper_settings(quick: bool) -> list[dict]:
    lenet, resnet = _d_tilde(0.005, _LENET_D), _d_tilde(0.005, _RESNET_D)
    pts = []
    for K in (2, 8, 32):
        pts.append({"where": "Fig. 1 (LeNet)", "eps": 400.0, "d": lenet, "K": K})
        if not quick:
            pts.append({"where": "Fig. 1 (ResNet)", "eps": 2000.0, "d": resnet, "K": K})
    for eps in (200.0, 300.0, 400.0):
        pts.append({"where": "Fig. 2/3 (LeNet)", "eps": eps, "d": lenet, "K": 16})
    for eps in (1000.0, 2000.0, 3000.0):
        pts.append({"where": "Fig. 2 (ResNet)", "eps": eps, "d": resnet, "K": 16})
        if not quick:
            pts.append({"where": "Fig. 3 (ResNet)", "eps": eps, "d": resnet, "K": 128})
    for r in (0.001, 0.005, 0.01, 0.05):
        d = _d_tilde(r, _RESNET_D)
        if quick and d > resnet:
            continue
        pts.append({"where": f"App. A.3 (ResNet, r={r})", "eps": 2000.0, "d": d, "K": 16})
    return pts


def _small_grid(quick: bool) -> list[dict]:
    ds = (1, 2, 4, 16) if quick else (1, 2, 4, 16, 64)
    return [
        {"where": "grid", "eps": eps, "d": d, "K": K}
        for eps in (0.5, 1.0, 2.0, 4.0, 8.0)
        for d in ds
        for K in (2, 4, 16)
    ]


def _min_eps_any(d: int, K: int) -> float:
    """The smallest exact ε of any PrivQuant(κ, p) with p ≥ 1/2: κ = 0, p = 1/2, i.e. log(|S|/|S̄|)."""
    up, low = binomial_sums(d, K, tau_of(d, 0))
    with mpmath.workdps(50):
        return float(mpmath.log(low / up))


@check("sqsgd.privquant.calibration", "exact")
def _calibration_exact(ctx: RunContext) -> Outcome:
    """Apply the Sec. 4 rule and compute the exact ε of the mechanism it yields (symmetry, 50 digits)."""
    rows = []
    violations, infeasible = [], []
    for pt in _paper_settings(ctx.quick) + _small_grid(ctx.quick):
        cal = calibrate(pt["eps"], pt["d"], pt["K"])
        row = dict(pt)
        if not cal.feasible:
            row |= {
                "feasible": False,
                "log_lhs_at_kappa0": cal.min_log_lhs,
                "min_exact_eps_any_kappa_p": _min_eps_any(pt["d"], pt["K"]),
            }
            infeasible.append(row)
        else:
            ex = privquant_exact_epsilon(pt["d"], pt["K"], cal.kappa, cal.p_mp)
            row |= {
                "feasible": True,
                "kappa": cal.kappa,
                "p": cal.p_text[:25],
                "exact_eps": ex.eps,
                "exact_eps_text": ex.eps_text[:25],
            }
            if not ex.eps <= pt["eps"]:
                violations.append(row)
        rows.append(row)
    paper_rows = [r for r in rows if r["where"] != "grid"]
    verdict = "refuted" if (violations or infeasible) else "holds"
    feasible_rows = [r for r in rows if r["feasible"]]
    details = {
        "rule": "kappa = largest integer in {0..d-1} with LHS(8) <= e^(0.9 eps) (LHS(8) as printed, "
        "including p/(1-p)); p = e^(0.1 eps)/(1+e^(0.1 eps))",
        "tolerance": "exact eps <= eps compared at 50 significant digits",
        "dimensions": "d~ = 2^ceil(log2(r d)) of Alg. 2 with r = 0.5 % (LeNet-5: 119 850 -> 1024; "
        "ResNet-110: 1 722 224 -> 16384); App. A.4 omitted (its r is not given)",
        "violations": violations,
        "infeasible": infeasible,
        "paper_settings": paper_rows,
        "max_exact_eps_over_eps_when_feasible": max((r["exact_eps"] / r["eps"] for r in feasible_rows), default=None),
        "points": len(rows),
    }
    if infeasible:
        first = infeasible[0]
        details["counterexample"] = first
        details["finding"] = (
            f"the rule has no solution at {len(infeasible)} of {len(rows)} points "
            f"({sum(1 for r in infeasible if r['where'] != 'grid')} of {len(paper_rows)} paper settings): even kappa = 0 "
            f"gives LHS(8) > e^(0.9 eps), and no PrivQuant(kappa, p >= 1/2) on d = {first['d']}, K = {first['K']} "
            f"is better than {first['min_exact_eps_any_kappa_p']:.6g}-LDP (claimed eps = {first['eps']:g})"
        )
    measured = {"violations": len(violations), "infeasible": len(infeasible), "feasible": len(feasible_rows)}
    return Outcome(verdict=verdict, claimed="exact eps <= eps at every grid point", measured=measured, details=details)


@check("sqsgd.quantize.unbiased.corrected", "exact")
def _quantize_corrected_exact(ctx: RunContext) -> Outcome:
    """E[X̂] in Fractions for the corrected rule over every bin of K = 2..9 levels; the printed rule's means in details."""
    fracs = [Fraction(0), Fraction(1, 7), Fraction(1, 3), Fraction(1, 2), Fraction(5, 6)]
    n = bad = 0
    first_bad = None
    printed_bad = 0
    printed_example = None
    printed_max_bias = Fraction(0)
    printed_max_case = None
    for K in range(2, 10):
        for U in (Fraction(1), Fraction(5, 2), Fraction(10)):
            lv = grid_levels_exact(K, U)
            xs = [lv[k] + f * (lv[k + 1] - lv[k]) for k in range(K - 1) for f in fracs] + [U]
            for x in xs:
                n += 1
                mean_c = quantizer_mean_exact(x, K, U, corrected=True)
                if mean_c != x:
                    bad += 1
                    first_bad = first_bad or {"K": K, "U": str(U), "x": str(x), "E[X_hat]": str(mean_c)}
                mean_p = quantizer_mean_exact(x, K, U, corrected=False)
                if mean_p != x:
                    printed_bad += 1
                    bias = abs(mean_p - x) / U
                    if printed_example is None:
                        printed_example = {"K": K, "U": str(U), "x": str(x), "E[X_hat] printed": str(mean_p)}
                    if bias > printed_max_bias:
                        printed_max_bias = bias
                        printed_max_case = {
                            "K": K,
                            "U": str(U),
                            "x": str(x),
                            "E[X_hat] printed": str(mean_p),
                            "bias/U": str(bias),
                        }
    verdict = "holds" if bad == 0 else "refuted"
    return Outcome(
        verdict=verdict,
        claimed="E[X_hat] = X with round-up probability (K-1)(X-B_k*)/(2U)",
        measured={"points": n, "failures": bad},
        details={
            "tolerance": "exact equality (Fraction)",
            "grid": "K in 2..9, U in {1, 5/2, 10}, x = B_k + f (B_{k+1} - B_k), f in {0,1/7,1/3,1/2,5/6}, and x = U",
            "counterexample": first_bad,
            "printed_rule_exact_means": {
                "biased_points": printed_bad,
                "of": n,
                "example": printed_example,
                "max_bias_over_U": str(printed_max_bias),
                "max_bias_case": printed_max_case,
                "closed_form": "E[X_hat] - X = (k*/(K-1) - 1)(X - B_k*): zero only for K = 2, in the top bin "
                "k* = K-1, or on the grid",
            },
        },
    )
