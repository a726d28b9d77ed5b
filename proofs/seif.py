"""Symbolic checks of Seif, Chang & Tandon (paper 004_cc7ee25c83388ef6.txt).

- ``seif.cor1`` — eq. 14 (and its δ′ range) from eq. 13 with p_k = p (μ_K = Kp).
- ``seif.lemma1.popt`` — Lemma 1 / App. C: eq. 40 against the derivative of eq. 39, the
  stationary point 2βK, the second derivative (41), and whether p* = 2β minimises eq. 14.
- ``seif.lemma1.eps`` — eq. 16 equals eq. 14 at p* = 2β, and K^{3/4}·ε_c has a finite limit.
- ``seif.composition.drv`` — the pieces of the DRV total: the Azuma deviation
  ε√(2T log(1/δ̃)), the mean privacy loss bound ε(e^ε−1) (randomised response is extremal),
  and the sum; the REFERENCE value 400 × 0.1 → 13.803889 is reported.
- ``seif.taylor`` — eq. 24–25: second-order Taylor expansions of 1/x and 1/x² at μ, in expectation.
- ``seif.thm3.uniform`` / ``.corrected`` — Thm 3 (eq. 23) with p_k = p, μ = Kp,
  σ² = Kp(1−p) and eq. 24–25 substituted, against the displayed bound after eq. 25.
- ``seif.cor2`` — eq. 22 from eq. 21 with p = p* = α/√K, α = 2√(½ log(2/δ′)).
"""

from __future__ import annotations

from privcheck.claims import Outcome, RunContext, check

# sympy and proofs.formula load in the checks (start-up: registering a claim needs neither)

PAPER = "004_cc7ee25c83388ef6.txt"


