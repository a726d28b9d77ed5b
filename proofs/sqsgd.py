"""Symbolic checks of sqSGD's closed forms (paper 001_30a1c1c8dca8a50f.txt).

- ``sqsgd.quantize.unbiased`` — eq. 5–6 as printed: round up with probability
  k*(X − B_k*)/(2U); E[X̂] is derived and compared with X.
- ``sqsgd.quantize.unbiased.corrected`` — the same with probability (K−1)(X − B_k*)/(2U)
  (the bin width of eq. 5 is 2U/(K−1)).
- ``sqsgd.privquant.m`` — Alg. 1 step 3: E[V¹ | X̂ = u] = m·u¹, derived by counting the
  vectors of B^d by their number of matches with u (V uniform on {M(v,u) > κ} w.p. p, on
  {M ≤ κ} w.p. 1−p) for every d ≤ 8 and κ < d, symbolic K and p; uses Σ_k B_k = 0.
- ``sqsgd.rotation.orthogonal`` — eq. 10: R = (1/d)·H·A; R Rᵀ is derived for d = 2…16 with
  symbolic Rademacher signs (a_i² = 1) and compared with I.
- ``sqsgd.rotation.orthogonal.corrected`` — R = H·A/√d.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privcheck.claims import Outcome, RunContext, check

if TYPE_CHECKING:  # sympy and proofs.formula load in the checks (start-up: registering a claim needs neither)
    import sympy as sp

PAPER = "001_30a1c1c8dca8a50f.txt"
_QSPEC = {"U": "positive", "K": "integer>=2", "k": "integer>=1", "theta": "[0,1)"}


def _quantizer_mean(prob_numerator_factor) -> tuple[dict, sp.Expr, sp.Expr]:
    """E[X̂] for X = B_k + θ·(bin width), rounding up with prob factor·(X − B_k)/(2U)."""
    from proofs.formula import make_symbols

    names, _ = make_symbols(_QSPEC)
    U, K, k, th = (names[n] for n in ("U", "K", "k", "theta"))

    def B(j):
        return -U + 2 * (j - 1) * U / (K - 1)  # eq. 5

    X = B(k) + th * (B(k + 1) - B(k))  # X in [B_k*, B_k*+1)
    prob = prob_numerator_factor(K, k) * (X - B(k)) / (2 * U)
    mean = B(k + 1) * prob + B(k) * (1 - prob)
    return names, mean, X


@check("sqsgd.quantize.unbiased", "symbolic")
def _quantize_printed(ctx: RunContext) -> Outcome:
    """eq. 6 as printed (probability k*(X−B_k*)/(2U)): E[X̂] vs X."""
    import sympy as sp

    from proofs.formula import combine, compare

    names, mean, X = _quantizer_mean(lambda K, k: k)
    K, k = names["K"], names["k"]
    r = compare(
        "E[X̂] = X with the printed probability",
        mean,
        X,
        _QSPEC,
        names=names,
        conditions=[k <= K - 1],
        seed=ctx.seed_seq,
    )
    return combine(
        [r],
        claimed="E[X̂] = X",
        measured="E[X̂] = " + sp.sstr(sp.factor(sp.cancel(mean))),
        extra={
            "model": "X = B_k* + theta*(B_k*+1 - B_k*), B_k = -U + 2(k-1)U/(K-1) (eq. 5), k* in 1..K-1",
            "note": "the printed probability equals the unbiased one only when k* = K-1; "
            "corrected probability: (K-1)(X - B_k*)/(2U) (claim sqsgd.quantize.unbiased.corrected)",
            "corrected_probability": "(K - 1)*(X - B_k*)/(2*U)",
        },
    )


@check("sqsgd.quantize.unbiased.corrected", "symbolic")
def _quantize_corrected(ctx: RunContext) -> Outcome:
    """Probability (K−1)(X−B_k*)/(2U): E[X̂] = X."""
    import sympy as sp

    from proofs.formula import combine, compare

    names, mean, X = _quantizer_mean(lambda K, k: K - 1)
    K, k = names["K"], names["k"]
    r = compare(
        "E[X̂] = X with probability (K-1)(X-B_k*)/(2U)",
        mean,
        X,
        _QSPEC,
        names=names,
        conditions=[k <= K - 1],
        seed=ctx.seed_seq,
    )
    return combine([r], claimed="E[X̂] = X", measured="E[X̂] = " + sp.sstr(sp.factor(sp.cancel(mean))))


def _m_printed(d: int, tau: int, K: sp.Expr, p: sp.Expr) -> sp.Expr:
    """The normalising factor m of Alg. 1 step 3, as printed."""
    import sympy as sp

    num = sp.binomial(d - 1, tau - 1) * (K - 1) ** (d - tau)
    hi = sum(sp.binomial(d, l) * (K - 1) ** (d - l) for l in range(tau, d + 1))
    lo = sum(sp.binomial(d, l) * (K - 1) ** (d - l) for l in range(0, tau))
    return p * num / hi - (1 - p) * num / lo


def _m_derived(d: int, kappa: int, K: sp.Expr, p: sp.Expr) -> sp.Expr:
    """E[V¹ | u]/u¹ by counting: M(v,u) = 2·matches − d; coordinate 1 matches or takes a level w ≠ u¹.

    #{v: M > κ, v¹ = u¹} = Σ_{j: 2(j+1)−d > κ} C(d−1, j)(K−1)^{d−1−j}; for a given w ≠ u¹,
    #{v: M > κ, v¹ = w} = Σ_{j: 2j−d > κ} C(d−1, j)(K−1)^{d−1−j}; Σ_{w ≠ u¹} w = −u¹ (Σ_k B_k = 0).
    """
    import sympy as sp

    def count(first_match: bool, above: bool) -> sp.Expr:
        tot = sp.S.Zero
        for j in range(d):  # matches among coordinates 2..d
            matches = j + (1 if first_match else 0)
            M = 2 * matches - d
            if (M > kappa) == above:
                tot += sp.binomial(d - 1, j) * (K - 1) ** (d - 1 - j)
        return tot

    def cond_mean(above: bool) -> sp.Expr:  # E[U¹ | event]/u¹ for U uniform on B^d
        size = count(True, above) + (K - 1) * count(False, above)
        return (count(True, above) - count(False, above)) / size

    return p * cond_mean(True) + (1 - p) * cond_mean(False)


@check("sqsgd.privquant.m", "symbolic")
def _privquant_m(ctx: RunContext) -> Outcome:
    """m of Alg. 1 step 3 equals E[V¹|u]/u¹ for all d ≤ 8, κ ∈ {0..d−1}, symbolic K ≥ 2 and p."""
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"K": "integer>=2", "p": "[1/2,1]", "U": "positive"}
    names, _ = make_symbols(spec)
    K, p, U = names["K"], names["p"], names["U"]
    kk = sp.Symbol("k", integer=True, positive=True)
    levels_sum = sp.summation(-U + 2 * (kk - 1) * U / (K - 1), (kk, 1, K))
    results = [compare("sum of the levels B_k (eq. 5) is 0", levels_sum, 0, spec, names=names, seed=ctx.seed_seq)]
    cases = []
    for d in range(1, 9):
        for kappa in range(d):
            tau = -(-(d + kappa + 1) // 2)
            r = compare(
                f"m, d={d}, kappa={kappa}",
                _m_derived(d, kappa, K, p),
                _m_printed(d, tau, K, p),
                {"K": "integer>=2", "p": "[1/2,1]"},
                names=names,
                seed=ctx.seed_seq,
                max_points=20,
            )
            cases.append(r)
    bad = [r for r in cases if r.verdict != "holds"]
    results += bad if bad else [cases[-1]]
    return combine(
        results,
        claimed="m = p·C(d−1,τ−1)(K−1)^{d−τ}/Σ_{ℓ≥τ} C(d,ℓ)(K−1)^{d−ℓ} − "
        "(1−p)·C(d−1,τ−1)(K−1)^{d−τ}/Σ_{ℓ<τ} C(d,ℓ)(K−1)^{d−ℓ}",
        measured=f"equal for {len(cases) - len(bad)} of {len(cases)} (d, kappa) cases",
        extra={
            "cases": len(cases),
            "cases_holding": len(cases) - len(bad),
            "scope": "every d in 1..8 and kappa in 0..d-1; K and p symbolic",
        },
    )


def _hadamard(d: int) -> sp.Matrix:
    """Walsh–Hadamard matrix H(d) by the recursion of eq. 10 (d a power of 2)."""
    import sympy as sp

    H = sp.Matrix([[1, 1], [1, -1]])
    while H.shape[0] < d:
        H = sp.Matrix(sp.BlockMatrix([[H, H], [H, -H]]))
    return H


def _gram(d: int, scale: sp.Expr) -> sp.Matrix:
    """R Rᵀ for R = scale·H·A, A = diag(a_1..a_d) with symbolic signs (a_i² = 1 applied)."""
    import sympy as sp

    a = sp.symbols(f"a1:{d + 1}", real=True)
    A = sp.diag(*a)
    R = scale * _hadamard(d) * A
    G = (R * R.T).applyfunc(sp.expand)
    return G.xreplace({ai**2: 1 for ai in a})


def _rotation(ctx: RunContext, corrected: bool) -> Outcome:
    import sympy as sp

    from proofs.formula import combine, compare, make_symbols

    spec = {"d": "integer>=2"}
    names, _ = make_symbols(spec)
    results = []
    for n in range(1, 5):
        d = 2**n
        scale = 1 / sp.sqrt(d) if corrected else sp.Rational(1, d)
        G = _gram(d, scale)
        dev = sum((G - sp.eye(d)).applyfunc(lambda e: e**2))  # squared Frobenius distance to I
        results.append(
            compare(
                f"||R R^T - I||_F^2 = 0, d={d}",
                sp.nsimplify(dev),
                0,
                {},
                names={},
                seed=ctx.seed_seq,
                notes=[f"R R^T = {sp.sstr(G[0, 0])}*I" if G == G[0, 0] * sp.eye(d) else f"R R^T = {sp.sstr(G)}"],
            )
        )
    d = names["d"]
    diag = (1 / sp.sqrt(d) if corrected else 1 / d) ** 2 * d  # (R R^T)_ii = scale² · (H Hᵀ)_ii = scale² · d
    results.append(
        compare("diagonal of R R^T for general d = 2^n (H H^T = d I)", diag, 1, spec, names=names, seed=ctx.seed_seq)
    )
    return combine(
        results,
        claimed="R R^T = I" + (" with R = H A/sqrt(d)" if corrected else " with R = H A/d"),
        measured=("R R^T = I" if corrected else "R R^T = I/d"),
        extra={"corrected_scaling": "R = H*A/sqrt(d)"} if not corrected else None,
    )


@check("sqsgd.rotation.orthogonal", "symbolic")
def _rotation_printed(ctx: RunContext) -> Outcome:
    """R = (1/d)·H·A as printed: R Rᵀ vs I."""
    return _rotation(ctx, corrected=False)


@check("sqsgd.rotation.orthogonal.corrected", "symbolic")
def _rotation_corrected(ctx: RunContext) -> Outcome:
    """R = H·A/√d: R Rᵀ = I."""
    return _rotation(ctx, corrected=True)
