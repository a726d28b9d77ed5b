"""The default grid of a calibrator audit and its tolerance."""

from __future__ import annotations

#: the default ε grid: 0.01 to 50, dense around 1 (where the classic Gaussian calibration's proof stops)
EPS_GRID = (0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 10.0, 20.0, 50.0)
#: the default δ grid of the (ε, δ) mechanisms: 1e−3 … 1e−12
DELTA_GRID = tuple(10.0**-k for k in range(3, 13))
#: relative tolerance: a point is refuted when its certified true δ exceeds δ·(1 + REL_TOL) (δ = 0 of a pure
#: mechanism: when ε0 exceeds ε·(1 + REL_TOL)), which absorbs the rounding of a scale computed in floats
REL_TOL = 1e-9