@check("seif.cor1", "symbolic")
def _cor1(ctx: RunContext) -> Outcome:
    """Cor. 1: eq. 13 with p_k = p for every k gives eq. 14 and δ′ ∈ (2e^{−2p²K}, 1)."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"p": "(0,1]", "K": "integer>=1", "c": "positive", "dp": "(0,1)", "beta": "positive", "dl": "(0,1)"}
    names, _ = make_symbols(spec)
    p, K, c, dp, beta, dl = (names[k] for k in ("p", "K", "c", "dp", "beta", "dl"))
    ps = [p] * 5  # five users with the same probability stand for any K: max and sum are what matter
    mu_K = K * p  # sum over K users of p
    maxp = sp.Max(*ps)
    eps13 = sp.log(1 + maxp / (1 - dp) * (sp.exp(c / sp.sqrt(mu_K - beta * K)) - 1))
    eps14 = sp.log(1 + p / (1 - dp) * (sp.exp(c / sp.sqrt(K * (p - beta))) - 1))
    r1 = compare(
        "eps_c: eq. 13 at p_k = p vs eq. 14", eps13, eps14, spec, names=names, conditions=[p > beta], seed=ctx.seed_seq
    )
    r2 = compare(
        "delta_c: eq. 13 at p_k = p vs eq. 14",
        dp + maxp * dl / (1 - dp),
        dp + p * dl / (1 - dp),
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    r3 = compare(
        "lower end of the delta' range: 2exp(-2 mu_K^2/K) vs 2exp(-2 p^2 K)",
        2 * sp.exp(-2 * mu_K**2 / K),
        2 * sp.exp(-2 * p**2 * K),
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    return combine([r1, r2, r3], claimed=sp.sstr(eps14), measured=sp.sstr(eps13))


def _lemma1_setup():
    from proofs.formula import make_symbols

    spec = {"kt": "positive", "K": "positive", "c": "positive", "dp": "(0,1)", "beta": "(0,1)"}
    names, _ = make_symbols(spec)
    return spec, names


def _lemma1_forms(names: dict) -> dict:
    """App. C's expressions in k̃ (sympy): eq. 39 (the bound), its first-order version (e^x − 1 → x),
    eq. 40 and eq. 41 as printed, with β K written b."""
    import sympy as sp

    kt, K, c, dp, beta = (names[k] for k in ("kt", "K", "c", "dp", "beta"))
    b = beta * K
    return {
        "b": b,
        "eps39": kt / (K * (1 - dp)) * (sp.exp(c / sp.sqrt(kt - b)) - 1),
        "eq40": c / (K * (1 - dp)) * (-kt / 2 * (kt - b) ** sp.Rational(-3, 2) + (kt - b) ** sp.Rational(-1, 2)),
        "lin": c * kt / (K * (1 - dp) * sp.sqrt(kt - b)),  # eq. 39 with e^x - 1 replaced by x
        "eq41": -sp.Rational(1, 2)
        * (-sp.Rational(3, 2) * kt * (kt - b) ** sp.Rational(-5, 2) + 2 * (kt - b) ** sp.Rational(-3, 2)),
    }


def _eq40_checks(ctx: RunContext, spec: dict, names: dict, f: dict) -> list:
    """eq. 40 against d/dk̃ of eq. 39 and of the first-order bound, and its zero at k̃ = 2βK."""
    import sympy as sp

    from proofs.formula import compare

    kt, eq40, cond = names["kt"], f["eq40"], [names["kt"] > f["b"]]
    r1 = compare(
        "eq. 40 = d/dk of eq. 39",
        sp.diff(f["eps39"], kt),
        eq40,
        spec,
        names=names,
        conditions=cond,
        seed=ctx.seed_seq,
        printed_text="c/(K(1-δ'))·[-k/2 (k-βK)^(-3/2) + (k-βK)^(-1/2)]",
    )
    r2 = compare(
        "eq. 40 = d/dk of the first-order bound c k/(K(1-δ')sqrt(k-βK))",
        sp.diff(f["lin"], kt),
        eq40,
        spec,
        names=names,
        conditions=cond,
        seed=ctx.seed_seq,
    )
    r3 = compare("eq. 40 vanishes at k = 2βK", eq40.subs(kt, 2 * f["b"]), 0, spec, names=names, seed=ctx.seed_seq)
    return [r1, r2, r3]


def _eq41_checks(ctx: RunContext, spec: dict, names: dict, f: dict) -> list:
    """eq. 41 against the second derivative of the first-order bound, and its sign at k̃ = 2βK."""
    import sympy as sp

    from proofs.formula import compare

    kt, K, c, dp = (names[k] for k in ("kt", "K", "c", "dp"))
    r4 = compare(
        "eq. 41 = second derivative of the first-order bound / (c/(K(1-δ')))",
        sp.diff(f["lin"], kt, 2) / (c / (K * (1 - dp))),
        f["eq41"],
        spec,
        names=names,
        conditions=[kt > f["b"]],
        seed=ctx.seed_seq,
    )
    r5 = compare(
        "eq. 41 at k = 2βK is > 0 (a minimum; the text says <= 0 for k >= 2βK)",
        f["eq41"].subs(kt, 2 * f["b"]),
        0,
        spec,
        names=names,
        relation=">=",
        seed=ctx.seed_seq,
    )
    return [r4, r5]


def _eq14_slope_check(ctx: RunContext, spec: dict, names: dict):
    """eq. 14 in p: the first-order condition of an interior minimiser at p = 2β (when 2β < 1)."""
    import sympy as sp

    from proofs.formula import compare

    K, c, dp, beta = (names[k] for k in ("K", "c", "dp", "beta"))
    p = sp.Symbol("p", positive=True)
    eps14 = sp.log(1 + p / (1 - dp) * (sp.exp(c / sp.sqrt(K * (p - beta))) - 1))
    slope = sp.diff(eps14, p).subs(p, 2 * beta)
    return compare(
        "d/dp eq. 14 at p* = 2β is 0 (first-order condition of an interior minimiser)",
        slope,
        0,
        spec,
        names=names,
        conditions=[2 * beta < 1],
        seed=ctx.seed_seq,
    )


@check("seif.lemma1.popt", "symbolic")
def _lemma1_popt(ctx: RunContext) -> Outcome:
    """App. C: eq. 40 is the derivative of the first-order bound, not of eq. 39; p* = 2β does not minimise eq. 14."""
    import sympy as sp

    from proofs.formula import combine

    spec, names = _lemma1_setup()
    f = _lemma1_forms(names)
    r1, r2, r3 = _eq40_checks(ctx, spec, names, f)
    r4, r5 = _eq41_checks(ctx, spec, names, f)
    r6 = _eq14_slope_check(ctx, spec, names)
    u = sp.Symbol("u", positive=True)
    return combine(
        [r1, r6, r2, r3, r4, r5],
        claimed="p* = min(1, 2β) minimises eq. 14 (via eq. 40 = dε̃/dk̃)",
        measured="eq. 40 is the derivative of the linearised bound; eq. 14 still decreases at p = 2β",
        extra={
            "finding": "d/dp [p(e^u - 1)] at p = 2β, u = c/sqrt(Kβ), equals e^u(1 - u) - 1 < 0 for u > 0, "
            "so eq. 14's minimiser lies above 2β whenever 2β < 1; 2β minimises only the "
            "first-order bound p·c/((1-δ')sqrt(K(p-β)))",
            "slope_factor": sp.sstr(sp.exp(u) * (1 - u) - 1),
        },
    )


@check("seif.lemma1.eps", "symbolic")
def _lemma1_eps(ctx: RunContext) -> Outcome:
    """eq. 16 equals eq. 14 at p = 2β, β = √(½ log(2/δ′))/√K; and K^{3/4} ε_c → 2c a^{1/4}/(1−δ′), a = ½log(2/δ′)."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"K": "positive", "c": "positive", "dp": "(0,1)"}
    names, _ = make_symbols(spec)
    K, c, dp = names["K"], names["c"], names["dp"]
    a = sp.log(2 / dp) / 2
    beta = sp.sqrt(a) / sp.sqrt(K)
    p = 2 * beta
    eps14 = sp.log(1 + p / (1 - dp) * (sp.exp(c / sp.sqrt(K * (p - beta))) - 1))
    eq16 = sp.log(2 * sp.sqrt(a) / (sp.sqrt(K) * (1 - dp)) * (sp.exp(c / (K * a) ** sp.Rational(1, 4)) - 1) + 1)
    r1 = compare(
        "eq. 16 = eq. 14 at p* = 2β",
        eps14,
        eq16,
        spec,
        names=names,
        seed=ctx.seed_seq,
        simplifiers=[lambda e: sp.expand(sp.powdenest(sp.powsimp(e, force=True), force=True))],
    )
    A = sp.Symbol("A", positive=True)  # A stands for a = log(2/dp)/2 > 0
    eq16A = eq16.xreplace({a: A}) if eq16.has(a) else eq16.subs(sp.log(2 / dp), 2 * A)
    lim = sp.limit(K ** sp.Rational(3, 4) * eq16A, K, sp.oo)
    names2, _ = make_symbols({"A": "positive", "c": "positive", "dp": "(0,1)"})
    lim = lim.xreplace({A: names2["A"], c: names2["c"], dp: names2["dp"]})
    r2 = compare(
        "lim K^(3/4) eps_c = 2 c A^(1/4)/(1-dp) (finite, > 0: eps_c = Theta(K^-3/4))",
        lim,
        2 * names2["c"] * names2["A"] ** sp.Rational(1, 4) / (1 - names2["dp"]),
        {"A": "positive", "c": "positive", "dp": "(0,1)"},
        names=names2,
        seed=ctx.seed_seq,
    )
    return combine(
        [r1, r2], claimed=sp.sstr(eq16) + " = O(K^(-3/4))", measured=sp.sstr(eps14), extra={"A": "log(2/dp)/2"}
    )


