"""The trade-off-curve figure (f-DP): an accountant's certified β(α) band, optionally its μ-GDP
curve and empirical (FPR, FNR) boxes of an audit, as a PNG (matplotlib Agg, via
:mod:`privcheck.reports.plots`).

Left panel: β against α on linear axes with the trivial test β = 1 − α. Right panel: the attack
view, TPR = 1 − β against FPR = α on log–log axes (the low-FPR regime where membership inference
is judged, Kulynych et al. 2024). Numbers come from :meth:`PLDAccountant.tradeoff` /
:meth:`PLDAccountant.gdp` (:func:`tradeoff_plot_data`) or from a record's details holding the
same keys (``alpha``, ``beta_lower``, ``beta_upper``, optional ``mu_upper``), so a report can draw
it without recomputing.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from privcheck.reports.figure import Figure, _new_figure, _save

__all__ = ["tradeoff_plot_data", "plot_tradeoff", "write_tradeoff_figure"]


def tradeoff_plot_data(acc, *, points: int = 400, gdp: bool = True) -> dict:
    """Curve data of a composed PLDAccountant: alpha (log-spaced 1e−6…1 plus linear), beta_lower,
    beta_upper, and (gdp=True) mu_lower/mu_upper of ``acc.gdp()``. points: α values (≥ 10)."""
    n = max(int(points), 10)
    a = np.unique(np.concatenate([[0.0], np.geomspace(1e-6, 1.0, n // 2), np.linspace(0.0, 1.0, n - n // 2)]))
    iv = acc.tradeoff(a)
    data = {"alpha": a.tolist(), "beta_lower": iv.lower.tolist(), "beta_upper": iv.upper.tolist(), "method": iv.method}
    if gdp:
        mu, regret = acc.gdp()
        data.update(mu_lower=mu.lower, mu_upper=mu.upper, regret_upper=regret.upper)
    return data


def plot_tradeoff(
    data: dict, path: str, *, title: str = "trade-off curve", boxes: Sequence[Sequence[float]] = ()
) -> None:
    """Draw ``data`` (see :func:`tradeoff_plot_data`) to the PNG ``path``.

    boxes: empirical points as (fpr_lo, fpr_hi, fnr_lo, fnr_hi) confidence boxes (drawn as
    rectangles; an audit refutes its claim where a box lies wholly below the band)."""
    from matplotlib.patches import Rectangle
    from scipy.stats import norm

    a = np.asarray(data["alpha"], dtype=float)
    lo = np.asarray(data["beta_lower"], dtype=float)
    up = np.asarray(data["beta_upper"], dtype=float)
    fig, (ax, ax2) = _new_figure(10.0, 4.2, ncols=2)
    ax.fill_between(a, lo, up, color="tab:blue", alpha=0.35, lw=0, label="certified β(α) [lower, upper]")
    ax.plot(a, lo, color="tab:blue", lw=1.0)
    ax.plot([0, 1], [1, 0], color="grey", ls=":", lw=1.0, label="β = 1 − α (no privacy loss)")
    pos = a > 0
    ax2.fill_between(
        a[pos],
        np.maximum(1 - up[pos], 1e-12),
        np.maximum(1 - lo[pos], 1e-12),
        color="tab:red",
        alpha=0.35,
        lw=0,
        label="best attack TPR (certified)",
    )
    ax2.plot(a[pos], np.maximum(1 - lo[pos], 1e-12), color="tab:red", lw=1.0)
    ax2.plot(a[pos], a[pos], color="grey", ls=":", lw=1.0, label="TPR = FPR")
    mu = data.get("mu_upper")
    if mu is not None and np.isfinite(mu):
        g = norm.cdf(norm.isf(a) - mu)
        ax.plot(a, g, color="tab:green", ls="--", lw=1.2, label=f"G_μ, μ = {mu:.4g} (gdp upper)")
        ax2.plot(a[pos], 1 - g[pos], color="tab:green", ls="--", lw=1.2, label="1 − G_μ")
    for fl, fh, bl, bh in boxes:
        ax.add_patch(Rectangle((fl, bl), fh - fl, bh - bl, fill=False, color="black", lw=0.8))
        if fl > 0:
            ax2.add_patch(Rectangle((fl, max(1 - bh, 1e-12)), fh - fl, bh - bl, fill=False, color="black", lw=0.8))
    ax.set(xlim=(0, 1), ylim=(0, 1), xlabel="α (type I error, FPR)", ylabel="β (type II error, FNR)", title=title)
    ax2.set(xscale="log", yscale="log", xlabel="FPR", ylabel="TPR", title="attack view (log–log)")
    ax2.set_xlim(max(float(a[pos].min()), 1e-6), 1)
    ax.legend(fontsize=7, loc="upper right")
    ax2.legend(fontsize=7, loc="lower right")
    _save(fig, path)


def write_tradeoff_figure(
    acc,
    directory: str,
    name: str = "tradeoff",
    *,
    title: str = "trade-off curve",
    record: str = "",
    boxes: Sequence[Sequence[float]] = (),
) -> Figure:
    """Compute :func:`tradeoff_plot_data` for ``acc``, draw it to ``directory/name.png`` and return
    the report :class:`~privcheck.reports.plots.Figure` (caption: the method and μ)."""
    data = tradeoff_plot_data(acc)
    os.makedirs(directory, exist_ok=True)
    fname = f"{name}.png"
    plot_tradeoff(data, os.path.join(directory, fname), title=title, boxes=boxes)
    cap = (
        f"Certified trade-off curve ({data['method']}); μ-GDP μ ∈ [{data['mu_lower']:.4g}, {data['mu_upper']:.4g}], "
        f"worst-case regret ≤ {data['regret_upper']:.3g}."
    )
    return Figure(fname, title, cap, record)
