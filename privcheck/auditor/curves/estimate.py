"""Stage 4, estimate (curve strategy): each chosen point's counts on fresh draws and its confidence box.

Each point's counts ``k_α`` of ``x`` in ``{s ≥ t}`` and ``k_β`` of ``x'`` in ``{s < t}`` on fresh draws (disjoint
seed streams); one-sided Clopper–Pearson upper limits ``α_hi``, ``β_hi`` at level ``(1 − confidence)/(2m)`` each,
Bonferroni over the ``m`` points and their two coordinates. With probability ≥ ``confidence`` every point's true
``(α, β)`` lies in its box simultaneously (the points are functions of the selection draws only).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privcheck.auditor.curves.boxes import eps_from_box, mu_from_box
from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.curves.select import score_all
from privcheck.auditor.curves.settings import CurveSettings, WidthGuard
from privcheck.auditor.scores import threshold_counts
from privcheck.auditor.stages.draw import DrawRun
from privcheck.auditor.target import plain
from privcheck.base.stats import bonferroni_alpha, clopper_pearson


@dataclass
class CurveBound:
    """The empirical trade-off points of a curve audit with their simultaneous confidence boxes.

    points: one dict per point (pair, score, threshold, counts, ``alpha``/``beta`` estimates,
    ``alpha_upper``/``beta_upper`` box corners, ``mu_lower``, ``eps_lower_at_delta``, ``claim_lower``
    = the claimed curve's lower end at ``alpha_upper``, ``below_claim``, ``role``); mu_lower,
    eps_lower_at_delta: the certified bounds (see :mod:`privcheck.auditor.curves`); refuting: indices of the
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


def count_points(run: DrawRun, chosen: list[dict], n: int, draw: WidthGuard) -> dict[int, np.ndarray]:
    """``{input index: each point's count in its error region}`` on ``n`` fresh draws per input of the points'
    pairs (``{s ≥ t}`` for the pair's first input, ``{s < t}`` for its second)."""
    est_inputs = sorted({i for c in chosen for i in c["pair"]})
    mine_est = {i: [(j, c) for j, c in enumerate(chosen) if i in c["pair"]] for i in est_inputs}
    uniq_of = {i: list({id(c["score"]): c["score"] for _, c in mine_est[i]}.values()) for i in est_inputs}

    def est_chunk(smp, x, i, rng, size):
        ss_ = dict(zip(map(id, uniq_of[i]), score_all(draw(smp, x, size, rng), uniq_of[i])))
        out = np.zeros(len(chosen), np.int64)
        for j, c in mine_est[i]:
            out[j] = threshold_counts(ss_[id(c["score"])], np.array([c["t"]]), np.array([i == c["pair"][0]]))[0]
        return out

    return run.stage(est_chunk, "estimation", n, est_inputs, reduce=np.add)


def point_records(inputs: list, chosen: list[dict], counts: dict, n: int, level: float, delta) -> list[dict]:
    """Each point's record with its box ``(alpha_upper, beta_upper)`` and the μ and ε-at-δ it certifies."""
    pts = []
    for j, c in enumerate(chosen):
        a, b = c["pair"]
        ka, kb = int(counts[a][j]), int(counts[b][j])
        a_hi = clopper_pearson(ka, n, level, "upper")
        b_hi = clopper_pearson(kb, n, level, "upper")
        pts.append(
            {
                "pair": [plain(inputs[a]), plain(inputs[b])],
                "score": c["score"].description,
                "threshold": c["t"],
                "role": c["role"],
                "counts": [ka, n, kb, n],
                "alpha": ka / n,
                "beta": kb / n,
                "alpha_upper": a_hi,
                "beta_upper": b_hi,
                "mu_lower": float(mu_from_box(a_hi, b_hi)),
                "eps_lower_at_delta": None if delta is None else float(eps_from_box(a_hi, b_hi, delta)),
            }
        )
    return pts


def mark_refuting(pts: list[dict], claim: ClaimedCurve | None) -> list[int]:
    """Add each point's ``claim_lower`` and ``below_claim``; the indices of the points whose box lies below the
    claimed curve's lower end (``beta_upper < lower(alpha_upper)``)."""
    refuting: list[int] = []
    if claim is None or not pts:
        return refuting
    lo = claim.lower(np.array([p["alpha_upper"] for p in pts]))
    for j, p in enumerate(pts):
        p["claim_lower"] = float(lo[j])
        p["below_claim"] = bool(p["beta_upper"] < lo[j])
        if p["below_claim"]:
            refuting.append(j)
    return refuting


def estimate_points(run: DrawRun, chosen: list[dict], s: CurveSettings, draw: WidthGuard, pairs: int) -> CurveBound:
    """Count the chosen points on fresh draws and return the :class:`CurveBound` (``pairs``: pairs scored)."""
    level = bonferroni_alpha(s.alpha, 2 * max(1, len(chosen)))
    counts = count_points(run, chosen, s.n_est, draw)
    pts = point_records(run.inputs, chosen, counts, s.n_est, level, s.delta)
    refuting = mark_refuting(pts, s.claim)
    return CurveBound(
        s.confidence,
        s.samples,
        s.n_sel,
        s.n_est,
        pts,
        max([0.0] + [p["mu_lower"] for p in pts]),
        s.delta,
        None if s.delta is None else max([0.0] + [p["eps_lower_at_delta"] for p in pts]),
        None if s.claim is None else s.claim.description,
        refuting,
        run.reproducible,
        pairs,
        s.n_sel * len(run.needed) + s.n_est * len(counts),
    )