def _drv_deviation(ctx: RunContext, spec: dict, names: dict):
    """Azuma: P[sum of T centred losses, each in an interval of half-width ε, > a] <= exp(−a²/(2Tε²));
    solved for a at δ̃. Returns (the comparison with ε√(2T log(1/δ̃)), the solved a)."""
    import sympy as sp

    from proofs.formula import compare

    eps, T, dt = (names[k] for k in ("eps", "T", "dt"))
    a = sp.Symbol("a", positive=True)
    sol = [s for s in sp.solve(sp.Eq(-(a**2) / (2 * T * eps**2), sp.log(dt)), a) if s.is_positive is not False]
    r1 = compare(
        "Azuma deviation: exp(-a^2/(2T eps^2)) = delta_tilde at a = eps sqrt(2T log(1/delta_tilde))",
        sol[0],
        eps * sp.sqrt(2 * T * sp.log(1 / dt)),
        spec,
        names=names,
        seed=ctx.seed_seq,
        simplifiers=[lambda e: sp.expand(sp.expand_log(e, force=True))],
    )
    return r1, sol[0]


def _drv_mean_loss(ctx: RunContext, spec: dict, names: dict):
    """The mean privacy loss of randomised response (the extremal ε-DP pair) is at most ε(e^ε − 1)."""
    import sympy as sp

    from proofs.formula import compare

    eps = names["eps"]
    P1 = sp.exp(eps) / (1 + sp.exp(eps))
    mean_rr = P1 * eps + (1 - P1) * (-eps)
    return compare(
        "mean privacy loss of an eps-DP pair (randomised response) <= eps(e^eps - 1)",
        mean_rr,
        eps * (sp.exp(eps) - 1),
        spec,
        names=names,
        relation="<=",
        seed=ctx.seed_seq,
    )


