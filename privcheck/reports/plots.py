"""Figures of a verification run, drawn from the verdict records (PNG, matplotlib Agg).

Nothing is recomputed when the records carry the numbers: each plot reads a
record's ``details``. The figures:

1. ε lower bound against samples per input, with the exact ε and the claim
   (:func:`plot_eps_curves`, from :mod:`privcheck.reports.curves`);
2. 004 Lemma 1: ε_c against K on log axes with the fitted K-slope
   (:func:`plot_k_slope`, record ``seif.lemma1.eps`` [scaling]);
3. 003 Figure 3: TV distance and communication cost against π
   (:func:`plot_figure3`, record ``biswas.fig3``);
4. bias and variance intervals of every estimator claim
   (:func:`plot_estimator`, records whose details hold
   :meth:`~privcheck.estimator_check.EstimatorCheckResult.record` dicts, or a
   plain ``details["interval"]``);
5. for a refuted check whose claimed and measured values are numbers per
   case, both on the same axis (:func:`plot_comparison`);
6. curves a check attaches as ``details["figure"]`` / ``details["figures"]``
   (x, series of means with optional intervals, the paper's statement as the
   caption; e.g. the ``spriFed.omp.*`` recovery and MSE curves;
   :func:`curve_figures`, :func:`plot_curves`);
7. trade-off-curve audits: a record whose details (or whose ``details["cases"]``
   entries) hold an audit's ``curve_points`` gets the empirical (α, β) points with
   their confidence boxes over the claimed curve (G_μ of ``mu_claimed``)
   (:func:`audit_curve_data`, :func:`privcheck.reports.audit_curve_plot.plot_audit_curve`);
   one holding an accountant's certified curve (``alpha``, ``beta_lower``,
   ``beta_upper``, at top level or under ``details["tradeoff"]``) gets the trade-off
   band, with the record's curve-point boxes over it (:func:`tradeoff_data`,
   :func:`privcheck.reports.tradeoff_plot.plot_tradeoff`, the ``mu`` / ``accountant`` audits
   and ``budget pld --tradeoff`` of DESIGN.md's Wave 3).

:func:`write_figures` draws all that apply into a directory and returns the
list of :class:`Figure` written plus notes on the ones skipped (shown in the
Markdown and HTML reports). The plotting uses ``matplotlib.figure.Figure``
directly (Agg canvas), never ``pyplot``, so no global backend state changes.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any, Callable, Iterable, Sequence

from privcheck.claims import VerdictRecord
from privcheck.reports.figure import Figure, FigureSet, _conf, _new_figure, _save

K_SLOPE_ID = "seif.lemma1.eps"
FIG3_ID = "biswas.fig3"


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f


def _numbers(v: Any) -> list[float] | None:
    """``v`` as a list of floats, or None when it is not a list of numbers."""
    if not isinstance(v, (list, tuple)) or not v:
        return None
    out = [_num(x) for x in v]
    return None if any(x is None for x in out) else out  # type: ignore[return-value]


def _find(details: Any, names: Sequence[str], depth: int = 2) -> Any:
    """The first value stored under one of ``names`` in ``details`` (searching nested dicts)."""
    if not isinstance(details, dict):
        return None
    for n in names:
        if n in details:
            return details[n]
    if depth > 0:
        for v in details.values():
            if isinstance(v, dict):
                got = _find(v, names, depth - 1)
                if got is not None:
                    return got
    return None


def _middle(text: str, width: int) -> str:
    """``text`` shortened in the middle to ``width`` characters (keeps the start and the index at the end)."""
    if len(text) <= width:
        return text
    tail = max(8, width // 3)
    return text[: width - tail - 1] + "…" + text[-tail:]


def _record_anchor(r: VerdictRecord) -> str:
    """The HTML anchor of a record (``rec-<id>-<method>[-<part>]``), shared with :mod:`privcheck.reports.html`."""
    return f"rec-{r.id}-{r.method}" + (f"-{r.part}" if r.part else "")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "figure"


# --------------------------------------------------------------------------- 1. ε against samples
def plot_eps_curves(curves: Sequence, path: str) -> None:
    """ε lower bound against samples per input (log x), per mechanism, with one line per reference ε.

    Each distinct claimed or exact ε is drawn once (grey; dashed when only
    exact values sit there), its label naming the mechanisms it belongs to.

    curves: :class:`~privcheck.reports.curves.EpsCurve` objects (or their dicts).
    """
    fig, ax = _new_figure(9.6, 4.2)
    colors = ["C0", "C1", "C2", "C3", "C4", "C5"]
    refs: dict[float, list[str]] = {}  # reference value -> what sits there ("claimed de", "exact pm", ...)
    for i, c in enumerate(curves):
        d = c.to_dict() if hasattr(c, "to_dict") else dict(c)
        col = colors[i % len(colors)]
        xs = [int(s) for s in d["samples"]]
        ys = [(_num(y) if _num(y) is not None and math.isfinite(_num(y)) else float("nan")) for y in d["eps_lower"]]
        ax.plot(xs, ys, ["o", "s", "^", "D", "v", "P"][i % 6] + "-", color=col, label=f"{d['label']}: lower bound")
        name = d.get("mechanism") or d["label"]
        refs.setdefault(round(float(d["eps_claimed"]), 9), []).append(f"claimed {name}")
        if d.get("eps_exact") is not None:
            refs.setdefault(round(float(d["eps_exact"]), 9), []).append(f"exact {name}")
    # one line per distinct reference value: mechanisms sharing ε = 1 would otherwise draw lines on top of each other
    for v, what in sorted(refs.items()):
        exact_only = all(w.startswith("exact") for w in what)
        ax.axhline(v, color="0.35", ls="--" if exact_only else ":", lw=1.2, label=f"ε = {v:.4g}: " + ", ".join(what))
    ax.set_xscale("log")
    ax.set_xlabel("samples per input")
    ax.set_ylabel("ε")
    conf = (
        (curves[0].confidence if hasattr(curves[0], "confidence") else curves[0].get("confidence", 0.95))
        if curves
        else 0.95
    )
    ax.set_title(f"Monte Carlo ε lower bound (confidence {_conf(conf)})")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    _save(fig, path)


# --------------------------------------------------------------------------- 2. 004 K-slope
def k_slope_data(record: VerdictRecord) -> tuple[dict | None, str]:
    """(data, note) for the 004 K-slope plot: K values, ε_c values, fitted slope and interval.

    Read from the record's details (keys ``Ks``/``K_values``/``K`` and
    ``eps``/``eps_c``/``eps_values``); when the record carries only the fit
    parameters (``details["parameters"]`` with ``c`` and ``delta_prime``) the
    curve is evaluated from eq. 16 with :func:`accountants.wireless.k_slope`
    (closed form, milliseconds). Returns ``(None, reason)`` when neither is there.
    """
    d = record.details if isinstance(record.details, dict) else {}
    Ks = _numbers(_find(d, ("Ks", "K_values", "k_values", "K")))
    eps = _numbers(_find(d, ("eps_c", "eps_values", "eps")))
    slope = _num(_find(d, ("slope", "fitted_slope", "ols_slope")))
    if slope is None and isinstance(record.measured, dict):
        slope = _num(_find(record.measured, ("slope", "ols_slope_1e3_1e8", "ols_slope")))
    interval = _numbers(d.get("interval"))
    note = ""
    if not (Ks and eps and len(Ks) == len(eps)):
        params = d.get("parameters") if isinstance(d.get("parameters"), dict) else {}
        c, dp = _num(params.get("c")), _num(params.get("delta_prime"))
        if c is None or dp is None:
            return None, (
                f"{record.id} [{record.method}]: no K/ε_c values or (c, δ′) in the record; K-slope plot skipped"
            )
        from accountants import wireless

        fit = wireless.k_slope(c, dp, 1e3, 1e8)
        Ks, eps = list(fit.Ks), list(fit.eps)
        slope = fit.slope if slope is None else slope
        interval = interval or list(fit.interval)
        note = (
            f"{record.id}: the record holds the fit, not the curve; ε_c(K) evaluated from eq. 16 "
            f"(accountants.wireless.k_slope, c = {c:.4g}, δ′ = {dp:g})"
        )
    claimed = None
    if isinstance(record.claimed, dict):
        claimed = _num(record.claimed.get("slope"))
    else:
        claimed = _num(record.claimed)
    return {
        "K": Ks,
        "eps": eps,
        "slope": slope,
        "interval": interval,
        "claimed_slope": claimed,
        "verdict": record.verdict,
    }, note


def plot_k_slope(data: dict, path: str) -> None:
    """ε_c against K on log–log axes with the fitted slope line and the claimed K^{−3/4} for reference."""
    import numpy as np

    fig, ax = _new_figure(6.4, 4.2)
    K = np.asarray(data["K"], dtype=float)
    e = np.asarray(data["eps"], dtype=float)
    ax.loglog(K, e, "o", ms=4, label="ε_c (eq. 16)")
    lx, ly = np.log(K), np.log(e)
    if data.get("slope") is not None:
        b = float(data["slope"])
        a = float(np.mean(ly - b * lx))
        iv = data.get("interval")
        lab = f"fitted slope {b:.4f}" + (f" [{iv[0]:.4f}, {iv[1]:.4f}]" if iv else "")
        ax.loglog(K, np.exp(a + b * lx), "-", color="C1", label=lab)
    cs = data.get("claimed_slope")
    if cs is not None:
        a = float(ly[-1] - cs * lx[-1])
        ax.loglog(K, np.exp(a + cs * lx), ":", color="C3", label=f"claimed slope {cs:g} (through the last point)")
    ax.set_xlabel("K (users)")
    ax.set_ylabel("ε_c")
    ax.set_title(f"004 Lemma 1: ε_c against K ({data.get('verdict', '')})")
    ax.legend(fontsize=8)
    _save(fig, path)


# --------------------------------------------------------------------------- 3. 003 Figure 3
def figure3_data(record: VerdictRecord) -> tuple[list[dict] | None, str]:
    """(curves, note): one dict per ε with pi, tv_* means/intervals and costs, from ``biswas.fig3``.

    Accepts ``details["figure3"]`` (a list of curves, keys ``pi``, ``tv_chat_mean``,
    ``tv_chat_interval``, ``tv_gde_mean``, ``tv_gde_interval``,
    ``communication_cost_expected``/``_simulated``) or the field names of
    :class:`estimators.frequency.Figure3Data` (``pis``, ``tv_chat`` …) at top level.
    """
    d = record.details if isinstance(record.details, dict) else {}
    raw = d.get("figure3")
    if isinstance(raw, dict):
        raw = [raw]
    if raw is None and any(k in d for k in ("pis", "pi")):
        raw = [d]
    if not isinstance(raw, list) or not raw:
        return None, f"{record.id}: no Figure 3 curve data (pi, TV, cost) in the record; plot skipped"
    curves = []
    for c in raw:
        if not isinstance(c, dict):
            continue
        pis = _numbers(c.get("pi") if "pi" in c else c.get("pis"))
        if not pis:
            continue
        tv = {}
        for name in ("chat", "gde"):
            mean = _numbers(c.get(f"tv_{name}_mean", c.get(f"tv_{name}")))
            iv = c.get(f"tv_{name}_interval")
            if mean and len(mean) == len(pis):
                tv[name] = (mean, iv if isinstance(iv, list) and len(iv) == len(pis) else None)
        cost_e = _numbers(c.get("communication_cost_expected", c.get("cost_expected")))
        cost_s = _numbers(c.get("communication_cost_simulated", c.get("cost_simulated")))
        eps = _num(c.get("eps", (c.get("params") or {}).get("eps") if isinstance(c.get("params"), dict) else None))
        curves.append({"eps": eps, "pi": pis, "tv": tv, "cost_expected": cost_e, "cost_simulated": cost_s})
    if not curves:
        return None, f"{record.id}: Figure 3 data present but without π values; plot skipped"
    return curves, ""


def plot_figure3(curves: list[dict], path: str, verdict: str = "") -> None:
    """003 Fig. 3: mean TV distance (with intervals) against π, and communication cost against π."""
    fig, (ax, ax2) = _new_figure(9.6, 4.2, ncols=2)
    labels = {"chat": "ĉ_DE", "gde": "g_DE"}
    # colour by ε, line style and marker by estimator, and a small sideways dodge: the two estimators'
    # curves nearly coincide, so each must stay visible where they overlap
    styles = {"chat": dict(ls="-", marker="o", mfc="none", ms=5), "gde": dict(ls="--", marker="s", ms=3)}
    span = max((max(c["pi"]) - min(c["pi"]) for c in curves if c["pi"]), default=1.0) or 1.0
    for i, c in enumerate(curves):
        eps = f"ε={c['eps']:g}" if c["eps"] is not None else f"curve {i + 1}"
        col = f"C{i % 10}"
        for j, (name, (mean, iv)) in enumerate(c["tv"].items()):
            st = styles.get(name, dict(ls=":", marker="^", ms=4))
            xs = [x + (j - 0.5) * 0.008 * span for x in c["pi"]]
            if iv:
                lo = [mean[k] - float(iv[k][0]) for k in range(len(mean))]
                hi = [float(iv[k][1]) - mean[k] for k in range(len(mean))]
                ax.errorbar(
                    xs,
                    mean,
                    yerr=[lo, hi],
                    capsize=2,
                    color=col,
                    lw=1.2,
                    label=f"{labels.get(name, name)}, {eps}",
                    **st,
                )
            else:
                ax.plot(xs, mean, color=col, lw=1.2, label=f"{labels.get(name, name)}, {eps}", **st)
    expected = [c["cost_expected"] for c in curves if c["cost_expected"]]
    same_cost = (
        len(expected) > 1
        and all(e == expected[0] for e in expected)
        and all(c["pi"] == curves[0]["pi"] for c in curves)
    )
    if same_cost:  # the cost does not depend on ε: one line, not several exactly on top of each other
        ax2.plot(curves[0]["pi"], expected[0], "-", color="0.3", label="nπ (every ε)")
    markers = ["x", "+", "1", "2"]
    for i, c in enumerate(curves):
        eps = f"ε={c['eps']:g}" if c["eps"] is not None else f"curve {i + 1}"
        if c["cost_expected"] and not same_cost:
            ax2.plot(c["pi"], c["cost_expected"], ["-", "--", ":", "-."][i % 4], color=f"C{i}", label=f"nπ, {eps}")
        if c["cost_simulated"]:
            xs = [x + (i - (len(curves) - 1) / 2) * 0.01 * span for x in c["pi"]]
            ax2.plot(xs, c["cost_simulated"], markers[i % 4], ms=7, color=f"C{i}", ls="none", label=f"simulated, {eps}")
    ax.set_xlabel("sampling probability π")
    ax.set_ylabel("mean TV distance")
    ax.set_yscale("log")
    ax.set_title(f"003 Fig. 3: accuracy ({verdict})" if verdict else "003 Fig. 3: accuracy")
    ax.legend(fontsize=7)
    ax2.set_xlabel("sampling probability π")
    ax2.set_ylabel("reports (communication cost)")
    ax2.set_title("003 Fig. 3: cost")
    ax2.legend(fontsize=7)
    _save(fig, path)


# --------------------------------------------------------------------------- 6. curves attached by checks
def curve_figures(record: VerdictRecord) -> list[dict]:
    """The well-formed curve figures of a record: ``details["figure"]`` and ``details["figures"]``.

    Each is a dict with ``x`` (numbers), ``series`` ({label: {"mean": [...], "interval": [[lo, hi], ...]?}}),
    and optional ``title``, ``xlabel``, ``ylabel``, ``log_y``, ``band``, ``statement``. Malformed ones are dropped.
    """
    d = record.details if isinstance(record.details, dict) else {}
    raw = [d["figure"]] if isinstance(d.get("figure"), dict) else []
    if isinstance(d.get("figures"), list):
        raw += [f for f in d["figures"] if isinstance(f, dict)]
    out = []
    for f in raw:
        xs = _numbers(f.get("x"))
        series = f.get("series")
        if not xs or not isinstance(series, dict):
            continue
        ok = {k: v for k, v in series.items() if isinstance(v, dict) and len(_numbers(v.get("mean")) or []) == len(xs)}
        if ok:
            out.append(dict(f, x=xs, series=ok))
    return out


def plot_curves(fig_data: dict, path: str, verdict: str = "") -> None:
    """One curve figure (see :func:`curve_figures`): means with interval bars, the paper's statement below."""
    fig, ax = _new_figure(6.4, 4.4)
    xs = fig_data["x"]
    for i, (label, s) in enumerate(fig_data["series"].items()):
        mean = _numbers(s.get("mean"))
        iv = s.get("interval")
        if (
            isinstance(iv, list)
            and len(iv) == len(xs)
            and all(isinstance(q, (list, tuple)) and len(q) == 2 for q in iv)
        ):
            lo = [max(mean[k] - float(iv[k][0]), 0.0) for k in range(len(xs))]
            hi = [max(float(iv[k][1]) - mean[k], 0.0) for k in range(len(xs))]
            ax.errorbar(xs, mean, yerr=[lo, hi], capsize=3, marker="o", ms=4, color=f"C{i % 10}", label=label)
        else:
            ax.plot(xs, mean, marker="o", ms=4, color=f"C{i % 10}", label=label)
    if fig_data.get("log_y"):
        ax.set_yscale("log")
    if all(x > 0 for x in xs) and max(xs) / min(xs) >= 8:
        ax.set_xscale("log")
    ax.set_xlabel(str(fig_data.get("xlabel", "")))
    ax.set_ylabel(str(fig_data.get("ylabel", "")))
    import textwrap

    title = str(fig_data.get("title", ""))
    title = f"{title} ({verdict})" if verdict else title
    if fig_data.get("statement"):
        title += "\n" + textwrap.fill(str(fig_data["statement"]), 95)
    ax.set_title(title, fontsize=8)
    ax.legend(fontsize=7)
    _save(fig, path)


