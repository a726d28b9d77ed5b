"""Privacy-loss-distribution (PLD) accounting with certified bounds.

Modules (like dp_accounting's layout): :mod:`~accountants.pld.events` (mechanisms and their
privacy profiles), :mod:`~accountants.pld.discretise` (pessimistic/optimistic grid measures),
:mod:`~accountants.pld.compose` (FFT composition with error bounds),
:mod:`~accountants.pld.accountant` (the accountant and its intervals),
:mod:`~accountants.pld.tail_lower` (lower bounds at any δ from the top composed losses), and
:mod:`~accountants.pld.interval_gaussian` (the small Gaussian-only interval cross-check).

Example::

    from accountants.pld import PLDAccountant, GaussianEvent, PoissonSampledEvent
    acc = PLDAccountant()
    acc.compose(PoissonSampledEvent(GaussianEvent(sigma=1.1), q=0.01), count=10_000)
    acc.epsilon(delta=1e-5)   # Interval(lower, upper) with lower <= exact ε(δ) <= upper
"""

from accountants.pld.accountant import PLDAccountant
from accountants.pld.events import (
    ApproxDPEvent,
    DiscreteLaplaceEvent,
    FiniteEvent,
    GaussianEvent,
    LaplaceEvent,
    PLDEvent,
    PoissonSampledEvent,
    PureDPEvent,
    RandomizedResponseEvent,
)
from accountants.pld.interval import Interval
from accountants.pld.interval_gaussian import PLDBounds, gaussian_pld_delta

__all__ = [
    "PLDAccountant",
    "Interval",
    "PLDEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "DiscreteLaplaceEvent",
    "RandomizedResponseEvent",
    "PureDPEvent",
    "FiniteEvent",
    "PoissonSampledEvent",
    "ApproxDPEvent",
    "PLDBounds",
    "gaussian_pld_delta",
]
