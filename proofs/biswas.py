"""Symbolic checks of Biswas, Cormode & Maple (paper 003_e5d52747d9985dd0.txt).

Model (Sec. 2–3): n nodes, a fraction f of them hold the value i; node j is sampled
independently with probability π (π_j in Sec. 5) and, if sampled, reports through DE with
p = e^ε/(e^ε+m−1), q = 1/(e^ε+m−1). With N = Σ_j B_j·1{Y_j = i} and S = Σ_j B_j (B_j the
sampling indicators), each node contributes independently:

- holder:     E[B·1] = πp, Var = πp(1−πp), Cov(B·1, B) = πp(1−π);
- non-holder: the same with q.

From these the exact means, variances and covariances of c_DE (eq. 3 under sampling),
g_DE (eq. 5), ĉ_DE (Thm 3.4) and T (Thm 5.1) are derived and compared with the printed
forms; Var* is the limit f → 0 (Wang et al.'s approximate variance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privcheck.claims import Outcome, RunContext, check

if TYPE_CHECKING:  # sympy and proofs.formula load in the checks (start-up: registering a claim needs neither)
    import sympy as sp

PAPER = "003_e5d52747d9985dd0.txt"
SPEC = {"n": "integer>=1", "f": "[0,1]", "pi": "(0,1]", "eps": "positive", "m": "integer>=2"}


def _setup():
    import sympy as sp

    from proofs.formula import make_symbols

    names, _ = make_symbols(SPEC)
    n, f, pi, eps, m = (names[k] for k in ("n", "f", "pi", "eps", "m"))
    p = sp.exp(eps) / (sp.exp(eps) + m - 1)
    q = 1 / (sp.exp(eps) + m - 1)
    EN = n * f * pi * p + n * (1 - f) * pi * q
    VarN = n * f * pi * p * (1 - pi * p) + n * (1 - f) * pi * q * (1 - pi * q)
    ES = n * pi
    VarS = n * pi * (1 - pi)
    CovNS = n * f * pi * p * (1 - pi) + n * (1 - f) * pi * q * (1 - pi)
    return names, dict(n=n, f=f, pi=pi, eps=eps, m=m, p=p, q=q, EN=EN, VarN=VarN, ES=ES, VarS=VarS, CovNS=CovNS)


_NOTE = "p = exp(eps)/(exp(eps)+m-1), q = 1/(exp(eps)+m-1); n nodes, fraction f hold i, sampling prob pi"


@check("biswas.cde.bias", "symbolic")
def _cde_bias(ctx: RunContext) -> Outcome:
    """eq. 4: E[c_DE(i)] = n f π − nq(1−π)/(p−q) under sampling."""
    from proofs.formula import combine, compare

    names, v = _setup()
    n, f, pi, p, q = v["n"], v["f"], v["pi"], v["p"], v["q"]
    derived = (v["EN"] - n * q) / (p - q)
    printed = n * f * pi - n * q * (1 - pi) / (p - q)
    r = compare("E[c_DE] (eq. 4)", derived, printed, SPEC, names=names, seed=ctx.seed_seq)
    return combine([r], extra={"model": _NOTE})


@check("biswas.gde.unbiased", "symbolic")
def _gde_unbiased(ctx: RunContext) -> Outcome:
    """Thm 3.1: E[g_DE] = n f with g_DE = c_DE/π + nq(1−π)/((p−q)π) (eq. 5)."""
    from proofs.formula import combine, compare

    names, v = _setup()
    n, f, pi, p, q = v["n"], v["f"], v["pi"], v["p"], v["q"]
    Ec = (v["EN"] - n * q) / (p - q)
    derived = Ec / pi + n * q * (1 - pi) / ((p - q) * pi)
    r = compare("E[g_DE] = n f", derived, n * f, SPEC, names=names, seed=ctx.seed_seq)
    return combine([r], extra={"model": _NOTE})


def _var_star_g(v) -> sp.Expr:
    import sympy as sp

    return sp.limit(sp.cancel(v["VarN"] / (v["pi"] ** 2 * (v["p"] - v["q"]) ** 2)), v["f"], 0)


@check("biswas.gde.variance", "symbolic")
def _gde_variance(ctx: RunContext) -> Outcome:
    """Thm 3.2: Var*(c_DE) = nπ(q − q²π)/(p−q)² and Var*(g_DE) = n(q − q²π)/((p−q)²π)."""
    import sympy as sp

    from proofs.formula import combine, compare

    names, v = _setup()
    n, pi, p, q = v["n"], v["pi"], v["p"], v["q"]
    var_c = sp.limit(v["VarN"] / (p - q) ** 2, v["f"], 0)
    r1 = compare(
        "Var*(c_DE) under sampling",
        var_c,
        n * pi * (q - q**2 * pi) / (p - q) ** 2,
        SPEC,
        names=names,
        seed=ctx.seed_seq,
    )
    r2 = compare(
        "Var*(g_DE)", _var_star_g(v), n * (q - q**2 * pi) / ((p - q) ** 2 * pi), SPEC, names=names, seed=ctx.seed_seq
    )
    return combine([r2, r1], extra={"model": _NOTE, "Var*": "limit f -> 0 of the exact variance"})


@check("biswas.gde.normvar", "symbolic")
def _gde_normvar(ctx: RunContext) -> Outcome:
    """Thm 3.3: Var*(g_DE/(nπ)) = (q − q²π)/((p−q)²π³n) and π³n times it stays bounded."""
    import sympy as sp

    from proofs.formula import combine, compare

    names, v = _setup()
    n, pi, p, q = v["n"], v["pi"], v["p"], v["q"]
    derived = _var_star_g(v) / (n * pi) ** 2
    printed = (q - q**2 * pi) / ((p - q) ** 2 * pi**3 * n)
    r1 = compare(
        "Var*(g_DE/E[S]), E[S] = n pi (the proof's normalisation)",
        derived,
        printed,
        SPEC,
        names=names,
        seed=ctx.seed_seq,
    )
    lim = sp.limit(sp.cancel(derived * pi**3 * n), pi, 0)
    r2 = compare(
        "lim_{pi->0} pi^3 n Var*_norm = q/(p-q)^2 (finite, free of n: O(1/(pi^3 n)))",
        lim,
        q / (p - q) ** 2,
        SPEC,
        names=names,
        seed=ctx.seed_seq,
    )
    return combine(
        [r1, r2],
        extra={
            "model": _NOTE,
            "note": "Def. 3.1 defines Var_norm(X) = Var(X)/E(X), but the proof normalises by E[S] = n*pi "
            "(Var(g/(n pi))); the check follows the proof. With Def. 3.1 literally, Var*(g)/E[g] = "
            "Var*(g)/(n f) diverges as f -> 0.",
        },
    )


@check("biswas.chat.unbiased", "symbolic")
def _chat_unbiased(ctx: RunContext) -> Outcome:
    """Thm 3.4: E[ĉ_DE] = n f with ĉ_DE = (N − Sq)/(π(p−q))."""
    from proofs.formula import combine, compare

    names, v = _setup()
    n, f, pi, p, q = v["n"], v["f"], v["pi"], v["p"], v["q"]
    derived = (v["EN"] - q * v["ES"]) / (pi * (p - q))
    r = compare("E[c_hat_DE] = n f", derived, n * f, SPEC, names=names, seed=ctx.seed_seq)
    return combine([r], extra={"model": _NOTE})


@check("biswas.thm35", "symbolic")
def _thm35(ctx: RunContext) -> Outcome:
    """Thm 3.5: Var(ĉ_DE) ≥ Var(g_DE); and the proof's step (6), which drops Cov(N, S)."""
    import sympy as sp

    from proofs.formula import combine, compare

    names, v = _setup()
    n, pi, p, q = v["n"], v["pi"], v["p"], v["q"]
    den = pi**2 * (p - q) ** 2
    var_g = v["VarN"] / den
    var_chat = (v["VarN"] + q**2 * v["VarS"] - 2 * q * v["CovNS"]) / den
    r1 = compare("Var(c_hat_DE) >= Var(g_DE)", var_chat, var_g, SPEC, names=names, relation=">=", seed=ctx.seed_seq)
    r2 = compare(
        "eq. (6): Var(c_hat) = Var(g) + Var(S) q^2/(pi^2 (p-q)^2)",
        var_chat,
        var_g + v["VarS"] * q**2 / den,
        SPEC,
        names=names,
        seed=ctx.seed_seq,
    )
    gap = sp.factor(sp.cancel((var_g - var_chat).subs(sp.exp(v["eps"]), sp.Symbol("E"))))
    f = v["f"]
    closed = n * q * (1 - pi) * ((1 - f) * q + f * (2 * p - q)) / (pi * (p - q) ** 2)
    r3 = compare(
        "Var(g_DE) - Var(c_hat_DE) = n q (1-pi)((1-f) q + f (2p - q))/(pi (p-q)^2) >= 0",
        var_g - var_chat,
        closed,
        SPEC,
        names=names,
        seed=ctx.seed_seq,
    )
    return combine(
        [r1, r2, r3],
        extra={
            "model": _NOTE,
            "finding": "the covariance term -2q Cov(N, S) (Cov = n pi (1-pi)(f p + (1-f) q) > 0) is missing from eq. (6); "
            "with it Var(c_hat_DE) <= Var(g_DE) for every pi in (0,1): the inequality of Thm 3.5 is reversed",
            "corrected": "Var(g_DE) - Var(c_hat_DE) = " + sp.sstr(closed),
            "gap_with_E_for_exp_eps": sp.sstr(gap),
        },
    )