# --------------------------------------------------------------------------- 7. trade-off curves
_POINT_KEYS = ("alpha", "beta", "alpha_upper", "beta_upper")


def _curve_points(v: Any) -> list[dict] | None:
    """``v`` as a list of audit curve points (dicts with numeric α̂, β̂ and box corners), or None."""
    if not isinstance(v, list) or not v:
        return None
    ok = all(isinstance(p, dict) and all(_num(p.get(k)) is not None for k in _POINT_KEYS) for p in v)
    return v if ok else None


def audit_curve_data(record: VerdictRecord) -> list[dict]:
    """The trade-off audits a record carries, each as a dict :func:`~privcheck.reports.audit_curve_plot.plot_audit_curve`
    draws (``curve_points``, ``mu_claimed``, ``mu_lower``, ``verdict``, ``confidence``, ``mechanism``).

    Read from ``details["curve_points"]`` (one audit: the record's own verdict and claim) and from
    every ``details["cases"]`` entry holding ``curve_points`` (one audit per case, labelled by its
    ``case``); malformed point lists are skipped.
    """
    d = record.details if isinstance(record.details, dict) else {}
    out = []
    own = [dict(d, mechanism=d.get("mechanism") or record.id)] if _curve_points(d.get("curve_points")) else []
    cases = [c for c in d.get("cases", []) if isinstance(c, dict)] if isinstance(d.get("cases"), list) else []
    for c in own + [dict(c, mechanism=f"{record.id}: {c.get('case', i + 1)}") for i, c in enumerate(cases)]:
        pts = _curve_points(c.get("curve_points"))
        if pts:
            mu = _num(c.get("mu_claimed"))
            out.append(
                {
                    "curve_points": pts,
                    "mu_claimed": mu if mu is not None and mu > 0 else None,
                    "mu_lower": _num(c.get("mu_lower")),
                    "verdict": c.get("verdict", record.verdict),
                    "confidence": c.get("confidence", d.get("confidence", 0.95)),
                    "mechanism": str(c["mechanism"]),
                }
            )
    return out


