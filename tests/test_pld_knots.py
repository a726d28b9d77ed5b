"""The knots discretisation, the mass-preserving optimistic measure and the two-stage composition
(issue 33 §2): every measure brackets the exact profile on and between its knots, the optimistic
measure keeps its P- and Q-mass, coarsening keeps the direction of a bound, the certification step
rejects a measure raised by a hair, and the two-stage route agrees with the one-stage route."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from accountants.pld import GaussianEvent, LaplaceEvent, PLDAccountant, PoissonSampledEvent
from accountants.pld import accountant as acc_mod
from accountants.pld.coarsen import coarsen, measure_of
from accountants.pld.compose import compose
from accountants.pld.discretise import RHO, GridMeasure, discretise
from accountants.pld.knots import lattice_knots
from accountants.pld.optimistic import _check, optimistic_on_knots, profile_bounds

SUBSAMPLED = PoissonSampledEvent(GaussianEvent(0.8), 1e-3)


def _profile_of(m: GridMeasure, x: np.ndarray) -> np.ndarray:
    """δ(x) of a grid measure, term by term (reference)."""
    out = np.full(x.shape, m.inf)
    for xi, pi in zip(m.x, m.p):
        if pi > 0:
            out += pi * np.maximum(0.0, -np.expm1(x - xi))
    return out


def _test_points(m: GridMeasure, rng) -> np.ndarray:
    nz = m.x[m.p > 0]
    inner = rng.uniform(nz.min() - 0.01, nz.max() + 0.01, 400)
    bulk = rng.uniform(-0.003, 0.01, 400)  # where a subsampled mechanism's mass sits
    return np.sort(np.concatenate([inner, bulk, nz[:: max(1, nz.size // 300)] + 1e-9]))


@pytest.mark.parametrize("event", [SUBSAMPLED, GaussianEvent(1.0), LaplaceEvent(eps=0.5)])
def test_measures_bracket_the_exact_profile_between_knots(event):
    rng = np.random.default_rng(5)
    for prof in event.profiles("add_remove"):
        P, O = discretise(prof, 1e-4)
        x = _test_points(P, rng)
        exact = np.exp(prof.log_delta_at(x))
        assert np.all(_profile_of(P, x) >= exact * (1 - 1e-12))
        assert np.all(_profile_of(O, x) <= exact * (1 + 1e-12) + 1e-300)


def test_optimistic_keeps_p_and_q_mass():
    # the earlier construction lost ~3e-6 of Q-mass per event at h = 1e-4 (issue 33 §2): T·3e-6
    for prof in SUBSAMPLED.profiles("add_remove"):
        k = lattice_knots(prof, 1e-4)
        p, a, info = optimistic_on_knots(prof, k, RHO)
        P = math.fsum(p.tolist()) + a
        Q = math.fsum((p / k.t.astype(float)).tolist())
        assert abs(P - 1) < 1e-9 and abs(Q - 1) < 1e-9, (P, Q, info)


def test_certification_rejects_a_measure_raised_by_a_hair():
    prof = SUBSAMPLED.profiles("add_remove")[0]
    k = lattice_knots(prof, 1e-4)
    p, a, _ = optimistic_on_knots(prof, k, RHO)
    HL, HR = profile_bounds(prof, k, RHO)
    assert _check(k, p, a, HL, HR)
    bulk = int(np.argmax(p))
    raised = p.copy()
    raised[bulk + 1] += 1e-7  # mass moved up: the profile rises right below that knot
    raised[bulk] -= 1e-7
    assert not _check(k, raised, a, HL, HR)
    assert not _check(k, p * (1 + 1e-6), a, HL, HR)


def test_knots_thin_the_tail_but_not_the_bulk():
    prof = SUBSAMPLED.profiles("add_remove")[0]
    k = lattice_knots(prof, 1e-4)
    span = int(k.idx[-1] - k.idx[0]) + 1
    assert k.size < span / 3
    bulk = k.idx[(k.x > -0.002) & (k.x < 0.005)]
    assert np.all(np.diff(bulk) == 1)  # every lattice point where the mass is


def test_measure_of_and_coarsen_keep_the_direction():
    mu = 0.5
    rng = np.random.default_rng(2)
    prof = GaussianEvent(1 / mu).profiles("add_remove")[0]
    P, O = discretise(prof, 2e-3)
    for kind, m in (("pessimistic", P), ("optimistic", O)):
        block = measure_of(compose([(m, 4)], kind, 1e-15, 2**20, long=True), "block")
        coarse = coarsen(block, 5)
        x = rng.uniform(-2.0, 4.0, 300)
        with mpmath.workdps(30):  # exact: 4 runs of μ-GDP are 2μ-GDP
            exact = np.array(
                [
                    float(mpmath.ncdf(-xi / (2 * mu) + mu) - mpmath.exp(xi) * mpmath.ncdf(-xi / (2 * mu) - mu))
                    for xi in x
                ]
            )
        for meas in (block, coarse):
            got = _profile_of(meas, x)
            if kind == "pessimistic":
                assert np.all(got >= exact * (1 - 1e-12))
            else:
                assert np.all(got <= exact * (1 + 1e-12) + 1e-300)
        # and coarsening costs little here (a smooth block, 5 steps)
        err = np.max(np.abs(_profile_of(coarse, x) - exact))
        assert err < 1e-4


def test_two_stage_agrees_with_one_stage(monkeypatch):
    ev, T = PoissonSampledEvent(GaussianEvent(1.0), 0.01), 2000
    with monkeypatch.context() as mp:
        mp.setattr(acc_mod, "ONE_STAGE_MAX", 2**13)  # (blocks from a small window on,
        mp.setattr(acc_mod, "COARSE_FFT", 2**10)  # coarsened onto a coarse final grid)
        two = PLDAccountant().compose(ev, T)
        iv2 = two.epsilon(1e-5)
    assert two._cache.get("factor", 1) > 1  # the block route was taken
    monkeypatch.setattr(acc_mod, "MIN_BLOCK_COUNT", 10**9)
    one = PLDAccountant().compose(ev, T)
    iv1 = one.epsilon(1e-5)
    assert "factor" not in one._cache
    assert max(iv1.lower, iv2.lower) <= min(iv1.upper, iv2.upper)  # both certified: they intersect
    assert iv2.upper - iv2.lower <= 1e-3 * iv2.upper


def test_long_horizon_width_and_reference():
    # REFERENCE.md: dp_accounting at value_discretization_interval 3e-5 gives 9.69294
    iv = PLDAccountant().compose(SUBSAMPLED, 10**6).epsilon(1e-5)
    assert iv.lower <= 9.69294 <= iv.upper
    assert iv.upper - iv.lower <= 1e-3 * iv.upper
