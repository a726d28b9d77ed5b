"""The sizes and error levels of one curve run (shared by the curve strategy's code, select and estimate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from privcheck.auditor.curves.claimed import ClaimedCurve
from privcheck.auditor.fresh_draws import draw_matrix
from privcheck.auditor.stages.draw import check_width

#: points (pair, threshold) sent to estimation; the Bonferroni correction divides by twice this
CURVE_POINTS = 10
#: share of the draws per input spent choosing points (the rest estimates them, on fresh draws)
SELECTION_SHARE = 0.2
#: fewest draws per input of a curve audit
MIN_SAMPLES = 100
#: selection draws per input that fit the projection direction (the rest place thresholds)
DIRECTION_DRAWS = 1 << 16


@dataclass(frozen=True)
class CurveSettings:
    """One curve run: ``samples`` draws per input (selection share, then fresh estimation), ``confidence`` of
    all boxes together, ``points`` reaching estimation, the ``claim`` tested (None: bounds only), and ``delta``
    for ε at δ (None: not asked)."""

    samples: int
    confidence: float
    points: int
    selection_share: float
    claim: ClaimedCurve | None = None
    delta: float | None = None

    @property
    def alpha(self) -> float:
        """The error level of all boxes together."""
        return 1.0 - self.confidence

    @property
    def n_sel(self) -> int:
        """Selection draws per input (at least 20)."""
        return max(20, int(round(self.samples * self.selection_share)))

    @property
    def n_est(self) -> int:
        """Fresh estimation draws per input."""
        return self.samples - self.n_sel

    @property
    def n_dir(self) -> int:
        """Selection draws per input that fit the direction (the rest place thresholds)."""
        return min(self.n_sel // 2, DIRECTION_DRAWS)


class WidthGuard:
    """Draws as a matrix, all of one width: the first chunk a worker sees fixes it (a usage error otherwise)."""

    def __init__(self) -> None:
        self.width: list[int] = []

    def __call__(self, smp: Any, x: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        X = draw_matrix(smp, x, size, rng)
        if not self.width:
            self.width.append(X.shape[1])
        return check_width(X, self.width[0])
