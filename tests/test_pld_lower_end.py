"""The lower end of the certified PLD ε(δ) at large per-step losses (regression: Laplace b = 0.5 × 1000 at
δ = 1e−5 gave [1.999979, 1301.181] where the exact value is ≈ 1301.1):

- the optimistic measure of one Laplace event keeps its bottom atom (P-mass ½e^{−1/b} at −1/b) — without it the
  T-fold composition loses a factor (1 − ½e^{−1/b})^T of every mass — and stays below the exact profile;
- a composed block far from 0 coarsens to a pessimistic measure of mass ≈ 1 (the bottom knot's completion of the
  Q-mass gave P-mass e^{x₀} ≈ 4e39 at x₀ = 91, then overflow warnings in the block composition);
- intervals contain the exact ε(δ) of Laplace compositions (tests/laplace_exact.py: exact δ in mpmath), and the
  lower end is within 1 % of it.
"""

from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
from laplace_exact import laplace_delta

from accountants.pld import LaplaceEvent, PLDAccountant
from accountants.pld.coarsen import coarsen
from accountants.pld.discretise import GridMeasure, discretise


def _profile_of(m: GridMeasure, x: np.ndarray) -> np.ndarray:
    """δ(x) of a grid measure, term by term (reference)."""
    out = np.full(x.shape, m.inf)
    for xi, pi in zip(m.x, m.p):
        if pi > 0:
            out += pi * np.maximum(0.0, -np.expm1(x - xi))
    return out


def _epsilon(b: float, T: int, delta: float):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow warning may reach the user
        return PLDAccountant().compose(LaplaceEvent(b=b), T).epsilon(delta)


@pytest.mark.parametrize("b,h", [(0.5, 2e-3), (0.1, 2e-3), (2.0, 2e-3), (0.5, 1.7e-3), (2.0, 1.7e-3)])
def test_optimistic_laplace_measure_keeps_its_bottom_atom_and_stays_below(b, h):
    # h = 1.7e-3: the atom at −1/b lies between two knots (its P-mass goes to the knot below)
    prof = LaplaceEvent(b=b).profiles("add_remove")[0]
    P, O = discretise(prof, h)
    assert math.fsum(O.p.tolist()) + O.inf > 1 - 1e-8  # (was 1 − ½e^{−1/b}: 0.932 at b = 0.5)
    x = np.concatenate([np.linspace(-1 / b - 1, 1 / b + 0.5, 1500), [-1 / b, -1 / b + 1e-9, 0.0]])
    exact = np.exp(prof.log_delta_at(np.maximum(x, 0)))
    neg = x < 0  # below 0 the profile is 1 − e^x + e^x·δ(−x) (symmetric pair)
    exact[neg] = -np.expm1(x[neg]) + np.exp(x[neg] + prof.log_delta_at(-x[neg]))
    assert np.all(_profile_of(O, x) <= exact * (1 + 1e-12) + 1e-300)
    assert np.all(_profile_of(P, x) >= exact * (1 - 1e-12))


def test_coarsened_block_far_from_zero_keeps_unit_mass():
    # a lattice measure at losses 90..100 (all x > 0: one side, the call space), coarsened 8-fold
    h = 0.01
    x = 90 + h * np.arange(1000)
    p = np.exp(-0.5 * ((x - 95) / 1.5) ** 2)
    p /= p.sum() * (1 + 1e-12)
    m = GridMeasure(h, 9000, p, 0.0, "pessimistic", "block")
    c = coarsen(m, 8)
    assert math.fsum(c.p.tolist()) + c.inf < 1 + 1e-9  # (was e^{90}: the Q-mass completed at the bottom)
    grid = np.linspace(85, 101, 700)
    assert np.all(_profile_of(c, grid) >= _profile_of(m, grid) * (1 - 1e-12))


def test_laplace_half_times_1000_lower_end_is_tight():
    iv = _epsilon(0.5, 1000, 1e-5)
    # the upper end is >= the exact value, so a relative width of 1e−3 puts the lower end within 0.1 % of it
    assert iv.lower <= iv.upper
    assert (iv.upper - iv.lower) / iv.upper < 1e-3, iv
    assert iv.lower > 1292.7  # at least as tight as before the block route (baseline 787a33e: 1292.732)


def test_laplace_tenth_times_1000_has_no_overflow_and_a_tight_lower_end():
    iv = _epsilon(0.1, 1000, 1e-5)
    assert (iv.upper - iv.lower) / iv.upper < 1e-3, iv


@pytest.mark.parametrize("b,delta", [(0.5, 1e-5), (0.5, 1e-10), (0.1, 1e-5), (2.0, 1e-10)])
def test_laplace_interval_contains_the_exact_value(b, delta):
    T = 10
    iv = _epsilon(b, T, delta)
    d = mpmath.mpf(delta)
    # lower < ε(δ) <= upper  ⇔  δ(lower) > δ >= δ(upper) (δ decreasing in ε)
    assert laplace_delta(1 / b, T, iv.lower) > d, iv
    assert laplace_delta(1 / b, T, iv.upper) <= d, iv
    # ε(δ) < 1.01·lower: the lower end is within 1 % of the exact value
    assert laplace_delta(1 / b, T, 1.01 * iv.lower) <= d, iv


def test_laplace_delta_interval_contains_the_exact_value():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        acc = PLDAccountant().compose(LaplaceEvent(b=0.5), 10)
        for eps in (5.0, 15.0):
            iv = acc.delta(eps)
            ex = laplace_delta(2.0, 10, eps)
            assert iv.lower <= ex <= iv.upper, (eps, iv, ex)
            assert iv.lower >= 0.99 * float(ex), (eps, iv, ex)


def test_tiny_delta_tilts_each_direction_by_its_own_lambda():
    # the two directions of a subsampled Gaussian want λ ≈ 4.9 and ≈ 107 at δ = 1e−10; one shared λ (the larger)
    # left the remove direction's tilted window far above ε(δ): [3.97745, 4.00274] (width 6.3e−3) before
    from accountants.pld import GaussianEvent, PoissonSampledEvent

    acc = PLDAccountant().compose(PoissonSampledEvent(GaussianEvent(0.8), 0.01), 100)
    iv = acc.epsilon(1e-10)
    assert (iv.upper - iv.lower) / iv.upper < 1e-4, iv
    tilted = [k for k in acc.describe()["tilts"] if k != 0.0]
    assert tilted and isinstance(tilted[0], tuple) and tilted[0][0] < tilted[0][1] / 4
    d = acc.delta(iv.upper)  # the δ query tilts per direction too: δ(upper) <= 1e−10 is certified
    assert d.lower <= 1e-10 and (d.upper - d.lower) / d.upper < 1e-3, d
