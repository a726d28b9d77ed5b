"""OpenDP measurements: ``zoo.opendp.*``, vectorised through OpenDP's vector domains.

A sampler ``(x, n, rng) -> m([x] * n)`` draws n independent outputs of the scalar measurement at x (the
vector measurement adds independent noise per coordinate); the claimed ε is the scalar measurement's own
privacy map at d_in = |x − x'|. OpenDP draws from the operating system's entropy: the audit reports it
as not reproducible from the seed.
"""

from __future__ import annotations

import math

from privcheck.catalogue.zoo import calculators
from privcheck.catalogue.zoo import calculators_central as cc
from privcheck.catalogue.zoo.engine import Case, Entry, grid, register

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
            return dp.m.make_laplace(
                dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=self.param
            )
        if self.kind == "laplace_int":
            return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=self.param)
        if self.kind == "gaussian_float":
            return dp.m.make_gaussian(
                dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l2_distance(T=float), scale=self.param
            )
        if self.kind == "gaussian_int":
            return dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=int), scale=self.param)
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
                self._m = dp.m.make_noisy_max(
                    dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                    dp.linf_distance(T=float),
                    dp.max_divergence(),
                    scale=self.param,
                )
            else:
                self._m = _scalar_measurement(self.kind, self.param)
        m = self._m
        x = list(x) if isinstance(x, tuple) else x  # datasets are audited as tuples (hashable inputs)
        return [m(x) for _ in range(n)]

    def __getstate__(self):
        return {"kind": self.kind, "param": self.param, "_m": None, "__name__": self.__name__}


#: δ of the (ε, δ) claims (Gaussian through zCDP → approximate DP, canonical noise)
DELTA = 1e-6
#: candidates and α of the private-quantile entry (datasets of values in 0..10, median)
QUANTILE_CANDIDATES = [float(v) for v in range(11)]


def _scalar_measurement(kind: str, param):
    """The scalar OpenDP measurement of an (ε, δ) or newer entry: ``gaussian_float``/``gaussian_int`` (scale,
    converted zCDP → approximate DP), ``canonical`` (ε: d_out = (ε, DELTA) at d_in = 1), ``top_k`` (scale,
    k = 2 of a score vector), ``quantile`` (scale: the median of a dataset, add/remove one record)."""
    dp = _dp()
    if kind in ("gaussian_float", "gaussian_int"):
        t = float if kind == "gaussian_float" else int
        dom = dp.atom_domain(T=t, nan=False) if t is float else dp.atom_domain(T=t)
        return dp.c.make_zCDP_to_approxDP(dp.m.make_gaussian(dom, dp.absolute_distance(T=t), scale=param))
    if kind == "canonical":
        return dp.m.make_canonical_noise(
            dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), d_in=1.0, d_out=(param, DELTA)
        )
    if kind == "top_k":
        return dp.m.make_noisy_top_k(
            dp.vector_domain(dp.atom_domain(T=float, nan=False)),
            dp.linf_distance(T=float),
            dp.max_divergence(),
            k=2,
            scale=param,
        )
    if kind == "quantile":
        return dp.m.make_private_quantile(
            dp.vector_domain(dp.atom_domain(T=float, nan=False)),
            dp.symmetric_distance(),
            dp.max_divergence(),
            candidates=QUANTILE_CANDIDATES,
            alpha=0.5,
            scale=param,
        )
    raise ValueError(f"unknown OpenDP kind {kind!r}")


def _approx_claim(kind: str, param) -> tuple[float, float]:
    """(ε, δ) the scalar measurement's own privacy map gives at d_in = 1 (ε at δ = DELTA for a profile)."""
    m = _scalar_measurement(kind, param)
    d_in = 1 if kind in ("quantile", "gaussian_int") else 1.0
    out = m.map(d_in)
    if kind.startswith("gaussian"):
        return float(out.epsilon(DELTA)), DELTA
    if isinstance(out, tuple):
        return float(out[0]), float(out[1])
    return float(out), 0.0


