"""IBM diffprivlib mechanisms and tools: ``zoo.diffprivlib.*``.

Mechanisms take ``random_state=``: the adapter builds the mechanism once per chunk from the chunk's
``RandomState`` (:class:`Factory`) and calls ``randomise`` per draw. Central DP: the inputs are neighbouring
values (distance = the mechanism's sensitivity, and one value just outside ``[lower, upper]`` where a domain
is documented) or neighbouring datasets for ``tools.*`` (bounded relation: one record replaced).
"""

from __future__ import annotations

import privcheck
from privcheck.catalogue.zoo import calculators
from privcheck.catalogue.zoo import calculators_central as cc
from privcheck.catalogue.zoo.engine import Case, Entry, grid, register

LIB, DIST, MODS = "diffprivlib", "diffprivlib", ("diffprivlib", "sklearn")
ADAPTER = "per_sample(Factory(lambda rs: Mechanism(..., random_state=rs)), rng_type='random_state')"
DELTA = 1e-5


class Factory:
    """``(x, rs) -> output``: the object ``build(x, rs)`` is made once per (x, RandomState) and then called."""

    def __init__(self, name: str, kw: dict, call: str = "randomise", per_input: dict | None = None):
        self.name, self.kw, self.call, self.per_input = name, kw, call, per_input
        self._key, self._obj = None, None
        self.__name__ = name

    def __call__(self, x, rs):
        key = (id(rs), x if self.per_input is not None else None)
        if key != self._key:
            import diffprivlib.mechanisms as m

            kw = dict(self.kw, **(self.per_input[x] if self.per_input is not None else {}))
            self._key, self._obj = key, getattr(m, self.name)(random_state=rs, **kw)
        return getattr(self._obj, self.call)() if self.per_input is not None else getattr(self._obj, self.call)(x)


def _sampler(name, kw, per_input=None):
    return privcheck.per_sample(Factory(name, kw, per_input=per_input), rng_type="random_state")


def _library_sigma(name: str, eps: float) -> float:
    """σ diffprivlib's numerical calibration gives ``name`` (GaussianAnalytic: Balle–Wang bisection;
    GaussianDiscrete: Canonne et al. bisection) at (eps, DELTA), sensitivity 1: the one parameter of the
    documented law that the documentation defines only through that procedure."""
    import diffprivlib.mechanisms as m

    mech = getattr(m, name)(epsilon=eps, delta=DELTA, sensitivity=1)
    return float(mech._scale)  # set by the constructor of both classes (diffprivlib 0.6.6)


def _mech(
    mech,
    name,
    statement,
    make_kw,
    inputs,
    pairs=None,
    delta=0.0,
    calc=None,
    outside=None,
    per_input=None,
    label="documented (real arithmetic)",
):
    def make(eps):
        kw = make_kw(eps)
        return Case(
            f"eps={eps:g}" + (f", delta={delta:g}" if delta else ""),
            lambda: _sampler(name, kw, per_input),
            inputs,
            eps,
            delta=delta,
            pairs=pairs,
            true_eps=None if calc is None else (lambda: calc(eps)),
            calculator=label,
        )

    def build():
        cases = grid(make)()
        # outside-domain cases carry no calculator: diffprivlib documents no law for inputs outside [lower, upper]
        if outside is not None:
            kw = make_kw(1.0)
            cases.append(
                Case(
                    f"eps=1, inputs {outside} (outside [lower, upper])",
                    lambda: _sampler(name, kw),
                    list(outside),
                    1.0,
                    delta=delta,
                    pairs=[tuple(outside)],
                    outside=True,
                )
            )
        return cases

    register(
        Entry(
            f"zoo.diffprivlib.{mech}",
            LIB,
            DIST,
            MODS,
            f"diffprivlib.mechanisms.{name}",
            statement,
            ADAPTER,
            build,
            extra_dists=("scikit-learn",),
        )
    )


