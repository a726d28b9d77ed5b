"""Noise calibrators checked against the exact privacy curve of their mechanism (``privcheck.audit_calibrator``).

A library turns (ε, δ, Δ) into a noise scale; the formula it uses is often valid only in part of the range
users pass (the classic Gaussian calibration σ = Δ√(2 ln(1.25/δ))/ε is proved for ε < 1 only, Dwork & Roth
2014, Thm A.1) or is solved numerically to a loose tolerance. :func:`audit_calibrator` evaluates the scale
it returns on a grid of (ε, δ) against the exact curve, with certified intervals.

Modules: :mod:`.curves` (exact curves as intervals, their inversions, :func:`implied_mu`), :mod:`.grid`
(default grid, tolerance), :mod:`.audit` (calling the calibrator, one point), :mod:`.verdict` (summary),
:mod:`.result` (result types).
"""

from __future__ import annotations

from privcheck.calibration.audit import audit_calibrator
from privcheck.calibration.curves import MECHANISMS, implied_mu
from privcheck.calibration.grid import DELTA_GRID, EPS_GRID
from privcheck.calibration.result import CalibratorPoint, CalibratorResult

__all__ = [
    "audit_calibrator",
    "CalibratorResult",
    "CalibratorPoint",
    "MECHANISMS",
    "EPS_GRID",
    "DELTA_GRID",
    "implied_mu",
]
