"""Certified PLD intervals at tiny δ (issues 18 §5, 19 §4–5): rigorous mpmath brackets of the product
form (tests/pld_reference.py), exact single-event and optimal-composition values, outward rounding,
the grid-snap shift direction, the --event parser and the gdp.composition check."""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pld_mix import mix_accountant
from pld_reference import MixReference

from accountants.composition import rr_composition_delta
from accountants.pld import ApproxDPEvent, GaussianEvent, PLDAccountant, PureDPEvent, RandomizedResponseEvent
from accountants.pld.compose import compose
from accountants.pld.discretise import discretise
from privcheck.base.errors import PrivcheckUsageError

_acc = mix_accountant


def test_issue18_mix_at_1e100_contains_truth_both_directions():
    """2 × N(σ=1) + 3 × Laplace(0.5): today's [30.90067, 30.90067] is refuted by the reference."""
    ref = MixReference(gauss=[1, 1], laplace=[0.5] * 3)
    acc = _acc(gauss=[1, 1], laplace=[0.5] * 3)
    iv = acc.epsilon(1e-100)
    ok, why = ref.eps_interval_ok(iv.lower, iv.upper, 1e-100)
    assert ok, why
    assert not ref.eps_interval_ok(30.90067, 30.90067, 1e-100)[0]  # the reference catches the old answer
    assert iv.upper - iv.lower < 0.01 and iv.lower < iv.upper  # not zero width from an FFT
    e = 0.5 * (iv.lower + iv.upper)
    d = acc.delta(e)
    assert d.lower <= ref.delta(e, True) and d.upper >= ref.delta(e, False)


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    ng=st.integers(0, 2),
    sigma=st.floats(0.7, 2.0),
    lap=st.lists(st.floats(0.2, 1.5), max_size=2),
    rr=st.lists(st.floats(0.2, 1.5), max_size=2),
    u=st.floats(10, 300),
)
def test_property_mixes_against_rigorous_brackets(ng, sigma, lap, rr, u):
    if len(lap) + len(rr) == 0 or ng + len(lap) + len(rr) < 2:
        return
    delta = 10.0**-u
    gauss = [sigma] * ng
    ref = MixReference(gauss=gauss, laplace=lap, rr=rr, bins=32)
    iv = _acc(gauss, lap, rr).epsilon(delta)
    ok, why = ref.eps_interval_ok(iv.lower, iv.upper, delta)
    assert ok, why


@pytest.mark.parametrize("eps,k", [(1.0, 2), (0.3, 2), (2.0, 5)])
@pytest.mark.parametrize("delta", [1e-10, 1e-14, 1e-200])
def test_single_rr_contains_exact_value(eps, k, delta):
    """ε(δ) = log(e^ε − δ(e^ε + k − 1)) for one k-RR (0 if δ ≥ (e^ε − 1)/z); exact in mpmath."""
    with mpmath.workdps(50):
        E = mpmath.e ** mpmath.mpf(eps)
        exact = mpmath.log(E - mpmath.mpf(delta) * (E + k - 1))
    for ev in [RandomizedResponseEvent(eps, k)] + ([PureDPEvent(eps)] if k == 2 else []):
        iv = PLDAccountant().compose(ev).epsilon(delta)
        assert iv.lower <= exact <= iv.upper, (ev, iv, exact)


def test_pure_compositions_use_the_exact_route():
    iv = PLDAccountant().compose(PureDPEvent(0.5), 100).epsilon(1e-12)
    assert iv.upper < 41.9932 and iv.lower > 41.993  # exact 41.9931 (was [41.993, 43.343])
    assert rr_composition_delta(0.5, 100, iv.upper) <= 1e-12
    iv = PLDAccountant().compose(PureDPEvent(0.0484), 5).epsilon(1e-40)
    assert iv.upper <= 5 * 0.0484 * (1 + 1e-12)  # never above the trivial Σε (was 0.260)


