"""Tests of the estimator checker: a biased estimator is caught, false alarms are calibrated, bad input fails clearly."""

import math

import numpy as np
import pytest

from estimators import frequency as fq
from estimators.direct_encoding import de_probabilities
from privcheck.base.errors import PrivcheckUsageError
from privcheck.base.seeding import derive
from privcheck.base.stats import clopper_pearson
from privcheck.estimator_check import Scenario, check_estimator, decide, sd_tolerance, summarise

P, Q = de_probabilities(1.0, 10)


def _scenario(n=2_000, n_i=400, pi=0.3, **kw):
    g = fq.uniform_groups(n, n_i, pi)
    return g, Scenario(name="t", draw=lambda rng, size: fq.draw_counts(g, P, Q, rng, size), target=n_i, **kw)


def test_biased_cde_is_flagged_with_eq4_bias():
    g, sc = _scenario()
    res = check_estimator(lambda o: fq.c_de(o[0], g.n, P, Q), sc, 50_000, seed=1)
    assert decide([res]).verdict == "refuted"
    eq4_bias = fq.eq4_mean(g.n, 0.2, 0.3, P, Q) - 400
    lo, hi = res.components[0].bias_interval
    assert lo <= eq4_bias <= hi


def test_unbiased_gde_holds_with_tost():
    g, sc = _scenario(tolerance=None)
    ev = fq.exact_moments("g_de", g, P, Q)[1]
    sc.tolerance = np.array([sd_tolerance(math.sqrt(ev))])
    res = check_estimator(lambda o: fq.g_de(o[0], g.n, 0.3, P, Q), sc, 50_000, seed=2)
    assert decide([res]).verdict == "holds"


def test_false_alarm_rate_is_calibrated():
    """200 small seeded runs of an unbiased estimator with the right variance: 'refuted' at most ~5 %."""
    n, pi = 1_000, 0.5
    g = fq.uniform_groups(n, 0, pi)
    sc = Scenario(
        name="calib",
        draw=lambda rng, size: fq.draw_counts(g, P, Q, rng, size),
        target=0.0,
        claimed_variance=fq.thm32_var_star(n, pi, P, Q),
    )
    est = lambda o: fq.g_de(o[0], n, pi, P, Q)
    refuted = 0
    for i in range(200):
        res = check_estimator(est, sc, 300, seed=derive(11, "calib", i), family=2)
        refuted += decide([res], require_equivalence=False, require_variance_equivalence=False).verdict == "refuted"
    assert clopper_pearson(refuted, 200, 0.01, "lower") <= 0.05, refuted


def test_wrong_variance_is_refuted():
    n, pi = 1_000, 0.5
    g = fq.uniform_groups(n, 0, pi)
    sc = Scenario(
        name="v",
        draw=lambda rng, size: fq.draw_counts(g, P, Q, rng, size),
        target=0.0,
        claimed_variance=1.3 * fq.thm32_var_star(n, pi, P, Q),
        test_bias=False,
    )
    res = check_estimator(lambda o: fq.g_de(o[0], n, pi, P, Q), sc, 40_000, seed=3)
    assert decide([res]).verdict == "refuted"


def test_exact_vs_simulated_small_cases():
    g = fq.groups([30, 50, 20], [0.2, 0.6, 0.9], [True, False, False])
    C, S = fq.draw_counts(g, P, Q, np.random.default_rng(5), 400_000)
    m = fq.count_moments(g, P, Q)
    assert abs(C.mean() - m.mean_C) < 5 * math.sqrt(m.var_C / C.size)
    assert abs(C.var() / m.var_C - 1) < 0.02
    assert abs(np.cov(C, S)[0, 1] / m.cov_CS - 1) < 0.03
    T = fq.t_estimator(C, g.n, g.sum_pi, P, Q)
    em, ev = fq.exact_moments("T", g, P, Q)
    assert abs(T.mean() - em) < 5 * math.sqrt(ev / T.size) and abs(T.var() / ev - 1) < 0.02
    # without replacement
    C2, _ = fq.draw_counts_srswor(100, 30, 40, P, Q, np.random.default_rng(6), 400_000)
    em2, ev2 = fq.exact_moments_srswor(100, 30, 40, P, Q)
    T2 = 100 / (40 * (P - Q)) * (C2 - 40 * Q)
    assert abs(T2.mean() - em2) < 5 * math.sqrt(ev2 / T2.size) and abs(T2.var() / ev2 - 1) < 0.02


