"""Exact privacy of Flower's DP code as written (the code's own σ and the sensitivity its clipping allows).

Flower's noise is Gaussian, so each audited release is a Gaussian mechanism whose μ = sensitivity / σ is a
closed form of the code's parameters; ε at δ is then the exact Gaussian curve (Balle & Wang 2018), taken
from the certified :func:`accountants.gdp.gdp_eps` (rounded up). These are the *code's* values (its σ formula,
its aggregation weights), labelled "true" in the scorecard.
"""

from __future__ import annotations

import math

from accountants.gdp import gdp_eps
from privcheck.catalogue.zoo.flwr_adapters import TINY


def classic_sigma(sensitivity: float, eps: float, delta: float) -> float:
    """σ = Δ√(2 ln(1.25/δ))/ε, the calibration LocalDpMod uses (Dwork & Roth Thm A.1: proved for ε < 1 only)."""
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps


def localdp_mu(clipping_norm: float, sensitivity: float, eps: float, delta: float) -> float:
    """μ of LocalDpMod on the audited pair of clients, updates +10C e1 and −10C e1, both clipped to norm C:
    distance 2C over the code's σ (local DP: any two clients are neighbours)."""
    return 2 * clipping_norm / classic_sigma(sensitivity, eps, delta)


def localdp_eps(clipping_norm: float, sensitivity: float, eps: float, delta: float) -> float:
    """ε at δ of LocalDpMod's release on that pair: the exact Gaussian curve at :func:`localdp_mu` (certified,
    rounded up)."""
    return gdp_eps(localdp_mu(clipping_norm, sensitivity, eps, delta), delta)


def fedavg_mu(noise_multiplier: float, n_target: int, others: tuple, sampled: int) -> float:
    """μ of one DP-FedAvg round (fixed clipping at C) on the audited pair: the target's clipped update (C e1)
    against a tiny one, aggregated by FedAvg's num_examples-weighted mean, noise σ = zC/sampled:
    μ = (n_target / Σ n) (1 − 1e−6) · sampled / z. Equal weights and no dropout give 1/z (up to 1e−6)."""
    total = n_target + sum(others)
    return (n_target / total) * (1 - TINY) * sampled / noise_multiplier
