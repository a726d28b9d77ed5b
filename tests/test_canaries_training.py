"""The numpy DP-SGD / DP-FedAvg trainers with canaries, and their one-run audits (q = 1: instant accountants)."""

from __future__ import annotations

import numpy as np
import pytest

from estimators.training import TrainingConfig, run
from estimators.training.accounting import accountant
from estimators.training.models import MLP, LogReg
from estimators.training.scoring import llr_all_iterates
from privcheck.base.errors import PrivcheckUsageError
from privcheck.canaries.training import audit_training

FAST = dict(q=1.0, sigma=4.0, steps=16, n=200, canaries=600)  # μ = √16/4 = 1 per canary, exact GDP accountant


@pytest.mark.parametrize("model", [LogReg(5, rare=3), MLP(5, 4, rare=3)])
def test_per_example_gradients_match_finite_differences(model):
    rng = np.random.default_rng(0)
    theta = rng.normal(size=model.total)
    X, y, r = rng.normal(size=(4, 5)), np.array([0.0, 1.0, 1.0, 0.0]), np.array([-1, 0, 2, 1])
    dense, rare = model.per_example(theta, X, y, r)
    for i in range(4):
        loss = lambda th: -model.loglik(th, X[i : i + 1], y[i : i + 1], r[i : i + 1])[0]  # noqa: E731
        num = np.zeros(model.total)
        for k in range(model.total):
            e = np.zeros(model.total)
            e[k] = 1e-6
            num[k] = (loss(theta + e) - loss(theta - e)) / 2e-6
        assert np.allclose(dense[i], num[: model.size], atol=1e-6)
        if r[i] >= 0:
            cols = num[model.size :].reshape(model.rare, model.width)
            assert np.allclose(rare[i], cols[r[i]], atol=1e-6)


def test_gradient_canaries_release_what_the_accountant_assumes():
    """Final view, q = 1: an included canary's coordinate is −lr/n·(T·C + N(0, T(σC)²)), an excluded one's has no drift."""
    cfg = TrainingConfig(view="final", **FAST)
    res = run(cfg, seed=3)
    scale = cfg.lr / (cfg.q * cfg.n)
    z_in, z_out = res.scores_in / scale, res.scores_out / scale
    sd = np.sqrt(cfg.steps) * cfg.sigma * cfg.C
    assert abs(z_in.mean() - cfg.steps * cfg.C) < 5 * sd / np.sqrt(z_in.size)
    assert abs(z_out.mean()) < 5 * sd / np.sqrt(z_out.size)
    assert 0.85 < z_out.std() / sd < 1.15


def test_runs_are_reproducible_and_bugs_change_the_run():
    cfg = TrainingConfig(**FAST)
    a, b = run(cfg, seed=5), run(cfg, seed=5)
    assert np.array_equal(a.scores, b.scores) and np.array_equal(a.included, b.included)
    assert cfg.with_(bug="sampling-rate", q=0.1).q_actual == pytest.approx(0.4)
    per_epoch = cfg.with_(bug="noise-per-epoch", q=0.25)
    assert [per_epoch.noise_std(t) > 0 for t in range(5)] == [True, False, False, False, True]
    assert cfg.with_(bug="noise-ignores-clip", C=4.0).noise_std(0) == cfg.sigma


def test_llr_score_uses_each_steps_own_noise_level():
    rng = np.random.default_rng(0)
    z = np.vstack([rng.normal(scale=1.0, size=(5, 400)), (rng.random((5, 400)) < 0.3).astype(float)])
    s = llr_all_iterates(z, 0.5, 1.0)  # the noiseless steps (exact 0/1) dominate: scores track their sum
    assert np.corrcoef(s, z[5:].sum(axis=0))[0, 1] > 0.95


@pytest.mark.parametrize("algorithm", ["dp-sgd", "dp-fedavg"])
def test_correct_runs_are_not_refuted_and_broken_ones_are(algorithm):
    base = TrainingConfig(algorithm=algorithm, clients=20, **FAST)
    ok = audit_training(base, seed=1)
    assert ok.verdict in ("holds", "inconclusive") and 0 <= ok.eps_lower <= ok.eps_claimed
    assert ok.eps_claimed == pytest.approx(float(accountant(1.0, 4.0, 16).epsilon(1e-5).upper))
    for bug in (
        {"bug": "noise-ignores-clip", "C": 4.0, "canary_norm": 16.0},
        {"bug": "clip-escape", "canary_norm": 4.0},
    ):
        broken = audit_training(base.with_(**bug), seed=1)
        assert broken.verdict == "refuted", (bug, broken.eps_lower, broken.reason)


def test_input_canaries_and_mlp_run():
    res = run(TrainingConfig(canary_kind="input", view="final", model="mlp", hidden=4, **FAST), seed=2)
    assert res.scores.shape == (600,) and np.all(np.isfinite(res.scores))
    assert 0.5 < res.accuracy <= 1.0


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(algorithm="dp-adam"), "algorithm"),
        (dict(q=0.0), "q"),
        (dict(sigma=-1.0), "sigma"),
        (dict(canary_kind="input"), "view must be 'final'"),
        (dict(algorithm="dp-fedavg", canary_kind="input", view="final"), "canary clients"),
        (dict(steps=100_000, canaries=1_000_000), "at most 5e8"),
    ],
)
def test_bad_configs_are_one_line(kwargs, match):
    with pytest.raises(PrivcheckUsageError, match=match):
        TrainingConfig(**kwargs)