_B = dict(lower=0.0, upper=1.0)
_mech(
    "binary",
    "Binary",
    "Binary(epsilon, value0, value1) is epsilon-DP",
    lambda e: dict(epsilon=e, value0="no", value1="yes"),
    ["no", "yes"],
    calc=calculators.attained,
)
_mech(
    "geometric",
    "Geometric",
    "Geometric(epsilon, sensitivity=1) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1),
    [0, 1],
    calc=calculators.attained,
)
_mech(
    "geometric_truncated",
    "GeometricTruncated",
    "GeometricTruncated(epsilon, lower=0, upper=5) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1, lower=0, upper=5),
    [0, 1],
    outside=(5, 6),
    calc=cc.bind(cc.geometric_clipped, 0, 5, [0, 1]),
)
_mech(
    "geometric_folded",
    "GeometricFolded",
    "GeometricFolded(epsilon, lower=0, upper=5) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1, lower=0, upper=5),
    [0, 1],
    outside=(5, 6),
    calc=cc.bind(cc.geometric_clipped, 0, 5, [0, 1], fold=True),
)
_mech(
    "laplace",
    "Laplace",
    "Laplace(epsilon, sensitivity=1) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1.0),
    [0.0, 1.0],
    calc=calculators.attained,
)
_mech(
    "laplace_truncated",
    "LaplaceTruncated",
    "LaplaceTruncated(epsilon, sensitivity=1, [0, 1]) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1.0, **_B),
    [0.0, 1.0],
    outside=(1.0, 2.0),
    calc=cc.bind(cc.laplace_truncated, 1.0, 0.0, 1.0, [0.0, 1.0]),
)
_mech(
    "laplace_folded",
    "LaplaceFolded",
    "LaplaceFolded(epsilon, sensitivity=1, [0, 1]) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1.0, **_B),
    [0.0, 1.0],
    outside=(1.0, 2.0),
    calc=cc.bind(cc.laplace_folded, 1.0, 0.0, 1.0, [0.0, 1.0]),
)
_mech(
    "laplace_bounded_domain",
    "LaplaceBoundedDomain",
    "LaplaceBoundedDomain(epsilon, sensitivity=1, [0, 1]) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1.0, **_B),
    [0.0, 1.0],
    outside=(1.0, 2.0),
    calc=cc.bind(cc.laplace_bounded_domain, 1.0, 0.0, 1.0, [0.0, 1.0]),
)
_mech(
    "laplace_bounded_noise",
    "LaplaceBoundedNoise",
    f"LaplaceBoundedNoise(epsilon, delta={DELTA:g}, sensitivity=1) is (epsilon, delta)-DP",
    lambda e: dict(epsilon=e, delta=DELTA, sensitivity=1.0),
    [0.0, 1.0],
    delta=DELTA,
    calc=lambda e: cc.laplace_bounded_noise(e, DELTA, 1.0),
    label="documented (real arithmetic): eps at delta",
)
_mech(
    "snapping",
    "Snapping",
    "Snapping(epsilon, sensitivity=1, [0, 1]) is epsilon-DP (Mironov's fix)",
    lambda e: dict(epsilon=e, sensitivity=1.0, **_B),
    [0.0, 1.0],
    outside=(1.0, 2.0),
    calc=cc.bind(cc.snapping, 1.0, 0.0, 1.0, [0.0, 1.0]),
)
_mech(
    "staircase",
    "Staircase",
    "Staircase(epsilon, sensitivity=1) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1.0),
    [0.0, 1.0],
    calc=cc.bind(cc.staircase, 1.0, [0.0, 1.0]),
)
_mech(
    "gaussian",
    "Gaussian",
    f"Gaussian(epsilon, delta={DELTA:g}, sensitivity=1) is (epsilon, delta)-DP (epsilon <= 1)",
    lambda e: dict(epsilon=min(e, 1.0), delta=DELTA, sensitivity=1.0),
    [0.0, 1.0],
    delta=DELTA,
    calc=lambda e: cc.gaussian_eps_at_delta(cc.gaussian_classic_sigma(min(e, 1.0), DELTA), DELTA),
    label="documented (real arithmetic): eps at delta of the exact Gaussian curve",
)
_mech(
    "gaussian_analytic",
    "GaussianAnalytic",
    f"GaussianAnalytic(epsilon, delta={DELTA:g}, sensitivity=1) is (epsilon, delta)-DP",
    lambda e: dict(epsilon=e, delta=DELTA, sensitivity=1.0),
    [0.0, 1.0],
    delta=DELTA,
    calc=lambda e: cc.gaussian_eps_at_delta(_library_sigma("GaussianAnalytic", e), DELTA),
    label="exact Gaussian curve at the library's calibrated sigma: eps at delta",
)
_mech(
    "gaussian_discrete",
    "GaussianDiscrete",
    f"GaussianDiscrete(epsilon, delta={DELTA:g}, sensitivity=1) is (epsilon, delta)-DP",
    lambda e: dict(epsilon=e, delta=DELTA, sensitivity=1),
    [0, 1],
    delta=DELTA,
    calc=lambda e: cc.discrete_gaussian_eps_at_delta(_library_sigma("GaussianDiscrete", e), DELTA),
    label="exact discrete Gaussian curve at the library's calibrated sigma: eps at delta",
)
_mech(
    "exponential_categorical",
    "ExponentialCategorical",
    "ExponentialCategorical(epsilon, utility_list of distances 1) is epsilon-DP between categories",
    lambda e: dict(epsilon=e, utility_list=[["a", "b", 1.0], ["a", "c", 1.0], ["b", "c", 1.0]]),
    ["a", "b"],
    calc=cc.bind(
        cc.exponential_categorical, {("a", "b"): 1.0, ("a", "c"): 1.0, ("b", "c"): 1.0}, ["a", "b", "c"], ["a", "b"]
    ),
)
_C = {0: dict(utility=[1.0, 0.0, 0.0]), 1: dict(utility=[0.0, 1.0, 0.0])}
_mech(
    "exponential",
    "Exponential",
    "Exponential(epsilon, sensitivity=1, utility) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1.0),
    [0, 1],
    per_input=_C,
    calc=cc.bind(cc.exponential, 1.0, {k: v["utility"] for k, v in _C.items()}),
)
_mech(
    "permute_and_flip",
    "PermuteAndFlip",
    "PermuteAndFlip(epsilon, sensitivity=1, utility) is epsilon-DP",
    lambda e: dict(epsilon=e, sensitivity=1.0),
    [0, 1],
    per_input=_C,
    calc=cc.bind(cc.permute_and_flip, 1.0, {k: v["utility"] for k, v in _C.items()}),
)


