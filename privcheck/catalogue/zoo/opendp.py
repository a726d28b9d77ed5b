"""OpenDP measurements: ``zoo.opendp.*``, vectorised through OpenDP's vector domains.

A sampler ``(x, n, rng) -> m([x] * n)`` draws n independent outputs of the scalar measurement at x (the
vector measurement adds independent noise per coordinate); the claimed ε is the scalar measurement's own
privacy map at d_in = |x − x'|. OpenDP draws from the operating system's entropy: the audit reports it
as not reproducible from the seed.
"""
from __future__ import annotations

import math

from privcheck.catalogue.zoo import Case, Entry, calculators, grid, register

LIB, DIST, MODS = "OpenDP", "opendp", ("opendp",)
ADAPTER = "(x, n, rng) -> measurement([x] * n) on a vector domain; eps from the scalar privacy map"


def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


class Vectorised:
    """``(x, n, rng) -> n outputs``: one call of an OpenDP vector measurement (built lazily per process)."""

    def __init__(self, kind: str, param: float):
        self.kind, self.param = kind, param
        self._m = None
        self.__name__ = f"opendp.{kind}"

    def _build(self):
        dp = _dp()
        if self.kind == "laplace_float":
            return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float),
                                     scale=self.param)
        if self.kind == "laplace_int":
            return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=self.param)
        if self.kind == "gaussian_float":
            return dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float),
                                      scale=self.param)
        raise ValueError(f"unknown OpenDP kind {self.kind!r}")

    def __call__(self, x, n, rng):
        if self._m is None:
            self._m = self._build()
        return self._m([x] * n)

    def __getstate__(self):
        return {"kind": self.kind, "param": self.param, "_m": None, "__name__": self.__name__}


class PerCall:
    """``(x, n, rng) -> [m(x) for n draws]`` for measurements without a vector form."""

    def __init__(self, kind: str, param):
        self.kind, self.param = kind, param
        self._m = None
        self.__name__ = f"opendp.{kind}"

    def __call__(self, x, n, rng):
        if self._m is None:
            dp = _dp()
            if self.kind == "rr_bool":
                self._m = dp.m.make_randomized_response_bool(self.param)
            elif self.kind == "rr_cat":
                self._m = dp.m.make_randomized_response(categories=list(range(self.param[0])), prob=self.param[1])
            elif self.kind == "noisy_max":
                self._m = dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                              dp.linf_distance(T=float), dp.max_divergence(), scale=self.param)
        m = self._m
        return [m(x) for _ in range(n)]

    def __getstate__(self):
        return {"kind": self.kind, "param": self.param, "_m": None, "__name__": self.__name__}


def _scalar_eps(kind: str, param) -> float:
    dp = _dp()
    if kind == "laplace_float":
        return float(dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                                       scale=param).map(1.0))
    if kind == "laplace_int":
        return float(dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=param).map(1))
    if kind == "rr_bool":
        return float(dp.m.make_randomized_response_bool(param).map(1))
    if kind == "rr_cat":
        return float(dp.m.make_randomized_response(categories=list(range(param[0])), prob=param[1]).map(1))
    if kind == "noisy_max":
        return float(dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                                         dp.linf_distance(T=float), dp.max_divergence(), scale=param).map(1.0))
    raise ValueError(kind)


def _entry(mech, where, statement, kind, param_for, inputs, vector=True, calc=None):
    def make(eps):
        param = param_for(eps)
        claimed = _scalar_eps(kind, param)
        build = (lambda: Vectorised(kind, param)) if vector else (lambda: PerCall(kind, param))
        return Case(f"eps={claimed:.4g} (param {param})", build, inputs, claimed,
                    true_eps=None if calc is None else (lambda: calc(claimed)), calculator="documented (map)")

    register(Entry(f"zoo.opendp.{mech}", LIB, DIST, MODS, where, statement, ADAPTER, grid(make)))


_entry("laplace_float", "opendp.measurements.make_laplace (float)",
       "make_laplace(atom_domain(float), scale=1/eps) is map(1)-DP", "laplace_float", lambda e: 1.0 / e,
       [0.0, 1.0], calc=calculators.attained)
_entry("laplace_int", "opendp.measurements.make_laplace (int: discrete Laplace)",
       "make_laplace(atom_domain(int), scale=1/eps) is map(1)-DP", "laplace_int", lambda e: 1.0 / e, [0, 1],
       calc=calculators.attained)
_entry("rr_bool", "opendp.measurements.make_randomized_response_bool",
       "make_randomized_response_bool(prob) is map(1)-DP", "rr_bool", lambda e: 1 / (1 + math.exp(-e)),
       [False, True], vector=False, calc=calculators.attained)
_entry("rr_categorical", "opendp.measurements.make_randomized_response",
       "make_randomized_response(categories 0..3, prob) is map(1)-DP", "rr_cat",
       lambda e: (4, math.exp(e) / (math.exp(e) + 3)), [0, 1], vector=False,
       calc=calculators.attained)
_entry("noisy_max", "opendp.measurements.make_noisy_max",
       "make_noisy_max(scores, scale) is map(1)-DP for scores at sup-distance 1", "noisy_max", lambda e: 2.0 / e,
       [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], vector=False)
