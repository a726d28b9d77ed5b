"""Logistic regression and a one-hidden-layer (tanh) MLP: logistic loss, per-example gradients.

Every example may carry one "rare" one-hot feature (index ≥ 0; −1 for none) with its own
parameter(s): a weight (logistic regression) or a column of the first layer (MLP). Input-space
canaries use them, so that their effect on the model is not drowned by the other data. Parameters
are one flat vector: the dense part (:attr:`Model.size` values) followed by ``rare × width`` values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Model", "LogReg", "MLP", "make_model"]


class Model:
    """Shared interface: ``size`` dense parameters, ``rare`` rare features of ``width`` parameters each."""

    size: int
    width: int

    def __init__(self, d: int, rare: int):
        self.d, self.rare = d, rare

    @property
    def total(self) -> int:
        """All parameters (dense and rare)."""
        return self.size + self.rare * self.width

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """Initial parameters (small random dense part, zero rare part)."""
        theta = np.zeros(self.total)
        theta[: self.size] = rng.normal(scale=0.1, size=self.size)
        return theta

    def forward(self, theta, X, rare_idx):  # pragma: no cover - interface
        raise NotImplementedError

    def per_example(self, theta, X, y, rare_idx) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        """(dense gradients (B, size), rare-parameter gradients (B, width)) of the logistic loss."""
        raise NotImplementedError

    def loglik(self, theta, X, y, rare_idx) -> np.ndarray:
        """Per-example log-likelihood of the labels."""
        logit = self.forward(theta, X, rare_idx)[0]
        return -np.logaddexp(0.0, np.where(y > 0.5, -logit, logit))

    def accuracy(self, theta, X, y) -> float:
        """Share of correct predictions (no rare features)."""
        logit = self.forward(theta, X, np.full(len(X), -1))[0]
        return float(np.mean((logit > 0) == (y > 0.5)))


class LogReg(Model):
    """p(y = 1 | x) = σ(w·x + b + v_rare)."""

    width = 1

    def __init__(self, d: int, rare: int = 0):
        super().__init__(d, rare)
        self.size = d + 1

    def forward(self, theta, X, rare_idx):
        logit = X @ theta[: self.d] + theta[self.d]
        has = rare_idx >= 0
        if self.rare and has.any():
            logit = logit + np.where(has, theta[self.size + np.maximum(rare_idx, 0)], 0.0)
        return (logit,)

    def per_example(self, theta, X, y, rare_idx):
        err = 1.0 / (1.0 + np.exp(-self.forward(theta, X, rare_idx)[0])) - y
        dense = np.concatenate([err[:, None] * X, err[:, None]], axis=1)
        return dense, (err * (rare_idx >= 0))[:, None]


class MLP(Model):
    """p(y = 1 | x) = σ(w2·tanh(W1 x + b1 + W1_rare[:, j]) + b2)."""

    def __init__(self, d: int, hidden: int, rare: int = 0):
        super().__init__(d, rare)
        self.h = hidden
        self.width = hidden
        self.size = hidden * d + 2 * hidden + 1

    def _unpack(self, theta):
        h, d = self.h, self.d
        W1 = theta[: h * d].reshape(h, d)
        b1 = theta[h * d : h * d + h]
        w2 = theta[h * d + h : h * d + 2 * h]
        b2 = theta[h * d + 2 * h]
        return W1, b1, w2, b2

    def forward(self, theta, X, rare_idx):
        W1, b1, w2, b2 = self._unpack(theta)
        a1 = X @ W1.T + b1
        has = rare_idx >= 0
        if self.rare and has.any():
            cols = theta[self.size :].reshape(self.rare, self.h)
            a1 = a1 + np.where(has[:, None], cols[np.maximum(rare_idx, 0)], 0.0)
        z1 = np.tanh(a1)
        return z1 @ w2 + b2, z1

    def per_example(self, theta, X, y, rare_idx):
        _, _, w2, _ = self._unpack(theta)
        logit, z1 = self.forward(theta, X, rare_idx)
        err = 1.0 / (1.0 + np.exp(-logit)) - y
        delta1 = err[:, None] * w2[None, :] * (1.0 - z1 * z1)
        gW1 = (delta1[:, :, None] * X[:, None, :]).reshape(len(X), -1)
        dense = np.concatenate([gW1, delta1, err[:, None] * z1, err[:, None]], axis=1)
        return dense, delta1 * (rare_idx >= 0)[:, None]


def make_model(name: str, d: int, hidden: int, rare: int) -> Model:
    """``"logreg"`` or ``"mlp"``."""
    return MLP(d, hidden, rare) if name == "mlp" else LogReg(d, rare)
