"""DP-SGD / DP-FedAvg references (estimators/dp_sgd.py) and their audits against their accountants."""

from __future__ import annotations

import math

import numpy as np
import pytest

import privcheck
from privcheck.base.errors import PrivcheckUsageError

N = 60_000


def test_transcript_shape_and_canary_mean():
    """q = 1, T = 1: the transcript is C·e1 + N(0, (σC)²) with the canary, N(0, (σC)²) without."""
    m = privcheck.mechanism("dp-sgd", q=1.0, sigma=0.5, C=2.0, T=1, d=3)
    rng = np.random.default_rng(0)
    y1, y0 = m.sample(1, 40_000, rng), m.sample(0, 40_000, rng)
    assert y1.shape == (40_000, 3)
    assert np.allclose(y1.mean(axis=0), [2.0, 0, 0], atol=0.03) and np.allclose(y0.mean(axis=0), 0, atol=0.03)
    assert y1.std(axis=0) == pytest.approx([1.0] * 3, rel=0.03)  # σC = 1
    broken = privcheck.mechanism("dp-sgd", q=1.0, sigma=0.5, C=2.0, T=1, d=3, bug="noise-ignores-clip")
    assert broken.sample(0, 40_000, rng).std(axis=0) == pytest.approx([0.5] * 3, rel=0.03)


def test_poisson_sampling_rate_and_fedavg_update():
    m = privcheck.mechanism("dp-fedavg", q=0.3, sigma=1e-6, C=1.0, T=1, d=2)
    y = m.sample(1, 20_000, np.random.default_rng(1))
    joined = np.abs(y[:, 0] - 1.0) < 1e-3  # the canary client's clipped update is C·e1
    assert joined.mean() == pytest.approx(0.3, abs=0.015)
    assert np.all(joined | (np.abs(y[:, 0]) < 1e-3))
    other = privcheck.mechanism("dp-sgd", q=0.5, sigma=1.0, T=4, d=2, N=5)
    assert other.llr is None and other.sample(0, 10, np.random.default_rng(0)).shape == (10, 8)


def test_llr_is_the_exact_gaussian_log_ratio_for_q_one():
    m = privcheck.mechanism("dp-sgd", q=1.0, sigma=1.0, C=2.0, T=1, d=2)
    X = np.random.default_rng(2).standard_normal((5, 2)) * 2
    g = np.array([2.0, 0.0])
    expect = (X @ g - g @ g / 2) / 4.0
    assert np.allclose(m.llr(X, 0, 1), expect) and np.allclose(m.llr(X, 1, 0), -expect)


def test_llr_of_a_subsampled_step_against_the_mixture_density():
    m = privcheck.mechanism("dp-sgd", q=0.3, sigma=1.5, C=1.0, T=1, d=1)
    x = np.linspace(-3, 3, 7)[:, None]
    s = 1.5
    p0 = np.exp(-(x[:, 0] ** 2) / (2 * s * s))
    p1 = 0.7 * p0 + 0.3 * np.exp(-((x[:, 0] - 1) ** 2) / (2 * s * s))
    assert np.allclose(m.llr(x, 0, 1), np.log(p1 / p0))


def test_accountant_is_the_subsampled_gaussian_composition():
    acc = privcheck.mechanism("dp-sgd", q=0.01, sigma=1.1, T=100).accountant()
    ((ev, count),) = acc.events
    assert count == 100 and ev.q == 0.01 and ev.event.sigma == 1.1
    assert privcheck.mechanism("dp-sgd", q=1.0, sigma=2.0).accountant().events[0][0].gdp_mu() == 0.5


@pytest.mark.parametrize(
    "bad", [{"q": 0}, {"q": 1.5}, {"sigma": -1}, {"C": 0}, {"T": 0}, {"d": 0}, {"bug": "other"}, {"N": -1}]
)
def test_bad_parameters(bad):
    with pytest.raises((PrivcheckUsageError, ValueError)):
        privcheck.mechanism("dp-sgd", **bad)
    with pytest.raises(PrivcheckUsageError, match="0 .*or 1"):
        privcheck.mechanism("dp-sgd").sample(2, 5, np.random.default_rng(0))


# ------------------------------------------------------------------ acceptance: audits against the accountant
@pytest.mark.parametrize("seed", [0, 1])
def test_correct_dp_sgd_holds_and_noise_ignoring_clip_is_refuted_exact_gdp(seed):
    """q = 1 (a Gaussian composition, exact GDP curve): correct holds, σ instead of σC refuted."""
    kw = dict(q=1.0, sigma=1.0, C=3.0, T=3, d=2)
    ok = privcheck.audit(privcheck.mechanism("dp-sgd", **kw), samples=N, seed=seed)
    assert ok.verdict == "holds" and ok.accountant and ok.mu_lower <= math.sqrt(3) + 1e-9
    bad = privcheck.audit(privcheck.mechanism("dp-sgd", bug="noise-ignores-clip", **kw), samples=N, seed=seed)
    assert bad.verdict == "refuted"


def test_subsampled_dp_sgd_and_fedavg_against_their_pld_accountant():
    """Same accountant for all three (queried once); N = 4 other clients: no LLR, the projection score is used."""
    kw = dict(q=0.5, sigma=1.0, C=3.0, T=2, d=2)
    for name, extra in (("dp-sgd", {}), ("dp-fedavg", {}), ("dp-fedavg", {"N": 4})):
        ok = privcheck.audit(privcheck.mechanism(name, **kw, **extra), samples=N, seed=11)
        assert ok.verdict == "holds", ok.summary()
        bad = privcheck.audit(privcheck.mechanism(name, bug="noise-ignores-clip", **kw, **extra), samples=N, seed=11)
        assert bad.verdict == "refuted", bad.summary()
        assert ("projection" in bad.curve_points[0]["score"]) == ("N" in extra)


def test_cli_audits_dp_sgd_against_its_accountant_by_default():
    from click.testing import CliRunner

    from privcheck.cli import main

    args = ["audit", "dp-sgd", "--param", "q=1", "--param", "sigma=1", "--param", "C=3", "--samples", "20000"]
    r = CliRunner().invoke(main, args + ["--param", "bug=noise-ignores-clip"])
    assert r.exit_code == 1 and "refuted" in r.output and "accountant" in r.output, r.output
    r = CliRunner().invoke(main, args + ["--accountant", "gaussian:sigma=0.2x1"])  # a weaker claim holds
    assert r.exit_code == 0 and "holds" in r.output, r.output
