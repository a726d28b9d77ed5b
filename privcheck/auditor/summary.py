"""The human-readable summary of an :class:`~privcheck.auditor.result.AuditResult` (``AuditResult.summary()``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from privcheck.auditor.adaptive import summary_lines as adaptive_lines
from privcheck.auditor.fresh_draws import NOT_REPRODUCIBLE
from privcheck.base.errors import PrivcheckUsageError


def fmt_value(v: Any, width: int = 80) -> str:
    """A value as text of at most ``width`` characters (arrays as lists)."""
    if isinstance(v, np.ndarray):
        v = v.tolist()
    text = str(v)
    return text if len(text) <= width else text[: width - 1] + "…"


def summary_text(res: Any) -> str:
    """The summary lines of an audit result: claim, exact part, Monte Carlo part, curve part, notes, verdict."""
    lines = [f"mechanism      {res.mechanism}"] + _claim_lines(res) + _mc_lines(res)
    if res.delta_lower is not None:
        lines.append(f"delta lower    {res.delta_lower:.6g} at eps claimed")
    lines += curve_lines(res)
    if not res.reproducible:
        lines.append(f"note           {NOT_REPRODUCIBLE} (the bound stays valid: every stage draws afresh)")
    if "adaptive" in res.details:
        lines += adaptive_lines(res.details["adaptive"])
    lines += power_lines(res)
    if res.reason:
        lines.append(f"reason         {res.reason}")
    family = (res.details.get("family") or {}).get("family")
    condition = f", conditional on the declared family {family!r}" if family else ""
    lines.append(f"verdict        {res.verdict}  ({res.seconds:.2f} s{condition})")
    return "\n".join(lines)


def power_lines(res: Any) -> list[str]:
    """The power line of an (ε, δ) audit of sampled outputs that did not refute: the smallest δ violation its
    draws could detect when it is above the claimed δ (a violation in a tail they do not reach is invisible),
    and the stronger test, ``family="gaussian"`` with the μ the claim implies (:mod:`privcheck.auditor.family`)."""
    if not res.delta_claimed or res.verdict == "refuted" or res.mu_claimed is not None or res.accountant:
        return []
    if "delta_detectable" not in res.details or res.eps_claimed is None:
        return []
    seen = res.details["delta_detectable"]
    if seen is not None and seen <= res.delta_claimed:
        return []
    from privcheck.auditor.family import implied_mu

    what = f"only delta >= {seen:.3g}" if seen is not None else "no delta"
    try:
        stronger = f"family='gaussian' audits the mu {implied_mu(res.eps_claimed, res.delta_claimed):.4g} it implies"
    except PrivcheckUsageError:  # an edge claim gives no μ: name the test without it
        stronger = "family='gaussian' audits the mu it implies"
    return [
        f"power          no power at the claimed delta: these draws detect {what} at eps {res.eps_claimed:g} "
        f"(claimed {res.delta_claimed:g}); if the mechanism is Gaussian-additive, the stronger test: {stronger}"
    ]


def _claim_lines(res: Any) -> list[str]:
    lines = []
    if res.eps_claimed is not None:
        lines.append(
            f"eps claimed    {res.eps_claimed:.6g}" + (f"  (delta {res.delta_claimed:g})" if res.delta_claimed else "")
        )
    if res.eps_exact is not None:
        lines.append(
            f"eps exact      {res.eps_exact_text}  at inputs {fmt_value(res.details.get('exact_pair'))}, "
            f"output {fmt_value(res.details.get('exact_output'))}"
        )
    if res.delta_exact is not None:
        lines.append(f"delta exact    {res.delta_exact:.6g} at eps claimed")
    return lines


def _mc_lines(res: Any) -> list[str]:
    from privcheck.base.numtext import fmt_confidence

    if res.eps_lower is None:
        return []
    lines = [
        f"eps lower      {res.eps_lower:.6g}  (confidence {fmt_confidence(res.confidence)}, {res.samples} "
        f"samples/input; at most {res.eps_max_certifiable:.4g} certifiable)"
    ]
    if res.certified_fraction is not None and res.certified_fraction <= 1 and not res.delta_claimed:
        lines.append(f"  certified    {res.certified_fraction:.1%} of the claimed eps")
    elif res.delta_claimed and res.eps_claimed is not None and res.eps_lower > res.eps_claimed:
        lines.append(
            "  note         above the claimed eps, which an (eps, delta) claim allows: "
            "its verdict is on delta at the claimed eps"
        )
    lines.append(
        f"  event        {res.event} for inputs {fmt_value(res.worst_pair)}"
        if res.event is not None
        else "  event        none: no event could separate the inputs at these sample sizes"
    )
    return lines


def curve_lines(res: Any) -> list[str]:
    """Summary lines of the curve part of an audit result (empty for a plain ε audit)."""
    lines = []
    if res.mu_claimed is not None:
        lines.append(f"mu claimed     {res.mu_claimed:.6g}  (mu-GDP: beta >= G_mu(alpha) for every test)")
    if res.accountant is not None:
        lines.append(f"accountant     {res.accountant}  (claim: its certified trade-off curve's lower end)")
    if res.mu_lower is not None:
        lines.append(f"mu lower       {res.mu_lower:.6g}  (the mechanism is not mu-GDP for any smaller mu)")
    if res.eps_lower_at_delta is not None:
        lines.append(
            f"eps lower      {res.eps_lower_at_delta:.6g} at delta {res.delta_claimed:g} (from the curve points)"
        )
    pts = res.curve_points or []
    if pts:
        worst = max(pts, key=lambda p: p["mu_lower"])
        lines.append(
            f"  curve        {len(pts)} points, best alpha {worst['alpha']:.4g} (<= {worst['alpha_upper']:.4g}), "
            f"beta {worst['beta']:.4g} (<= {worst['beta_upper']:.4g}), {worst['score']}"
        )
        below = [p for p in pts if p.get("below_claim")]
        if below:
            p = below[0]
            lines.append(
                f"  refuting     beta <= {p['beta_upper']:.4g} < claimed curve {p['claim_lower']:.4g} at "
                f"alpha <= {p['alpha_upper']:.4g}, inputs {p['pair']}"
            )
    return lines