def _approx_entry(
    mech,
    where,
    statement,
    kind,
    param_for,
    inputs,
    vector=False,
    pairs=None,
    samples=None,
    pcalc=None,
    label="documented law (real arithmetic)",
):
    """An OpenDP entry whose claim is the measurement's own (ε, δ) (:func:`_approx_claim`); ``pcalc(param,
    claimed, delta)`` is the true-ε calculator of the documented law (ε at the claimed δ)."""

    def make(eps):
        param = param_for(eps)
        claimed, delta = _approx_claim(kind, param)
        build = (lambda: Vectorised(kind, param)) if vector else (lambda: PerCall(kind, param))
        return Case(
            f"eps={claimed:.4g}, delta={delta:g} (param {param:.4g})",
            build,
            inputs,
            claimed,
            delta=delta,
            pairs=pairs,
            true_eps=None if pcalc is None else (lambda: pcalc(param, claimed, delta)),
            calculator=label if pcalc is not None else "",
        )

    register(Entry(f"zoo.opendp.{mech}", LIB, DIST, MODS, where, statement, ADAPTER, grid(make), samples=samples))


def _scalar_eps(kind: str, param) -> float:
    dp = _dp()
    if kind == "laplace_float":
        return float(
            dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=param).map(1.0)
        )
    if kind == "laplace_int":
        return float(dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=param).map(1))
    if kind == "rr_bool":
        return float(dp.m.make_randomized_response_bool(param).map(1))
    if kind == "rr_cat":
        return float(dp.m.make_randomized_response(categories=list(range(param[0])), prob=param[1]).map(1))
    if kind == "noisy_max":
        return float(
            dp.m.make_noisy_max(
                dp.vector_domain(dp.atom_domain(T=float, nan=False)),
                dp.linf_distance(T=float),
                dp.max_divergence(),
                scale=param,
            ).map(1.0)
        )
    raise ValueError(kind)


def _entry(mech, where, statement, kind, param_for, inputs, vector=True, calc=None, pcalc=None):
    """An OpenDP entry whose claim is the scalar privacy map at d_in = 1; ``calc(claimed)`` or ``pcalc(param)``
    is the true-ε calculator of the documented law."""

    def make(eps):
        param = param_for(eps)
        claimed = _scalar_eps(kind, param)
        build = (lambda: Vectorised(kind, param)) if vector else (lambda: PerCall(kind, param))
        true = (lambda: calc(claimed)) if calc is not None else (lambda: pcalc(param)) if pcalc is not None else None
        return Case(
            f"eps={claimed:.4g} (param {param})",
            build,
            inputs,
            claimed,
            true_eps=true,
            calculator="documented (map)" if calc is not None else "documented law (real arithmetic)",
        )

    register(Entry(f"zoo.opendp.{mech}", LIB, DIST, MODS, where, statement, ADAPTER, grid(make)))