@check("biswas.thm36", "symbolic")
def _thm36(ctx: RunContext) -> Outcome:
    """Thm 3.6 "on average": E[g_DE] and E[c_DE] without sampling (π = 1, the proof's eq. 7, 10) coincide,
    so 0 ≤ E ≤ n holds for one iff for the other."""
    import sympy as sp

    from proofs.formula import combine, compare

    names, v = _setup()
    n, pi, p, q = v["n"], v["pi"], v["p"], v["q"]
    Ec_sampled = (v["EN"] - n * q) / (p - q)
    Eg = Ec_sampled / pi + n * q * (1 - pi) / ((p - q) * pi)
    Ec_full = Ec_sampled.subs(pi, 1)
    r = compare(
        "E[g_DE] = E[c_DE] (no sampling, as in eq. 7 and 10)", Eg, Ec_full, SPEC, names=names, seed=ctx.seed_seq
    )
    at0 = sp.factor(sp.cancel(Ec_sampled.subs(v["f"], 0)))
    return combine(
        [r],
        extra={
            "model": _NOTE,
            "note": "the proof's c_DE sums over all n nodes (no sampling). For c_DE under sampling the equivalence "
            f"fails: at f = 0, E[g_DE] = 0 but E[c_DE] = {sp.sstr(at0)} < 0 for pi < 1.",
        },
    )


