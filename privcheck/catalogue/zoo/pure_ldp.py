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

Every case carries a true-ε calculator (:mod:`.calculators_ldp` for the sketches, Hadamard response and
mechanism): the exact ε of the documented law between the audited items, with the client's own
probabilities and the protocol's public hashes. HadamardMechClient gives items 1 and d + 1 the same
coefficient on every row when d is a power of two (index d shares no bit with any j < d), so that
pair has true ε = 0 at d = 8.
"""

from __future__ import annotations

import functools
import math
from typing import Callable

import privcheck
from privcheck.catalogue.zoo import calculators, calculators_ldp
from privcheck.catalogue.zoo.engine import Case, Entry, grid, register

LIB, DIST, MODS = "pure-ldp", "pure-ldp", ("pure_ldp", "xxhash")
ADAPTER = "per_sample(Client(...).privatise, seed_global=True)"
DOMAINS = (8,)


def _client(name: str, **kw):
    import pure_ldp.frequency_oracles as fo

    return getattr(fo, name)(**kw)


def _sampler(name: str, **kw):
    return privcheck.per_sample(_client(name, **kw).privatise, seed_global=True)


def _cases(name: str, calc, extra: dict | None = None):
    """Cases over EPS_GRID × DOMAINS plus one input outside; ``calc(client kwargs, items)``: exact ε."""
    extra = extra or {}

    def make(eps, d, outside=False):
        kw = dict(epsilon=eps, d=d, **extra)
        inputs = [1, d + 1] if outside else [1, 2]
        return Case(
            f"eps={eps:g}, d={d}" + (", input d+1 (outside)" if outside else ""),
            lambda kw=kw: _sampler(name, **kw),
            inputs,
            eps,
            true_eps=None if calc is None else (lambda kw=kw, xs=inputs: calc(kw, xs)),
            calculator="documented probabilities",
            outside=outside,
        )

    def build():
        cases = grid(make, d=DOMAINS)()
        cases.append(make(1.0, DOMAINS[0], outside=True))
        return cases

    return build


def _entry(mech: str, name: str, calc, statement: str, extra: dict | None = None) -> None:
    register(
        Entry(
            f"zoo.pure_ldp.{mech}",
            LIB,
            DIST,
            MODS,
            f"pure_ldp.frequency_oracles.{name}",
            statement,
            ADAPTER,
            _cases(name, calc, extra),
        )
    )


def _ue_calc(kw, items=None):
    c = _client("UEClient", **kw)
    return calculators.unary(c.p, c.q)


def _lh_calc(kw, items=None):
    c = _client("LHClient", **kw)
    return calculators.local_hashing(kw["epsilon"], c.g)


_entry(
    "de",
    "DEClient",
    lambda kw, xs: calculators.grr(kw["epsilon"], kw["d"]),
    "DEClient(epsilon, d).privatise (direct encoding / k-RR) is epsilon-LDP",
)
_entry("sue", "UEClient", _ue_calc, "UEClient(epsilon, d) (symmetric unary encoding) is epsilon-LDP")
_entry(
    "oue",
    "UEClient",
    _ue_calc,
    "UEClient(epsilon, d, use_oue=True) (optimised unary encoding) is epsilon-LDP",
    {"use_oue": True},
)
_entry("blh", "LHClient", _lh_calc, "LHClient(epsilon, d) (binary local hashing, g=2) is epsilon-LDP")
_entry(
    "olh",
    "LHClient",
    _lh_calc,
    "LHClient(epsilon, d, use_olh=True) (optimised local hashing) is epsilon-LDP",
    {"use_olh": True},
)
_entry(
    "he",
    "HEClient",
    lambda kw, xs: calculators.attained(kw["epsilon"]),
    "HEClient(epsilon, d) (histogram encoding, Laplace(2/epsilon) per coordinate) is epsilon-LDP",
)


def _hm_calc(kw, items) -> float:
    """Exact ε of HadamardMechClient with t = 1 (pure-ldp ``hadamard_mechanism/hadamard_mechanism_client.py``):
    report (j, ±H[x, j]) with j uniform in [0, d), the coefficient kept w.p. the client's p = e^ε/(e^ε+1).
    Rows are the public index j; x = 0 and x = d (the input outside) have the same coefficients on every j."""
    c = _client("HadamardMechClient", **kw)
    if c.t != 1:
        raise ValueError("the calculator covers t = 1 (one coefficient per report)")
    return calculators_ldp.separated_rows(
        [c.index_mapper(x) for x in items],
        lambda i: [bin(i & j).count("1") % 2 for j in range(c.d)],
        calculators_ldp.flip_eps(1 - c.p),
    )


_entry(
    "hm",
    "HadamardMechClient",
    _hm_calc,
    "HadamardMechClient(epsilon, d, t=1) (Hadamard mechanism: one coefficient, binary RR) is epsilon-LDP",
    {"t": 1},
)


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
    """``kws(eps) -> (hashes, client kwargs, label)``; items 1, 2 audited, ``outside`` outside the domain;
    ``calc(eps, items)``: the exact ε of the documented law between the audited items (None: not computable)."""

    def make(eps, out=False):
        hashes, ckw, label = kws(eps)
        items = [1, outside] if out else [1, 2]
        return Case(
            f"eps={eps:g}, {label}" + (", input outside" if out else ""),
            lambda: privcheck.per_sample(ServerClient(client, ckw, hashes), seed_global=True, takes_rng=False),
            items,
            eps,
            true_eps=None if calc is None else (lambda: calc(eps, items)),
            calculator="documented probabilities",
            outside=out,
        )

    register(
        Entry(
            f"zoo.pure_ldp.{mech}",
            LIB,
            DIST,
            MODS,
            f"pure_ldp.frequency_oracles.{client}",
            statement,
            "per_sample(Client(..., hash_funcs=server hashes).privatise, seed_global=True)",
            lambda: grid(make)() + [make(1.0, out=True)],
        )
    )


def _rappor_f(eps: float) -> float:
    """RAPPORClient.convert_eps_to_f: f = round(1/(e^{ε/2}/2 + 1/2), 2)."""
    return round(1 / (0.5 * math.exp(eps / 2) + 0.5), 2)


def _rappor_kw(eps):
    f = _rappor_f(eps)
    return (
        functools.partial(server_hashes, "RAPPORServer", f=f, m=16, k=1, d=8, num_of_cohorts=4),
        dict(f=f, m=16, num_of_cohorts=4),
        f"f={f}, m=16, k=1, 4 cohorts",
    )


def _rappor_eps(eps: float) -> float:
    """Exact ε of RAPPOR's permanent randomised response with the library's rounded f and k = 1 hash: two
    Bloom bits differ, each kept w.p. 1 − f/2 (RAPPORClient.convert_f_to_eps, Erlingsson et al. 2014)."""
    f = _rappor_f(eps)
    return 2 * math.log((1 - 0.5 * f) / (0.5 * f))


#: rows k and width m of the audited sketches (CMS/HCMS/PCS/SketchResponse), FastLH seeds of SketchResponse
SKETCH_K, SKETCH_M, SR_LH_K = 4, 16, 64
#: domain of Hadamard response
HR_D = 8


def _sketch_kw(eps, hadamard=False, signs=False):
    k, m = SKETCH_K, SKETCH_M
    ckw = dict(epsilon=eps, l=k, w=m) if signs else dict(epsilon=eps, m=m, is_hadamard=hadamard)
    return functools.partial(sketch_hashes, k, m, signs), ckw, f"k={k}, m={m}" + (", hadamard" if hadamard else "")


def _sketch_calc(eps: float, items, hadamard=False, signs=False) -> float:
    """Exact ε of CMS/HCMS/PCS with the client's own flip probability and the protocol's hashes."""
    hashes, ckw, _ = _sketch_kw(eps, hadamard, signs)
    h = hashes()
    c = _client("PCSClient" if signs else "CMSClient", hash_funcs=h, **ckw)
    if signs:
        return calculators_ldp.pcs(c.bias, items, h)
    return (calculators_ldp.hcms if hadamard else calculators_ldp.cms)(c.prob, items, h)


def _hr_hashes(eps):
    return functools.partial(server_hashes, "HadamardResponseServer", epsilon=eps, d=HR_D)


def _hr_calc(eps: float, items) -> float:
    """Exact ε of HadamardResponseClient: high-privacy regime (ε ≤ 1) or the general one (with the server's
    permutation), from the client's own parameters (pri_para, part, partsz, exp, permute)."""
    c = _client("HadamardResponseClient", epsilon=eps, d=HR_D, hash_funcs=_hr_hashes(eps)())
    hr, idx = c.hr, [c.index_mapper(x) for x in items]
    if eps <= 1:
        return calculators_ldp.hr_high_privacy(hr.pri_para, hr.outsz, idx)
    u = (2 * hr.part) / (2 * hr.part - 1 + hr.exp)  # the client's own float expression (encode_symbol)
    return calculators_ldp.hr_general(
        u, hr.outsz, calculators_ldp.hr_general_sets(hr.part, hr.partsz, hr.tailbit, hr.permute, idx)
    )


