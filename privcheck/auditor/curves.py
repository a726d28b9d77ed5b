"""Audits against trade-off curves: μ-GDP claims, ε at a claimed δ, and an accountant's curve.

A mechanism is ``f``-DP (Dong, Roth & Su 2019, 002_53ad70670a94e98a.txt Def. 2.3) when every test
between ``M(x)`` and ``M(x')`` (neighbours) has type II error ``β ≥ f(α)`` at type I error ``α``;
μ-GDP is ``f = G_μ``, ``G_μ(α) = Φ(Φ⁻¹(1 − α) − μ)`` (ibid. Def. 2.6). This module audits such a
claim black-box, from samples alone (:func:`curve_bound`):

1. **selection** (a share of the draws, its own seed streams): for every ordered input pair
   ``(x, x')`` a one-dimensional statistic (:mod:`privcheck.auditor.scores`: the mechanism's or
   view's likelihood ratio, else Fisher's projection fitted on the first selection draws) and
   candidate thresholds; each ``(pair, threshold)`` is a test ``{s ≥ t}`` with a predicted
   confidence box. :data:`CURVE_POINTS` points are kept: the best one for each question asked
   (the claim's margin, μ, ε at δ) and the rest spread along the best pair's curve (the trace).
2. **estimation** (fresh draws, disjoint seed streams): each point's counts ``k_α`` of ``x`` in
   ``{s ≥ t}`` and ``k_β`` of ``x'`` in ``{s < t}``; one-sided Clopper–Pearson upper limits
   ``α_hi``, ``β_hi`` (:func:`privcheck.base.stats.clopper_pearson`) at level ``(1 − confidence)/(2m)``
   each, Bonferroni over the ``m`` points and their two coordinates.

With probability ≥ ``confidence`` every point's true ``(α, β)`` lies in its box
``{α ≤ α_hi, β ≤ β_hi}`` simultaneously (the points are functions of the selection draws only).
Trade-off functions are non-increasing, so a box lying entirely below a claimed curve ``f``
(``β_hi < f(α_hi)``) refutes it, and:

- ``mu_lower = max(0, max over points of Φ⁻¹(1 − α_hi) − Φ⁻¹(β_hi))``: the mechanism is not
  μ-GDP for any smaller μ (its curve lies below ``G_μ`` at that point);
- ``eps_lower_at_delta = max over points of log((1 − δ − β_hi)/α_hi)`` and the symmetric
  ``log((1 − δ − α_hi)/β_hi)`` (an (ε, δ)-DP mechanism has ``1 − β ≤ e^ε α + δ`` and
  ``1 − α ≤ e^ε β + δ``, Dong et al. Prop. 2.4/2.5);
- an accountant's claim (``acc.tradeoff(alpha).lower``, its certified lower end) is refuted only
  when a box lies below that *lower* end: accounting slack never refutes a correct mechanism.

Every reported bound is rounded down by a relative :data:`ROUND`; a claimed curve is rounded down
likewise before comparing, so floating-point error never makes a refutation.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from privcheck.auditor.core import (
    AuditShared,
    _check_width,
    _draw_matrix,
    _plain,
    check_seeding,
    resolve_pairs,
    run_stage,
)
from privcheck.auditor.scores import (
    Moments,
    Score,
    candidate_thresholds,
    fit_projection,
    llr_score,
    moments,
    threshold_counts,
)
from privcheck.auditor.selection import Z_SELECTION, wilson
from privcheck.auditor.views import apply_view
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.scheduler import get_backend, one_backend_per_call
from privcheck.base.seeding import derive
from privcheck.base.stats import bonferroni_alpha, clopper_pearson
from privcheck.base.validation import check_confidence, check_int, check_positive, check_probability

#: points (pair, threshold) sent to estimation; the Bonferroni correction divides by twice this
CURVE_POINTS = 10
#: at most this many ordered input pairs are scored (those whose means differ most)
MAX_CURVE_PAIRS = 16
#: selection draws per input that fit the projection direction (the rest place thresholds)
DIRECTION_DRAWS = 1 << 16
SELECTION_SHARE = 0.2
#: fewest draws per input of a curve audit
MIN_SAMPLES = 100
#: relative outward rounding of every reported bound and of claimed curves
ROUND = 1e-12
#: points of each of the two α grids on which an accountant's curve is queried
ALPHA_GRID = 1501
#: accountants' curves on the α grid, keyed by (type, composed events, settings); the last 8 kept
_CURVE_CACHE: dict = {}
_ACCOUNTANT_SETTINGS = ("relation", "grid_step", "method", "tail_mass", "target_fft_size", "max_fft_size")


# ----------------------------------------------------------------------------- claimed curves
@dataclass
class ClaimedCurve:
    """A claimed trade-off curve: ``lower(alpha)`` is a certified lower end of ``f(alpha)`` (vectorised).

    kind: ``"gdp"`` or ``"accountant"``; description: text for reports; mu: the claimed μ (gdp).
    """

    kind: str
    description: str
    lower: Callable[[np.ndarray], np.ndarray]
    mu: float | None = None


def mu_claim(mu: float) -> ClaimedCurve:
    """The claimed curve of a μ-GDP claim (μ > 0), rounded down by :data:`ROUND`."""
    from accountants.pld.tradeoff import gaussian_curve  # scipy.stats: imported only for a μ claim

    mu = check_positive("mu", mu)
    return ClaimedCurve("gdp", f"{mu:g}-GDP", lambda a: gaussian_curve(mu, a) * (1.0 - ROUND), mu)


def accountant_claim(acc: Any) -> ClaimedCurve:
    """The claimed curve of an accountant: ``acc.tradeoff(alpha).lower`` (its certified lower end), queried
    once on a fixed grid of :data:`ALPHA_GRID` log- and :data:`ALPHA_GRID` linearly spaced α and read at
    the first grid point at or above each α (valid: trade-off functions are non-increasing)."""
    fn = getattr(acc, "tradeoff", None)
    if not callable(fn):
        raise PrivcheckUsageError(
            f"accountant= needs an accountant with tradeoff(alpha) (a composed PLDAccountant), got {type(acc).__name__}"
        )

    grid = np.unique(np.concatenate([[0.0], np.geomspace(1e-15, 1.0, ALPHA_GRID), np.linspace(0.0, 1.0, ALPHA_GRID)]))
    try:
        events = tuple(getattr(acc, "events", ()) or ())
        key = (type(acc), events, *(getattr(acc, k, None) for k in _ACCOUNTANT_SETTINGS)) if events else None
        hash(key)
    except TypeError:
        key = None

    def lower(alpha):
        values = _CURVE_CACHE.get(key) if key is not None else None
        if values is None:  # one accountant query per composition, on a fixed α grid
            lo = np.asarray(fn(grid).lower, dtype=np.float64).reshape(grid.shape)
            values = (None, np.clip(np.nan_to_num(lo, nan=0.0), 0.0, 1.0) * (1.0 - ROUND))
            if key is not None:
                while len(_CURVE_CACHE) >= 8:
                    _CURVE_CACHE.pop(next(iter(_CURVE_CACHE)))
                _CURVE_CACHE[key] = values
        a = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, 1.0)
        # f is non-increasing: f(α) ≥ f(g) ≥ lower(g) at the first grid point g ≥ α
        return values[1][np.searchsorted(grid, a, side="left")]

    return ClaimedCurve("accountant", describe_accountant(acc), lower)


def describe_accountant(acc: Any) -> str:
    """One line naming an accountant's composed events (``acc.events``) and relation, else its repr."""
    events = getattr(acc, "events", None)
    if events:
        body = " + ".join(f"{e!r}x{c}" for e, c in events)
        return f"{getattr(acc, 'relation', '')}: {body}".strip(": ")
    return repr(acc)


