"""Symbolic checks of the GDP results used by SPriFed-OMP (paper 002_53ad70670a94e98a.txt,
Lemmas 2–4; the GDP results are Dong, Roth & Su 2019, Cor. 2.13 and Cor. 3.3).

- ``gdp.conversion`` — δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), derived twice: as the
  hockey-stick divergence ∫ (p_P − e^ε p_Q)_+ of P = N(μ,1), Q = N(0,1) (threshold where the
  likelihood ratio equals e^ε, Gaussian tail integrals), and as 1 + f*(−e^ε) for the
  trade-off function f = G_μ (the primal–dual view behind the "⇔").
- ``gdp.composition`` — the privacy-loss random variable of N(μ_i,1) vs N(0,1) has moment
  generating function exp(tμ_i²/2 + t²μ_i²/2) under P (integrated here); the product over
  i equals that of a single Gaussian with μ² = Σμ_i², so the composition is √(Σμ_i²)-GDP.
- ``spriFed.sensitivity`` — Lemma 4: one row's change of x_ij·y_i and x_ij·x_il over the box
  |x| ≤ c_x, |y| ≤ c_y (multilinear, so extreme at the vertices), and the ℓ2 norm over d entries.
"""

from __future__ import annotations

import functools
import itertools
from typing import TYPE_CHECKING

from privcheck.claims import Outcome, RunContext, check

if TYPE_CHECKING:  # sympy and proofs.formula load in the checks (start-up: registering a claim needs neither)
    import sympy as sp

PAPER = "002_53ad70670a94e98a.txt"
_SPEC = {"eps": "nonnegative", "mu": "positive"}


def _normal_pdf(x: sp.Expr, mean: sp.Expr) -> sp.Expr:
    import sympy as sp

    return sp.exp(-((x - mean) ** 2) / 2) / sp.sqrt(2 * sp.pi)


def _b() -> sp.Symbol:
    """The lower limit b of the standard tail (sympy caches symbols: the same object every call)."""
    import sympy as sp

    return sp.Symbol("b", real=True)


@functools.lru_cache(maxsize=1)
def _std_tail() -> sp.Expr:
    """P[N(0,1) > b] integrated by sympy (once per process)."""
    import sympy as sp

    y = sp.Symbol("y", real=True)
    return sp.integrate(_normal_pdf(y, 0), (y, _b(), sp.oo))


def _upper_tail(a: sp.Expr, mean: sp.Expr) -> sp.Expr:
    """P[N(mean,1) > a]: the integrated standard tail above b = a − mean."""
    return _std_tail().subs(_b(), a - mean)


@check("gdp.conversion", "symbolic")
def _conversion(ctx: RunContext) -> Outcome:
    """Dong–Roth–Su Cor. 2.13 (002 Lemma 2): the (ε, δ(ε)) curve of μ-GDP."""
    import sympy as sp

    from proofs.formula import Phi, combine, compare, make_symbols

    names, _ = make_symbols(_SPEC)
    eps, mu = names["eps"], names["mu"]
    printed = Phi(-eps / mu + mu / 2) - sp.exp(eps) * Phi(-eps / mu - mu / 2)
    x = sp.Symbol("x", real=True)
    # (1) hockey-stick divergence: p_P/p_Q = exp(mu x - mu^2/2) = e^eps at x*
    log_ratio = sp.expand(sp.expand_log(sp.log(_normal_pdf(x, mu)) - sp.log(_normal_pdf(x, 0)), force=True))
    xstar = sp.solve(sp.Eq(log_ratio, eps), x)
    xstar = [s for s in xstar if s.is_real is not False][0]
    derived1 = _upper_tail(xstar, mu) - sp.exp(eps) * _upper_tail(xstar, 0)
    r1 = compare(
        "hockey-stick divergence of N(mu,1) vs N(0,1)",
        derived1,
        printed,
        _SPEC,
        names=names,
        seed=ctx.seed_seq,
        simplifiers=[lambda e: sp.expand(e.rewrite(sp.erf))],
        notes=[f"threshold x* = {sp.sstr(xstar)}"],
    )
    # (2) 1 + f*(-e^eps), f = G_mu(alpha) = Phi(Phi^{-1}(1-alpha) - mu); write alpha = 1 - Phi(z)
    z = sp.Symbol("z", real=True)
    objective = -sp.exp(eps) * (1 - Phi(z)) - Phi(z - mu)  # y*alpha - f(alpha) at y = -e^eps
    stationary = sp.solve(
        sp.expand(sp.expand_log(sp.log(sp.exp(eps) * _normal_pdf(z, 0)) - sp.log(_normal_pdf(z, mu)), force=True)), z
    )
    zstar = stationary[0]
    second = sp.diff(objective, z, 2).subs(z, zstar)
    derived2 = 1 + objective.subs(z, zstar)
    r2 = compare(
        "1 + f*(-e^eps) for the trade-off function G_mu",
        derived2,
        printed,
        _SPEC,
        names=names,
        seed=ctx.seed_seq,
        simplifiers=[lambda e: sp.expand(e.rewrite(sp.erf))],
        notes=[f"stationary point z* = {sp.sstr(zstar)} (d/dz objective = e^eps phi(z) - phi(z - mu))"],
    )
    # the stationary point is a maximum: second derivative there is -mu*phi(z*-mu) < 0
    r3 = compare(
        "second derivative at z* is -mu*phi(z* - mu) (a maximum)",
        sp.expand(sp.powsimp(sp.expand(second))),
        -mu * _normal_pdf(zstar - mu, 0),
        _SPEC,
        names=names,
        seed=ctx.seed_seq,
        simplifiers=[lambda e: sp.expand(sp.powsimp(sp.expand(e)))],
    )
    return combine(
        [r1, r2, r3],
        claimed=sp.sstr(printed),
        measured=sp.sstr(derived1),
        extra={"printed_source": "Phi(-eps/mu + mu/2) - exp(eps)*Phi(-eps/mu - mu/2), Phi(x) = (1 + erf(x/sqrt(2)))/2"},
    )