_entry(
    "laplace_float",
    "opendp.measurements.make_laplace (float)",
    "make_laplace(atom_domain(float), scale=1/eps) is map(1)-DP",
    "laplace_float",
    lambda e: 1.0 / e,
    [0.0, 1.0],
    calc=calculators.attained,
)
_entry(
    "laplace_int",
    "opendp.measurements.make_laplace (int: discrete Laplace)",
    "make_laplace(atom_domain(int), scale=1/eps) is map(1)-DP",
    "laplace_int",
    lambda e: 1.0 / e,
    [0, 1],
    calc=calculators.attained,
)
_entry(
    "rr_bool",
    "opendp.measurements.make_randomized_response_bool",
    "make_randomized_response_bool(prob) is map(1)-DP",
    "rr_bool",
    lambda e: 1 / (1 + math.exp(-e)),
    [False, True],
    vector=False,
    calc=calculators.attained,
)
_entry(
    "rr_categorical",
    "opendp.measurements.make_randomized_response",
    "make_randomized_response(categories 0..3, prob) is map(1)-DP",
    "rr_cat",
    lambda e: (4, math.exp(e) / (math.exp(e) + 3)),
    [0, 1],
    vector=False,
    calc=calculators.attained,
)
_entry(
    "noisy_max",
    "opendp.measurements.make_noisy_max",
    "make_noisy_max(scores, scale) is map(1)-DP for scores at sup-distance 1",
    "noisy_max",
    lambda e: 2.0 / e,
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
    vector=False,
    pcalc=lambda s: cc.peeling_permute_and_flip(s, {0: [1.0, 0.0, 0.0], 1: [0.0, 1.0, 0.0]}),
)
_approx_entry(
    "gaussian_float",
    "opendp.measurements.make_gaussian (float) + make_zCDP_to_approxDP",
    "make_gaussian(atom_domain(float), scale) is (map(1).epsilon(1e-6), 1e-6)-DP",
    "gaussian_float",
    lambda e: 5.0 / e,
    [0.0, 1.0],
    vector=True,
    pcalc=lambda s, _e, d: cc.gaussian_eps_at_delta(s, d),
    label="exact Gaussian curve: eps at delta",
)
_approx_entry(
    "gaussian_int",
    "opendp.measurements.make_gaussian (int: discrete Gaussian) + make_zCDP_to_approxDP",
    "make_gaussian(atom_domain(int), scale) is (map(1).epsilon(1e-6), 1e-6)-DP",
    "gaussian_int",
    lambda e: 5.0 / e,
    [0, 1],
    vector=True,
    pcalc=lambda s, _e, d: cc.discrete_gaussian_eps_at_delta(s, d),
    label="exact discrete Gaussian curve: eps at delta",
)
_approx_entry(
    "canonical_noise",
    "opendp.measurements.make_canonical_noise",
    "make_canonical_noise(d_in=1, d_out=(eps, 1e-6)) is (eps, 1e-6)-DP",
    "canonical",
    lambda e: e,
    [0.0, 1.0],
    samples=10_000,  # ~400 calls/s
    pcalc=lambda _s, e, _d: calculators.attained(e),
    label="attained by construction: the Tulap law is canonical for f_(eps,delta) (Awan-Vadhan 2023)",
)
_approx_entry(
    "noisy_top_k",
    "opendp.measurements.make_noisy_top_k",
    "make_noisy_top_k(k=2, scale) is map(1)-DP for scores at sup-distance 1",
    "top_k",
    lambda e: 4.0 / e,
    [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]],
    samples=20_000,  # ~900 calls/s
    pcalc=lambda s, _e, _d: cc.peeling_permute_and_flip(s, {0: [1.0, 0.0, 0.0, 0.0], 1: [0.0, 1.0, 0.0, 0.0]}, k=2),
)
# private_quantile: no calculator. Its law is permute-and-flip over integer scores whose scaling (α as a
# rational, the size limit) is fixed only in OpenDP's proof document, not by the documented API.
_approx_entry(
    "private_quantile",
    "opendp.measurements.make_private_quantile",
    "make_private_quantile(candidates 0..10, alpha=0.5, scale) is map(1)-DP (add/remove one record)",
    "quantile",
    lambda e: 1.0 / e,
    [(2.0, 3.0, 5.0, 5.0, 8.0), (2.0, 3.0, 5.0, 5.0, 8.0, 8.0)],
    pairs=[((2.0, 3.0, 5.0, 5.0, 8.0), (2.0, 3.0, 5.0, 5.0, 8.0, 8.0))],
    samples=20_000,
)  # ~1300 calls/s