# ----------------------------------------------------------------------------- bounds from boxes
def _down(v):
    v = np.asarray(v, dtype=np.float64)
    return v - ROUND * (1.0 + np.abs(v))


def mu_from_box(alpha_hi, beta_hi) -> np.ndarray:
    """The μ certified exceeded by boxes ``{α ≤ α_hi, β ≤ β_hi}``: ``Φ⁻¹(1 − α_hi) − Φ⁻¹(β_hi)`` rounded down
    (``-inf`` when a coordinate's upper limit is 1)."""
    from scipy.special import ndtri  # vectorised Φ⁻¹; imported here to keep scipy off the ε-audit path

    with np.errstate(all="ignore"):
        v = -ndtri(np.asarray(alpha_hi, float)) - ndtri(np.asarray(beta_hi, float))
    return np.where(np.isnan(v), -np.inf, _down(v))


def eps_from_box(alpha_hi, beta_hi, delta: float) -> np.ndarray:
    """The ε certified at δ by boxes: ``max(log((1 − δ − β_hi)/α_hi), log((1 − δ − α_hi)/β_hi))`` rounded
    down (``-inf`` where neither argument is positive)."""
    a, b = np.asarray(alpha_hi, float), np.asarray(beta_hi, float)
    with np.errstate(all="ignore"):
        one = np.log(np.maximum(1.0 - delta - b, 0.0)) - np.log(a)
        two = np.log(np.maximum(1.0 - delta - a, 0.0)) - np.log(b)
    v = np.fmax(np.where(np.isnan(one), -np.inf, one), np.where(np.isnan(two), -np.inf, two))
    return np.where(np.isfinite(v), _down(v), v)


