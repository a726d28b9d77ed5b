"""Empirical trade-off points with simultaneous exact confidence boxes: the curve strategy through the stages.

:func:`curve_bound` validates, probes the sampler's seeding and runs :class:`CurveStrategy` — a score per pair
(code), thresholds and points (select), boxes on fresh draws (estimate) — on one
:class:`~privcheck.auditor.stages.draw.DrawRun` whose streams are ``derive(seed, "curve", stage, i)``, disjoint
from the ε auditor's. Before the stages, a small probe of its own (``"pool-probe"``) checks the fresh-draws
contract for a resampled pool of continuous values (:func:`privcheck.auditor.fresh_draws.check_pool`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.curves.code import Scored, fit_scores
from privcheck.auditor.curves.estimate import CurveBound, estimate_points
from privcheck.auditor.curves.select import select_points
from privcheck.auditor.curves.settings import CURVE_POINTS, MIN_SAMPLES, SELECTION_SHARE, CurveSettings, WidthGuard
from privcheck.auditor.execution import Execution
from privcheck.auditor.fresh_draws import check_pool, check_seeding
from privcheck.auditor.pipeline import run_strategy
from privcheck.auditor.stages.draw import DrawRun
from privcheck.auditor.target import needed_inputs, resolve_pairs
from privcheck.auditor.views import apply_view
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.scheduler import one_backend_per_call
from privcheck.base.validation import check_confidence, check_int, check_probability


@dataclass
class CurveStrategy:
    """The trade-off family as a :class:`~privcheck.auditor.pipeline.Strategy`: a one-dimensional score per
    pair (code), thresholds kept as points (select), their confidence boxes on fresh draws (estimate).
    ``provider``: where a likelihood-ratio statistic ``llr`` comes from (the view or the sampler)."""

    settings: CurveSettings
    provider: Any
    draw: WidthGuard = field(default_factory=WidthGuard)
    pairs_scored: int = 0

    def code(self, run: DrawRun) -> Scored:
        """Stage 2: each pair's statistic, fitted on the direction draws."""
        scored = fit_scores(run, self.settings, self.draw, self.provider)
        self.pairs_scored = len(scored.ordered)
        return scored

    def select(self, run: DrawRun, coded: Scored) -> list[dict]:
        """Stage 3: thresholds on the threshold draws, the points kept."""
        return select_points(run, coded, self.settings, self.draw)

    def estimate(self, run: DrawRun, selected: list[dict]) -> CurveBound:
        """Stage 4: the points' boxes on fresh draws."""
        return estimate_points(run, selected, self.settings, self.draw, self.pairs_scored)


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
    pairs: Any = None,
    neighbours: Callable | None = None,
    view: Callable | None = None,
    client: Any = None,
    progress: Callable[[int], None] | None = None,
) -> CurveBound:
    """Empirical trade-off points with simultaneous exact confidence boxes (see :mod:`privcheck.auditor.curves`).

    Parameters
    ----------
    sampler : ``f(x, n, rng) -> n outputs`` (numeric outputs are scored directly; other types are
        coded as by the ε auditor). A ``llr(outputs, x, x')`` attribute of the sampler or of ``view``
        is used as the statistic.
    inputs, pairs, neighbours : the inputs and neighbouring pairs, as for
        :func:`privcheck.auditor.target.resolve_pairs`.
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
    settings = CurveSettings(samples, confidence, points, selection_share, claim, delta)
    provider = view if view is not None and callable(getattr(view, "llr", None)) else sampler
    sampler = apply_view(sampler, view)
    backend = Execution(jobs, client).backend(sampler)
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    if settings.n_est < 20:
        raise PrivcheckUsageError(
            f"samples={samples} leaves {settings.n_est} estimation draws; give at least 100 samples"
        )
    needed = needed_inputs(ordered)
    reproducible, _ = check_seeding(sampler, inputs[needed[0]])
    run = DrawRun(sampler, inputs, ordered, needed, ss, backend, progress, ("curve",), reproducible)
    if view is None or view is False:  # an explicit view states the values are the mechanism's own
        check_pool(run.matrices("pool-probe", pool_probe_size(samples)), ordered, inputs, sampler)
    return run_strategy(CurveStrategy(settings, provider), run)


def pool_probe_size(samples: int) -> int:
    """Draws per input of a curve audit's probe for a resampled pool (its own streams; not counted in
    ``draws``): an eighth of the audit, at least 256 and at most 4096."""
    return int(min(4096, max(256, samples // 8)))
