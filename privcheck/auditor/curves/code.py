"""Stage 2, code (curve strategy): each ordered input pair's one-dimensional statistic.

The first selection draws (at most :data:`~privcheck.auditor.curves.settings.DIRECTION_DRAWS` per input) give
each input's streamed moments; each ordered pair's statistic is the mechanism's or the view's likelihood ratio
where one is provided, else Fisher's projection fitted on those moments (:mod:`privcheck.auditor.scores`).
At most :data:`MAX_CURVE_PAIRS` pairs — those whose means differ most — go on.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from privcheck.auditor.curves.settings import CurveSettings, WidthGuard
from privcheck.auditor.scores import Moments, Score, fit_projection, llr_score, moments
from privcheck.auditor.stages.draw import DrawRun

#: at most this many ordered input pairs are scored (those whose means differ most)
MAX_CURVE_PAIRS = 16


@dataclass
class Scored:
    """The code stage's result: the ordered pairs kept and each one's statistic."""

    ordered: list[tuple[int, int]]
    scores: dict[tuple, Score]


def fit_scores(run: DrawRun, s: CurveSettings, draw: WidthGuard, provider: Any) -> Scored:
    """Moments of each input on the direction draws, then each pair's statistic (``provider.llr`` when it has
    one, else the projection); the pairs cut to :data:`MAX_CURVE_PAIRS` by separation."""
    # moments are float sums: folded here, in chunk order, as on one worker
    mom: dict[int, Moments] = {
        i: functools.reduce(lambda u, v: u + v, parts)
        for i, parts in run.stage(
            lambda smp, x, i, rng, size: moments(draw(smp, x, size, rng)), "direction", s.n_dir
        ).items()
    }
    ordered = list(run.ordered)
    scores: dict[tuple, Score] = {}
    for a, b in ordered:
        scores[(a, b)] = llr_score((a, b), provider, run.inputs[a], run.inputs[b]) or fit_projection(
            (a, b), mom[a], mom[b]
        )
    if len(ordered) > MAX_CURVE_PAIRS:

        def separation(p):
            sc = fit_projection(p, mom[p[0]], mom[p[1]])
            m = lambda i: mom[i].sums / mom[i].count  # noqa: E731
            return float(sc.weights @ (m(p[1]) - m(p[0])))

        ordered = sorted(ordered, key=separation, reverse=True)[:MAX_CURVE_PAIRS]
        scores = {p: scores[p] for p in ordered}
    return Scored(ordered, scores)
