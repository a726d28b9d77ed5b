"""pure-ldp (Cormode, Maddock et al.) client-side frequency oracles: ``zoo.pure_ldp.*``.

Clients privatise one item per call with the global ``numpy.random`` / ``random`` state, so the adapter
is ``privcheck.per_sample(client.privatise, seed_global=True)``. Items are 1..d (the default index
mapper subtracts 1); the input just outside the domain is d + 1.
"""
from __future__ import annotations

import math

import privcheck
from privcheck.catalogue.zoo import EPS_GRID, Case, Entry, calculators, grid, register

LIB, DIST, MODS = "pure-ldp", "pure-ldp", ("pure_ldp", "xxhash")
ADAPTER = "per_sample(Client(...).privatise, seed_global=True)"
DOMAINS = (8,)


def _client(name: str, **kw):
    import pure_ldp.frequency_oracles as fo

    return getattr(fo, name)(**kw)


def _sampler(name: str, **kw):
    return privcheck.per_sample(_client(name, **kw).privatise, seed_global=True)


def _cases(name: str, calc, extra: dict | None = None):
    extra = extra or {}

    def make(eps, d, outside=False):
        kw = dict(epsilon=eps, d=d, **extra)
        inputs = [1, d + 1] if outside else [1, 2]
        return Case(f"eps={eps:g}, d={d}" + (", input d+1 (outside)" if outside else ""),
                    lambda kw=kw: _sampler(name, **kw), inputs, eps,
                    true_eps=None if calc is None else (lambda kw=kw: calc(kw)), calculator="documented probabilities",
                    outside=outside)

    def build():
        cases = grid(make, d=DOMAINS)()
        cases.append(make(1.0, DOMAINS[0], outside=True))
        return cases

    return build


def _entry(mech: str, name: str, calc, statement: str, extra: dict | None = None) -> None:
    register(Entry(f"zoo.pure_ldp.{mech}", LIB, DIST, MODS, f"pure_ldp.frequency_oracles.{name}",
                   statement, ADAPTER, _cases(name, calc, extra)))


def _ue_calc(kw):
    c = _client("UEClient", **kw)
    return calculators.unary(c.p, c.q)


def _lh_calc(kw):
    c = _client("LHClient", **kw)
    return calculators.local_hashing(kw["epsilon"], c.g)


_entry("de", "DEClient", lambda kw: calculators.grr(kw["epsilon"], kw["d"]),
       "DEClient(epsilon, d).privatise (direct encoding / k-RR) is epsilon-LDP")
_entry("sue", "UEClient", _ue_calc, "UEClient(epsilon, d) (symmetric unary encoding) is epsilon-LDP")
_entry("oue", "UEClient", _ue_calc, "UEClient(epsilon, d, use_oue=True) (optimised unary encoding) is epsilon-LDP",
       {"use_oue": True})
_entry("blh", "LHClient", _lh_calc, "LHClient(epsilon, d) (binary local hashing, g=2) is epsilon-LDP")
_entry("olh", "LHClient", _lh_calc, "LHClient(epsilon, d, use_olh=True) (optimised local hashing) is epsilon-LDP",
       {"use_olh": True})
_entry("he", "HEClient", lambda kw: calculators.attained(kw["epsilon"]),
       "HEClient(epsilon, d) (histogram encoding, Laplace(2/epsilon) per coordinate) is epsilon-LDP")
_entry("hm", "HadamardMechClient", lambda kw: math.log(math.exp(kw["epsilon"])),
       "HadamardMechClient(epsilon, d, t=1) (Hadamard mechanism: one coefficient, binary RR) is epsilon-LDP",
       {"t": 1})
