"""No certificate that reads wrong (issue 29 §2, accountant items): exact μ for Gaussian compositions
and a vacuous μ-GDP answer said so; Gaussian + Laplace mixes certified against rigorous mpmath brackets
down to subnormal δ; gdp_delta never 0; single-step RR / pure-DP queries rounded outward."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from click.testing import CliRunner
from pld_mix import mix_accountant
from pld_reference import MixReference

from accountants.gdp import gdp_delta, gdp_log_delta
from accountants.pld import GaussianEvent, PLDAccountant, PureDPEvent, RandomizedResponseEvent
from privcheck.cli.app import main


@pytest.mark.parametrize("sigma", [0.1, 1e-3])
def test_gdp_of_a_lone_gaussian_is_exact(sigma):
    # was μ ∈ [0, 1e−14] for σ = 0.1 (α ≥ 1e−5 leaves no α with β ≥ 1e−5) and [0, ∞] for σ = 1e−3
    g = PLDAccountant().compose(GaussianEvent(sigma)).gdp(alpha_min=1e-5)
    assert g.mu.lower <= 1 / sigma <= g.mu.upper and g.mu.upper - g.mu.lower <= 1e-10 / sigma
    assert g.mu.method == "exact GDP" and not g.vacuous
    two = PLDAccountant().compose(GaussianEvent(2.0), 3).compose(GaussianEvent(1.0)).gdp(alpha_min=1e-5)
    assert two.mu.lower <= math.sqrt(3 / 4 + 1) <= two.mu.upper


def test_vacuous_gdp_range_is_said_so():
    g = PLDAccountant().compose(RandomizedResponseEvent(20.0)).gdp(alpha_min=1e-5)
    assert g.vacuous.startswith("vacuous:") and g.mu.upper == 0.0
    assert any("vacuous" in n for n in g.mu.notes)
    assert not PLDAccountant().compose(RandomizedResponseEvent(1.0)).gdp(alpha_min=1e-5).vacuous
    out = CliRunner().invoke(main, ["budget", "pld", "--event", "rr:eps=20", "--gdp", "--alpha-min", "1e-5"])
    assert out.exit_code == 0 and "VACUOUS" in out.output


def test_gdp_delta_never_reads_zero():
    d = gdp_delta(1.0, 2000.0)
    assert d == 5e-324 and gdp_log_delta(1.0, 2000.0) < -1e6  # a positive upper bound, the log is finite
    iv = PLDAccountant().compose(GaussianEvent(1.0)).delta(2000.0)
    assert iv.lower == 0.0 and iv.upper > 0.0


def test_single_step_rr_and_pure_rounded_outward():
    # RR with ε = 1e−6 at x = 0.99ε: the loss log p − log q cancels against x (was off by 2e−9 relatively)
    rng = np.random.default_rng(11)
    with mpmath.workdps(50):
        for _ in range(40):
            e0 = float(10 ** rng.uniform(-6.5, -4))
            k = int(rng.choice([2, 3, 10]))
            ev = RandomizedResponseEvent(e0, k) if rng.random() < 0.6 else PureDPEvent(e0)
            kk = k if isinstance(ev, RandomizedResponseEvent) else 2
            E = mpmath.mpf(e0)
            z = mpmath.exp(E) + kk - 1
            p, q = [mpmath.exp(E) / z, 1 / z], [1 / z, mpmath.exp(E) / z]
            acc = PLDAccountant().compose(ev)
            for eps in (0.99 * e0, 0.5 * e0, float(rng.uniform(0, e0))):
                exact = sum(max(a - mpmath.exp(eps) * b, 0) for a, b in zip(p, q))
                iv = acc.delta(eps)
                assert iv.lower <= exact <= iv.upper, (ev, eps, iv, exact)


@pytest.fixture(scope="module")
def mix():
    """2 × N(σ=1) + 3 × Laplace(0.5), its accountant and a rigorous reference (mpmath, 64 bins: the
    old answers below are outside it by 5 % and 0.15)."""
    return MixReference(gauss=[1, 1], laplace=[0.5] * 3, bins=64), mix_accountant([1, 1], [0.5] * 3)


def test_gauss_laplace_mix_at_the_bottom_of_the_float_range(mix):
    """The PLD route answers (was RDP, 0.15 wide, at 1e−250 and 1e−280) and the interval holds against
    rigorous brackets (conditioning on the Laplace losses, tests/pld_reference.py)."""
    ref, acc = mix
    for u in (250, 280, 300, 310):
        delta = 10.0**-u
        iv = acc.epsilon(delta)
        ok, why = ref.eps_interval_ok(iv.lower, iv.upper, delta)
        assert ok, (u, why)
        assert iv.method == "pld-fft" and iv.upper - iv.lower < 1e-4, (u, iv)


def test_subnormal_delta_never_certifies_wrong(mix):
    """Below 2.2e−308 a double has few significant bits: was [56.420675921, 56.420675921] at 1e−320,
    below the exact ε (the rigorous δ there is 1.048e−320 > 1e−320), and δ(ε) ∈ [1e−320, 1.001e−320]
    where it is 1.05e−320."""
    ref, acc = mix
    for u in (318, 320, 323):
        delta = 10.0**-u
        iv = acc.epsilon(delta)
        ok, why = ref.eps_interval_ok(iv.lower, iv.upper, delta)
        assert ok, (u, why)
        e = 0.5 * (iv.lower + iv.upper)
        d = acc.delta(e)
        assert d.lower <= ref.delta(e, True) and d.upper >= ref.delta(e, False), (u, d)
        assert d.upper > 0.0
