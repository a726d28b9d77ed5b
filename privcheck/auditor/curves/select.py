"""Stage 3, select (curve strategy): candidate thresholds on the selection scores, and the points kept.

The threshold draws (the selection share after the direction draws) are scored under every pair each input
belongs to; each ``(pair, threshold)`` is a test ``{s ≥ t}`` with a predicted confidence box. Kept:
:data:`~privcheck.auditor.curves.settings.CURVE_POINTS` points — the best one for each question asked (the
claim's margin, μ, ε at δ), then the rest spread along the best pair's curve (the trace).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privcheck.auditor.curves.boxes import eps_from_box, mu_from_box
from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.curves.code import Scored
from privcheck.auditor.curves.settings import CurveSettings, WidthGuard
from privcheck.auditor.scores import Score, candidate_thresholds, threshold_counts
from privcheck.auditor.selection import Z_SELECTION, wilson
from privcheck.auditor.stages.draw import DrawRun
from privcheck.base.stats import bonferroni_alpha


def score_all(X: np.ndarray, scores: list[Score]) -> list[np.ndarray]:
    """Each statistic of ``scores`` on the output matrix ``X``."""
    return [s(X) for s in scores]


def predicted_upper(k, n: int, n_est: int, level: float) -> np.ndarray:
    """Predicted upper confidence limit after ``n_est`` fresh draws of a proportion seen ``k`` of ``n``
    times in selection (pessimistic by :data:`~privcheck.auditor.selection.Z_SELECTION`; ranking only)."""
    from privcheck.base.normal import normal_quantile

    z = normal_quantile(1 - level)
    p = wilson(k, n, Z_SELECTION, "upper")
    return wilson(p * n_est, n_est, z, "upper")


def objectives(claim: ClaimedCurve | None, delta: float | None) -> list:
    """The questions a point can answer, most important first: name -> f(alpha_hi, beta_hi) (larger is better)."""
    out: list = []
    if claim is not None and claim.kind == "accountant":
        lower = claim.lower

        def margin(a, b):
            from scipy.special import ndtri

            with np.errstate(all="ignore"):
                return np.nan_to_num(ndtri(lower(a)) - ndtri(b), nan=-np.inf)

        out.append(("claim", margin))
    out.append(("mu", mu_from_box))
    if delta is not None:
        out.append(("eps_at_delta", lambda a, b: eps_from_box(a, b, delta)))
    return out


def _argbest(cands: list[dict], fn) -> tuple[dict, int]:
    """The candidate (pair) and threshold index where ``fn`` of the predicted boxes is largest."""
    vals = np.concatenate([fn(c["a_pred"], c["b_pred"]) for c in cands])
    flat = int(np.argmax(vals))
    for c in cands:
        if flat < len(c["t"]):
            break
        flat -= len(c["t"])
    return c, flat


def _trace(best: dict, rest: int, keys: set) -> list[dict]:
    """Up to ``rest`` more points of the best pair, spread over log α."""
    out: list[dict] = []
    a_sel = np.maximum(best["a_sel"], 1e-300)
    usable = np.nonzero((best["a_sel"] > 0) & (best["b_sel"] > 0))[0]
    if not len(usable):
        return out
    targets: Any = np.geomspace(a_sel[usable].max(), a_sel[usable].min(), rest + 2)[1:-1] if rest else []
    for tgt in targets:
        j = usable[int(np.argmin(np.abs(np.log(a_sel[usable]) - np.log(tgt))))]
        key = (best["pair"], float(best["t"][j]))
        if key not in keys:
            keys.add(key)
            out.append({"pair": best["pair"], "score": best["score"], "t": float(best["t"][j]), "role": "trace"})
    return out


def choose_points(cands: list[dict], objs: list, n_points: int) -> list[dict]:
    """The best candidate of each objective, then the best pair's candidates spread over log α (the trace)."""
    if not cands:
        return []
    chosen: list[dict] = []
    keys: set = set()
    first_pair = None
    for name, fn in objs:
        c, j = _argbest(cands, fn)
        key = (c["pair"], float(c["t"][j]))
        first_pair = first_pair or c
        if key not in keys:
            keys.add(key)
            chosen.append({"pair": c["pair"], "score": c["score"], "t": float(c["t"][j]), "role": name})
    rest = n_points - len(chosen)
    if rest > 0 and first_pair is not None:
        chosen += _trace(first_pair, rest, keys)
    return chosen[:n_points]


def _threshold_scores(run: DrawRun, sc: Scored, n_thr: int, draw: WidthGuard) -> dict[tuple, np.ndarray]:
    """``{(pair, input): scores of the input's threshold draws under the pair's statistic}``."""
    mine_of = {i: [p for p in sc.ordered if i in p] for i in run.needed}
    thr = run.stage(
        lambda smp, x, i, rng, size: score_all(draw(smp, x, size, rng), [sc.scores[p] for p in mine_of[i]]),
        "threshold",
        n_thr,
        [i for i in run.needed if mine_of[i]],
    )
    out = {}
    for i, parts in thr.items():
        for j, p in enumerate(mine_of[i]):
            out[(p, i)] = np.concatenate([part[j] for part in parts])
    return out


def select_points(run: DrawRun, sc: Scored, s: CurveSettings, draw: WidthGuard) -> list[dict]:
    """Score the threshold draws, build every pair's candidate thresholds with predicted boxes, keep the points."""
    n_thr = s.n_sel - s.n_dir
    level = bonferroni_alpha(s.alpha, 2 * s.points)
    sel_scores = _threshold_scores(run, sc, n_thr, draw)
    cands: list[dict[str, Any]] = []
    for a, b in sc.ordered:
        s_a, s_b = sel_scores[((a, b), a)], sel_scores[((a, b), b)]
        t = candidate_thresholds(s_a, s_b)
        if not len(t):
            continue
        up = np.ones(len(t), bool)
        ka, kb = threshold_counts(s_a, t, up), threshold_counts(s_b, t, ~up)
        cands.append(
            {
                "pair": (a, b),
                "score": sc.scores[(a, b)],
                "t": t,
                "a_sel": ka / n_thr,
                "b_sel": kb / n_thr,
                "a_pred": predicted_upper(ka, n_thr, s.n_est, level),
                "b_pred": predicted_upper(kb, n_thr, s.n_est, level),
            }
        )
    return choose_points(cands, objectives(s.claim, s.delta), s.points)
