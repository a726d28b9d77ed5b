"""pure-ldp (Cormode, Maddock et al.) client-side frequency oracles: ``zoo.pure_ldp.*``.

Clients privatise one item per call with the global ``numpy.random`` / ``random`` state, so the adapter
is ``privcheck.per_sample(client.privatise, seed_global=True)``. Items are 1..d (the default index
mapper subtracts 1); the input just outside the domain is d + 1.

Protocols whose client takes the server's hash functions (RAPPOR, CMS/HCMS, PCS, Hadamard response,
SketchResponse) are built through :class:`ServerClient` with hashes fixed once per protocol (public
constants, the same in every sampling process). Their reports carry a categorical column with the bits
(RAPPOR's cohort, the sketch row of CMS/PCS/SketchResponse): the auditor's bit × category conjunction
view (:class:`privcheck.auditor.autoviews.BitConjunction`) audits them. Finding (pure-ldp 1.1.2):
``RAPPORClient._perturb`` sets Bloom bits to 1 with the documented probabilities but never clears a set
bit, so {bit h_c(x) = 0 in cohort c} is impossible under x: ε = ∞ at every claimed ε.
"""
from __future__ import annotations

import functools
import math
from typing import Callable

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


# ------------------------------------------------------------------ protocols whose client needs the server's hashes
#: seed of the global ``random``/``numpy.random`` state while a server draws its hash seeds: the hashes are
#: public constants of the protocol and must be the same in every process that samples either input
HASH_SEED = 20_240_517


def server_hashes(server: str, **skw) -> list:
    """The hash functions ``Server(**skw).get_hash_funcs()`` a pure-ldp server hands to its clients, drawn
    with the global random state seeded by :data:`HASH_SEED` (restored afterwards), so that every process
    builds the same ones (RAPPORServer draws its per-cohort hash seeds from ``random``)."""
    import random

    import numpy as np

    state, np_state = random.getstate(), np.random.get_state()
    try:
        random.seed(HASH_SEED)
        np.random.seed(HASH_SEED)
        return _client(server, **skw).get_hash_funcs()
    finally:
        random.setstate(state)
        np.random.set_state(np_state)


def sketch_hashes(k: int, m: int, signs: bool = False) -> list:
    """The sketch servers' hash functions, built as the library does (``pure_ldp.core.generate_hash_funcs``:
    deterministic, hash i seeded by i): CMS ``generate_hash_funcs(k, m)``; PCS (``signs``) the pairs
    ``zip(generate_hash_funcs(k, m), generate_hash_funcs(k, 2))``. Used directly because CMSServer/PCSServer
    cannot be constructed under numpy 2 (``np.zeros(None)`` in their base class)."""
    from pure_ldp.core import generate_hash_funcs

    h = generate_hash_funcs(k, m)
    return list(zip(h, generate_hash_funcs(k, 2))) if signs else h


class ServerClient:
    """``x -> Client(hash_funcs=hashes(), **ckw).privatise(x)`` for a protocol whose client takes the server's
    hash functions. ``client``: class name in ``pure_ldp.frequency_oracles``; ``hashes``: a picklable
    ``() -> hash_funcs`` (:func:`server_hashes`, :func:`sketch_hashes`). Built lazily in the sampling process
    (hash functions are closures and do not pickle); the hashes are public constants of the protocol."""

    def __init__(self, client: str, ckw: dict, hashes: Callable[[], list]):
        self.client, self.ckw, self.hashes = client, ckw, hashes
        self._c = None
        self.__name__ = f"{client}.privatise"

    def __call__(self, x):
        if self._c is None:
            self._c = _client(self.client, hash_funcs=self.hashes(), **self.ckw)
        return self._c.privatise(x)

    def __getstate__(self):
        return {**self.__dict__, "_c": None}


