"""Synthetic binary classification data: Gaussian features, labels from a planted logistic model."""

from __future__ import annotations

import numpy as np

__all__ = ["make_data", "DATA_SEED"]

#: the data are part of the run's definition, not of its randomness: a fixed seed
DATA_SEED = 20261


def make_data(n: int, d: int, seed: int = DATA_SEED) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X (n, d) standard normal features scaled by 1/√d, y in {0, 1}, the planted weights w)."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d) * 3.0
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    y = (rng.random(n) < p).astype(float)
    return X, y, w