# ----------------------------------------------------------------------------- result
@dataclass
class CurveBound:
    """The empirical trade-off points of a curve audit with their simultaneous confidence boxes.

    points: one dict per point (pair, score, threshold, counts, ``alpha``/``beta`` estimates,
    ``alpha_upper``/``beta_upper`` box corners, ``mu_lower``, ``eps_lower_at_delta``, ``claim_lower``
    = the claimed curve's lower end at ``alpha_upper``, ``below_claim``, ``role``); mu_lower,
    eps_lower_at_delta: the certified bounds (see the module docstring); refuting: indices of the
    points whose box lies below the claimed curve.
    """

    confidence: float
    samples_per_input: int
    selection_samples: int
    estimation_samples: int
    points: list[dict]
    mu_lower: float
    delta: float | None = None
    eps_lower_at_delta: float | None = None
    claim: str | None = None
    refuting: list[int] = field(default_factory=list)
    reproducible: bool = True
    pairs_audited: int = 0
    draws: int = 0


def _predicted_upper(k, n: int, n_est: int, level: float) -> np.ndarray:
    """Predicted upper confidence limit after ``n_est`` fresh draws of a proportion seen ``k`` of ``n``
    times in selection (pessimistic by :data:`~privcheck.auditor.selection.Z_SELECTION`; ranking only)."""
    from privcheck.base.normal import normal_quantile

    z = normal_quantile(1 - level)
    p = wilson(k, n, Z_SELECTION, "upper")
    return wilson(p * n_est, n_est, z, "upper")


def _objectives(claim: ClaimedCurve | None, delta: float | None):
    """The questions a point can answer, most important first: name -> f(alpha_hi, beta_hi) (larger is better)."""
    out = []
    if claim is not None and claim.kind == "accountant":

        def margin(a, b):
            from scipy.special import ndtri

            with np.errstate(all="ignore"):
                return np.nan_to_num(ndtri(claim.lower(a)) - ndtri(b), nan=-np.inf)

        out.append(("claim", margin))
    out.append(("mu", mu_from_box))
    if delta is not None:
        out.append(("eps_at_delta", lambda a, b: eps_from_box(a, b, delta)))
    return out


def _choose_points(cands: list[dict], objectives, n_points: int) -> list[dict]:
    """The best candidate of each objective, then the best pair's candidates spread over log α (the trace)."""
    if not cands:
        return []
    chosen: list[dict] = []
    keys = set()
    first_pair = None
    for name, fn in objectives:
        vals = np.concatenate([fn(c["a_pred"], c["b_pred"]) for c in cands])
        flat = int(np.argmax(vals))
        for c in cands:
            if flat < len(c["t"]):
                break
            flat -= len(c["t"])
        key = (c["pair"], float(c["t"][flat]))
        first_pair = first_pair or c
        if key not in keys:
            keys.add(key)
            chosen.append({"pair": c["pair"], "score": c["score"], "t": float(c["t"][flat]), "role": name})
    best = first_pair
    rest = n_points - len(chosen)
    if rest > 0:
        a_sel = np.maximum(best["a_sel"], 1e-300)
        usable = np.nonzero((best["a_sel"] > 0) & (best["b_sel"] > 0))[0]
        if len(usable):
            targets = np.geomspace(a_sel[usable].max(), a_sel[usable].min(), rest + 2)[1:-1] if rest else []
            for tgt in targets:
                j = usable[int(np.argmin(np.abs(np.log(a_sel[usable]) - np.log(tgt))))]
                key = (best["pair"], float(best["t"][j]))
                if key not in keys:
                    keys.add(key)
                    chosen.append(
                        {"pair": best["pair"], "score": best["score"], "t": float(best["t"][j]), "role": "trace"}
                    )
    return chosen[:n_points]


