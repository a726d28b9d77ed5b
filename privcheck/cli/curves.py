"""``privcheck budget pld --tradeoff | --gdp | --risk``: the accountant's certified curves as a
JSON-ready dict and report lines (used by privcheck.cli.budget; logic in accountants.pld.tradeoff)."""

from __future__ import annotations

import math

from accountants.pld.tradeoff import GDP_ALPHA_MIN, check_alpha, check_alpha_min

__all__ = ["curve_report", "DEFAULT_ALPHAS", "DEFAULT_FPRS"]

DEFAULT_ALPHAS = (1e-6, 1e-4, 1e-3, 0.01, 0.05, 0.1, 0.25, 0.5)
DEFAULT_FPRS = (1e-4, 1e-3, 0.01, 0.1)


def _g(x: float) -> str:
    return f"{x:.6g}"


def _sig(x: float, d: int, rounding: str) -> str:
    """x to d significant digits, rounded in the given direction (decimal.ROUND_FLOOR / ROUND_CEILING)."""
    from decimal import Decimal

    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    v = Decimal(x)
    q = Decimal(1).scaleb(v.adjusted() - d + 1)
    r = v.quantize(q, rounding=rounding).normalize()
    return format(r, "g").replace("E", "e")


def _up(x: float) -> str:
    """An upper bound to 7 significant digits, rounded up."""
    from decimal import ROUND_CEILING

    return _sig(float(x), 7, ROUND_CEILING)


def interval_text(lo: float, up: float, digits: int = 7) -> str:
    """``[lo, up]`` rounded outward (the printed ends still enclose the certified ones), with at least
    ``digits`` significant digits and more when needed to tell the ends apart (a narrow certified
    interval must not read as a point: [38.89368, 38.89368])."""
    from decimal import ROUND_CEILING, ROUND_FLOOR

    d = digits
    while d < 17 and lo != up and _sig(lo, d, ROUND_FLOOR) == _sig(up, d, ROUND_CEILING):
        d += 1
    return f"[{_sig(lo, d, ROUND_FLOOR)}, {_sig(up, d, ROUND_CEILING)}]"


def curve_report(
    acc,
    *,
    tradeoff: bool = False,
    alphas=(),
    gdp: bool = False,
    alpha_min: float | None = None,
    risk: bool = False,
    fprs=(),
) -> tuple[dict, list[str]]:
    """One of the three curve reports of a composed PLDAccountant ``acc``.

    tradeoff: β(α) at ``alphas`` (each in [0, 1]; default DEFAULT_ALPHAS) -> alpha, beta_lower, beta_upper.
    gdp: μ and regret at ``alpha_min`` ∈ (0, 0.5) (default 1e−10) -> mu_lower/mu_upper/regret_lower/regret_upper.
    risk: best attack TPR at ``fprs`` (each in [0, 1]; default DEFAULT_FPRS) -> fpr, tpr_upper (and
    tpr_lower), advantage_lower/advantage_upper. Bad values raise PrivcheckUsageError (one line)."""
    if tradeoff:
        return _tradeoff_report(acc, alphas)
    if gdp:
        return _gdp_report(acc, alpha_min)
    return _risk_report(acc, fprs)


def _tradeoff_report(acc, alphas) -> tuple[dict, list[str]]:
    """β(α) at ``alphas`` (default :data:`DEFAULT_ALPHAS`): certified ends, rounded outward when printed."""
    a = check_alpha(list(alphas) or list(DEFAULT_ALPHAS), "--alpha")
    iv = acc.tradeoff(a)
    res = {
        "alpha": a.tolist(),
        "beta_lower": iv.lower.tolist(),
        "beta_upper": iv.upper.tolist(),
        "method": iv.method,
        "notes": list(iv.notes),
    }
    lines = [f"  trade-off curve beta(alpha) [{iv.method}; certified: the exact curve lies between the ends]"]
    lines += [f"    alpha={_g(x):>8}  beta in {interval_text(lo, up)}" for x, lo, up in zip(a, iv.lower, iv.upper)]
    return res, lines + [f"  note: {n}" for n in iv.notes]


def _gdp_report(acc, alpha_min: float | None) -> tuple[dict, list[str]]:
    """μ and the worst-case regret where α, β ≥ ``alpha_min`` (default 1e−10), or that the answer is vacuous."""
    am = GDP_ALPHA_MIN if alpha_min is None else check_alpha_min(alpha_min, "--alpha-min")
    g = acc.gdp(alpha_min=am)
    mu, regret = g
    res = {
        "alpha_min": am,
        "vacuous": g.vacuous,
        "mu_lower": mu.lower,
        "mu_upper": mu.upper,
        "regret_lower": regret.lower,
        "regret_upper": regret.upper,
        "method": mu.method,
        "notes": list(mu.notes),
    }
    exact = mu.method == "exact GDP"
    where = (
        "exactly mu-GDP: every alpha"
        if exact
        else f"smallest mu with G_mu below the curve where alpha, beta >= {_g(am)}"
    )
    head = f"  mu-GDP: mu in {interval_text(mu.lower, mu.upper)}  ({where})"
    if g.vacuous.startswith("vacuous:"):
        head = f"  mu-GDP: VACUOUS at alpha_min={_g(am)} (no alpha in the range; mu = 0 says nothing)"
    lines = [
        head,
        f"  worst-case regret in {interval_text(regret.lower, regret.upper)}  (how far the curve lies above G_mu; gdpnum's definition)",
    ]
    if not exact:
        lines.append(
            "  note: the strict mu over all alpha can be far larger for subsampled mechanisms (try a smaller --alpha-min)"
        )
    return res, lines + [f"  note: {n}" for n in mu.notes]


def _risk_report(acc, fprs) -> tuple[dict, list[str]]:
    """Certified upper bounds on any membership-inference attack's TPR at ``fprs``, and on its advantage."""
    f = check_alpha(list(fprs) or list(DEFAULT_FPRS), "--fpr")
    iv = acc.risk(fpr=f)
    adv = acc.advantage()
    res = {
        "fpr": f.tolist(),
        "tpr_lower": iv.lower.tolist(),
        "tpr_upper": iv.upper.tolist(),
        "advantage_lower": adv.lower,
        "advantage_upper": adv.upper,
        "method": iv.method,
        "notes": list(iv.notes),
    }
    lines = [f"  attack risk (any membership-inference attack) [{iv.method}; certified upper bounds]"]
    lines += [f"    FPR={_g(x):>8}  TPR <= {_up(up)}" for x, up in zip(f, iv.upper)]
    lines.append(f"  advantage max(TPR - FPR) <= {_up(adv.upper)}")
    return res, lines + [f"  note: {n}" for n in iv.notes]