def _drv_totals(ctx: RunContext, spec: dict, names: dict, total, printed) -> list:
    """The total ε (T·mean + deviation) against the printed form, and the union bound on δ (T = 3)."""
    import sympy as sp

    from proofs.formula import compare

    dt, dc = names["dt"], names["dc"]
    r3 = compare(
        "total eps: T·mean + deviation",
        total,
        printed,
        spec,
        names=names,
        seed=ctx.seed_seq,
        simplifiers=[lambda e: sp.expand(sp.expand_log(e, force=True))],
    )
    r4 = compare(
        "total delta: union bound T·delta_c + delta_tilde",
        sum([dc] * 3) + dt,
        3 * dc + dt,
        spec,
        names=names,
        seed=ctx.seed_seq,
        notes=["T = 3 mechanisms failing w.p. delta_c each"],
    )
    return [r3, r4]


@check("seif.composition.drv", "symbolic")
def _drv(ctx: RunContext) -> Outcome:
    """DRV advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3) as used in Sec. III-A."""
    import sympy as sp

    from proofs.formula import combine, make_symbols

    spec = {"eps": "positive", "T": "integer>=1", "dt": "(0,1)", "dc": "(0,1)"}
    names, _ = make_symbols(spec)
    eps, T, dt = (names[k] for k in ("eps", "T", "dt"))
    r1, deviation = _drv_deviation(ctx, spec, names)
    r2 = _drv_mean_loss(ctx, spec, names)
    total = T * eps * (sp.exp(eps) - 1) + deviation
    printed = sp.sqrt(2 * T * sp.log(1 / dt)) * eps + T * eps * (sp.exp(eps) - 1)
    r3, r4 = _drv_totals(ctx, spec, names, total, printed)
    val = printed.subs({eps: sp.Rational(1, 10), T: 400, dt: sp.Rational(1, 10**5)})
    return combine(
        [r3, r1, r2, r4],
        claimed=sp.sstr(printed),
        measured=sp.sstr(total),
        extra={
            "reference_value": {
                "T": 400,
                "eps": 0.1,
                "delta_tilde": 1e-5,
                "eps_total": float(sp.N(val, 15)),
                "independent_value": 13.803889,
            }
        },
    )


