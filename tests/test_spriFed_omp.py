"""SPriFed-OMP end to end (002 Alg. 1–5): inputs, reproducibility, NOISY-SMPC, accounting, limits, privacy audit."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from accountants.gdp import gdp_eps
from accountants.spriFed import spriFed_budget
from estimators import noisysmpc as ns
from estimators.spriFed_omp import Ledger, NoisySMPCCall, omp_trace, spriFed_omp, spriFed_omp_grad, synthetic
from estimators.spriFed_omp.baselines import dp_gcd, dp_sgd_l1
from estimators.spriFed_omp.mechanisms import PrivateOLS, validate_run
from privcheck.base.errors import PrivcheckUsageError


def _ds(n=120, d=40, s=3, seed=0, sigma_e=0.1):
    return synthetic(n, d, s, sigma_e, np.random.default_rng(seed))


@pytest.mark.parametrize(
    "args, message",
    [
        ((10, 5, 6, 1.0, 1.0, 1.0, 1.0), "s must be at most d"),
        ((0, 5, 2, 1.0, 1.0, 1.0, 1.0), "n (clients) must be"),
        ((10, 5, 2, 0.0, 1.0, 1.0, 1.0), "mu1 must be"),
        ((10, 5, 2, 1.0, -1.0, 1.0, 1.0), "mu2 must be"),
        ((10, 5, 2, 1.0, 1.0, 0.0, 1.0), "c_x (clipping bound)"),
        ((10, 5, 2, 1.0, 1.0, 1.0, -2.0), "c_y (clipping bound)"),
        ((10, 5, 2, float("nan"), 1.0, 1.0, 1.0), "mu1 must be"),
    ],
)
def test_bad_input_is_one_line_value_error(args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) as e:
        validate_run(*args)
    assert isinstance(e.value, PrivcheckUsageError) and "\n" not in str(e.value)


def test_algorithms_validate_their_inputs():
    ds = _ds()
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="s must be at most d"):
        spriFed_omp(ds.X, ds.y, 41, 1.0, 1.0, ds.c_x, ds.c_y, rng)
    with pytest.raises(ValueError, match="mu2"):
        spriFed_omp_grad(ds.X, ds.y, 3, 1.0, 0.0, ds.c_x, ds.c_y, rng)
    with pytest.raises(ValueError, match="grad_clip"):
        spriFed_omp_grad(ds.X, ds.y, 3, 1.0, 1.0, ds.c_x, ds.c_y, rng, grad_clip=-1.0)
    with pytest.raises(ValueError, match="X must be n×d"):
        spriFed_omp(ds.X, ds.y[:-1], 3, 1.0, 1.0, ds.c_x, ds.c_y, rng)


@pytest.mark.parametrize(
    "args", [["--d", "10", "-s", "20"], ["--n", "0"], ["--mu1", "0"], ["--clip-x", "-1"], ["--clip-y", "0"]]
)
def test_cli_bad_input_exits_2_with_one_line(args):
    from click.testing import CliRunner

    from privcheck.cli import main

    res = CliRunner().invoke(main, ["omp", *args])
    assert res.exit_code == 2
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output


def test_cli_run_reports_theorem6_total():
    import json

    from click.testing import CliRunner

    from privcheck.cli import main

    res = CliRunner().invoke(main, ["omp", "--n", "100", "--d", "60", "-s", "3", "--algorithm", "grad", "--json", "-"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output[res.output.index("{") :])
    assert (out["n1"], out["n2"]) == (3, 3)
    assert out["mu_total"] == pytest.approx(out["theorem6_mu_total"], rel=1e-12)


@pytest.mark.parametrize("fn", [spriFed_omp, spriFed_omp_grad])
def test_one_seed_reproduces_a_run(fn):
    ds = _ds()
    a = fn(ds.X, ds.y, 3, 2.0, 1.0, ds.c_x, ds.c_y, np.random.default_rng(7))
    b = fn(ds.X, ds.y, 3, 2.0, 1.0, ds.c_x, ds.c_y, np.random.default_rng(7))
    c = fn(ds.X, ds.y, 3, 2.0, 1.0, ds.c_x, ds.c_y, np.random.default_rng(8))
    assert a.support == b.support and np.array_equal(a.beta, b.beta)
    assert not np.array_equal(a.beta, c.beta)


def test_noisysmpc_shares_sum_to_the_stated_variance_exactly():
    # rational arithmetic: n shares of σ²/n sum to σ² exactly; the broken variant's shares to σ²/2
    for n in (1, 7, 1000):
        assert ns.aggregate_variance_exact(n, Fraction(9, 4)) == Fraction(9, 4)
        assert ns.aggregate_variance_exact(n, Fraction(9, 4) * Fraction(1, 2)) == Fraction(9, 8)


@pytest.mark.parametrize("factor", [1.0, 0.5])
def test_noisysmpc_client_shares_and_direct_sum_agree_in_distribution(factor):
    rng = np.random.default_rng(3)
    n, k, sens, mu = 20, 2, 2.0, 1.0  # σ = 2
    v = rng.uniform(-1, 1, (n, k))
    draws = {}
    for mode in ("clients", "aggregate"):
        call = NoisySMPCCall(np.random.default_rng(11), Ledger(), mode, factor)
        draws[mode] = np.array([call("x", v.sum(0), sens, mu, n, v) for _ in range(4000)])[:, 0] - v[:, 0].sum()
    sigma2 = (sens / mu) ** 2 * factor
    for x in draws.values():
        lo = (len(x) - 1) * x.var(ddof=1) / stats.chi2.ppf(0.9995, len(x) - 1)
        hi = (len(x) - 1) * x.var(ddof=1) / stats.chi2.ppf(0.0005, len(x) - 1)
        assert lo <= sigma2 <= hi
    assert stats.ks_2samp(draws["clients"], draws["aggregate"]).pvalue > 1e-3
    if factor == 0.5:  # the broken variant's variance is visibly not the stated σ² = 4
        x = draws["clients"]
        assert (len(x) - 1) * x.var(ddof=1) / stats.chi2.ppf(0.0005, len(x) - 1) < 4.0


@pytest.mark.parametrize("s", [1, 3, 5])
def test_ledger_matches_theorem6_counts(s):
    ds = _ds(d=30, s=min(s, 3))
    rng = np.random.default_rng(0)
    for fn, variant in ((spriFed_omp, "omp"), (spriFed_omp_grad, "grad")):
        r = fn(ds.X, ds.y, s, 3.0, 0.7, ds.c_x, ds.c_y, rng)
        b = spriFed_budget(s, 3.0, 0.7, variant)
        assert r.ledger.counts() == (b.n1, b.n2)
        assert r.ledger.mu_total == pytest.approx(b.mu_total, rel=1e-12)
        assert len(set(r.support)) == s
    r = spriFed_omp(ds.X, ds.y, s, 3.0, 0.7, ds.c_x, ds.c_y, rng, enhancement1=False)
    assert r.ledger.counts() == (s + 1, 0)


def test_total_mu_cross_checked_by_the_pld_accountant():
    from accountants.pld import GaussianEvent, PLDAccountant

    ds = _ds()
    r = spriFed_omp(ds.X, ds.y, 3, 1.2, 0.5, ds.c_x, ds.c_y, np.random.default_rng(0))
    acc = PLDAccountant("replace_one")
    for _, mu, _level in r.ledger.calls:
        acc.compose(GaussianEvent(sigma=1.0 / mu, sensitivity=1.0))
    b = spriFed_budget(3, 1.2, 0.5, delta=1e-5)
    iv = acc.epsilon(1e-5)
    assert iv.lower <= b.eps <= iv.upper * (1 + 1e-9)
    assert gdp_eps(r.ledger.mu_total, 1e-5) == pytest.approx(b.eps, rel=1e-12)


def test_without_noise_the_algorithms_are_omp_and_ols():
    # μ → ∞: SPriFed-OMP and -GRAD choose OMP's support and return the OLS fit on it
    ds = _ds(n=200, d=30, s=3, sigma_e=0.0)
    ref = omp_trace(ds.X, ds.y, 3)
    ols = np.linalg.lstsq(ds.X[:, ref["support"]], ds.y, rcond=None)[0]
    for fn in (spriFed_omp, spriFed_omp_grad):
        r = fn(ds.X, ds.y, 3, 1e12, 1e12, ds.c_x, ds.c_y, np.random.default_rng(0))
        assert r.support == ref["support"]
        np.testing.assert_allclose(r.beta[r.support], ols, rtol=1e-6, atol=1e-8)
    assert sorted(ref["support"]) == sorted(ds.support.tolist())


def test_private_ols_gram_is_symmetric_and_exact_without_noise():
    ds = _ds(d=10)
    call = NoisySMPCCall(np.random.default_rng(0), Ledger(), "clients")
    ols = PrivateOLS(ds.X, ds.y, 3, 1e12, 10.0, 10.0, call)
    for j in (4, 1, 7):
        b = ols.add(j)
    np.testing.assert_allclose(ols.G, ols.G.T)
    np.testing.assert_allclose(ols.G, ds.X[:, [4, 1, 7]].T @ ds.X[:, [4, 1, 7]], rtol=1e-9)
    np.testing.assert_allclose(b, np.linalg.lstsq(ds.X[:, [4, 1, 7]], ds.y, rcond=None)[0], rtol=1e-6)


def test_clipping_bounds_hold_inside_the_algorithm():
    # data far outside the bounds: the released correlation moves by at most Lemma 4's sensitivity
    X = np.full((5, 4), 100.0)
    y = np.full(5, -100.0)
    r = spriFed_omp(X, y, 1, 1e12, 1e12, 1.0, 1.0, np.random.default_rng(0), keep=True)
    np.testing.assert_allclose(r.ledger.releases[0], -5.0, atol=1e-6)


def test_baselines_spend_at_most_the_budget():
    ds = _ds()
    mt = spriFed_budget(3, 2.0, 0.5).mu_total
    rng = np.random.default_rng(0)
    for r in (
        dp_sgd_l1(ds.X, ds.y, 3, 2.0, mt, ds.c_x, ds.c_y, rng),
        dp_gcd(ds.X, ds.y, 3, 2.0, 0.5, mt, ds.c_x, ds.c_y, rng),
    ):
        assert r.ledger.mu_total <= mt * (1 + 1e-12)
        assert len(r.support) == 3 and np.count_nonzero(r.beta) <= 3


def test_fig1_first_gradient_is_the_correlation():
    ds = _ds()
    t = omp_trace(ds.X, ds.y, 3)
    assert t["gradient_norm"][0] == pytest.approx(np.linalg.norm(ds.X.T @ ds.y))
    assert t["correlation_abs"][0] == pytest.approx(np.abs(ds.X.T @ ds.y).max())


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(2, 30),
    d=st.integers(1, 12),
    s=st.integers(1, 12),
    mu1=st.floats(0.1, 10),
    mu2=st.floats(0.1, 10),
    seed=st.integers(0, 2**16),
)
def test_property_ledger_and_support(n, d, s, mu1, mu2, seed):
    s = min(s, d)
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(n, d)), rng.normal(size=n)
    for fn, variant in ((spriFed_omp, "omp"), (spriFed_omp_grad, "grad")):
        r = fn(X, y, s, mu1, mu2, 1.5, 1.5, rng)
        assert len(set(r.support)) == s and all(0 <= j < d for j in r.support)
        assert (
            np.all(np.isfinite(r.beta)) and np.count_nonzero(r.beta[[j for j in range(d) if j not in r.support]]) == 0
        )
        assert r.ledger.mu_total == pytest.approx(spriFed_budget(s, mu1, mu2, variant).mu_total, rel=1e-12)


def test_synthetic_setup_rescaling_gives_unit_variance():
    ds = synthetic(4000, 20, 3, 0.1, np.random.default_rng(1))
    assert abs(ds.X.var() - 1) < 0.02 and abs(ds.y.var() - 1) < 0.08
    assert np.abs(ds.X).max() <= ds.c_x + 1e-12 and np.abs(ds.y).max() <= ds.c_y + 1e-12


def test_privacy_audit_refutes_half_variance_shares_not_the_algorithm():
    from privcheck.catalogue.estimation.spriFed_omp import audit_central

    ok, b = audit_central("omp", 1.0, samples=2500, seed=4)
    bad, _ = audit_central("omp", 0.5, samples=2500, seed=5)
    assert ok.mu_claimed == b.mu_total and ok.verdict != "refuted" and ok.mu_lower <= b.mu_total
    assert bad.verdict == "refuted" and bad.mu_lower > b.mu_total  # half the variance: μ·√2 ≈ 2.34 > 1.80
    assert b.n1 == b.n2 == 1


def test_restricted_isometry_constant_closed_forms():
    from scipy.linalg import hadamard

    from privcheck.catalogue.estimation.spriFed_omp import restricted_isometry_constant, sign_test

    H = hadamard(8).astype(float)  # orthogonal columns of squared norm n: X/√n has RIC 0
    assert restricted_isometry_constant(H, 3) == pytest.approx(0.0, abs=1e-12)
    Hd = H.copy()
    Hd[:, 1] = Hd[:, 0]  # a repeated column: eigenvalues 0 and 2 on that pair, δ2 = 1
    assert restricted_isometry_constant(Hd, 2) == pytest.approx(1.0, abs=1e-12)
    assert sign_test(30, 0, 0.05)["decision"] == "supports"
    assert sign_test(0, 30, 0.05)["decision"] == "contradicts"
    assert sign_test(5, 5, 0.05)["decision"] == "undecided"
    assert sign_test(0, 0, 0.05)["decision"] == "undecided"


def test_curve_figures_are_drawn_from_details(tmp_path):
    from privcheck.claims import VerdictRecord
    from privcheck.reports.plots import curve_figures, write_figures

    fig = {
        "title": "t",
        "x": [100, 200, 400],
        "xlabel": "n",
        "ylabel": "share",
        "statement": "grows with n",
        "series": {
            "omp": {"mean": [0.1, 0.5, 0.9], "interval": [[0, 0.3], [0.3, 0.7], [0.7, 1.0]]},
            "bad": {"mean": [1.0]},
        },
    }
    rec = VerdictRecord(
        "spriFed.omp.recovery",
        "002 x",
        "estimator",
        "mc",
        "holds",
        None,
        None,
        {"figure": fig, "figures": [{"x": "junk"}]},
        0,
        10,
        0.1,
    )
    figs = curve_figures(rec)
    assert len(figs) == 1 and list(figs[0]["series"]) == ["omp"]
    out = write_figures([rec], str(tmp_path))
    assert [f.filename for f in out.figures] == ["spriFed.omp.recovery_mc_curve1.png"]
    assert "grows with n" in out.figures[0].caption and (tmp_path / out.figures[0].filename).stat().st_size > 0


@pytest.mark.parametrize("claim", ["spriFed.omp.enhancement2", "spriFed.omp.theorems"])
def test_catalogue_checks_run_small_and_reproducibly(claim):
    from privcheck.claims import RunContext
    from privcheck.runner import select

    (chk,) = select([claim])
    ctx = lambda: RunContext(seed=3, seed_seq=np.random.SeedSequence(3), quick=True, samples=4)  # noqa: E731
    a, b = chk.fn(ctx()), chk.fn(ctx())
    assert a.verdict in ("holds", "inconclusive", "refuted") and a.samples == 4
    assert a.measured == b.measured and "reconstruction" in a.details


def test_released_noise_inside_the_algorithm_has_the_ledgers_variance():
    # the ledger's μ is only true if each release carries (Δ/μ)² of noise: check the first release
    # (d correlations) and the PRIVATE-OLS release over 600 whole runs, chi-square intervals
    from estimators.spriFed_omp.mechanisms import corr_sensitivity, ols_sensitivity

    X = np.clip(np.random.default_rng(0).normal(size=(12, 3)), -1, 1)
    y = np.clip(X.sum(1), -1, 1)
    rng = np.random.default_rng(1)
    runs = [spriFed_omp(X, y, 1, 1.5, 1.0, 1.0, 1.0, rng, keep=True) for _ in range(600)]
    corr = np.array([r.ledger.releases[0] for r in runs]) - X.T @ y
    ols = np.array([r.ledger.releases[1][0] - X[:, r.support[0]] @ y for r in runs])
    for x, var in (
        (corr.ravel(), (corr_sensitivity(1, 1, 3) / 1.5) ** 2),
        (ols, (ols_sensitivity(1, 1, 1) / 1.0) ** 2),
    ):
        k = len(x)
        s2 = float(np.sum(x**2)) / k  # known mean 0
        assert k * s2 / stats.chi2.ppf(0.9995, k) <= var <= k * s2 / stats.chi2.ppf(0.0005, k)