def tradeoff_data(record: VerdictRecord) -> dict | None:
    """A certified trade-off curve a record carries (``alpha``, ``beta_lower``, ``beta_upper``: equal-length
    number lists, optional ``mu_upper``; at the top of the details or under ``details["tradeoff"]``), or None."""
    d = record.details if isinstance(record.details, dict) else {}
    src = d["tradeoff"] if isinstance(d.get("tradeoff"), dict) else d
    cols = [_numbers(src.get(k)) for k in ("alpha", "beta_lower", "beta_upper")]
    if any(c is None for c in cols) or len({len(c) for c in cols}) != 1:  # type: ignore[arg-type]
        return None
    out = dict(zip(("alpha", "beta_lower", "beta_upper"), cols))
    mu = _num(src.get("mu_upper"))
    if mu is not None:
        out["mu_upper"] = mu
    return out


def _write_curve_figures(r: VerdictRecord, directory: str, name: Callable[[str], str]) -> list[Figure]:
    """The trade-off figures of one record (:func:`tradeoff_data`, :func:`audit_curve_data`), drawn to ``directory``."""
    figs = []
    audits = audit_curve_data(r)
    band = tradeoff_data(r)
    if band is not None:
        from privcheck.reports.tradeoff_plot import plot_tradeoff

        boxes = [(p["alpha"], p["alpha_upper"], p["beta"], p["beta_upper"]) for a in audits for p in a["curve_points"]]
        fn = name(f"{r.id}_{r.method}_tradeoff")
        plot_tradeoff(band, os.path.join(directory, fn), title=f"{r.id}: trade-off curve", boxes=boxes)
        figs.append(
            Figure(
                fn,
                f"{r.id} [{r.method}]: certified trade-off curve",
                "The certified β(α) band (left) and the attack view TPR = 1 − β against FPR (right)"
                + (", with the empirical confidence boxes of the audit" if boxes else "")
                + f" (check verdict: {r.verdict}).",
                _record_anchor(r),
            )
        )
        return figs
    from privcheck.reports.audit_curve_plot import plot_audit_curve

    for i, a in enumerate(audits):
        fn = name(f"{r.id}_{r.method}_audit{i + 1}")
        plot_audit_curve(a, os.path.join(directory, fn))
        mu = a["mu_claimed"]
        figs.append(
            Figure(
                fn,
                f"{a['mechanism']}: trade-off audit",
                "Empirical (α̂, β̂) points with their simultaneous confidence boxes (red: below the claim) "
                + (f"over the claimed curve G_μ, μ = {mu:.4g}" if mu is not None else "")
                + (f"; certified mu_lower = {a['mu_lower']:.4g}" if a["mu_lower"] is not None else "")
                + f" (verdict: {a['verdict']}).",
                _record_anchor(r),
            )
        )
    return figs


