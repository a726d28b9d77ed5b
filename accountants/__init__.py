"""Privacy accountants and budget planners (GDP, composition, amplification, wireless bounds).

Modules: :mod:`accountants.gdp` (μ-GDP conversion, composition, inversion, Gaussian calibration),
:mod:`accountants.composition` (basic, DRV, KOV closed form and exact optimum),
:mod:`accountants.amplification` (Poisson subsampling; subsampled Gaussian: PLD interval, RDP cross-check),
:mod:`accountants.wireless` (paper 004's bounds), :mod:`accountants.spriFed` (paper 002's planner),
:mod:`accountants.planners` (inverse questions, on the certified PLD path),
:mod:`accountants.pld` (privacy-loss-distribution accountant with certified [lower, upper] intervals:
events, discretise, compose, accountant).
"""
