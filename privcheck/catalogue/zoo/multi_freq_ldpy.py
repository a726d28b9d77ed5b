"""multi-freq-ldpy (Arcolezi et al.) clients: ``zoo.multi_freq_ldpy.*``.

Clients are functions ``X_Client(input_data, k, epsilon, ...)`` drawing from ``numpy.random`` — several are
numba-compiled, whose random state numpy's seeding does not reach (the audit reports them as not
reproducible). Adapter: ``privcheck.per_sample(lambda x: X_Client(x, k, epsilon), seed_global=True)``.
Items are 0..k−1; the input just outside the domain is k. The longitudinal ``L_*`` clients are audited as
one report with a fresh memoisation per call (claimed ε = eps_1, the first report's guarantee, with
eps_perm = 2·eps_1 > eps_1 as the library requires). Not yet audited: the multidimensional SMP/SPL/RS+FD
clients (tuple inputs).
"""
from __future__ import annotations

import functools
import math

import privcheck
from privcheck.catalogue.zoo import Case, Entry, calculators, grid, register

LIB, DIST, MODS = "multi-freq-ldpy", "multi-freq-ldpy", ("multi_freq_ldpy", "xxhash", "numba")
ADAPTER = "per_sample(lambda x: X_Client(x, k, epsilon, ...), seed_global=True)"
DOMAINS = (8,)


def _fn(module: str, name: str):
    import importlib

    return getattr(importlib.import_module(f"multi_freq_ldpy.{module}"), name)


class _Call:
    """``x -> fn(x, *args, **kw)`` (picklable for worker processes)."""

    def __init__(self, module: str, name: str, args: tuple, kw: dict):
        self.module, self.name, self.args, self.kw = module, name, args, kw
        self.__name__ = name

    def __call__(self, x):
        return _fn(self.module, self.name)(x, *self.args, **self.kw)


def _sampler(module, name, args, kw):
    return privcheck.per_sample(_Call(module, name, args, kw), seed_global=True, takes_rng=False)


def _entry(mech, module, name, statement, calc=None, kw=None, domains=DOMAINS, longitudinal=False):
    kw = kw or {}

    def make(eps, k, outside=False):
        args = (k, 2 * eps, eps) if longitudinal else (k, eps)
        inputs = [0, k] if outside else [0, 1]
        return Case(f"eps={eps:g}, k={k}" + (", eps_perm=2eps" if longitudinal else "")
                    + (", input k (outside)" if outside else ""),
                    lambda: _sampler(module, name, args, kw), inputs, eps,
                    true_eps=None if calc is None else functools.partial(calc, eps, k),
                    calculator="documented probabilities", outside=outside)

    def build():
        cases = grid(make, k=domains)()
        cases.append(make(1.0, domains[0], outside=True))
        return cases

    register(Entry(f"zoo.multi_freq_ldpy.{mech}", LIB, DIST, MODS, f"multi_freq_ldpy.{module}.{name}",
                   statement, ADAPTER, build))


def _adp(eps, k, optimal=True):
    # ADP: GRR when its variance is smaller (k < 3e^eps + 2), else OUE/SUE (multi_freq_ldpy ADP.py)
    return calculators.grr(eps, k) if k < 3 * math.exp(eps) + 2 else calculators.oue(eps)


def _lh_g(eps, optimal):
    return int(round(math.exp(eps))) + 1 if optimal else 2


PFO = "pure_frequency_oracles"
_entry("grr", f"{PFO}.GRR", "GRR_Client", "GRR_Client(x, k, epsilon) is epsilon-LDP", calculators.grr)
_entry("oue", f"{PFO}.UE", "UE_Client", "UE_Client(x, k, epsilon, optimal=True) (OUE) is epsilon-LDP",
       lambda e, k: calculators.oue(e), {"optimal": True})
_entry("sue", f"{PFO}.UE", "UE_Client", "UE_Client(x, k, epsilon, optimal=False) (SUE) is epsilon-LDP",
       lambda e, k: calculators.sue(e), {"optimal": False})
_entry("olh", f"{PFO}.LH", "LH_Client", "LH_Client(x, k, epsilon, optimal=True) (OLH) is epsilon-LDP",
       lambda e, k: calculators.local_hashing(e, _lh_g(e, True)), {"optimal": True})
_entry("blh", f"{PFO}.LH", "LH_Client", "LH_Client(x, k, epsilon, optimal=False) (BLH) is epsilon-LDP",
       lambda e, k: calculators.local_hashing(e, 2), {"optimal": False})
_entry("he", f"{PFO}.HE", "HE_Client", "HE_Client(x, k, epsilon) (histogram encoding) is epsilon-LDP",
       lambda e, k: calculators.attained(e))
_entry("ss", f"{PFO}.SS", "SS_Client", "SS_Client(x, k, epsilon) (subset selection) is epsilon-LDP",
       lambda e, k: calculators.subset(e, k, max(1, int(round(k / (math.exp(e) + 1))))))
_entry("adp", f"{PFO}.ADP", "ADP_Client", "ADP_Client(x, k, epsilon) (adaptive GRR/OUE) is epsilon-LDP", _adp)
for _m in ("GRR", "OUE", "SUE", "OSUE", "SOUE", "LH", "ADP"):
    _entry(f"l_{_m.lower()}", f"long_freq_est.L_{_m}", f"L_{_m}_Client",
           f"L_{_m}_Client(x, k, eps_perm, eps_1): one report is eps_1-LDP (eps_perm = 2 eps_1)",
           longitudinal=True)
