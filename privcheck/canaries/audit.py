"""``audit_scores``: canary scores in, certified ε (and μ) lower bounds and a verdict out.

Methods (``method=``):

=============  ===========================================================================
``cp``         binary rules, Clopper–Pearson ε (Nasr et al. 2021) — independent runs
``gdp``        binary rules, μ-GDP fit μ = Φ⁻¹(1 − FPR_u) − Φ⁻¹(FNR_u) (Nasr et al. 2023)
``one-run``    guess rules in one run, Steinke, Nasr & Jagielski (2023) Thm 3.1 / 5.2
``one-run-fdp`` guess rules in one run, the f-DP recursion of Mahloujifar, Melis & Chaudhuri (2025)
``auto``       ``one-run-fdp`` (valid for one run with independently included canaries, and for
               independent runs with fair coins)
=============  ===========================================================================

Results: ``eps_lower`` is always a lower confidence bound on ε at ``delta`` valid for *any*
mechanism (no assumption on the curve's shape); ``mu_lower`` (gdp, cp, one-run-fdp) bounds μ of a
μ-GDP claim; ``eps_if_gdp`` is the ε at δ of the μ_lower-GDP curve, Nasr et al. (2023)'s figure,
which bounds ε only if the mechanism's curve is Gaussian (labelled so). Each bound is valid at
``confidence`` on its own. The verdict against a claim (``eps``, ``mu`` or ``accountant``) uses one
test, named in the record; ``inconclusive`` when these scores could not have refuted the claim
even if perfectly separated (the power line) or when nothing separated in from out.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.canaries import binary, guessing
from privcheck.canaries.fdp import dp_family, gdp_family
from privcheck.canaries.gdpfit import eps_if_gdp
from privcheck.canaries.rules import (
    ThresholdRule,
    apply_guess_rule,
    check_scores,
    guess_candidates,
    parse_sides,
    parse_thresholds,
    split_scores,
)

__all__ = ["METHODS", "ScoreAudit", "audit_scores"]

METHODS = ("cp", "gdp", "one-run", "one-run-fdp", "auto")
_SOURCES = {
    "cp": "Nasr, Song, Thakurta, Papernot & Carlini 2021 (Clopper-Pearson on FPR/FNR)",
    "gdp": "Nasr, Hayes, Steinke, Balle, Tramer, Jagielski, Carlini & Terzis 2023 (mu-GDP fit)",
    "one-run": "Steinke, Nasr & Jagielski 2023, Thm 3.1/5.2 (one run)",
    "one-run-fdp": "Mahloujifar, Melis & Chaudhuri 2025 (f-DP in one run)",
}


@dataclass(frozen=True)
class ScoreAudit:
    """The record of one score audit (see the module docstring for the meaning of each bound)."""

    method: str
    eps_lower: float
    delta: float
    confidence: float
    n_in: int
    n_out: int
    mu_lower: float | None
    eps_if_gdp: float | None
    eps_max: float
    power: str
    rule: dict
    chosen: dict
    claim: dict | None = None
    verdict: str | None = None
    reason: str | None = None
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        """JSON-ready dict (stable field names; inf as the string 'inf')."""
        from privcheck.claims import _jsonable

        return _jsonable(
            {
                "method": self.method,
                "source": _SOURCES.get(self.method, ""),
                "eps_lower": self.eps_lower,
                "delta": self.delta,
                "mu_lower": self.mu_lower,
                "eps_if_gdp": self.eps_if_gdp,
                "confidence": self.confidence,
                "n_in": self.n_in,
                "n_out": self.n_out,
                "eps_max": self.eps_max,
                "power": self.power,
                "rule": self.rule,
                "chosen": self.chosen,
                "claim": self.claim,
                "verdict": self.verdict,
                "reason": self.reason,
                "seconds": self.seconds,
                "notes": list(self.notes),
            }
        )


@dataclass
class _Found:
    """What one method computed, before the verdict."""

    eps: float
    mu: float | None
    eps_max: float
    mu_max: float | None
    chosen: dict
    rule: dict
    refuted: bool | None = None  # the curve test of an accountant / μ claim, when the method has one
    curve_power: bool | None = None
    claim_test: str = ""
    notes: list = field(default_factory=list)


# ------------------------------------------------------------------------------- binary methods


def _binary(s_in, s_out, alpha, delta, rule: ThresholdRule, dirs, want, claim) -> _Found:
    if rule.kind == "explicit":
        dirs, a_each, tests = (1,), alpha / 2.0, 1
        t = float(rule.threshold)
        ch = binary.certify_point(
            1, t, int(np.sum(s_out >= t)), int(np.sum(s_in < t)), s_in.size, s_out.size, a_each, delta
        )
        eps_ch = mu_ch = ch
        est_in, est_out = s_in, s_out
        counts = None
    elif rule.kind == "split":
        (sel_in, sel_out), (est_in, est_out) = split_scores(s_in, s_out, rule.fraction, rule.seed)
        a_each, tests = alpha / 2.0, 1
        pick = binary.best_binary(sel_in, sel_out, alpha / 2.0, delta, dirs, "gdp" if want == "gdp" else "cp")
        d, t = (pick.direction, pick.threshold) if pick is not None else (1, math.inf)
        a, b = (est_in, est_out) if d > 0 else (-est_in, -est_out)
        ch = binary.certify_point(d, t, int(np.sum(b >= t)), int(np.sum(a < t)), a.size, b.size, a_each, delta)
        eps_ch = mu_ch = ch
        dirs = (d,)
        counts = None
    else:
        tests = len(dirs) * (s_in.size + s_out.size + 2)
        a_each = alpha / tests
        est_in, est_out = s_in, s_out
        counts = binary.direction_counts(s_in, s_out, dirs)
        eps_ch = binary.best_binary(s_in, s_out, a_each, delta, dirs, "cp", counts)
        mu_ch = binary.best_binary(s_in, s_out, a_each, delta, dirs, "gdp", counts)
    perfect = binary.certify_point(1, 0.0, 0, 0, est_in.size, est_out.size, a_each, delta)
    found = _Found(
        eps=max(0.0, eps_ch.eps) if eps_ch else 0.0,
        mu=max(0.0, mu_ch.mu) if mu_ch else 0.0,
        eps_max=max(0.0, perfect.eps),
        mu_max=max(0.0, perfect.mu),
        chosen={
            "eps": eps_ch.to_dict() if (eps_ch and eps_ch.eps > 0) else None,
            "mu": mu_ch.to_dict() if (mu_ch and mu_ch.mu > 0) else None,
        },
        rule={
            "kind": rule.kind,
            "description": rule.describe(),
            "tests": tests,
            "alpha_per_bound": a_each,
            "directions": ["forward" if d > 0 else "reverse" for d in dirs],
            "correction": "simultaneous over every threshold: alpha / (directions x (n_in + n_out + 2)) per bound"
            if rule.kind == "bonferroni"
            else "none (one rule)",
        },
    )
    if claim and claim["kind"] == "accountant":
        from privcheck.canaries.curves import table_lower

        f_lo = table_lower(claim["curve"])
        margin, where = binary.curve_violation(
            est_in, est_out, a_each, dirs, f_lo, counts if rule.kind == "bonferroni" else None
        )
        found.refuted = margin > 0
        found.claim_test = (
            "refuted when a certified (FPR_u, FNR_u) point lies below the accountant's certified lower curve"
        )
        found.chosen["curve"] = where.to_dict() if where else None
        x = np.array([perfect.fpr_upper, perfect.fnr_upper])
        f = f_lo(x)
        found.curve_power = bool(max(f[0] - perfect.fnr_upper, f[1] - perfect.fpr_upper) > 0)
    return found


# ------------------------------------------------------------------------------- one-run methods


def _candidates(s_in, s_out, dirs):
    """Guess candidates of every direction, concatenated, with their direction."""
    parts = []
    for d in dirs:
        c = guess_candidates(s_in, s_out) if d > 0 else guess_candidates(-s_in, -s_out)
        c["direction"] = np.full(c["guesses"].size, d)
        parts.append(c)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _perfect(n_in: int, n_out: int):
    """The best-case candidates for the power line: every guess right, at the largest guess counts of the k grid and
    with every canary guessed (an upper limit for any rule: the power line says "at most")."""
    from privcheck.canaries.rules import k_grid

    g0 = k_grid(n_in + n_out)
    g0 = g0[g0 <= n_in]
    g1 = k_grid((n_in + n_out) // 2)
    g1 = g1[g1 <= min(n_in, n_out)]
    g = [int(g0[-1])] if g0.size else []
    g += [2 * int(g1[-1])] if g1.size else []
    g.append(n_in + n_out)  # every canary guessed, all right: no rule can do better
    return np.asarray(g), np.asarray(g)


def _one_run(s_in, s_out, alpha, delta, rule: ThresholdRule, dirs, fdp: bool, claim) -> _Found:
    if rule.kind == "explicit":
        t = float(rule.threshold)
        dirs = (1,)
        g, c = apply_guess_rule(s_in, s_out, t, -math.inf)
        cand = {
            "t_in": np.array([t]),
            "t_out": np.array([-np.inf]),
            "guesses": np.array([g]),
            "correct": np.array([c]),
            "shape": np.array([0]),
            "direction": np.array([1]),
        }
        m, tests, n_in, n_out = s_in.size + s_out.size, 1, s_in.size, s_out.size
    elif rule.kind == "split":
        (sel_in, sel_out), (est_in, est_out) = split_scores(s_in, s_out, rule.fraction, rule.seed)
        sel = _candidates(sel_in, sel_out, dirs)
        j = int(np.argmax(guessing.approx_eps0(sel["guesses"], sel["correct"], alpha)))
        d, t_in, t_out = int(sel["direction"][j]), float(sel["t_in"][j]), float(sel["t_out"][j])
        a, b = (est_in, est_out) if d > 0 else (-est_in, -est_out)
        g, c = apply_guess_rule(a, b, t_in, t_out)
        cand = {
            "t_in": np.array([t_in]),
            "t_out": np.array([t_out]),
            "guesses": np.array([g]),
            "correct": np.array([c]),
            "shape": np.array([sel["shape"][j]]),
            "direction": np.array([d]),
        }
        m, tests, n_in, n_out = est_in.size + est_out.size, 1, est_in.size, est_out.size
    else:
        cand = _candidates(s_in, s_out, dirs)
        m, tests, n_in, n_out = s_in.size + s_out.size, int(cand["guesses"].size), s_in.size, s_out.size
    a_each = alpha / tests
    g, c = cand["guesses"], cand["correct"]
    pg, pc = _perfect(n_in, n_out)
    found = _Found(
        0.0,
        None,
        0.0,
        None,
        {},
        {
            "kind": rule.kind,
            "description": rule.describe(),
            "tests": tests,
            "alpha_per_test": a_each,
            "directions": ["forward" if d > 0 else "reverse" for d in dirs],
            "canaries_m": m,
            "candidates": "top-k guessed in, and top-k in with bottom-k out, k on a geometric grid (ratio 1.1)"
            if rule.kind == "bonferroni"
            else "one rule",
        },
    )
    if fdp:
        eps, j = guessing.fdp_over(g, c, m, a_each, dp_family(delta))
        mu, jm = guessing.fdp_over(g, c, m, a_each, gdp_family())
        found.eps, found.mu = eps, mu
        found.eps_max = guessing.fdp_over(pg, pc, m, a_each, dp_family(delta))[0]
        found.mu_max = guessing.fdp_over(pg, pc, m, a_each, gdp_family())[0]
        found.chosen = {"eps": _cand_dict(cand, j if eps > 0 else -1), "mu": _cand_dict(cand, jm if mu > 0 else -1)}
    else:
        eps, j = guessing.steinke_over(g, c, m, a_each, delta)
        found.eps = eps
        found.eps_max = guessing.steinke_over(pg, pc, m, a_each, delta)[0]
        found.chosen = {"eps": _cand_dict(cand, j if eps > 0 else -1)}
        if 2.0 * m * delta > 1.0:
            found.notes.append(f"2*m*delta = {2 * m * delta:.3g} > 1: the delta term exceeds the tail (as published)")
    if claim and claim["kind"] == "accountant" and fdp:
        jr = guessing.curve_rejected(g, c, m, a_each, claim["curve"])
        found.refuted = jr >= 0
        found.claim_test = "the f-DP one-run recursion on the accountant's certified lower curve"
        found.chosen["curve"] = _cand_dict(cand, jr)
        found.curve_power = guessing.curve_rejected(pg, pc, m, a_each, claim["curve"]) >= 0
    return found


def _cand_dict(cand: dict, j: int) -> dict | None:
    if j < 0:
        return None
    d = int(cand["direction"][j])
    t_out = float(cand["t_out"][j])
    return {
        "direction": "forward" if d > 0 else "reverse",
        "guess_in_when": f"score {'>=' if d > 0 else '<='} {float(cand['t_in'][j]) * d:.6g}",
        "guess_out_when": None if math.isinf(t_out) else f"score {'<=' if d > 0 else '>='} {t_out * d:.6g}",
        "guesses": int(cand["guesses"][j]),
        "correct": int(cand["correct"][j]),
    }


# ------------------------------------------------------------------------------- claims and verdict


def _claim(eps, delta, mu, accountant) -> dict | None:
    given = [x is not None for x in (eps, mu, accountant)]
    if sum(given) > 1:
        raise PrivcheckUsageError("give one claim: eps (with delta), mu or accountant")
    if eps is not None:
        e = float(eps)
        if not (math.isfinite(e) and e >= 0):
            raise PrivcheckUsageError(f"eps must be a finite number >= 0, got {eps!r}")
        return {"kind": "eps", "eps": e, "delta": delta}
    if mu is not None:
        m = float(mu)
        if not (math.isfinite(m) and m > 0):
            raise PrivcheckUsageError(f"mu must be a finite number > 0, got {mu!r}")
        return {"kind": "mu", "mu": m}
    if accountant is not None:
        from privcheck.canaries.curves import curve_table

        curve = curve_table(accountant)
        eps_at = None
        if hasattr(accountant, "epsilon") and delta > 0:
            eps_at = float(accountant.epsilon(delta).upper)
        return {"kind": "accountant", "curve": curve, "label": curve.label, "eps_at_delta": eps_at}
    return None


def _verdict(found: _Found, claim: dict, delta: float, method: str) -> tuple[str, str | None, str]:
    no_sep = "no rule separated in from out (every bound is 0): the audit had no power"
    if claim["kind"] == "eps":
        e = claim["eps"]
        if found.eps > e:
            return "refuted", None, "eps_lower > claimed eps"
        if found.eps_max <= e:
            return "inconclusive", f"these scores can certify at most eps {found.eps_max:.4g} <= claimed {e:g}", ""
        return ("inconclusive", no_sep, "") if found.eps <= 0 else ("holds", None, "eps_lower <= claimed eps")
    if claim["kind"] == "mu":
        mu = claim["mu"]
        if found.mu is not None:
            if found.mu > mu:
                return "refuted", None, "mu_lower > claimed mu"
            if found.mu_max is not None and found.mu_max <= mu:
                return "inconclusive", f"these scores can certify at most mu {found.mu_max:.4g} <= claimed {mu:g}", ""
            return ("inconclusive", no_sep, "") if found.mu <= 0 else ("holds", None, "mu_lower <= claimed mu")
        if delta <= 0:
            return "inconclusive", f"{method} bounds eps at delta; a mu claim needs delta > 0", ""
        from accountants.gdp import gdp_eps

        e = gdp_eps(mu, delta)
        if found.eps > e:
            return "refuted", None, f"eps_lower > eps of the claimed mu at delta ({e:.6g}, rounded up)"
        if found.eps_max <= e:
            return "inconclusive", f"these scores can certify at most eps {found.eps_max:.4g} <= {e:.4g}", ""
        return ("inconclusive", no_sep, "") if found.eps <= 0 else ("holds", None, "eps_lower <= eps of the mu")
    # accountant
    if found.refuted is not None:
        if found.refuted:
            return "refuted", None, found.claim_test
        if not found.curve_power:
            return "inconclusive", "even perfectly separated scores would not refute this curve", found.claim_test
        return "holds", None, found.claim_test
    e = claim.get("eps_at_delta")
    if e is None:
        return "inconclusive", f"{method} tests eps at delta; give delta > 0 for an accountant claim", ""
    if found.eps > e:
        return "refuted", None, "eps_lower > the accountant's eps at delta (upper end)"
    if found.eps_max <= e:
        return "inconclusive", f"these scores can certify at most eps {found.eps_max:.4g} <= {e:.4g}", ""
    return ("inconclusive", no_sep, "") if found.eps <= 0 else ("holds", None, "eps_lower <= accountant's eps")


def audit_scores(
    scores_in,
    scores_out,
    *,
    method: str = "auto",
    eps: float | None = None,
    delta: float = 0.0,
    mu: float | None = None,
    accountant=None,
    confidence: float = 0.95,
    thresholds="bonferroni",
    sides: str = "both",
    seed: int = 0,
) -> ScoreAudit:
    """Certified privacy lower bounds from canary scores (see the module docstring for the methods).

    scores_in / scores_out: 1-d finite scores of the canaries included / left out (higher = more
    likely in); method: one of :data:`METHODS`; claim: ``eps`` (with ``delta``), ``mu`` or
    ``accountant`` (a composed :class:`accountants.pld.PLDAccountant`), at most one; delta in [0, 1):
    the δ at which ε is bounded; confidence in (0, 1); thresholds: ``"bonferroni"``, ``"split"``,
    ``"split:F"`` or a fixed threshold; sides: ``"both"`` (also the reverse rule, bounded
    separately with half the error level) or ``"forward"``; seed: of the split.
    """
    t0 = time.perf_counter()
    if method not in METHODS:
        raise PrivcheckUsageError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    s_in = check_scores("scores_in", scores_in)
    s_out = check_scores("scores_out", scores_out)
    try:
        d, conf = float(delta), float(confidence)
    except (TypeError, ValueError):
        raise PrivcheckUsageError("delta and confidence must be numbers") from None
    if not 0.0 <= d < 1.0:
        raise PrivcheckUsageError(f"delta must be in [0, 1), got {delta!r}")
    if not 0.0 < conf < 1.0:
        raise PrivcheckUsageError(f"confidence must be in (0, 1), got {confidence!r}")
    rule = parse_thresholds(thresholds, seed)
    dirs = parse_sides(sides)
    claim = _claim(eps, d, mu, accountant)
    used = "one-run-fdp" if method == "auto" else method
    alpha = 1.0 - conf
    if used in ("cp", "gdp"):
        found = _binary(s_in, s_out, alpha, d, rule, dirs, used, claim)
    else:
        found = _one_run(s_in, s_out, alpha, d, rule, dirs, used == "one-run-fdp", claim)
    verdict = reason = None
    test = ""
    if claim is not None:
        verdict, reason, test = _verdict(found, claim, d, used)
    shown_claim = None if claim is None else {k: v for k, v in claim.items() if k != "curve"}
    if shown_claim is not None and test:
        shown_claim["test"] = test
    held = f" ({1 - rule.fraction:g} of them bounded, the rest choosing the rule)" if rule.kind == "split" else ""
    power = (
        f"with {s_in.size} in and {s_out.size} out scores{held} at confidence {conf:g}, at most eps = "
        f"{found.eps_max:.4g} (delta {d:g}) is certifiable by {used}"
        + (f"; at most mu = {found.mu_max:.4g}" if found.mu_max is not None else "")
    )
    notes = list(found.notes)
    if used in ("one-run", "one-run-fdp"):
        notes.append("valid when each canary was included independently with probability 1/2")
    else:
        notes.append("valid when each score comes from its own independent run (or draw)")
    return ScoreAudit(
        method=used,
        eps_lower=found.eps,
        delta=d,
        confidence=conf,
        n_in=int(s_in.size),
        n_out=int(s_out.size),
        mu_lower=found.mu,
        eps_if_gdp=eps_if_gdp(found.mu, d) if (found.mu is not None and d > 0) else None,
        eps_max=found.eps_max,
        power=power,
        rule=found.rule,
        chosen=found.chosen,
        claim=shown_claim,
        verdict=verdict,
        reason=reason,
        seconds=time.perf_counter() - t0,
        notes=tuple(notes),
    )