# --------------------------------------------------------------------------- 4. estimator intervals
def estimator_components(record: VerdictRecord) -> list[dict]:
    """The estimator components found in a record: label, bias interval, variance interval and claims.

    Looks for :meth:`EstimatorCheckResult.record` dicts anywhere in the
    details (``{"scenario", "estimator", "components": {"bias": {...},
    "variance": {...}}}``).
    """
    out: list[dict] = []

    def comp_rows(label: str, comp: dict) -> None:
        bias = comp.get("bias") if isinstance(comp.get("bias"), dict) else {}
        var = comp.get("variance") if isinstance(comp.get("variance"), dict) else {}
        biv = _numbers(bias.get("interval"))
        viv = _numbers(var.get("interval"))
        if not biv and not viv:
            return
        out.append(
            {
                "label": label,
                "bias": _num(bias.get("simulated")),
                "bias_interval": biv,
                "tolerance": _num(bias.get("tost_tolerance")),
                "variance": _num(var.get("simulated")),
                "variance_interval": viv,
                "variance_claimed": _num(var.get("claimed")),
                "variance_exact": _num(var.get("exact")),
            }
        )

    def walk(obj: Any, depth: int) -> None:
        if depth > 4:
            return
        if isinstance(obj, dict):
            comps = obj.get("components")
            if comps is not None and ("scenario" in obj or "estimator" in obj):
                label = ":".join(str(obj[k]) for k in ("scenario", "estimator") if obj.get(k) is not None)
                if isinstance(comps, dict):
                    comp_rows(label, comps)
                elif isinstance(comps, list):
                    for i, c in enumerate(comps):
                        if isinstance(c, dict):
                            comp_rows(f"{label}[{i}]", c)
                return
            for v in obj.values():
                walk(v, depth + 1)
        elif isinstance(obj, list):
            for v in obj:
                walk(v, depth + 1)

    walk(record.details, 0)
    return out


