"""ω(a) of sqSGD Theorem 1, eq. 9, is project code (estimators.quantization) checked by the catalogue."""

from __future__ import annotations

import math

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import estimators.quantization as Q
from privcheck.base.errors import PrivcheckUsageError
from privcheck.runner import verify


def test_closed_values():
    assert Q.reconstruction_omega(0.0, 50, 1.0, 0.5) == pytest.approx(math.sqrt(8) * math.exp(1.5), rel=1e-15)
    assert Q.reconstruction_omega(1.0, 3, 0.0, 0.0) == pytest.approx(math.sqrt(8) / math.e, rel=1e-15)
    assert Q.reconstruction_omega(0.3, 1, 2.0, 0.0) == Q.reconstruction_omega(0.9, 1, 2.0, 0.0)  # r = 1: constant in a
    assert Q.reconstruction_omega(0.0, 2, 800.0, 0.0) == math.inf  # beyond the float range, never an OverflowError
    assert Q.reconstruction_log_omega(0.0, 2, 800.0, 0.0) == pytest.approx(800 + 1.5 * math.log(2))


@settings(max_examples=60, deadline=None)
@given(a=st.floats(0, 1), r=st.floats(1, 1e4), eps=st.floats(0, 50), rho0=st.floats(0, 5))
def test_float_matches_50_digit_route(a, r, eps, rho0):
    exact = Q.reconstruction_omega(a, r, eps, rho0, exact=True)
    assert isinstance(exact, mpmath.mpf)
    assert Q.reconstruction_omega(a, r, eps, rho0) == pytest.approx(float(exact), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(r=st.floats(1.5, 1e5), eps=st.floats(0, 20), rho0=st.floats(0, 5))
def test_nonvacuous_a_is_the_smallest_informative_a(r, eps, rho0):
    a_star = Q.reconstruction_nonvacuous_a(r, eps, rho0)
    if a_star is None:
        assert Q.reconstruction_omega(1.0, r, eps, rho0) > 1 * (1 - 1e-12)
    else:
        assert Q.reconstruction_omega(a_star, r, eps, rho0, exact=True) <= 1
        assert Q.reconstruction_omega(max(0.0, a_star - 1e-7), r, eps, rho0) > 1


@pytest.mark.parametrize(
    "args", [(-0.1, 10, 1, 0), (1.5, 10, 1, 0), (0.5, 0.5, 1, 0), (0.5, 10, -1, 0), (0.5, 10, 1, float("nan"))]
)
def test_bad_input_is_a_one_line_refusal(args):
    with pytest.raises(PrivcheckUsageError):
        Q.reconstruction_omega(*args)


def test_catalogue_check_uses_the_project_code(monkeypatch):
    rec = verify(["sqsgd.reconstruction.omega"], seed=0)[0]
    assert rec.verdict == "computed" and rec.measured["max_rel_diff_vs_independent_mpmath"] <= 1e-12
    real = Q.reconstruction_log_omega
    monkeypatch.setattr(Q, "reconstruction_log_omega", lambda *a, **k: real(*a, **k) + 1e-9)  # a wrong constant
    assert verify(["sqsgd.reconstruction.omega"], seed=0)[0].verdict in ("error", "refuted")  # caught either way