def test_largest_finite_loss_caps_the_upper_end():
    acc = PLDAccountant(method="pld").compose(RandomizedResponseEvent(0.5), 10)
    iv = acc.epsilon(1e-14)
    assert iv.upper <= 5.0 * (1 + 1e-12)  # δ(5) = 0 (was 5.0196)
    assert acc.delta(5.0).lower == 0.0  # the float losses 0.5 ± ulp must not make δ(5) look positive
    d = acc.delta(5.0 * (1 + 1e-12))
    assert d.lower == 0.0 and d.upper <= 5e-324  # above the largest finite loss: exactly 0 (no +∞ mass)
    # heterogeneous pure events: never above Σε
    acc = PLDAccountant().compose(PureDPEvent(0.3), 3).compose(PureDPEvent(0.1), 4)
    assert acc.epsilon(1e-30).upper <= 1.3 * (1 + 1e-12)


def test_approx_dp_events_exact_route_and_pld_agree():
    exact = PLDAccountant().compose(ApproxDPEvent(1.0, 1e-6), 10).epsilon(1e-5)
    pld = PLDAccountant(method="pld").compose(ApproxDPEvent(1.0, 1e-6), 10).epsilon(1e-5)
    assert pld.lower <= exact.upper and exact.lower <= pld.upper
    assert exact.upper < 10.0  # the +∞ mass 1-(1-1e-6)^10 < 1e-5 leaves room below the largest loss
    with pytest.raises(PrivcheckUsageError):
        ApproxDPEvent(1.0, 1.0)


def test_ends_rounded_outward_and_no_zero_upper_for_positive_delta():
    acc = _acc(gauss=[1.0], laplace=[0.5])
    d = acc.delta(60.0)  # true δ is positive but far below the float range
    assert d.upper > 0.0
    iv = PLDAccountant().compose(GaussianEvent(1.0), 3).epsilon(1e-6)
    assert math.nextafter(iv.lower, math.inf) <= iv.upper


def test_grid_snap_shift_applied_in_the_safe_direction():
    ev = RandomizedResponseEvent(0.7)
    P, O = discretise(ev.profiles()[0], 0.01)
    p0 = compose([(P, 3)], "pessimistic", 1e-30, 2**16)
    o0 = compose([(O, 3)], "optimistic", 1e-30, 2**16)
    s = 0.3
    p1 = compose([(P, 3)], "pessimistic", 1e-30, 2**16)
    o1 = compose([(O, 3)], "optimistic", 1e-30, 2**16)
    p1.shift, o1.shift = s, s
    for e in (0.2, 0.8, 1.5):
        assert p1.delta_bound(e) >= p0.delta_bound(e - s) * (1 - 1e-12)  # losses may be up to s higher
        assert p1.delta_bound(e) >= p0.delta_bound(e)
        assert o1.delta_bound(e) <= o0.delta_bound(e)
    assert p1.chernoff_eps(1e-6) >= p0.chernoff_eps(1e-6) - p0.shift + s


@pytest.mark.parametrize(
    "spec,first",
    [
        ("rr:eps=1,k=2.5", "k must be a whole number"),
        ("gaussian:sigma=1,sigma=2", "sigma is given twice"),
        ("rr:eps=1x2.5", "the count after 'x' must be a whole number"),
        ("rr:eps=1x0", "the count after 'x' must be a whole number"),
        ("approx:eps=1", "missing delta"),
    ],
)
def test_event_parser_refuses(spec, first):
    from privcheck.cli.budget import parse_pld_event

    with pytest.raises(PrivcheckUsageError, match=first):
        parse_pld_event(spec)


def test_event_parser_accepts_exponent_counts_and_approx():
    from privcheck.cli.budget import parse_pld_event

    ev, count, _ = parse_pld_event("rr:eps=1x1e6")
    assert count == 10**6 and ev == RandomizedResponseEvent(1.0, 2)
    ev, count, _ = parse_pld_event("approx:eps=1,delta=1e-6x10")
    assert count == 10 and ev == ApproxDPEvent(1.0, 1e-6)


def test_gdp_composition_check_catches_a_wrong_mu(monkeypatch):
    from accountants import gdp
    from privcheck.catalogue import accounting
    from privcheck.claims import RunContext

    check = accounting._gdp_composition_numeric
    ctx = RunContext(quick=True)
    assert check(ctx).verdict == "holds"
    true = gdp.compose_gdp
    monkeypatch.setattr(accounting.gdp, "compose_gdp", lambda mus: true(mus) * 1.0001)
    assert check(ctx).verdict == "refuted"