def test_thm35_exact_difference_is_negative_and_paper_positive():
    for f in (0.0, 0.3):
        for pi in (0.1, 0.5, 0.9):
            g = fq.uniform_groups(1_000, int(1_000 * f), pi)
            assert fq.exact_thm35_difference(g, P, Q) < 0 < fq.thm35_paper_difference(g, pi, P, Q)
    g = fq.uniform_groups(1_000, 100, 1.0)
    assert abs(fq.exact_thm35_difference(g, P, Q)) < 1e-6


def test_optimal_design_vertex_beats_all_random_designs():
    n, B = 8, 3.5
    dc = fq.optimal_design(n, B, P, Q)
    rng = np.random.default_rng(0)
    for _ in range(500):
        x = rng.random(n)
        x = x / x.sum() * B
        if x.max() <= 1:
            assert fq.var_star_T(n, x, P, Q) >= dc.var_optimum - 1e-9
    assert math.isclose(fq.var_star_T(n, [1, 1, 1, 0.5, 0, 0, 0, 0], P, Q), dc.var_optimum, rel_tol=1e-12)
    assert math.isclose(fq.var_star_T(n, [B / n] * n, P, Q), dc.var_uniform, rel_tol=1e-12)


def test_undefined_estimates_are_reported_not_averaged():
    sc = Scenario(name="nan", draw=lambda rng, size: rng.normal(size=size), target=0.0)
    est = np.r_[np.full(20, np.nan), np.zeros(30)]
    with pytest.raises(PrivcheckUsageError, match="undefined .* on 20 of 50"):
        summarise(est, sc)


@pytest.mark.parametrize(
    "kw",
    [
        {"tolerance": 0.0},
        {"claimed_variance": -1.0},
        {"target": np.nan},
        {"claimed_mean": [1.0, 2.0]},
        {"draw": 3},
        {"var_rel_tol": 0},
    ],
)
def test_invalid_scenarios_one_line_errors(kw):
    args = dict(name="x", draw=lambda rng, size: rng.normal(size=size), target=0.0) | kw
    with pytest.raises(PrivcheckUsageError) as e:
        Scenario(**args)
    assert "\n" not in str(e.value)


def test_invalid_run_parameters():
    sc = Scenario(name="x", draw=lambda rng, size: rng.normal(size=size), target=0.0)
    with pytest.raises(PrivcheckUsageError):
        check_estimator(None, sc, 5)
    res = check_estimator(None, sc, 100, family=2)
    with pytest.raises(PrivcheckUsageError, match="families"):
        decide([res])
    for bad in (
        lambda: fq.uniform_groups(10, 11, 0.5),
        lambda: fq.uniform_groups(10, 1, 0.0),
        lambda: fq.c_de([1], 10, 0.2, 0.3),
        lambda: fq.figure3_data(eps=-1),
    ):
        with pytest.raises(PrivcheckUsageError):
            bad()


def test_results_do_not_depend_on_jobs():
    g, sc = _scenario()
    est = lambda o: fq.c_hat(o[0], o[1], 0.3, P, Q)
    a = check_estimator(est, sc, 3_000, seed=9, jobs=1, chunk=500)
    b = check_estimator(est, sc, 3_000, seed=9, jobs=2, chunk=500)
    assert a.components[0].mean == b.components[0].mean
