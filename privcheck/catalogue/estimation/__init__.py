"""Estimator checks of the built-in catalogue: bias, variance, scaling, one module per paper.

Every Monte Carlo check here goes through :mod:`privcheck.estimator_check`:
claimed / exact / simulated side by side, Bonferroni-corrected refutation
tests, TOST for "unbiased" (margin 5 % of the estimator's standard deviation,
see :func:`privcheck.estimator_check.sd_tolerance`), Bonett intervals for
variances (margin 10 % for "the variance equals the formula").
"""

from privcheck.catalogue.estimation import (
    biswas,  # noqa: F401
    fedsel,  # noqa: F401
    seif,  # noqa: F401
    spriFed,  # noqa: F401
    spriFed_omp,  # noqa: F401
    sqsgd,  # noqa: F401
)
from privcheck.catalogue.estimation.biswas import figure3_curves  # noqa: F401
