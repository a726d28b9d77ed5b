"""DP-SGD (Abadi et al. 2016) in numpy, with canaries.

Each step: every training example joins the batch independently with probability q (Poisson
sampling); each per-example gradient is clipped to L2 norm C; the server releases
y_t = Σ clipped gradients + N(0, (σC)² I) and steps θ ← θ − lr·y_t/(q·n) (the expected batch size).

Canaries (m of them, each included in the training set independently with probability ½):
- ``gradient``: a Dirac gradient of norm ``canary_norm`` on a coordinate of its own (an extra
  parameter the loss never uses: the white-box canary of Nasr et al. 2021 / Steinke et al. 2023);
  it joins each batch with probability q like any example. Scores: the log-likelihood ratio of its
  coordinate over all released steps (``all-iterates``) or minus its final parameter (``final``).
- ``input``: a mislabelled point (the planted model's label flipped) with a rare one-hot feature of
  its own; scored by the final model's log-likelihood of its (wrong) label.
"""

from __future__ import annotations

import time

import numpy as np

from estimators.training.config import TrainingConfig, TrainingRun
from estimators.training.data import make_data
from estimators.training.models import make_model
from estimators.training.scoring import llr_all_iterates
from privcheck.base.seeding import generator

__all__ = ["train_dpsgd", "input_canaries"]


def input_canaries(cfg: TrainingConfig, w_true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of the input canaries: fresh points from the data law, labels opposite to the planted model."""
    rng = generator(cfg.extra.get("canary_seed", 7), "input-canaries")
    X = rng.normal(size=(cfg.canaries, cfg.d)) / np.sqrt(cfg.d)
    y = (X @ w_true < 0).astype(float)
    return X, y


def _clip_factors(norm_sq: np.ndarray, C: float) -> np.ndarray:
    return np.minimum(1.0, C / np.sqrt(np.maximum(norm_sq, 1e-300)))


def train_dpsgd(cfg: TrainingConfig, seed: int = 0, progress=None) -> TrainingRun:
    """One DP-SGD run of ``cfg`` with its canaries (see the module docstring)."""
    t0 = time.perf_counter()
    rng = generator(seed, "dp-sgd", cfg.bug)
    X, y, w_true = make_data(cfg.n, cfg.d)
    m = cfg.canaries
    included = rng.random(m) < 0.5
    rare = m if cfg.canary_kind == "input" else 0
    model = make_model(cfg.model, cfg.d, cfg.hidden, rare)
    theta = model.init(rng)
    block = np.zeros(m) if cfg.canary_kind == "gradient" else None
    if cfg.canary_kind == "input":
        Xc, yc = input_canaries(cfg, w_true)
        in_idx = np.flatnonzero(included)
        X_all = np.vstack([X, Xc[in_idx]])
        y_all = np.concatenate([y, yc[in_idx]])
        r_all = np.concatenate([np.full(cfg.n, -1), in_idx])
    else:
        X_all, y_all, r_all = X, y, np.full(cfg.n, -1)
    scale = cfg.lr / (cfg.q * cfg.n)
    q = cfg.q_actual
    z_steps = np.zeros((cfg.steps, m)) if (block is not None and cfg.view == "all-iterates") else None
    for t in range(cfg.steps):
        batch = np.flatnonzero(rng.random(len(X_all)) < q)
        total = np.zeros(model.total)
        if batch.size:
            dense, rare_g = model.per_example(theta, X_all[batch], y_all[batch], r_all[batch])
            rb = r_all[batch]
            norm_sq = np.sum(dense * dense, axis=1)
            if cfg.bug != "clip-escape":  # the bug: the rare parameter group is left out of the norm
                norm_sq = norm_sq + (rb >= 0) * np.sum(rare_g * rare_g, axis=1)
            f = _clip_factors(norm_sq, cfg.C)
            total[: model.size] = f @ dense
            if rare:
                has = rb >= 0
                np.add.at(total[model.size :].reshape(rare, model.width), rb[has], f[has, None] * rare_g[has])
        std = cfg.noise_std(t)
        noise = rng.normal(scale=std, size=model.total) if std > 0 else 0.0
        theta = theta - scale * (total + noise)
        if block is not None:
            sampled = included & (rng.random(m) < q)
            clipped = cfg.canary_norm if cfg.bug == "clip-escape" else min(cfg.canary_norm, cfg.C)
            released = sampled * clipped + (rng.normal(scale=std, size=m) if std > 0 else 0.0)
            block -= scale * released
            if z_steps is not None:
                z_steps[t] = released / cfg.C
        if progress is not None:
            progress(t + 1, cfg.steps)
    if cfg.canary_kind == "input":
        scores = model.loglik(theta, Xc, yc, np.arange(m))
        name = "final model: log-likelihood of the canary's (flipped) label"
    elif z_steps is not None:
        scores = llr_all_iterates(z_steps, cfg.q, cfg.sigma)
        name = "all iterates: log-likelihood ratio of the canary's coordinate (each step's noise estimated from the canary block)"
    else:
        scores = -block
        name = "final model: minus the canary's parameter"
    acc = model.accuracy(theta, X, y)
    return TrainingRun(cfg, included, scores, name, acc, time.perf_counter() - t0)
