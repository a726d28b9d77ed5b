"""The PLD accountant of a mix of Gaussian, Laplace and binary-RR events (the mixes tests/pld_reference.py
brackets), optionally with one Poisson-subsampled Gaussian: shared by the certified-interval tests."""

from __future__ import annotations

from accountants.pld import GaussianEvent, LaplaceEvent, PLDAccountant, PoissonSampledEvent, RandomizedResponseEvent


def mix_accountant(gauss=(), laplace=(), rr=(), subsampled=None, **options) -> PLDAccountant:
    """A :class:`PLDAccountant` (``options`` passed on) composing N(σ) for σ in ``gauss``, Laplace(ε) for ε in
    ``laplace``, binary ε-RR for ε in ``rr`` and, with ``subsampled=(σ, q, count)``, that many Poisson(q)-subsampled
    N(σ)."""
    acc = PLDAccountant(**options)
    for s in gauss:
        acc.compose(GaussianEvent(s))
    for e in laplace:
        acc.compose(LaplaceEvent(eps=e))
    for e in rr:
        acc.compose(RandomizedResponseEvent(e))
    if subsampled is not None:
        acc.compose(PoissonSampledEvent(GaussianEvent(subsampled[0]), subsampled[1]), subsampled[2])
    return acc
