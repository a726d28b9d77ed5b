"""Canary scores from what the auditor sees (larger = more likely included).

The all-iterates score of a gradient canary (or canary client) is the log-likelihood ratio of
"included" given its coordinate of every released step, z_t = (released sum)_j / C:

    Σ_t log(1 − q + q·exp((z_t − ½)/s_t²)),

the Neyman–Pearson statistic of the claimed mechanism (each step adds 1 with probability q, plus
N(0, s_t²)) when s_t = σ. The auditor does not trust σ: s_t is each step's noise level estimated
from the released canary block itself (1.4826 × the median absolute deviation of z_t over all
canaries, in and out alike, floored at 1e−3·σ), a function of the released output only — so the
one-run guarantees (guesses depend on the output, not on who is in) still hold, and a run whose
noise is smaller than claimed is scored by what it really released.
"""

from __future__ import annotations

import numpy as np

__all__ = ["llr_all_iterates", "step_noise"]


def step_noise(z: np.ndarray, sigma: float) -> np.ndarray:
    """Per-step robust noise level of z (steps, canaries): 1.4826·MAD, floored at 1e−3·σ."""
    med = np.median(z, axis=1, keepdims=True)
    mad = np.median(np.abs(z - med), axis=1)
    return np.maximum(1.4826 * mad, 1e-3 * sigma)


def llr_all_iterates(z: np.ndarray, q: float, sigma: float) -> np.ndarray:
    """Σ_t log(1 − q + q·exp((z_t − ½)/s_t²)) per canary (z: (steps, canaries); s_t: :func:`step_noise`)."""
    s = step_noise(z, sigma)[:, None]
    with np.errstate(divide="ignore"):
        a = np.log1p(-q) if q < 1.0 else -np.inf
        return np.sum(np.logaddexp(a, np.log(q) + (z - 0.5) / (s * s)), axis=0)