def _sr_calc(eps: float, items) -> float:
    """Exact ε of SketchResponseClient (FastLH inside) with the protocol's sketch hashes and lh_k seeds."""
    h = sketch_hashes(SKETCH_K, SKETCH_M)
    c = _client("SketchResponseClient", epsilon=eps, m=SKETCH_M, hash_funcs=h, lh_k=SR_LH_K)
    fo = c.client
    return calculators_ldp.sketch_response(fo.p, fo.q, items, lambda x: [f(c.index_mapper(x)) for f in h], fo.g, fo.k)


_server_entry(
    "rappor",
    "RAPPORClient",
    "RAPPORClient(f=convert_eps_to_f(epsilon), m, hash_funcs, cohorts) with k=1 hash is epsilon-LDP",
    _rappor_kw,
    9,
    calc=lambda eps, items: _rappor_eps(eps),
)
_server_entry(
    "cms",
    "CMSClient",
    "CMSClient(epsilon, hash_funcs, m) (Apple count-mean sketch) is epsilon-LDP",
    _sketch_kw,
    9,
    calc=_sketch_calc,
)
_server_entry(
    "hcms",
    "CMSClient",
    "CMSClient(epsilon, hash_funcs, m, is_hadamard=True) (Hadamard count-mean sketch) is epsilon-LDP",
    lambda e: _sketch_kw(e, hadamard=True),
    9,
    calc=functools.partial(_sketch_calc, hadamard=True),
)
_server_entry(
    "pcs",
    "PCSClient",
    "PCSClient(epsilon, l, w, hash_funcs) (private count sketch) is epsilon-LDP",
    lambda e: _sketch_kw(e, signs=True),
    9,
    calc=functools.partial(_sketch_calc, signs=True),
)
_server_entry(
    "hr",
    "HadamardResponseClient",
    "HadamardResponseClient(epsilon, d, hash_funcs) is epsilon-LDP",
    lambda e: (_hr_hashes(e), dict(epsilon=e, d=HR_D), f"d={HR_D}"),
    9,
    calc=_hr_calc,
)
_entry(
    "fastlh",
    "FastLHClient",
    lambda kw, xs: calculators.local_hashing(kw["epsilon"], kw.get("g", 2)),
    "FastLHClient(epsilon, d, k, g=2) (fast binary local hashing, k hash seeds) is epsilon-LDP",
    {"k": 64},
)
_server_entry(
    "sketch_response",
    "SketchResponseClient",
    "SketchResponseClient(epsilon, m, hash_funcs) (a sketch row "
    "chosen at random, its cell sent through FastLH) is epsilon-LDP",
    lambda e: (
        functools.partial(sketch_hashes, SKETCH_K, SKETCH_M),
        dict(epsilon=e, m=SKETCH_M, lh_k=SR_LH_K),
        f"k={SKETCH_K}, m={SKETCH_M}",
    ),
    9,
    calc=_sr_calc,
)
