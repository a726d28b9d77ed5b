"""The plot of a trade-off-curve audit: empirical (α, β) points with their confidence boxes over the claimed curve.

:func:`plot_audit_curve` draws an audit result of :func:`privcheck.audit` with ``mu=``,
``accountant=`` or an (ε, δ) claim (its ``curve_points``): each point's estimate (α̂, β̂) and
its box ``{α ≤ α_hi, β ≤ β_hi}`` (the simultaneous confidence region the verdict uses; the
upper corner is marked), the claimed curve (``G_μ`` of a μ claim, or the accountant's certified
interval when ``accountant`` is given) and ``G_{mu_lower}``, the certified curve. Two panels:
linear axes, and log α for the tails.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privcheck.base.errors import PrivcheckUsageError
from privcheck.reports.figure import _conf, _new_figure, _save


def plot_audit_curve(result: Any, path: str, accountant: Any = None) -> None:
    """Write a PNG of an audit result's trade-off points over its claimed curve to ``path``.

    result: an :class:`~privcheck.auditor.result.AuditResult` or its ``to_dict()`` (needs
    ``curve_points``); accountant: the claimed accountant (with ``tradeoff(alpha)``) to draw its
    certified interval; without it a μ claim draws ``G_μ``.
    """
    from accountants.pld.tradeoff import gaussian_curve

    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    pts = d.get("curve_points") or []
    if not pts:
        raise PrivcheckUsageError(
            "this audit result has no trade-off points (audit with mu=, accountant= or eps+delta)"
        )
    fig, axes = _new_figure(10.0, 4.4, ncols=2)
    a_min = max(1e-7, min(min(p["alpha_upper"] for p in pts), min(p["beta_upper"] for p in pts)) / 3)
    grid = np.unique(np.concatenate([np.linspace(0, 1, 401), np.geomspace(a_min, 1, 400)]))
    for ax, logx in zip(axes, (False, True)):
        if accountant is not None:
            iv = accountant.tradeoff(grid)
            ax.fill_between(
                grid, iv.lower, iv.upper, color="0.6", alpha=0.5, lw=0, label="claimed: accountant's certified curve"
            )
            ax.plot(grid, iv.lower, color="0.3", lw=1.0)
        elif d.get("mu_claimed") is not None:
            ax.plot(
                grid,
                gaussian_curve(float(d["mu_claimed"]), grid),
                color="0.2",
                lw=1.4,
                label=f"claimed: G_μ, μ = {float(d['mu_claimed']):.4g}",
            )
        mu_lo = d.get("mu_lower")
        if isinstance(mu_lo, (int, float)) and mu_lo > 0:
            ax.plot(
                grid,
                gaussian_curve(float(mu_lo), grid),
                color="C2",
                ls="--",
                lw=1.0,
                label=f"G_μ at μ = mu_lower = {float(mu_lo):.4g} (a box corner touches it)",
            )
        for j, p in enumerate(pts):
            col = "C3" if p.get("below_claim") else "C0"
            ax.add_patch(_box(p, col))
            ax.plot(
                [p["alpha"]],
                [p["beta"]],
                "o",
                ms=3.5,
                color=col,
                label=("empirical (α̂, β̂) and box" if j == 0 else None),
            )
            ax.plot(
                [p["alpha_upper"]],
                [p["beta_upper"]],
                "x",
                ms=5,
                color=col,
                label=("box corner (α_hi, β_hi)" if j == 0 else None),
            )
        ax.plot([0, 1], [1, 0], color="0.8", lw=0.8, ls=":")
        ax.set_xlabel("α (type I error)" + (", log scale" if logx else ""))
        ax.set_ylabel("β (type II error)")
        if logx:
            ax.set_xscale("log")
            ax.set_xlim(a_min, 1)
        else:
            ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=7, loc="upper right")
    title = d.get("mechanism", "")
    fig.suptitle(
        f"{title}: trade-off audit, verdict {d.get('verdict')} (confidence {_conf(d.get('confidence', 0.95))})",
        fontsize=9,
    )
    _save(fig, path)


def _box(p: dict, color: str):
    from matplotlib.patches import Rectangle

    a0, b0 = min(p["alpha"], p["alpha_upper"]), min(p["beta"], p["beta_upper"])
    return Rectangle((a0, b0), p["alpha_upper"] - a0, p["beta_upper"] - b0, fill=False, ec=color, lw=0.8)
