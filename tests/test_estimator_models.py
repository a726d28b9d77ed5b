"""Tests of the 004 wireless, 002 NoisySMPC and sqSGD rotation models (closed forms and enumeration)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from estimators import noisysmpc as ns
from estimators import rotation as rot
from estimators import wireless as wl
from privcheck.base.errors import PrivcheckUsageError


def _setup(p, D=1.0, iid_sd=0.0):
    g = np.array([[1.0, 0.0], [0.0, 1.0], [-0.5, 0.5], [0.2, -0.7]])
    return wl.setup(g, D, p, 0.4, 0.2, iid_sd=iid_sd)


def test_count_pmf_matches_binomial():
    assert np.allclose(wl.count_pmf(np.full(12, 0.3)), stats.binom.pmf(np.arange(13), 12, 0.3))


def test_eq9_exact_unbiased_for_uniform_p_and_biased_otherwise():
    m, _, pe = wl.exact_moments_eq9(_setup(0.4))
    s = _setup(0.4)
    assert np.allclose(m, s.target, atol=1e-12) and math.isclose(pe, 0.6**4)
    s2 = _setup([0.1, 0.3, 0.6, 0.9])
    assert np.abs(wl.exact_moments_eq9(s2)[0] - s2.target).max() > 1e-3
    s3 = _setup([0.1, 0.3, 0.6, 0.9], iid_sd=0.3)  # means differ, but the grads are fixed means: still biased
    assert np.abs(wl.exact_moments_eq9(s3)[0] - s3.target).max() > 1e-3


def test_simulation_matches_exact_moments():
    s = _setup([0.2, 0.5, 0.7, 0.9], D=[1, 2, 3, 4])
    obs = wl.draw(s, np.random.default_rng(1), 300_000)
    for est, (em, ev) in (
        (wl.estimate_eq10(s, obs), wl.exact_moments_eq10(s)),
        (wl.estimate_eq9(s, obs), wl.exact_moments_eq9(s)[:2]),
    ):
        assert np.all(np.abs(est.mean(axis=0) - em) < 5 * np.sqrt(ev / est.shape[0]))
        assert np.allclose(est.var(axis=0) / ev, 1, atol=0.02)


def test_eq9_nan_convention_leaves_empty_draws_undefined():
    s = _setup(0.05)
    est = wl.estimate_eq9(s, wl.draw(s, np.random.default_rng(2), 1_000), empty="nan")
    assert np.isnan(est).any()


def test_taylor_exact_and_approximations():
    im = wl.inverse_moments_exact(np.full(200, 0.5))
    assert im.rel_err_inv < 1e-4 and im.rel_err_inv2 < 1e-3
    small = wl.inverse_moments_exact(np.full(10, 0.05))
    assert small.rel_err_inv > 0.5  # the expansion is useless at μ = 0.5


def test_noisysmpc_variance_and_exposure():
    assert ns.aggregate_variance_exact(7, Fraction(9, 4)) == Fraction(9, 4)
    agg = ns.noisy_smpc(np.zeros((10, 1)), 2.0, np.random.default_rng(3), 100_000)
    assert abs(agg.var() / 4.0 - 1) < 0.02
    assert ns.gdp_mu(1.0, 2.0) == 0.5


def test_sensitivity_vertices_attain_the_bounds():
    mx = ns.max_sensitivity_vertices(3, 0.5, 2.0)
    b = ns.lemma4_bounds(3, 0.5, 2.0)
    assert math.isclose(mx["corr_entry"], b["corr_entry"]) and math.isclose(mx["corr_l2"], b["corr_l2"])
    assert math.isclose(mx["cov_entry_offdiag"], b["cov_entry"]) and mx["cov_l2"] < b["cov_l2"]


def test_rotation_fast_transform_and_orthogonality():
    rng = np.random.default_rng(4)
    s = rot.rademacher(16, rng)
    x = rng.normal(size=(5, 16))
    R = rot.rotation_matrix(16, s, "paper")
    assert np.allclose(x @ R.T, rot.rotate(x, s, "paper"))
    assert np.allclose(R @ R.T, np.eye(16) / 16)
    Ro = rot.rotation_matrix(16, s, "orthonormal")
    assert np.allclose(Ro @ Ro.T, np.eye(16))
    y = rot.project_l2(x * 10, 1.5)
    assert np.all(np.linalg.norm(y, axis=1) <= 1.5 + 1e-12)
    assert np.abs(rot.rotate(y, s, "orthonormal")).max() <= 1.5 + 1e-12


@pytest.mark.parametrize(
    "call",
    [
        lambda: rot.walsh_hadamard(12),
        lambda: rot.project_l2(np.ones(3), 0),
        lambda: wl.setup(np.ones((2, 2)), 1, [0.5, 1.5], 0.1),
        lambda: wl.setup(np.ones(3), 1, 0.5, 0.1),
        lambda: wl.estimate_eq9(_setup(0.5), (np.ones((1, 4), bool), np.ones((1, 2))), empty="skip"),
        lambda: ns.noisy_smpc(np.ones((2, 2)), -1.0, np.random.default_rng(0), 3),
    ],
)
def test_invalid_model_parameters(call):
    with pytest.raises(PrivcheckUsageError) as e:
        call()
    assert "\n" not in str(e.value)