def _personal(nn: int):
    import sympy as sp

    from proofs.formula import make_symbols

    spec = {f"pi{j}": "(0,1]" for j in range(1, nn + 1)}
    spec.update({"eps": "positive", "m": "integer>=2"})
    names, _ = make_symbols(spec)
    pis = [names[f"pi{j}"] for j in range(1, nn + 1)]
    eps, m = names["eps"], names["m"]
    p = sp.exp(eps) / (sp.exp(eps) + m - 1)
    q = 1 / (sp.exp(eps) + m - 1)
    return spec, names, pis, p, q


@check("biswas.T.unbiased", "symbolic")
def _T_unbiased(ctx: RunContext) -> Outcome:
    """Thm 5.1: E[T(i)] for n = 3 nodes with personal π_j, node 1 holding i (n f = 1)."""
    import sympy as sp

    from proofs.formula import combine, compare

    nn = 3
    spec, names, pis, p, q = _personal(nn)
    holds = [1, 0, 0]
    sum_pi = sum(pis)
    EN = sum(pj * (p if h else q) for pj, h in zip(pis, holds))
    Eh = (EN - nn * q) / (p - q)
    ET = nn * Eh / sum_pi + nn * q * (nn - sum_pi) / (sum_pi * (p - q))
    r1 = compare(
        "E[T(i)] = n f_i with personal pi_j (n = 3, node 1 holds i)",
        ET,
        sum(holds),
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    pi = names["pi1"]
    r2 = compare(
        "equal pi_j (T reduces to g_DE)",
        ET.subs({pj: pi for pj in pis}),
        sum(holds),
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    ht = sum(pj * ((p if h else q) - q) / (pj * (p - q)) for pj, h in zip(pis, holds))
    r3 = compare(
        "Horvitz-Thompson alternative sum_j B_j(1{Y_j=i} - q)/(pi_j (p-q)) is unbiased",
        ht,
        sum(holds),
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    return combine(
        [r1, r2, r3],
        claimed="E[T(i)] = n f_i",
        measured="E[T(i)] = " + sp.sstr(sp.factor(sp.cancel(ET))),
        extra={
            "general": "E[T(i)] = n * (sum of pi_j over nodes holding i) / (sum_j pi_j): unbiased only "
            "when the holders' mean sampling probability equals the overall mean",
            "corrected_estimator": "sum_j B_j (1{Y_j = i} - q) / (pi_j (p - q)) (Horvitz-Thompson)",
        },
    )


@check("biswas.T.variance", "symbolic")
def _T_variance(ctx: RunContext) -> Outcome:
    """Thm 5.1 and Remark 2: Var*(T) for n = 4 nodes with symbolic π_j, and its reductions."""
    from proofs.formula import combine, compare

    nn = 4
    spec, names, pis, p, q = _personal(nn)
    sum_pi = sum(pis)
    # Var* (f -> 0): no node holds i, every report is i w.p. q; nodes independent
    var_N = sum(pj * q * (1 - pj * q) for pj in pis)
    derived = nn**2 * var_N / (sum_pi**2 * (p - q) ** 2)
    printed = nn**2 * sum(q * pj * (1 - q * pj) for pj in pis) / (sum_pi**2 * (p - q) ** 2)
    r1 = compare("Var*(T(i)), n = 4, personal pi_j", derived, printed, spec, names=names, seed=ctx.seed_seq)
    pi = names["pi1"]
    eq = printed.subs({pj: pi for pj in pis})
    r2 = compare(
        "Remark 2: equal pi_j gives Var*(g_DE)",
        eq,
        nn * (q - q**2 * pi) / ((p - q) ** 2 * pi),
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    r3 = compare(
        "Remark 2: pi_j = 1 gives Var*(c_DE) of [14], n q (1-q)/(p-q)^2",
        printed.subs({pj: 1 for pj in pis}),
        nn * q * (1 - q) / (p - q) ** 2,
        spec,
        names=names,
        seed=ctx.seed_seq,
    )
    return combine([r1, r2, r3], extra={"scope": "n = 4 nodes with symbolic pi_1..pi_4; Var* = limit f -> 0"})