def plot_estimator(record: VerdictRecord, rows: list[dict], path: str) -> None:
    """Bias intervals (with 0 and any TOST margin) and variance intervals relative to the claimed variance."""
    fig, (ax, ax2) = _new_figure(9.6, max(2.6, 0.45 * len(rows) + 1.6), ncols=2)
    ys = list(range(len(rows)))
    for y, r in zip(ys, rows):
        if r["bias_interval"]:
            lo, hi = r["bias_interval"]
            ax.plot([lo, hi], [y, y], "-", color="C0", lw=2)
            if r["bias"] is not None:
                ax.plot([r["bias"]], [y], "o", color="C0", ms=4)
            if r["tolerance"]:
                ax.plot([-r["tolerance"], r["tolerance"]], [y, y], "|", color="C2", ms=10)
        ref = r["variance_claimed"] or r["variance_exact"]
        if r["variance_interval"] and ref:
            lo, hi = (v / ref for v in r["variance_interval"])
            ax2.plot([lo, hi], [y, y], "-", color="C1", lw=2)
            if r["variance"] is not None:
                ax2.plot([r["variance"] / ref], [y], "o", color="C1", ms=4)
    ax.axvline(0.0, color="k", lw=0.8)
    ax2.axvline(1.0, color="k", lw=0.8)
    for a in (ax, ax2):
        a.set_yticks(ys)
        a.set_ylim(len(rows) - 0.3, -0.7)  # first row on top
    ax.set_yticklabels([_middle(r["label"], 44) for r in rows], fontsize=7)
    ax2.set_yticklabels([])
    ax.set_xlabel("bias (interval; | marks the TOST margin)")
    ax2.set_xlabel("variance ÷ claimed (or exact) variance")
    fig.suptitle(f"{record.id} [{record.method}] — {record.verdict}", fontsize=10)
    _save(fig, path)