@check("seif.taylor", "symbolic")
def _taylor(ctx: RunContext) -> Outcome:
    """eq. 24–25: E of the second-order Taylor polynomials of 1/x and 1/x² at μ (E[x−μ] = 0, E[(x−μ)²] = σ²)."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"mu": "positive", "s2": "nonnegative"}
    names, _ = make_symbols(spec)
    mu, s2 = names["mu"], names["s2"]
    x, h = sp.symbols("x h", real=True)
    out = []
    for label, fx, printed in (
        ("eq. 24: E[1/|K|]", 1 / x, 1 / mu + s2 / mu**3),
        ("eq. 25: E[1/|K|^2]", 1 / x**2, 1 / mu**2 + 3 * s2 / mu**4),
    ):
        poly = sp.series(fx.subs(x, mu + h), h, 0, 3).removeO()  # c0 + c1 h + c2 h^2
        expect = poly.coeff(h, 0) + poly.coeff(h, 1) * 0 + poly.coeff(h, 2) * s2
        out.append(compare(label, expect, printed, spec, names=names, seed=ctx.seed_seq))
    # the middle expression printed in eq. 24: 1/E - (K-E)/E^2 + (K-E)^2/E^3
    mid = 1 / mu - h / mu**2 + h**2 / mu**3
    out.append(
        compare(
            "eq. 24 middle expression is the Taylor polynomial of 1/x",
            sp.series((1 / x).subs(x, mu + h), h, 0, 3).removeO(),
            mid,
            {"mu": "positive", "h": "real"},
            names={"mu": mu, "h": h},
            seed=ctx.seed_seq,
        )
    )
    return combine(
        out,
        claimed="1/mu + sigma^2/mu^3 and 1/mu^2 + 3 sigma^2/mu^4",
        measured=f"{sp.sstr(out[0].derived_tidy)} and {sp.sstr(out[1].derived_tidy)}",
    )


def _thm3_setup():
    from proofs.formula import make_symbols

    spec = {
        "mu_F": "positive",
        "lam": "positive",
        "T": "integer>=1",
        "L": "positive",
        "d": "integer>=1",
        "K": "integer>=1",
        "p": "(0,1)",
        "s2": "positive",
        "N0": "positive",
    }
    names, _ = make_symbols(spec)
    v = {k: names[k] for k in spec}
    K, p = v["K"], v["p"]
    zeta = 1 - (1 - p) ** K
    mu_K, var_K = K * p, K * p * (1 - p)
    E1 = 1 / mu_K + var_K / mu_K**3  # eq. 24
    E2 = 1 / mu_K**2 + 3 * var_K / mu_K**4  # eq. 25
    term = v["L"] ** 2 / zeta + v["d"] / zeta**2 * (v["s2"] * E1 + E2 * v["N0"])
    derived = 2 * v["mu_F"] / (v["lam"] ** 2 * v["T"] ** 2) * v["T"] * term  # T identical summands of eq. 23
    pre = 2 * v["mu_F"] / (v["lam"] ** 2 * v["T"])
    return spec, names, v, zeta, derived, pre


@check("seif.thm3.uniform", "symbolic")
def _thm3_uniform(ctx: RunContext) -> Outcome:
    """The displayed bound after eq. 25 vs eq. 23 with p_k = p and eq. 24–25 (μ = Kp, σ² = Kp(1−p))."""
    import sympy as sp

    from proofs.formula import combine, compare

    spec, names, v, zeta, derived, pre = _thm3_setup()
    K, p = v["K"], v["p"]
    printed = pre * (
        v["L"] ** 2 / zeta
        + v["d"] / (K * p * zeta**2) * (v["s2"] * (1 + (1 - p) ** 2) + (1 + 3 * (1 - p) ** 2) * v["N0"] / (K * p))
    )
    r1 = compare(
        "bound after eq. 25",
        derived,
        printed,
        spec,
        names=names,
        seed=ctx.seed_seq,
        printed_text="2μ/(λ²T)[L²/ζ + d/(Kpζ²)[σ²max(1+(1−p)²) + (1+3(1−p)²)N0/(Kp)]]",
    )
    # diagnosis: the printed factors are what eq. 24-25 give with sigma^2 = (Kp(1-p))^2
    mu_K = K * p
    E1w = 1 / mu_K + (K * p * (1 - p)) ** 2 / mu_K**3
    r2 = compare(
        "printed factor 1+(1-p)^2 equals Kp·eq. 24 with sigma^2 = (Kp(1-p))^2 (std used as variance)",
        sp.expand(mu_K * E1w),
        1 + (1 - p) ** 2,
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    return combine(
        [r1, r2],
        extra={
            "finding": "the displayed bound has (1-p)^2 where eq. 24-25 with sigma^2 = Kp(1-p) give (1-p)/(Kp): "
            "E[1/|K|] ~ (1 + (1-p)/(Kp))/(Kp), E[1/|K|^2] ~ (1 + 3(1-p)/(Kp))/(Kp)^2 "
            "(claim seif.thm3.uniform.corrected)",
            "text_note": "the paper writes mu_K^2 = Kp; the mean of |K| is Kp",
        },
    )


@check("seif.thm3.uniform.corrected", "symbolic")
def _thm3_uniform_corrected(ctx: RunContext) -> Outcome:
    """The bound with (1 + (1−p)/(Kp)) and (1 + 3(1−p)/(Kp))."""
    from proofs.formula import combine, compare

    spec, names, v, zeta, derived, pre = _thm3_setup()
    K, p = v["K"], v["p"]
    corrected = pre * (
        v["L"] ** 2 / zeta
        + v["d"]
        / (K * p * zeta**2)
        * (v["s2"] * (1 + (1 - p) / (K * p)) + (1 + 3 * (1 - p) / (K * p)) * v["N0"] / (K * p))
    )
    return combine([compare("corrected bound after eq. 25", derived, corrected, spec, names=names, seed=ctx.seed_seq)])


@check("seif.cor2", "symbolic")
def _cor2(ctx: RunContext) -> Outcome:
    """Cor. 2: eq. 21 with p_k,t = p* = α/√K (μ_K = Kp, σ_K² = Kp(1−p)) gives eq. 22."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {
        "mu_F": "positive",
        "lam": "positive",
        "T": "integer>=1",
        "L": "positive",
        "d": "integer>=1",
        "K": "positive",
        "alpha": "positive",
        "s2": "positive",
        "N0": "positive",
    }
    names, _ = make_symbols(spec)
    v = {k: names[k] for k in spec}
    K, al = v["K"], v["alpha"]
    p = al / sp.sqrt(K)
    mu_K, var_K = K * p, K * p * (1 - p)
    summand = v["L"] ** 2 * (mu_K**2 + var_K) / mu_K**2 + v["d"] / mu_K**2 * (v["s2"] * mu_K + v["N0"])
    derived = 2 * v["mu_F"] / (v["lam"] ** 2 * v["T"] ** 2) * v["T"] * summand
    printed = (
        2
        * v["mu_F"]
        / (v["lam"] ** 2 * v["T"])
        * (
            v["L"] ** 2 * (al * (sp.sqrt(K) - 1 / sp.sqrt(K)) + 1) / (al * sp.sqrt(K))
            + v["d"] / (al**2 * K) * (al * sp.sqrt(K) * v["s2"] + v["N0"])
        )
    )
    r = compare(
        "eq. 22 from eq. 21 at p* = alpha/sqrt(K)",
        derived,
        printed,
        spec,
        names=names,
        seed=ctx.seed_seq,
        conditions=[al < sp.sqrt(K)],
    )
    return combine(
        [r],
        extra={
            "note": "valid where p* = alpha/sqrt(K) <= 1; max_k sigma_k,t^2 <= max_k,t sigma^2 "
            "turns eq. 21's per-iteration max into eq. 22's constant"
        },
    )
