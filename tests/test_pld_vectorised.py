"""Vectorised δ(ε) of a PLD composition (Composition.delta_bounds, PLDAccountant.delta_bounds):
equal bit for bit to the scalar ``delta_bound`` whatever the batch, and still bracketing rigorous
mpmath references (tests/pld_reference.py) for untilted and tilted compositions."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pld_mix import mix_accountant
from pld_reference import MixReference

from accountants.pld import GaussianEvent, PLDAccountant, PoissonSampledEvent

SETTINGS = settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.generate],
)


def _mix(gauss, laplace, rr, subsampled=None):
    return mix_accountant(gauss, laplace, rr, subsampled, target_fft_size=2**12, method="pld")


mixes = st.tuples(
    st.lists(st.floats(0.6, 3.0), max_size=2),
    st.lists(st.floats(0.1, 1.5), max_size=2),
    st.lists(st.floats(0.1, 1.5), max_size=2),
)


@SETTINGS
@given(
    mix=mixes,
    sub=st.none() | st.tuples(st.floats(0.6, 2.0), st.floats(0.01, 0.3), st.integers(1, 50)),
    tilt=st.sampled_from([0.0, 0.5, 3.0]),
    seed=st.integers(0, 2**31 - 1),
)
def test_vectorised_equals_scalar_bit_for_bit(mix, sub, tilt, seed):
    gauss, laplace, rr = mix
    if len(gauss) + len(laplace) + len(rr) + (sub is not None) == 0:
        return
    acc = _mix(gauss, laplace, rr, sub)
    rng = np.random.default_rng(seed)
    eps = np.concatenate([rng.uniform(0, 12, 40), rng.exponential(2.0, 20), [0.0, 1e-9, 50.0, 1e4]])
    rng.shuffle(eps)
    for pair in acc._build(tilt)["comps"]:
        for comp in pair:
            vec = comp.delta_bounds(eps)
            one = np.array([comp.delta_bound(e) for e in eps])
            assert vec.shape == eps.shape and np.array_equal(vec, one), comp.kind
            part = comp.delta_bounds(eps[::-3])  # another batch: the same values
            assert np.array_equal(part, one[::-3])
            assert np.all((vec >= 0) & (vec <= 1))
            if comp.kind == "pessimistic":  # also the Chernoff bound of the same measure (at the snapped ε)
                assert np.all(vec <= np.array([comp.chernoff_delta(e - comp.shift) for e in eps]))


@SETTINGS
@given(mix=mixes, tilt=st.sampled_from([0.0, 2.0]))
def test_vectorised_bounds_bracket_rigorous_reference(mix, tilt):
    gauss, laplace, rr = mix
    if len(laplace) + len(rr) == 0:
        return
    ref = MixReference(gauss=gauss, laplace=laplace, rr=rr, bins=24)
    acc = _mix(gauss, laplace, rr)
    eps = np.linspace(0.0, 1.2 * (sum(laplace) + sum(rr)) + 3.0, 25)
    ((pess, opt),) = acc._build(tilt)["comps"]
    up, lo = pess.delta_bounds(eps), opt.delta_bounds(eps)
    for e, u, l in zip(eps, up, lo):
        assert mpmath.mpf(u) >= ref.delta(e, False), (e, u)
        assert mpmath.mpf(l) <= ref.delta(e, True), (e, l)


def test_accountant_delta_bounds_shape_and_agreement():
    acc = PLDAccountant(target_fft_size=2**12).compose(PoissonSampledEvent(GaussianEvent(1.0), 0.05), 30)
    eps = np.linspace(0.0, 4.0, 12).reshape(3, 4)
    lo, up = acc.delta_bounds(eps)
    assert lo.shape == up.shape == (3, 4)
    assert np.all(lo <= up)
    for e, l, u in zip(eps.ravel(), lo.ravel(), up.ravel()):
        iv = acc.delta(float(e))
        assert l <= iv.upper and iv.lower <= u  # same certified quantity, overlapping intervals