def plot_interval(record: VerdictRecord, path: str) -> bool:
    """A single ``details["interval"]`` against the claimed number; False when there is nothing to draw."""
    iv = _numbers(record.details.get("interval")) if isinstance(record.details, dict) else None
    claimed = _num(record.claimed)
    measured = _num(record.measured)
    if not iv or len(iv) != 2 or not all(math.isfinite(v) for v in iv):
        return False
    fig, ax = _new_figure(6.0, 1.8)
    ax.plot(iv, [0, 0], "-", color="C0", lw=3, label="interval")
    if measured is not None:
        ax.plot([measured], [0], "o", color="C0", label=f"measured {measured:.4g}")
    if claimed is not None:
        ax.axvline(claimed, color="C3", ls=":", label=f"claimed {claimed:.4g}")
    ax.set_yticks([])
    ax.set_title(f"{record.id} [{record.method}] — {record.verdict}", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    _save(fig, path)
    return True


# --------------------------------------------------------------------------- 5. refuted comparisons
def comparison_data(record: VerdictRecord) -> tuple[list[str], list[tuple[str, list[float]]]] | None:
    """(case labels, [(series name, values)]) when a record's claimed and measured are numbers per case.

    Accepts: two numeric dicts with common keys; a number against a numeric
    dict (the same claim in every case); two numbers; or a measured dict of
    equal-length numeric lists (``simulated``, ``exact``, the paper's values …)
    with the claimed values as a number or a ``values`` list of that length.
    Returns None when there is nothing to put on one axis.
    """
    c, m = record.claimed, record.measured

    def fin(x):
        return x is not None and math.isfinite(x)

    def num_dict(v):
        if isinstance(v, dict):
            out = {str(k): _num(x) for k, x in v.items()}
            return out if out and all(fin(x) for x in out.values()) else None
        return None

    cs = _num(c) if not isinstance(c, (dict, list, tuple)) else None
    ms = _num(m) if not isinstance(m, (dict, list, tuple)) else None
    cd, md = num_dict(c), num_dict(m)
    if fin(cs) and fin(ms):
        return [record.id], [("claimed", [cs]), ("measured", [ms])]
    if md is not None and (fin(cs) or cd is not None):
        keys = list(md) if cd is None else [k for k in cd if k in md]
        if keys:
            claimed = [cs] * len(keys) if cd is None else [cd[k] for k in keys]
            return keys, [("claimed", claimed), ("measured", [md[k] for k in keys])]
    if isinstance(m, dict):
        lists = {str(k): _numbers(v) for k, v in m.items() if isinstance(v, (list, tuple))}
        lists = {k: v for k, v in lists.items() if v and all(fin(x) for x in v)}
        lengths = {len(v) for v in lists.values()}
        if lists and len(lengths) == 1:
            n = lengths.pop()
            series = []
            cv = _numbers(c.get("values")) if isinstance(c, dict) else None
            if cv and len(cv) == n and all(fin(x) for x in cv):
                series.append(("claimed", cv))
            elif fin(cs):
                series.append(("claimed", [cs] * n))
            series += list(lists.items())
            if len(series) >= 2:
                return [f"case {i + 1}" for i in range(n)], series
    return None


def _is_claim(series_name: str) -> bool:
    n = series_name.lower()
    return n == "claimed" or n.startswith(("paper", "printed", "claimed"))


def plot_comparison(record: VerdictRecord, data, path: str) -> None:
    """Claimed (hollow squares) and each measured series (filled, distinct markers) per case, on one axis.

    Cases are rows (labels never overlap); series that coincide stay visible
    because markers differ in shape, size and fill and are nudged vertically.
    """
    cases, series = data
    n = len(cases)
    fig, ax = _new_figure(7.6, max(2.4, 0.42 * n + 1.6))
    ys = list(range(n))
    claim_style = dict(marker="s", mfc="none", mew=1.6, ms=9)
    styles = [
        dict(marker="o", ms=5),
        dict(marker="^", ms=5),
        dict(marker="D", ms=4),
        dict(marker="v", ms=5),
        dict(marker="P", ms=5),
    ]
    k = len(series)
    m = 0
    for j, (name, vals) in enumerate(series):
        if _is_claim(name):  # the claim, or the paper's printed values: hollow squares
            st, col = claim_style, "C0"
        else:
            st, col = styles[m % len(styles)], f"C{(m + 3) % 10}"
            m += 1
        off = (j - (k - 1) / 2) * min(0.12, 0.5 / k)
        ax.plot(vals, [y + off for y in ys], ls="none", color=col, mec=col, label=name, **st)
    allv = [v for _, vals in series for v in vals]
    if allv and min(allv) > 0 and max(allv) / min(allv) > 1e3:
        ax.set_xscale("log")
    ax.set_yticks(ys)
    ax.set_yticklabels([_middle(lab, 40) for lab in cases], fontsize=8)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlabel("value (claim and measurements on the same axis)")
    ax.set_title(_middle(f"{record.id} [{record.method}] — {record.verdict}", 70), fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(axis="x", alpha=0.3)
    _save(fig, path)


# --------------------------------------------------------------------------- all figures
def write_figures(
    records: Iterable[VerdictRecord],
    directory: str,
    *,
    curves: Sequence | None = None,
    prefix: str = "",
) -> FigureSet:
    """Draw every applicable figure of ``records`` into ``directory`` (created if needed).

    curves: ε-against-samples curves (:func:`privcheck.reports.curves.default_curves`)
    to draw as the first figure, or None to skip it. prefix: prepended to the
    PNG names (the report's stem), so several reports can share a directory.
    Returns the figures (file names relative to ``directory``) and notes on
    the plots that were skipped because a record lacked the data.
    """
    records = list(records)
    os.makedirs(directory or ".", exist_ok=True)
    out = FigureSet()

    def name(stem: str) -> str:
        return f"{prefix}{_slug(stem)}.png"

    if curves:
        fn = name("eps_vs_samples")
        plot_eps_curves(curves, os.path.join(directory, fn))
        out.figures.append(
            Figure(
                fn,
                "ε lower bound against samples",
                "Monte Carlo lower bound on ε (points) for catalogue mechanisms, with the claimed and exact "
                "ε as grey lines (labelled): the bound approaches the exact ε as samples grow.",
            )
        )
    for r in records:
        _record_figures(r, directory, name, out)
    return out


def _record_figures(r: VerdictRecord, directory: str, name: Callable[[str], str], out: FigureSet) -> None:
    """Draw the figures of one record into ``directory`` and add them (or a note on missing data) to ``out``:
    the K-slope, Figure 3, audit / trade-off curves, a check's own curves, or an estimator / comparison /
    interval figure, whichever the record supports first."""
    if r.id == K_SLOPE_ID and r.method == "scaling":
        data, note = k_slope_data(r)
        if note:
            out.notes.append(note)
        if data is not None:
            fn = name(f"{r.id}_{r.method}")
            plot_k_slope(data, os.path.join(directory, fn))
            caption = "ε_c of eq. 16 on log axes with the fitted K-slope; the claim is O(K^{−3/4})."
            out.figures.append(Figure(fn, "004 Lemma 1: ε_c against K", caption, _record_anchor(r)))
    elif r.id == FIG3_ID:
        data3, note = figure3_data(r)
        if data3 is None:
            out.notes.append(note)
        else:
            fn = name(f"{r.id}_{r.method}")
            plot_figure3(data3, os.path.join(directory, fn), r.verdict)
            caption = (
                "Mean TV distance between the estimate and the data "
                "(with intervals) and communication cost, against the sampling probability π."
            )
            out.figures.append(Figure(fn, "003 Figure 3", caption, _record_anchor(r)))
    elif audit_curve_data(r) or tradeoff_data(r) is not None:
        out.figures.extend(_write_curve_figures(r, directory, name))
    elif curve_figures(r):
        for i, fig in enumerate(curve_figures(r)):
            fn = name(f"{r.id}_{r.method}_curve{i + 1}")
            plot_curves(fig, os.path.join(directory, fn), r.verdict)
            title = fig.get("title") or f"{r.id} [{r.method}]"
            caption = f"{fig.get('statement', '')} (check verdict: {r.verdict}; bands: {fig.get('band', 'none')})."
            out.figures.append(Figure(fn, title, caption, _record_anchor(r)))
    else:
        figure = _check_figure(r, directory, name(f"{r.id}_{r.method}_{r.part}" if r.part else f"{r.id}_{r.method}"))
        if figure is not None:
            out.figures.append(figure)


def _check_figure(r: VerdictRecord, directory: str, fn: str) -> Figure | None:
    """An estimator's bias/variance intervals, a refuted check's claimed-against-measured, or an estimator's
    interval against its claim, drawn as ``fn`` (None when the record supports none of them)."""
    rows = estimator_components(r) if r.kind == "estimator" and r.verdict != "error" else []
    if rows:
        plot_estimator(r, rows, os.path.join(directory, fn))
        return Figure(
            fn,
            f"{r.id} [{r.method}]: bias and variance",
            "Bias intervals (left, 0 marked) and variance intervals relative to the "
            "claimed variance (right, 1 marked), per scenario.",
            _record_anchor(r),
        )
    if r.verdict == "refuted" and comparison_data(r):
        plot_comparison(r, comparison_data(r), os.path.join(directory, fn))
        return Figure(
            fn,
            f"{r.id} [{r.method}]: claimed against measured",
            "The claim (hollow squares) and the measurements (filled markers) per case, on the same axis.",
            _record_anchor(r),
        )
    if r.kind == "estimator" and r.verdict != "error" and plot_interval(r, os.path.join(directory, fn)):
        return Figure(fn, f"{r.id} [{r.method}]: interval", "The check's interval and the claim.", _record_anchor(r))
    return None
