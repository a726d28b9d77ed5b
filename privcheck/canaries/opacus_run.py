"""Opacus adapter: a real privacy-engine training run (PyTorch, CPU) audited with canaries in one run.

Requires the ``privcheck[torch]`` extra (torch and opacus); :func:`opacus_available` says whether
they import. The run mirrors :mod:`estimators.training.dpsgd` inside Opacus' machinery:

- model: logistic regression ``Linear(d, 1)`` plus a canary block ``Linear(m, 1, bias=False)``;
  canary j is an example whose only non-zero input is ``scale`` at position j of the canary block,
  with label 0 and the block's weight started at ``10/scale`` (logit 10), so its per-sample gradient
  is ≈ (σ(logit) − 0)·scale ≫ C on its own weight: clipped by Opacus to norm C — a Dirac canary;
- ``PrivacyEngine.make_private`` with Poisson sampling, per-sample clipping ``max_grad_norm = C``
  and ``noise_multiplier = σ``; plain SGD;
- the auditor records the canary block's weights after every step (all iterates) and recovers each
  step's released noisy sum on canary j's coordinate, z_t = −Δw_j · B / (lr · C) (B: Opacus'
  expected batch size), scored by :func:`estimators.training.scoring.llr_all_iterates`.

The audit (:func:`audit_opacus`) tests Opacus' own sampling rate, noise multiplier and step count
against privcheck's PLD accountant curve (one-run f-DP recursion), and reports Opacus' own ε.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from privcheck.base.errors import PrivcheckUsageError

__all__ = ["opacus_available", "OpacusRun", "opacus_run", "audit_opacus"]


def opacus_available() -> bool:
    """True when torch and opacus import."""
    try:
        import opacus  # noqa: F401
        import torch  # noqa: F401
    except Exception:
        return False
    return True


@dataclass(frozen=True)
class OpacusRun:
    """One Opacus run: inclusion and scores of the canaries, Opacus' parameters and its own ε."""

    included: np.ndarray
    scores: np.ndarray
    sample_rate: float
    sigma: float
    steps: int
    eps_opacus: float
    accuracy: float
    seconds: float


def opacus_run(
    *,
    sigma: float = 1.0,
    C: float = 1.0,
    batch_size: int = 100,
    epochs: int = 5,
    n: int = 1000,
    d: int = 10,
    canaries: int = 500,
    lr: float = 0.5,
    scale: float = 100.0,
    delta: float = 1e-5,
    seed: int = 0,
) -> OpacusRun:
    """Train with Opacus once (see the module docstring) and score the canaries from all iterates."""
    if not opacus_available():
        raise PrivcheckUsageError("the Opacus adapter needs torch and opacus: pip install 'privcheck[torch]'")
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    from estimators.training.data import make_data
    from estimators.training.scoring import llr_all_iterates
    from privcheck.base.seeding import generator

    t0 = time.perf_counter()
    rng = generator(seed, "opacus")
    torch.manual_seed(int(rng.integers(2**31)))
    X, y, _ = make_data(n, d)
    m = canaries
    included = rng.random(m) < 0.5
    idx = np.flatnonzero(included)
    dense = np.vstack([X, np.zeros((idx.size, d))])
    onehot = np.zeros((n + idx.size, m))
    onehot[n + np.arange(idx.size), idx] = scale
    labels = np.concatenate([y, np.zeros(idx.size)])
    data = TensorDataset(
        torch.tensor(dense, dtype=torch.float32),
        torch.tensor(onehot, dtype=torch.float32),
        torch.tensor(labels, dtype=torch.float32),
    )

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.real = torch.nn.Linear(d, 1)
            self.canary = torch.nn.Linear(m, 1, bias=False)
            torch.nn.init.constant_(self.canary.weight, 10.0 / scale)

        def forward(self, x, c):
            return (self.real(x) + self.canary(c)).squeeze(-1)

    model = Model()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loader = DataLoader(data, batch_size=batch_size)
    engine = PrivacyEngine(accountant="rdp")
    model, opt, loader = engine.make_private(
        module=model, optimizer=opt, data_loader=loader, noise_multiplier=sigma, max_grad_norm=C, poisson_sampling=True
    )
    q = float(loader.sample_rate) if hasattr(loader, "sample_rate") else 1.0 / len(loader)
    bexp = float(opt.expected_batch_size)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    weights = [model._module.canary.weight.detach().numpy().ravel().copy()]
    for _ in range(epochs):
        for xb, cb, yb in loader:
            opt.zero_grad()
            if len(yb):
                loss_fn(model(xb, cb), yb).backward()
            opt.step()
            weights.append(model._module.canary.weight.detach().numpy().ravel().copy())
    w = np.asarray(weights, dtype=float)
    z = -np.diff(w, axis=0) * bexp / (lr * C)
    scores = llr_all_iterates(z, q, sigma)
    with torch.no_grad():
        logit = model._module.real(torch.tensor(X, dtype=torch.float32)).squeeze(-1).numpy()
    acc = float(np.mean((logit > 0) == (y > 0.5)))
    return OpacusRun(
        included, scores, q, sigma, int(z.shape[0]), float(engine.get_epsilon(delta)), acc, time.perf_counter() - t0
    )


def audit_opacus(run: OpacusRun, *, delta: float = 1e-5, confidence: float = 0.95, method: str = "one-run-fdp"):
    """The run's canary scores audited against privcheck's PLD curve for Opacus' (q, σ, steps); a ScoreAudit."""
    from privcheck.canaries.audit import audit_scores
    from privcheck.canaries.training import claimed_curve

    _, curve = claimed_curve(run.sample_rate, run.sigma, run.steps, delta)
    return audit_scores(
        run.scores[run.included],
        run.scores[~run.included],
        method=method,
        delta=delta,
        accountant=curve,
        confidence=confidence,
    )