# ------------------------------------------------------------------ bit-vector randomised response (RAPPOR)
#: bit length, max_weight and inputs of the bit-vector entry: two weight-2 vectors at Hamming distance 2m = 4
BITS, MAX_WEIGHT = 16, 2
BITVEC_INPUTS = [
    tuple(1 if i in (0, 1) else 0 for i in range(BITS)),
    tuple(1 if i in (2, 3) else 0 for i in range(BITS)),
]
#: two weight-3 vectors (one more than max_weight): outside the documented domain
BITVEC_OUTSIDE = [
    tuple(1 if i in (0, 1, 2) else 0 for i in range(BITS)),
    tuple(1 if i in (3, 4, 5) else 0 for i in range(BITS)),
]


class BitvecRR:
    """``(x, n, rng) -> privcheck.PackedBits``: n calls of OpenDP's ``make_randomized_response_bitvec`` on
    ``np.packbits(x).tobytes()``; its packed-bytes output handed to the auditor as packed rows (the output type
    the auditor reads directly, :class:`privcheck.base.packed.PackedBits`: no view, the events are chosen on the bits).
    Padding bits beyond ``len(x)`` in the last byte, if any, are cleared (they carry no input bit)."""

    def __init__(self, f: float):
        self.f, self._m = f, None
        self.__name__ = "opendp.rr_bitvec"

    def __call__(self, x, n, rng):
        import numpy as np

        from privcheck.base.packed import PackedBits, n_bytes, padding_mask

        if self._m is None:
            self._m = _bitvec_measurement(self.f)
        d = len(x)
        data = np.packbits(np.asarray(x, dtype=np.uint8)).tobytes()
        raw = b"".join(self._m(data) for _ in range(n))
        rows = np.frombuffer(raw, dtype=np.uint8).reshape(n, -1)[:, : n_bytes(d)].copy()
        rows[:, -1] &= np.uint8(padding_mask(d))
        return PackedBits(rows, d)

    def __getstate__(self):
        return {"f": self.f, "_m": None, "__name__": self.__name__}


def _bitvec_measurement(f: float):
    dp = _dp()
    return dp.m.make_randomized_response_bitvec(dp.bitvector_domain(max_weight=MAX_WEIGHT), dp.discrete_distance(), f=f)


def _bitvec_f(eps: float) -> float:
    """Flip probability f with map(1) = 2m log((2 − f)/f) = eps (OpenDP's documented privacy map)."""
    return 2.0 / (1.0 + math.exp(eps / (2 * MAX_WEIGHT)))


def _bitvec_cases() -> list[Case]:
    def make(eps):
        f = _bitvec_f(eps)
        claimed = float(_bitvec_measurement(f).map(1))
        return Case(
            f"eps={claimed:.4g} (f={f:.4g}, {BITS} bits, max_weight={MAX_WEIGHT})",
            lambda: BitvecRR(f),
            BITVEC_INPUTS,
            claimed,
            true_eps=lambda: cc.bitvector_rr(f, BITVEC_INPUTS),
            calculator="documented law (real arithmetic)",
        )

    cases = grid(make)()
    f = _bitvec_f(1.0)
    claimed = float(_bitvec_measurement(f).map(1))
    cases.append(
        Case(
            f"eps={claimed:.4g}, inputs of weight {MAX_WEIGHT + 1} (outside max_weight={MAX_WEIGHT})",
            lambda: BitvecRR(f),
            BITVEC_OUTSIDE,
            claimed,
            outside=True,
            true_eps=lambda: cc.bitvector_rr(f, BITVEC_OUTSIDE),
            calculator="documented per-bit law on the accepted inputs (real arithmetic)",
        )
    )
    return cases


register(
    Entry(
        "zoo.opendp.rr_bitvec",
        LIB,
        DIST,
        MODS,
        "opendp.measurements.make_randomized_response_bitvec",
        f"make_randomized_response_bitvec(bitvector_domain(max_weight={MAX_WEIGHT}), f) is map(1) = "
        f"2*max_weight*ln((2-f)/f)-DP under the discrete distance (packed bytes in and out)",
        "(x, n, rng) -> PackedBits(m(packbits(x).tobytes())) per call",
        _bitvec_cases,
        samples=20_000,
    )
)
