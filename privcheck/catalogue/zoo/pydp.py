"""Google's differential-privacy library through PyDP (``python-dp``): ``zoo.pydp.*``.

Each draw builds a fresh algorithm object (a single-use budget) and runs it on one of two neighbouring
datasets (add/remove relation for ``Count``, bounded replace-one for the bounded aggregations). PyDP's
randomness comes from its C++ core (not numpy): results are valid but not reproducible from the seed.
"""

from __future__ import annotations

import privcheck
from privcheck.catalogue.zoo import calculators
from privcheck.catalogue.zoo import calculators_central as cc
from privcheck.catalogue.zoo.engine import Case, Entry, grid, register

LIB, DIST, MODS = "PyDP", "python-dp", ("pydp",)
ADAPTER = "per_sample(lambda i: Algorithm(epsilon, ...).quick_result(DATASETS[i]))"


class Algo:
    """``i -> pydp.algorithms.laplacian.<name>(**kw).quick_result(datasets[i])``."""

    def __init__(self, name: str, kw: dict, datasets: dict):
        self.name, self.kw, self.datasets = name, kw, datasets
        self.__name__ = f"pydp.{name}"

    def __call__(self, i):
        from pydp.algorithms import laplacian

        return getattr(laplacian, self.name)(**self.kw).quick_result(self.datasets[i])


ADD_REMOVE = {0: [1] * 10, 1: [1] * 11}
REPLACE_ONE = {0: [0.0] * 10, 1: [0.0] * 9 + [1.0]}


_COUNT_LABEL = "documented (Laplace(1/eps) on the count, integer result; real arithmetic)"


def _count_calc(eps: float, datasets: dict) -> float:
    """True ε of ``Count`` on the two datasets: the rounded Laplace law on their sizes."""
    return cc.laplace_rounded(eps, 1.0, [len(datasets[0]), len(datasets[1])])


# Not computed (one line each): BoundedMean (noisy sum / noisy count with a budget split, a ratio law),
# BoundedVariance/BoundedStandardDeviation (three noisy moments), Max/Min/Median/Percentile (a noisy
# quantile tree): the Google documentation does not fix these laws to the level an exact ε needs.


def _entry(mech, name, statement, make_kw, datasets, relation, calc=None, label=""):
    """A PyDP entry; ``calc(eps, datasets)`` is the true-ε calculator of the documented law (None: not computable)."""

    def make(eps):
        kw = make_kw(eps)
        return Case(
            f"eps={eps:g}, {relation}",
            lambda: privcheck.per_sample(Algo(name, kw, datasets), takes_rng=False),
            [0, 1],
            eps,
            pairs=[(0, 1)],
            true_eps=None if calc is None else (lambda: calc(eps, datasets)),
            calculator=label,
        )

    register(
        Entry(f"zoo.pydp.{mech}", LIB, DIST, MODS, f"pydp.algorithms.laplacian.{name}", statement, ADAPTER, grid(make))
    )


_entry(
    "count",
    "Count",
    "Count(epsilon).quick_result is epsilon-DP (add/remove one record)",
    lambda e: dict(epsilon=e, dtype="int"),
    ADD_REMOVE,
    "add/remove one record",
    calc=_count_calc,
    label=_COUNT_LABEL,
)
_entry(
    "bounded_sum",
    "BoundedSum",
    "BoundedSum(epsilon, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
    calc=lambda e, d: calculators.attained(e * abs(sum(d[1]) - sum(d[0]))),
    label="documented (Laplace, sensitivity max(|lower|, |upper|) = 1): eps x |sum difference|",
)
_entry(
    "bounded_mean",
    "BoundedMean",
    "BoundedMean(epsilon, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
)
_entry(
    "max",
    "Max",
    "Max(epsilon, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
)
_entry(
    "median",
    "Median",
    "Median(epsilon, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
)
_entry(
    "min",
    "Min",
    "Min(epsilon, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
)
_entry(
    "percentile",
    "Percentile",
    "Percentile(epsilon, percentile=0.25, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, percentile=0.25, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
)
_entry(
    "bounded_variance",
    "BoundedVariance",
    "BoundedVariance(epsilon, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
)
_entry(
    "bounded_sd",
    "BoundedStandardDeviation",
    "BoundedStandardDeviation(epsilon, 0, 1) is epsilon-DP (replace one record)",
    lambda e: dict(epsilon=e, lower_bound=0, upper_bound=1, dtype="float"),
    REPLACE_ONE,
    "replace one record",
)
_entry(
    "count_outside",
    "Count",
    "Count(epsilon) is epsilon-DP (add/remove one record; records outside any bound)",
    lambda e: dict(epsilon=e, dtype="float"),
    {0: [1e9] * 10, 1: [1e9] * 11},
    "add/remove one huge record",
    calc=_count_calc,
    label=_COUNT_LABEL,
)