@check("gdp.composition", "symbolic")
def _composition(ctx: RunContext) -> Outcome:
    """Dong–Roth–Su Cor. 3.3 (002 Lemma 3): the MGF of the composed privacy loss equals that of √(Σμ_i²)-GDP."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"mu1": "positive", "mu2": "positive", "mu3": "positive", "t": "real"}
    names, _ = make_symbols(spec)
    mus = [names["mu1"], names["mu2"], names["mu3"]]
    t = names["t"]
    x = sp.Symbol("x", real=True)

    def loss_mgf(mu):  # E_{X~N(mu,1)}[exp(t*L(X))], L(x) = mu*x - mu^2/2
        integrand = sp.exp(t * (mu * x - mu**2 / 2)) * _normal_pdf(x, mu)
        return sp.simplify(sp.integrate(integrand, (x, -sp.oo, sp.oo), conds="none"))

    m = sp.Symbol("m", positive=True)
    single = loss_mgf(m)  # one Gaussian mechanism with parameter m
    per = [single.subs(m, mu) for mu in mus]
    derived = sp.Mul(*per)
    printed = single.subs(m, sp.sqrt(sum(mu**2 for mu in mus)))
    r1 = compare(
        "MGF of the summed privacy loss vs sqrt(sum mu_i^2)-GDP (3 mechanisms)",
        derived,
        printed,
        spec,
        names=names,
        seed=ctx.seed_seq,
        simplifiers=[lambda e: sp.expand(sp.powsimp(e, combine="exp"))],
        notes=[f"single-mechanism loss MGF: {sp.sstr(single)} (the loss is N(m^2/2, m^2) under P)"],
    )
    # same under Q = N(0,1): E_Q[exp(tL)] = E_P[exp((t-1)L)]
    return combine([r1], claimed="sqrt(mu1^2 + mu2^2 + mu3^2)-GDP", measured=sp.sstr(sp.powsimp(derived)))


@check("spriFed.sensitivity", "symbolic")
def _sensitivity(ctx: RunContext) -> Outcome:
    """Lemma 4: max change of x·y and x_j·x_l when one row changes, over the box; ℓ2 over d entries."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"c_x": "positive", "c_y": "positive", "d": "integer>=1"}
    names, _ = make_symbols(spec)
    cx, cy, d = names["c_x"], names["c_y"], names["d"]
    # x*y - x'*y' is affine in each variable, so its max over the box is at a vertex
    corr = [
        a * b - a2 * b2
        for a, a2 in itertools.product((cx, -cx), repeat=2)
        for b, b2 in itertools.product((cy, -cy), repeat=2)
    ]
    cov = [a * b - a2 * b2 for a, b, a2, b2 in itertools.product((cx, -cx), repeat=4)]
    cov_diag = [a * a - a2 * a2 for a, a2 in itertools.product((cx, -cx), repeat=2)]
    # the diagonal x_j^2 - x'_j^2 is not multilinear: its max over the box is c_x^2 (x = ±c_x, x' = 0)
    res = [
        compare(
            "correlation X_j^T y, per entry",
            sp.Max(*corr),
            2 * cx * cy,
            spec,
            names=names,
            relation="<=",
            seed=ctx.seed_seq,
        ),
        compare(
            "covariance X_j^T X_l (j != l), per entry",
            sp.Max(*cov),
            2 * cx**2,
            spec,
            names=names,
            relation="<=",
            seed=ctx.seed_seq,
        ),
        compare(
            "covariance X_j^T X_j (diagonal), per entry",
            sp.Max(*cov_diag, cx**2),
            2 * cx**2,
            spec,
            names=names,
            relation="<=",
            seed=ctx.seed_seq,
        ),
        compare(
            "l2 over d correlation entries",
            sp.sqrt(d * (2 * cx * cy) ** 2),
            2 * cx * cy * sp.sqrt(d),
            spec,
            names=names,
            seed=ctx.seed_seq,
        ),
    ]
    tight = sp.Max(*corr)
    return combine(
        res,
        claimed="2 c_x c_y (correlation), 2 c_x^2 (covariance), x sqrt(d) in l2",
        measured=f"max over the box: {sp.sstr(tight)} (correlation), {sp.sstr(sp.Max(*cov))} (covariance)",
        extra={"neighbouring": "one row replaced (|x_ij|, |x'_ij| <= c_x, |y_i|, |y'_i| <= c_y)"},
    )