@one_backend_per_call
def curve_bound(
    sampler: Callable,
    inputs: Sequence | None,
    samples: int,
    *,
    claim: ClaimedCurve | None = None,
    delta: float | None = None,
    confidence: float = 0.95,
    seed: int | np.random.SeedSequence = 0,
    jobs: int | None = None,
    selection_share: float = SELECTION_SHARE,
    points: int = CURVE_POINTS,
    pairs=None,
    neighbours: Callable | None = None,
    view: Callable | None = None,
    client=None,
    progress: Callable[[int], None] | None = None,
) -> CurveBound:
    """Empirical trade-off points with simultaneous exact confidence boxes (see the module docstring).

    Parameters
    ----------
    sampler : ``f(x, n, rng) -> n outputs`` (numeric outputs are scored directly; other types are
        coded as by the ε auditor). A ``llr(outputs, x, x')`` attribute of the sampler or of ``view``
        is used as the statistic.
    inputs, pairs, neighbours : the inputs and neighbouring pairs, as for
        :func:`privcheck.auditor.core.resolve_pairs`.
    samples : draws per input (≥ 100), split into selection (``selection_share``) and estimation.
    claim : a :class:`ClaimedCurve` to test (``None``: only bounds are computed).
    delta : if given, in [0, 1): also bound ε at this δ (``eps_lower_at_delta``).
    confidence : in (0, 1): all boxes hold simultaneously with at least this probability.
    seed : int ≥ 0 or SeedSequence; draws use streams disjoint from the ε auditor's.
    points : how many points reach estimation (≥ 1); the correction divides by twice this number.
    view : audit ``view(outputs)`` (post-processing).
    """
    confidence = check_confidence(confidence)
    samples = check_int("samples", samples, minimum=MIN_SAMPLES)
    points = check_int("points", points, minimum=1)
    selection_share = check_probability("selection_share", selection_share, open_low=True, open_high=True)
    if delta is not None:
        delta = check_probability("delta", delta, open_high=True)
    inputs, ordered = resolve_pairs(inputs, pairs, neighbours)
    provider = view if view is not None and callable(getattr(view, "llr", None)) else sampler
    sampler = apply_view(sampler, view)
    backend = get_backend(jobs=jobs, client=client, processes=getattr(sampler, "prefers_processes", False))
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    alpha = 1.0 - confidence
    n_sel = max(20, int(round(samples * selection_share)))
    n_est = samples - n_sel
    if n_est < 20:
        raise PrivcheckUsageError(f"samples={samples} leaves {n_est} estimation draws; give at least 100 samples")
    needed = sorted({i for p in ordered for i in p})
    reproducible, _ = check_seeding(sampler, inputs[needed[0]])
    level = bonferroni_alpha(alpha, 2 * points)
    width: list[int] = []

    def draw(smp, x, size, rng):
        X = _draw_matrix(smp, x, size, rng)
        if not width:
            width.append(X.shape[1])
        return _check_width(X, width[0])

    # every stage is ONE map over its inputs; the sampler and the inputs travel once (Dask: scattered)
    shared = AuditShared(sampler, inputs, needed)

    def stage(fn, name: str, n: int, which, reduce=None) -> dict:
        return run_stage(
            fn,
            shared,
            which,
            n,
            lambda i: derive(ss, "curve", name, i),
            backend=backend,
            progress=progress,
            reduce=reduce,
        )

    # 1a. direction draws: moments of each input (float sums: folded here, in chunk order, as on one worker)
    n_dir = min(n_sel // 2, DIRECTION_DRAWS)
    mom: dict[int, Moments] = {
        i: functools.reduce(lambda u, v: u + v, parts)
        for i, parts in stage(
            lambda smp, x, i, rng, size: moments(draw(smp, x, size, rng)), "direction", n_dir, needed
        ).items()
    }
    scores: dict[tuple, Score] = {}
    for a, b in ordered:
        scores[(a, b)] = llr_score((a, b), provider, inputs[a], inputs[b]) or fit_projection((a, b), mom[a], mom[b])
    if len(ordered) > MAX_CURVE_PAIRS:

        def separation(p):
            s = fit_projection(p, mom[p[0]], mom[p[1]])
            m = lambda i: mom[i].sums / mom[i].count  # noqa: E731
            return float(s.weights @ (m(p[1]) - m(p[0])))

        ordered = sorted(ordered, key=separation, reverse=True)[:MAX_CURVE_PAIRS]
        scores = {p: scores[p] for p in ordered}

    # 1b. threshold draws: scores of each input under every pair it belongs to
    n_thr = n_sel - n_dir
    sel_scores: dict[tuple, np.ndarray] = {}
    mine_of = {i: [p for p in ordered if i in p] for i in needed}
    thr_inputs = [i for i in needed if mine_of[i]]
    thr = stage(
        lambda smp, x, i, rng, size: _score_all(draw(smp, x, size, rng), [scores[p] for p in mine_of[i]]),
        "threshold",
        n_thr,
        thr_inputs,
    )
    for i, parts in thr.items():
        for j, p in enumerate(mine_of[i]):
            sel_scores[(p, i)] = np.concatenate([part[j] for part in parts])
    del thr
    cands = []
    for a, b in ordered:
        s_a, s_b = sel_scores[((a, b), a)], sel_scores[((a, b), b)]
        t = candidate_thresholds(s_a, s_b)
        if not len(t):
            continue
        up = np.ones(len(t), bool)
        ka, kb = threshold_counts(s_a, t, up), threshold_counts(s_b, t, ~up)
        cands.append(
            {
                "pair": (a, b),
                "score": scores[(a, b)],
                "t": t,
                "a_sel": ka / n_thr,
                "b_sel": kb / n_thr,
                "a_pred": _predicted_upper(ka, n_thr, n_est, level),
                "b_pred": _predicted_upper(kb, n_thr, n_est, level),
            }
        )
    del sel_scores
    chosen = _choose_points(cands, _objectives(claim, delta), points)
    m = max(1, len(chosen))
    level = bonferroni_alpha(alpha, 2 * m)

    # 2. estimation on fresh draws: counts in each point's error region
    est_inputs = sorted({i for c in chosen for i in c["pair"]})
    mine_est = {i: [(j, c) for j, c in enumerate(chosen) if i in c["pair"]] for i in est_inputs}
    uniq_of = {i: list({id(c["score"]): c["score"] for _, c in mine_est[i]}.values()) for i in est_inputs}

    def est_chunk(smp, x, i, rng, size):
        ss_ = dict(zip(map(id, uniq_of[i]), _score_all(draw(smp, x, size, rng), uniq_of[i])))
        out = np.zeros(len(chosen), np.int64)
        for j, c in mine_est[i]:
            out[j] = threshold_counts(ss_[id(c["score"])], np.array([c["t"]]), np.array([i == c["pair"][0]]))[0]
        return out

    counts: dict[int, np.ndarray] = stage(est_chunk, "estimation", n_est, est_inputs, reduce=np.add)
    pts = []
    for j, c in enumerate(chosen):
        a, b = c["pair"]
        ka, kb = int(counts[a][j]), int(counts[b][j])
        a_hi = clopper_pearson(ka, n_est, level, "upper")
        b_hi = clopper_pearson(kb, n_est, level, "upper")
        pts.append(
            {
                "pair": [_plain(inputs[a]), _plain(inputs[b])],
                "score": c["score"].description,
                "threshold": c["t"],
                "role": c["role"],
                "counts": [ka, n_est, kb, n_est],
                "alpha": ka / n_est,
                "beta": kb / n_est,
                "alpha_upper": a_hi,
                "beta_upper": b_hi,
                "mu_lower": float(mu_from_box(a_hi, b_hi)),
                "eps_lower_at_delta": None if delta is None else float(eps_from_box(a_hi, b_hi, delta)),
            }
        )
    refuting = []
    if claim is not None and pts:
        lo = claim.lower(np.array([p["alpha_upper"] for p in pts]))
        for j, p in enumerate(pts):
            p["claim_lower"] = float(lo[j])
            p["below_claim"] = bool(p["beta_upper"] < lo[j])
            if p["below_claim"]:
                refuting.append(j)
    mu_lower = max([0.0] + [p["mu_lower"] for p in pts])
    eps_d = None if delta is None else max([0.0] + [p["eps_lower_at_delta"] for p in pts])
    return CurveBound(
        confidence,
        samples,
        n_sel,
        n_est,
        pts,
        mu_lower,
        delta,
        eps_d,
        None if claim is None else claim.description,
        refuting,
        reproducible,
        len(ordered),
        n_sel * len(needed) + n_est * len(est_inputs),
    )


def _score_all(X: np.ndarray, scores: list[Score]) -> list[np.ndarray]:
    return [s(X) for s in scores]


def curve_decision(bound: CurveBound, claim: ClaimedCurve) -> tuple[str, str | None]:
    """Verdict of a curve audit: ``refuted`` when a point's box lies below the claimed curve;
    ``inconclusive`` when no point separated the inputs (``mu_lower`` = 0: no power); else ``holds``
    (no violation detected — sampling can refute a curve, never prove it)."""
    if bound.refuting:
        return "refuted", None
    if not bound.mu_lower > 0:
        return "inconclusive", "no threshold separated the inputs (mu_lower = 0): the audit had no power"
    return "holds", None


def resolve_claim(mech: Any, mu: float | None, accountant: Any, eps: float | None) -> ClaimedCurve | None:
    """The curve claim of an audit: ``mu=`` or ``accountant=`` (exclusive with each other and with ``eps=``);
    without any claim, a mechanism's own ``accountant()`` (e.g. ``dp-sgd``) when it has no finite ε claim.
    ``None`` when the audit is an ε audit."""
    given = [n for n, v in (("eps", eps), ("mu", mu), ("accountant", accountant)) if v is not None]
    if len(given) > 1:
        raise PrivcheckUsageError(f"give one claim: eps=..., mu=... or accountant=... (got {', '.join(given)})")
    if mu is not None:
        return mu_claim(mu)
    if accountant is not None:
        return accountant_claim(accountant)
    own = getattr(mech, "accountant", None)
    if eps is None and callable(own) and not math.isfinite(float(getattr(mech, "eps_nominal", math.inf))):
        return accountant_claim(own())
    return None


def curve_fields(bound: CurveBound) -> dict:
    """The :class:`~privcheck.auditor.core.AuditResult` fields a curve bound fills (``mu_lower``,
    ``eps_lower_at_delta``, ``curve_points``) and its details."""
    return {"mu_lower": bound.mu_lower, "eps_lower_at_delta": bound.eps_lower_at_delta, "curve_points": bound.points}


def curve_details(bound: CurveBound) -> dict:
    """Sample sizes and the error level of a curve audit, for ``AuditResult.details``."""
    return {
        "curve_selection_samples": bound.selection_samples,
        "curve_estimation_samples": bound.estimation_samples,
        "curve_pairs_audited": bound.pairs_audited,
        "curve_draws": bound.draws,
        "curve_refuting_points": bound.refuting,
        "curve_note": (
            "points' boxes {alpha <= alpha_upper, beta <= beta_upper} hold simultaneously at the "
            "stated confidence (one-sided Clopper-Pearson, Bonferroni over 2 x points)"
        ),
    }


def curve_summary_lines(res: Any) -> list[str]:
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


def audit_curve_claim(
    mech: Any,
    name: str,
    claim: ClaimedCurve,
    inputs,
    samples: int,
    *,
    t0: float,
    monte_carlo: bool = True,
    exact: bool | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    delta: float | None = None,
    **kwargs,
):
    """Run a curve audit of ``claim`` (from :func:`resolve_claim`) and wrap it as an
    :class:`~privcheck.auditor.core.AuditResult` (``eps_claimed`` None; verdict by :func:`curve_decision`).
    delta: None, or in [0, 1): also certify ``eps_lower_at_delta`` at this δ (``delta_claimed``; no effect
    on the verdict).
    ``kwargs``: ``pairs``, ``neighbours``, ``view``, ``jobs``, ``client``, ``progress`` of :func:`curve_bound`."""
    import time

    from privcheck.auditor.core import AuditResult

    if not monte_carlo or exact:
        raise PrivcheckUsageError(
            "a mu= or accountant= claim is audited from samples: it takes neither "
            "monte_carlo=False nor exact=True (exact ε is for ε claims)"
        )
    seed = check_int("seed", seed, minimum=0)
    bound = curve_bound(mech, inputs, samples, claim=claim, confidence=confidence, seed=seed, delta=delta, **kwargs)
    verdict, reason = curve_decision(bound, claim)
    best = max(bound.points, key=lambda p: p["mu_lower"]) if bound.points else None
    return AuditResult(
        mechanism=repr(mech) if hasattr(mech, "exact_epsilon") else name,
        eps_claimed=None,
        eps_exact=None,
        eps_exact_text=None,
        eps_lower=None,
        confidence=bound.confidence,
        samples=samples,
        seconds=round(time.perf_counter() - t0, 4),
        verdict=verdict,
        verdict_exact=None,
        verdict_mc=verdict,
        worst_pair=None if best is None else best["pair"],
        event=None if best is None else f"{best['score']} >= {best['threshold']:.6g}",
        eps_max_certifiable=None,
        reproducible=bound.reproducible,
        details=curve_details(bound),
        reason=reason,
        mu_claimed=claim.mu,
        accountant=claim.description if claim.kind == "accountant" else None,
        delta_claimed=bound.delta,
        **curve_fields(bound),
    )
