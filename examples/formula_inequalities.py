"""Inequalities from the DP textbook and the papers, settled by the three routes of a formula claim.

Run with

    privcheck verify --file examples/formula_inequalities.py

or in a test: ``privcheck.pytest_plugin.assert_claims("examples/formula_inequalities.py")``.
sympy proves few of these; the others are proved by interval arithmetic (branch and bound with
outward rounding, ``holds (interval proof, N boxes, margin ≥ m)``). The planted-wrong versions
(a constant off by 1 %, a bound used outside its range, a flipped sign) are refuted with a shrunk
counterexample confirmed exactly. The last two show what cannot be settled, and say why.

Notation: Phi is the standard normal CDF; the Gaussian mechanism with sensitivity 1 and noise σ has
δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (Balle & Wang 2018, Thm 8); μ-GDP has
δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2019, Cor. 2.13).
"""

from proofs.formula import formula_claim
from proofs.interval import ProofPlan
from proofs.routes import FormulaPlan

GAUSS = "(Phi(1/(2*s) - e*s) - exp(e)*Phi(-1/(2*s) - e*s))"  # δ(ε) of the Gaussian mechanism, σ = s
GDP = "(Phi(-e/mu + mu/2) - exp(e)*Phi(-e/mu - mu/2))"  # δ(ε) of μ-GDP
AMPLIFIED = "log(1 + p*(exp(eps) - 1))"  # ε after Poisson subsampling with rate p (Balle, Barthe, Gaboardi 2018)
PM_WORST = "1/(exp(eps/2) - 1) + (exp(eps/2) + 3)/(3*(exp(eps/2) - 1)^2)"  # piecewise mechanism, |t| = 1
DUCHI_WORST = "((exp(eps) + 1)/(exp(eps) - 1))^2"  # Duchi et al.'s 1-d mechanism, t = 0


def claim(id, derived, printed, relation, assumptions, source, expect="holds", **kw):
    """A formula claim with its fields in a fixed order (every claim below expects a verdict)."""
    formula_claim(id, derived=derived, printed=printed, relation=relation, assumptions=assumptions, source=source,
                  expect=expect, **kw)  # fmt: skip


# ------------------------------------------------------------------ the DP textbook
claim("dp.expm1_ge_eps", "exp(eps) - 1", "eps", ">=", {"eps": "positive"}, "elementary")
claim("dp.log1p_le_x", "log(1 + x)", "x", "<=", {"x": "(-1,oo)"}, "elementary")
claim(
    "dp.gaussian.delta_decreasing_in_sigma",
    f"diff({GAUSS}, s)",
    "0",
    "<=",
    {"e": "positive", "s": "positive"},
    "Balle & Wang 2018, Thm 8: more noise, smaller delta",
)
claim("dp.expm1_le_2eps", "exp(eps) - 1", "2*eps", "<=", {"eps": "(0,1]"}, "Dwork & Roth 2014, proof of Thm 3.20")
claim(
    "dp.rr_kl_le_half_eps2",
    "eps*tanh(eps/2)",
    "eps^2/2",
    "<=",
    {"eps": "positive"},
    "Bun & Steinke 2016, Prop. 3.3 (eps-DP implies eps^2/2-zCDP; KL of randomised response)",
)
claim(
    "dp.kov_term_le_drv_term",
    "eps*tanh(eps/2)",
    "eps*(exp(eps) - 1)",
    "<=",
    {"eps": "positive"},
    "Kairouz-Oh-Viswanath vs Dwork-Rothblum-Vadhan per-step term (Seif et al. eq. 18 vs 19)",
)
claim(
    "dp.gauss_tail.mills",
    "Phi(-x)",
    "exp(-x^2/2)/(sqrt(2*pi)*x)",
    "<=",
    {"x": "positive"},
    "Gaussian tail (Mills ratio), Dwork & Roth 2014, App. A",
)
claim("dp.gauss_tail.chernoff", "Phi(-x)", "exp(-x^2/2)/2", "<=", {"x": "nonnegative"}, "Gaussian tail, Chernoff")
claim(
    "dp.gaussian.classical_calibration",
    "Phi(e/(2*c) - c) - exp(e)*Phi(-e/(2*c) - c)",
    "5/4*exp(-c^2/2)",
    "<=",
    {"e": "(0,1)", "c": "(sqrt(2*log(5/4)),oo)"},
    "Dwork & Roth 2014, Thm A.1: sigma = c/eps with c^2 = 2 log(1.25/delta) gives (eps, delta)-DP for eps < 1",
)

