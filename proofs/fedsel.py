"""Symbolic checks of FedSel's closed forms (paper 000_55a5a0ab95d522af.txt).

- ``fedsel.pe.sparsity`` — Lemma 2 proof: E‖ż‖0 = kp + (d−k)(1−p), derived as the sum of the
  d Bernoulli flip probabilities (k Top-k bits kept w.p. p, d−k zeros flipped w.p. 1−p);
  extra part ``bottom``: P(S = ∅) = (1−p)^k p^{d−k}.
- ``fedsel.ps.ratio`` (added claim) — Lemma 3: with p = e^ε1 k/(d−k+e^ε1 k) the PS ratio
  (p/k)/((1−p)/(d−k)) equals e^ε1.
- ``fedsel.pm.unbiased`` — PM (Wang et al., ICDE 2019): mean and variance integrated from
  the piecewise-uniform output density.
- ``fedsel.duchi.ldp`` — Duchi 1-D: the probability ratio, mean t and Var = B² − t².
- ``fedsel.accumulation.variance`` — Thm 2 (Sec. 3.3): Var[Δ_T w] ≤ Var[Δ'_T w] for
  α ∈ (0,1), in the paper's case (both inputs clipped) and in the two other clipping
  regimes, for PM and Duchi.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privcheck.claims import Outcome, RunContext, check

if TYPE_CHECKING:  # sympy and proofs.formula load in the checks (start-up: registering a claim needs neither)
    import sympy as sp

PAPER = "000_55a5a0ab95d522af.txt"


@check("fedsel.pe.sparsity", "symbolic")
def _pe_sparsity(ctx: RunContext) -> Outcome:
    """E‖ż‖0 from the per-bit retain/flip probabilities, against kp + (d−k)(1−p) (Lemma 2 proof)."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    names, _ = make_symbols({"k": "integer>=1", "d": "integer>=1", "eps1": "positive"})
    k, d, e1 = names["k"], names["d"], names["eps1"]
    p = sp.exp(e1) / (sp.exp(e1) + 1)
    j = sp.Symbol("j", integer=True, positive=True)
    # status bits: z_j = 1 for j <= k (kept as 1 w.p. p), z_j = 0 for j > k (flipped to 1 w.p. 1-p)
    derived = sp.Sum(p, (j, 1, k)).doit() + sp.Sum(1 - p, (j, k + 1, d)).doit()
    printed = k * p + (d - k) * (1 - p)
    r1 = compare(
        "expected sparsity",
        derived,
        printed,
        {"k": "integer>=1", "d": "integer>=1", "eps1": "positive"},
        names=names,
        conditions=[k <= d],
        seed=ctx.seed_seq,
    )
    # S is empty iff every Top-k bit is flipped and every other bit kept (independent bits)
    derived_bot = sp.Product(1 - p, (j, 1, k)).doit() * sp.Product(p, (j, k + 1, d)).doit()
    printed_bot = (1 - p) ** k * p ** (d - k)
    r2 = compare(
        "P(S empty) (second case of the proof)",
        derived_bot,
        printed_bot,
        {"k": "integer>=1", "d": "integer>=1", "eps1": "positive"},
        names=names,
        seed=ctx.seed_seq,
    )
    return combine(
        [r1, r2],
        extra={
            "model": "d independent bits; k ones kept w.p. p, d-k zeros flipped w.p. 1-p",
            "p": "exp(eps1)/(exp(eps1)+1)",
        },
    )