def _server_entry(mech: str, client: str, statement: str, kws, outside: int, calc=None) -> None:
    """``kws(eps) -> (hashes, client kwargs, label)``; items 1, 2 audited, ``outside`` outside the domain."""

    def make(eps, out=False):
        hashes, ckw, label = kws(eps)
        return Case(f"eps={eps:g}, {label}" + (", input outside" if out else ""),
                    lambda: privcheck.per_sample(ServerClient(client, ckw, hashes), seed_global=True, takes_rng=False),
                    [1, outside] if out else [1, 2], eps, true_eps=None if calc is None else (lambda: calc(eps)),
                    calculator="documented probabilities", outside=out)

    register(Entry(f"zoo.pure_ldp.{mech}", LIB, DIST, MODS, f"pure_ldp.frequency_oracles.{client}", statement,
                   "per_sample(Client(..., hash_funcs=server hashes).privatise, seed_global=True)",
                   lambda: grid(make)() + [make(1.0, out=True)]))


def _rappor_f(eps: float) -> float:
    """RAPPORClient.convert_eps_to_f: f = round(1/(e^{ε/2}/2 + 1/2), 2)."""
    return round(1 / (0.5 * math.exp(eps / 2) + 0.5), 2)


def _rappor_kw(eps):
    f = _rappor_f(eps)
    return (functools.partial(server_hashes, "RAPPORServer", f=f, m=16, k=1, d=8, num_of_cohorts=4),
            dict(f=f, m=16, num_of_cohorts=4), f"f={f}, m=16, k=1, 4 cohorts")


def _rappor_eps(eps: float) -> float:
    """Exact ε of RAPPOR's permanent randomised response with the library's rounded f and k = 1 hash: two
    Bloom bits differ, each kept w.p. 1 − f/2 (RAPPORClient.convert_f_to_eps, Erlingsson et al. 2014)."""
    f = _rappor_f(eps)
    return 2 * math.log((1 - 0.5 * f) / (0.5 * f))


def _sketch_kw(eps, k, m, hadamard=False, signs=False):
    ckw = dict(epsilon=eps, l=k, w=m) if signs else dict(epsilon=eps, m=m, is_hadamard=hadamard)
    return functools.partial(sketch_hashes, k, m, signs), ckw, f"k={k}, m={m}" + (", hadamard" if hadamard else "")


_server_entry("rappor", "RAPPORClient",
              "RAPPORClient(f=convert_eps_to_f(epsilon), m, hash_funcs, cohorts) with k=1 hash is epsilon-LDP",
              _rappor_kw, 9, calc=_rappor_eps)
_server_entry("cms", "CMSClient", "CMSClient(epsilon, hash_funcs, m) (Apple count-mean sketch) is epsilon-LDP",
              lambda e: _sketch_kw(e, 4, 16), 9)
_server_entry("hcms", "CMSClient", "CMSClient(epsilon, hash_funcs, m, is_hadamard=True) (Hadamard count-mean "
              "sketch) is epsilon-LDP", lambda e: _sketch_kw(e, 4, 16, hadamard=True), 9)
_server_entry("pcs", "PCSClient", "PCSClient(epsilon, l, w, hash_funcs) (private count sketch) is epsilon-LDP",
              lambda e: _sketch_kw(e, 4, 16, signs=True), 9)
_server_entry("hr", "HadamardResponseClient", "HadamardResponseClient(epsilon, d, hash_funcs) is epsilon-LDP",
              lambda e: (functools.partial(server_hashes, "HadamardResponseServer", epsilon=e, d=8),
                         dict(epsilon=e, d=8), "d=8"), 9)
_entry("fastlh", "FastLHClient", lambda kw: calculators.local_hashing(kw["epsilon"], kw.get("g", 2)),
       "FastLHClient(epsilon, d, k, g=2) (fast binary local hashing, k hash seeds) is epsilon-LDP", {"k": 64})
_server_entry("sketch_response", "SketchResponseClient", "SketchResponseClient(epsilon, m, hash_funcs) (a sketch row "
              "chosen at random, its cell sent through FastLH) is epsilon-LDP",
              lambda e: (functools.partial(sketch_hashes, 4, 16), dict(epsilon=e, m=16, lh_k=64), "k=4, m=16"), 9)