# ------------------------------------------------------------------ tools on neighbouring datasets
class Tool:
    """``(i, rs) -> tools.<name>(datasets[i], random_state=rs, **kw)``: neighbouring datasets by index."""

    def __init__(self, name: str, kw: dict, datasets: dict | None = None):
        self.name, self.kw, self.datasets = name, kw, DATASETS if datasets is None else datasets
        self.__name__ = f"tools.{name}"

    def __call__(self, i, rs):
        import numpy as np
        from diffprivlib import tools

        return float(np.ravel(getattr(tools, self.name)(self.datasets[i], random_state=rs, **self.kw))[0])


#: two datasets of 10 records in [0, 1] differing in one record (diffprivlib's bounded relation)
DATASETS = {0: [0.0] * 10, 1: [0.0] * 9 + [1.0]}
#: the median's pair: with every record at a bound both datasets of DATASETS release Uniform[0, 1] (true ε 0,
#: an audit with nothing to find); interior records move the middle interval's rank (one record replaced)
MEDIAN_DATASETS = {0: [0.2] * 5 + [0.8] * 5, 1: [0.2] * 6 + [0.8] * 4}


def _tool(name, statement, make_kw, datasets=None):
    data = DATASETS if datasets is None else datasets

    def make(eps):
        kw = make_kw(eps)
        return Case(
            f"eps={eps:g}, n=10, bounds (0, 1)",
            lambda: privcheck.per_sample(Tool(name, kw, data), rng_type="random_state"),
            [0, 1],
            eps,
            pairs=[(0, 1)],
            true_eps=lambda: cc.diffprivlib_tool(name, eps, data, 0.0, 1.0),
            calculator="documented (real arithmetic)",
        )

    register(
        Entry(
            f"zoo.diffprivlib.tools.{name}",
            LIB,
            DIST,
            MODS,
            f"diffprivlib.tools.{name}",
            statement,
            "per_sample(tools.<name>(dataset[i], random_state=rs)) on neighbouring datasets",
            grid(make),
            extra_dists=("scikit-learn",),
        )
    )


_tool("mean", "tools.mean(array, epsilon, bounds=(0, 1)) is epsilon-DP", lambda e: dict(epsilon=e, bounds=(0.0, 1.0)))
_tool("sum", "tools.sum(array, epsilon, bounds=(0, 1)) is epsilon-DP", lambda e: dict(epsilon=e, bounds=(0.0, 1.0)))
_tool("var", "tools.var(array, epsilon, bounds=(0, 1)) is epsilon-DP", lambda e: dict(epsilon=e, bounds=(0.0, 1.0)))
_tool("count_nonzero", "tools.count_nonzero(array, epsilon) is epsilon-DP", lambda e: dict(epsilon=e))
_tool(
    "median",
    "tools.median(array, epsilon, bounds=(0, 1)) is epsilon-DP",
    lambda e: dict(epsilon=e, bounds=(0.0, 1.0)),
    datasets=MEDIAN_DATASETS,
)