@check("fedsel.ps.ratio", "symbolic")
def _ps_ratio(ctx: RunContext) -> Outcome:
    """Lemma 3: P[j | z_j=1]/P[j | z'_j=0] = (p/k)/((1−p)/(d−k)) equals e^ε1 for the printed p."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"k": "integer>=1", "d": "integer>=2", "eps1": "positive"}
    names, _ = make_symbols(spec)
    k, d, e1 = names["k"], names["d"], names["eps1"]
    p = sp.exp(e1) * k / (d - k + sp.exp(e1) * k)
    derived = (p / k) / ((1 - p) / (d - k))
    r = compare("PS likelihood ratio", derived, sp.exp(e1), spec, names=names, conditions=[k < d], seed=ctx.seed_seq)
    return combine([r], extra={"p": sp.sstr(p)})


def _pm_moments(t: sp.Symbol, s: sp.Symbol) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """PM output mean, second moment and total mass from its piecewise density (s = e^{ε/2}).

    Density: p_in/(r − l) on [l, r], p_out/((l + C) + (C − r)) on [−C, l) ∪ (r, C], with
    C = (s+1)/(s−1), l = (C+1)t/2 − (C−1)/2, r = l + C − 1, p_in = s/(s+1), p_out = 1/(s+1).
    """

    C = (s + 1) / (s - 1)
    l = (C + 1) * t / 2 - (C - 1) / 2
    r = l + C - 1
    dens_in = s / (s + 1) / (r - l)
    dens_out = 1 / (s + 1) / ((l + C) + (C - r))

    def integral(k: int, a: sp.Expr, b: sp.Expr) -> sp.Expr:  # ∫_a^b x^k dx
        return (b ** (k + 1) - a ** (k + 1)) / (k + 1)

    def mom(k: int) -> sp.Expr:
        return dens_in * integral(k, l, r) + dens_out * (integral(k, -C, l) + integral(k, r, C))

    return mom(1), mom(2), mom(0)


@check("fedsel.pm.unbiased", "symbolic")
def _pm_unbiased(ctx: RunContext) -> Outcome:
    """PM: total mass 1, E[t*] = t and Var[t*] = t²/(e^{ε/2}−1) + (e^{ε/2}+3)/(3(e^{ε/2}−1)²).

    Derived in s = e^{ε/2} ∈ (1, ∞) (a bijection of ε > 0), from the piecewise-uniform density.
    """
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"t": "[-1,1]", "s": "(1,oo)"}
    names, _ = make_symbols(spec)
    t, s = names["t"], names["s"]
    m1, m2, mass = _pm_moments(t, s)
    var = m2 - m1**2
    printed_var = t**2 / (s - 1) + (s + 3) / (3 * (s - 1) ** 2)
    r0 = compare("density integrates to 1", mass, 1, spec, names=names, seed=ctx.seed_seq)
    r1 = compare("unbiased: E[t*] = t", m1, t, spec, names=names, seed=ctx.seed_seq)
    r2 = compare("variance", var, printed_var, spec, names=names, seed=ctx.seed_seq)
    return combine(
        [r0, r1, r2],
        claimed=sp.sstr(printed_var),
        measured=sp.sstr(sp.factor(sp.cancel(var))),
        extra={"substitution": "s = exp(eps/2)"},
    )


@check("fedsel.duchi.ldp", "symbolic")
def _duchi(ctx: RunContext) -> Outcome:
    """Duchi 1-D: worst ratio P(+B|t=1)/P(+B|t=−1) = e^ε, E = t, Var = ((e^ε+1)/(e^ε−1))² − t²."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"t": "[-1,1]", "eps": "positive"}
    names, _ = make_symbols(spec)
    t, eps = names["t"], names["eps"]
    B = (sp.exp(eps) + 1) / (sp.exp(eps) - 1)
    P = sp.Rational(1, 2) + t * (sp.exp(eps) - 1) / (2 * (sp.exp(eps) + 1))
    mean = B * P - B * (1 - P)
    var = B**2 - mean**2  # output is ±B, so E[out²] = B²
    ratio = P.subs(t, 1) / P.subs(t, -1)
    r0 = compare("likelihood ratio at t = ±1", ratio, sp.exp(eps), spec, names=names, seed=ctx.seed_seq)
    r1 = compare("unbiased: E = t", mean, t, spec, names=names, seed=ctx.seed_seq)
    r2 = compare("variance", var, B**2 - t**2, spec, names=names, seed=ctx.seed_seq)
    return combine([r0, r1, r2], claimed=sp.sstr(B**2 - t**2), measured=sp.sstr(sp.factor(var)))


@check("fedsel.accumulation.variance", "symbolic")
def _thm2(ctx: RunContext) -> Outcome:
    """Thm 2: α²·Var[clip(s)*] ≤ Var[clip(αs)*] (the common 1/m² cancels), α ∈ (0,1).

    Var of PM at input t: a t² + b with a = 1/(e^{ε/2}−1), b = (e^{ε/2}+3)/(3(e^{ε/2}−1)²)
    (fedsel.pm.unbiased); of Duchi: B² − t². Regimes: (i) |s| ≥ 1/α: both clipped to ξ = ±1
    (the paper's case); (ii) 1 < |s| < 1/α: s clipped, αs = τ ∈ (α, 1) not; (iii) |s| ≤ 1:
    neither clipped (the paper says equal variances there; the check is the inequality).
    """
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"alpha": "(0,1)", "eps": "positive", "m": "positive", "w": "(0,1)", "x": "[0,1]"}
    names, _ = make_symbols(spec)
    al, eps, m, w, x = (names[k] for k in ("alpha", "eps", "m", "w", "x"))
    s = sp.exp(eps / 2)
    a, b = 1 / (s - 1), (s + 3) / (3 * (s - 1) ** 2)
    B = (sp.exp(eps) + 1) / (sp.exp(eps) - 1)

    def pm(t):
        return a * t**2 + b

    def du(t):
        return B**2 - t**2

    tau = al + (1 - al) * w  # regime (ii): the unclipped α·s lies in (α, 1)
    res = []
    for mech, V in (("PM", pm), ("Duchi", du)):
        res.append(
            compare(
                f"{mech}: both clipped to ξ (paper's case)",
                al**2 / m**2 * V(1),
                V(1) / m**2,
                spec,
                relation="<=",
                names=names,
                seed=ctx.seed_seq,
            )
        )
        res.append(
            compare(
                f"{mech}: s clipped, αs in (α,1)",
                al**2 / m**2 * V(1),
                V(tau) / m**2,
                spec,
                relation="<=",
                names=names,
                seed=ctx.seed_seq,
            )
        )
        res.append(
            compare(
                f"{mech}: neither clipped, |s| = x ≤ 1",
                al**2 / m**2 * V(x),
                V(al * x) / m**2,
                spec,
                relation="<=",
                names=names,
                seed=ctx.seed_seq,
            )
        )
    return combine(
        res,
        claimed="Var[Δ_T w] = α²/m² Var[ξ*] ≤ Var[Δ'_T w] = 1/m² Var[ξ*]",
        measured="proved in all three clipping regimes" if all(r.verdict == "holds" for r in res) else "see parts",
    )