# ------------------------------------------------------------------ the papers
claim("gdp.delta_nonnegative", GDP, "0", ">=", {"e": "nonnegative", "mu": "positive"}, "002 Lemma 2 (DRS Cor. 2.13)")
claim(
    "gdp.delta_decreasing_in_eps",
    f"diff({GDP}, e)",
    "0",
    "<=",
    {"e": "nonnegative", "mu": "positive"},
    "002 Lemma 2: delta(eps) is a privacy profile",
)
claim(
    "gdp.delta_increasing_in_mu",
    f"diff({GDP}, mu)",
    "0",
    ">=",
    {"e": "nonnegative", "mu": "positive"},
    "002 Lemmas 2-3: a larger mu is less private",
)
claim(
    "subsampling.amplification_le_eps",
    AMPLIFIED,
    "eps",
    "<=",
    {"p": "(0,1]", "eps": "positive"},
    "004 (Seif et al.) sampling step; Balle, Barthe & Gaboardi 2018",
)
claim(
    "subsampling.amplification_le_2p_eps",
    AMPLIFIED,
    "2*p*eps",
    "<=",
    {"p": "(0,1]", "eps": "(0,1]"},
    "the small-eps form of the amplification bound",
)
claim(
    "fedsel.pm_vs_duchi.worst_case",
    PM_WORST,
    DUCHI_WORST,
    "<=",
    {"eps": "[129/100,oo)"},
    "000 (FedSel) Sec. 6, citing Wang et al. 2019: PM's worst-case variance is below Duchi's (for eps > 1.29)",
)

# ------------------------------------------------------------------ planted wrong versions: refuted
claim("planted.expm1_ge_1.01eps", "exp(eps) - 1", "1.01*eps", ">=", {"eps": "positive"}, "1 % off", expect="refuted")
claim("planted.chernoff_0.99", "Phi(-x)", "0.99*exp(-x^2/2)/2", "<=", {"x": "nonnegative"}, "1 % off", expect="refuted")
claim(
    "planted.mills_0.99",
    "Phi(-x)",
    "0.99*exp(-x^2/2)/(sqrt(2*pi)*x)",
    "<=",
    {"x": "positive"},
    "constant off by 1 %: fails only far in the tail",
    expect="refuted",
)
claim(
    "planted.amplification_2p_eps_up_to_2",
    AMPLIFIED,
    "2*p*eps",
    "<=",
    {"p": "(0,1]", "eps": "(0,2)"},
    "a bound for eps <= 1 used up to eps = 2: fails in the corner eps > 1.26, small p",
    expect="refuted",
)
claim(
    "planted.gaussian_delta_increasing_in_sigma",
    f"diff({GAUSS}, s)",
    "0",
    ">=",
    {"e": "positive", "s": "positive"},
    "flipped sign",
    expect="refuted",
)
claim(
    "fedsel.pm_vs_duchi.all_eps",
    PM_WORST,
    DUCHI_WORST,
    "<=",
    {"eps": "positive"},
    "000 (FedSel) Sec. 6 without Wang et al.'s condition eps > 1.29: false below eps = 1.2898",
    expect="refuted",
)

# ------------------------------------------------------------------ what the routes cannot settle (and say why)
SMALL = FormulaPlan(proof=ProofPlan(max_boxes=2000, seconds=3.0, max_depth=24))
claim(
    "limits.pinsker",
    "p*log(p/q) + (1 - p)*log((1 - p)/(1 - q))",
    "2*(p - q)^2",
    ">=",
    {"p": "(0,1)", "q": "(0,1)"},
    "Pinsker: touches 0 along the whole diagonal p = q",
    expect="inconclusive",
    plan=SMALL,
)
claim(
    "limits.sum",
    "Sum(x^k/factorial(k), (k, 0, n))",
    "exp(x)",
    "<=",
    {"x": "positive", "n": "integer>=0", "k": "integer>=0"},
    "a Sum: interval arithmetic cannot evaluate it",
    expect="inconclusive",
    plan=SMALL,
)
