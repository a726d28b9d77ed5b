"""The sizes and error levels one run of the event family works with (shared by its code, select and estimate
stages)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EventSettings:
    """One run's settings: ``samples`` draws per input split into a selection share (its first part, the
    pilot, fixes the coding) and a fresh estimation share; ``confidence`` of the bound; ``max_events``
    candidates reach estimation (the Bonferroni divisor); ``delta_eps``: also bound δ at this ε."""

    samples: int
    confidence: float
    max_events: int
    selection_share: float
    delta_eps: float | None = None

    @property
    def alpha(self) -> float:
        """The error level of the whole run, ``1 − confidence``."""
        return 1.0 - self.confidence

    @property
    def n_sel(self) -> int:
        """Selection draws per input (at least 10)."""
        return max(10, int(round(self.samples * self.selection_share)))

    @property
    def n_est(self) -> int:
        """Fresh estimation draws per input."""
        return self.samples - self.n_sel

    @property
    def ranking_level(self) -> float:
        """The per-candidate level the selection stage predicts bounds at (ranking only), ``α / max_events``."""
        return self.alpha / self.max_events
