"""Privacy accountants and budget planners (GDP, composition, amplification, wireless bounds).

Modules: :mod:`accountants.gdp` (μ-GDP conversion, composition, inversion, Gaussian calibration),
:mod:`accountants.composition` (basic, DRV, KOV closed form and exact optimum),
:mod:`accountants.amplification` (Poisson subsampling; subsampled Gaussian via autodp RDP),
:mod:`accountants.wireless` (paper 004's bounds), :mod:`accountants.spriFed` (paper 002's planner),
:mod:`accountants.planners` (inverse questions), :mod:`accountants.pld` (numerical PLD composition).
"""
