"""DP-FedAvg (McMahan, Ramage, Talwar & Zhang 2018) in numpy, with canary clients.

Each round: every client joins independently with probability q; a joining client runs
``local_steps`` full-batch gradient steps (rate ``local_lr``) on its own examples from the global
model and sends its update Δ, clipped to L2 norm C; the server releases
y_t = Σ clipped updates + N(0, (σC)² I) and sets θ ← θ + lr·y_t/(q·K) (K real clients).

Canary clients (m, each present in the population with probability ½) send a Dirac update of norm
``canary_norm`` on a coordinate of their own (Andrew et al. 2024 use random directions; a coordinate
of its own is the strongest). Scores as in DP-SGD: all-iterates log-likelihood ratio, or the
final parameter.
"""

from __future__ import annotations

import time

import numpy as np

from estimators.training.config import TrainingConfig, TrainingRun
from estimators.training.data import make_data
from estimators.training.models import make_model
from estimators.training.scoring import llr_all_iterates
from privcheck.base.seeding import generator

__all__ = ["train_fedavg"]


def _local_update(model, theta, X, y, steps: int, lr: float) -> np.ndarray:
    none = np.full(len(X), -1)
    local = theta.copy()
    for _ in range(steps):
        dense, _ = model.per_example(local, X, y, none)
        local[: model.size] -= lr * dense.mean(axis=0)
    return local - theta


def train_fedavg(cfg: TrainingConfig, seed: int = 0, progress=None) -> TrainingRun:
    """One DP-FedAvg run of ``cfg`` with canary clients (see the module docstring)."""
    t0 = time.perf_counter()
    rng = generator(seed, "dp-fedavg", cfg.bug)
    X, y, _ = make_data(cfg.n, cfg.d)
    shards = np.array_split(np.arange(cfg.n), cfg.clients)
    m = cfg.canaries
    included = rng.random(m) < 0.5
    model = make_model(cfg.model, cfg.d, cfg.hidden, 0)
    theta = model.init(rng)
    block = np.zeros(m)
    scale = cfg.lr / (cfg.q * cfg.clients)
    q = cfg.q_actual
    z_steps = np.zeros((cfg.steps, m)) if cfg.view == "all-iterates" else None
    for t in range(cfg.steps):
        total = np.zeros(model.size)
        for k in np.flatnonzero(rng.random(cfg.clients) < q):
            idx = shards[k]
            if idx.size == 0:
                continue
            upd = _local_update(model, theta, X[idx], y[idx], cfg.local_steps, cfg.local_lr)
            total += upd * min(1.0, cfg.C / max(float(np.linalg.norm(upd)), 1e-300))
        std = cfg.noise_std(t)
        if std > 0:
            total += rng.normal(scale=std, size=model.size)
        theta = theta + scale * total
        sampled = included & (rng.random(m) < q)
        clipped = cfg.canary_norm if cfg.bug == "clip-escape" else min(cfg.canary_norm, cfg.C)
        released = sampled * clipped + (rng.normal(scale=std, size=m) if std > 0 else 0.0)
        block += scale * released
        if z_steps is not None:
            z_steps[t] = released / cfg.C
        if progress is not None:
            progress(t + 1, cfg.steps)
    if z_steps is not None:
        scores = llr_all_iterates(z_steps, cfg.q, cfg.sigma)
        name = "all iterates: log-likelihood ratio of the canary client's coordinate (each step's noise estimated from the canary block)"
    else:
        scores = block.copy()
        name = "final model: the canary client's coordinate"
    return TrainingRun(cfg, included, scores, name, model.accuracy(theta, X, y), time.perf_counter() - t0)
