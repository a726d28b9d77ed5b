"""multi-freq-ldpy (Arcolezi et al.) clients: ``zoo.multi_freq_ldpy.*``.

Clients are functions ``X_Client(input_data, k, epsilon, ...)`` drawing from ``numpy.random`` — several are
numba-compiled, whose random state numpy's seeding does not reach (the audit reports them as not
reproducible). Adapter: ``privcheck.per_sample(lambda x: X_Client(x, k, epsilon), seed_global=True)``.
Items are 0..k−1; the input just outside the domain is k. The longitudinal ``L_*`` clients are audited as
one report with a fresh memoisation per call (claimed ε = eps_1, the first report's guarantee, with
eps_perm = 2·eps_1 > eps_1 as the library requires). The multidimensional SMP/SPL/RS+FD clients (and their
longitudinal SMP_L_*/SPL_L_* forms) take a tuple of ``MDIM_D`` attributes, each over ``k`` values; the audited
inputs differ in every attribute (LDP protects the whole tuple), the input outside the domain has value k in
the first attribute.

Every case carries a true-ε calculator (:mod:`.calculators_ldp`) that reads the library's own probability
formulas from its source (:func:`~privcheck.catalogue.zoo.calculators_ldp.library_probabilities`). Findings:

- RS+FD (``RSpFD_*_Client``; Arcolezi et al. 2021): the report (the tuple, the sampled attribute hidden) has
  exact ε = ln(d(e^ε−1)+1) between tuples differing in every attribute (1.4899 at claimed 1, d = 2), for
  all four variants; between tuples differing in ONE attribute it is exactly ε for GRR, UE-zero and ADP
  (the paper's amplification argument covers that case), but 1.1821 at claimed 1 (d = 2, k = 4) for UE-rnd,
  whose random fake data does not cancel. The zoo keeps the whole-tuple reading (LDP protects the user's
  report); see benchmarks/rsfd_finding.py.
- L-GRR (and L-OLH, L-ADP where it picks L-GRR, SMP/SPL_L_GRR): the second-round probability p2 solves the
  two-value equation, so the chained report is exactly eps_1-LDP for k = 2 and *more* private for k > 2
  (0.1177 at claimed 0.25, 0.7553 at claimed 1, k = 8): the claim holds, and a certified fraction above
  true/claimed cannot be reached.
"""

from __future__ import annotations

import functools
import math

import privcheck
from privcheck.catalogue.zoo import calculators, calculators_ldp
from privcheck.catalogue.zoo.engine import Case, Entry, grid, register

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
        return Case(
            f"eps={eps:g}, k={k}"
            + (", eps_perm=2eps" if longitudinal else "")
            + (", input k (outside)" if outside else ""),
            lambda: _sampler(module, name, args, kw),
            inputs,
            eps,
            true_eps=None if calc is None else functools.partial(calc, eps, k),
            calculator="documented probabilities",
            outside=outside,
        )

    def build():
        cases = grid(make, k=domains)()
        cases.append(make(1.0, domains[0], outside=True))
        return cases

    register(
        Entry(
            f"zoo.multi_freq_ldpy.{mech}",
            LIB,
            DIST,
            MODS,
            f"multi_freq_ldpy.{module}.{name}",
            statement,
            ADAPTER,
            build,
        )
    )


def _adp(eps, k, optimal=True):
    # ADP: GRR when its variance is smaller (k < 3e^eps + 2), else OUE/SUE (multi_freq_ldpy ADP.py)
    return calculators.grr(eps, k) if k < 3 * math.exp(eps) + 2 else calculators.oue(eps)


def _lh_g(eps, optimal):
    return int(round(math.exp(eps))) + 1 if optimal else 2


PFO = "pure_frequency_oracles"
_entry("grr", f"{PFO}.GRR", "GRR_Client", "GRR_Client(x, k, epsilon) is epsilon-LDP", calculators.grr)
_entry(
    "oue",
    f"{PFO}.UE",
    "UE_Client",
    "UE_Client(x, k, epsilon, optimal=True) (OUE) is epsilon-LDP",
    lambda e, k: calculators.oue(e),
    {"optimal": True},
)
_entry(
    "sue",
    f"{PFO}.UE",
    "UE_Client",
    "UE_Client(x, k, epsilon, optimal=False) (SUE) is epsilon-LDP",
    lambda e, k: calculators.sue(e),
    {"optimal": False},
)
_entry(
    "olh",
    f"{PFO}.LH",
    "LH_Client",
    "LH_Client(x, k, epsilon, optimal=True) (OLH) is epsilon-LDP",
    lambda e, k: calculators.local_hashing(e, _lh_g(e, True)),
    {"optimal": True},
)
_entry(
    "blh",
    f"{PFO}.LH",
    "LH_Client",
    "LH_Client(x, k, epsilon, optimal=False) (BLH) is epsilon-LDP",
    lambda e, k: calculators.local_hashing(e, 2),
    {"optimal": False},
)
_entry(
    "he",
    f"{PFO}.HE",
    "HE_Client",
    "HE_Client(x, k, epsilon) (histogram encoding) is epsilon-LDP",
    lambda e, k: calculators.attained(e),
)
_entry(
    "ss",
    f"{PFO}.SS",
    "SS_Client",
    "SS_Client(x, k, epsilon) (subset selection) is epsilon-LDP",
    lambda e, k: calculators.subset(e, k, max(1, int(round(k / (math.exp(e) + 1))))),
)
_entry("adp", f"{PFO}.ADP", "ADP_Client", "ADP_Client(x, k, epsilon) (adaptive GRR/OUE) is epsilon-LDP", _adp)


# ------------------------------------------------------------------ true-ε calculators from the library's own formulas
def _probs(module: str, name: str, names, **env) -> dict:
    """The probabilities ``multi_freq_ldpy.<module>.<name>`` computes (its source lines, evaluated with ``env``)."""
    return calculators_ldp.library_probabilities(_fn(module, name), names, **env)


def _grr_keep(eps, k: int) -> float:
    """GRR_Client's keep probability p = e^ε/(e^ε+k−1) (pure_frequency_oracles/GRR.py)."""
    return _probs(f"{PFO}.GRR", "GRR_Client", ["p"], epsilon=eps, k=k)["p"]


def _long_env(eps: float, k: int) -> dict:
    return dict(k=k, eps_perm=2 * eps, eps_1=eps)


def _l_grr(eps: float, k: int) -> float:
    """L-GRR (long_freq_est/L_GRR.py): GRR_Client(x, k, eps_perm) then GRR_Client(·, k, eps_sec_round), with the
    library's eps_sec_round = log(p2/q2); exact ε of the chained report (eps_perm = 2ε, eps_1 = ε)."""
    sec = _probs("long_freq_est.L_GRR", "L_GRR_Client", ["p1", "q1", "p2", "q2", "eps_sec_round"], **_long_env(eps, k))[
        "eps_sec_round"
    ]
    return calculators_ldp.chained_grr(_grr_keep(2 * eps, k), _grr_keep(sec, k), k)


def _l_ue(name: str):
    """L-OUE/L-SUE/L-OSUE/L-SOUE (long_freq_est/L_<name>.py): two unary rounds with the library's p1, q1, p2, q2."""

    def calc(eps: float, k: int) -> float:
        pr = _probs(f"long_freq_est.L_{name}", f"L_{name}_Client", ["p1", "q1", "p2", "q2"], **_long_env(eps, k))
        return calculators_ldp.chained_unary(pr["p1"], pr["q1"], pr["p2"], pr["q2"])

    return calc


def _l_lh(eps: float, k: int) -> float:
    """L-OLH (long_freq_est/L_LH.py, optimal=True): xxh32(x, seed) mod g (seed public in the report), then L-GRR
    over [g] with the library's g; ε is L-GRR's over [g] once some seed separates the audited items 0, 1."""
    g = _probs("long_freq_est.L_LH", "L_LH_Client", ["alpha", "g"], optimal=True, **_long_env(eps, k))["g"]
    return _l_grr(eps, g) if calculators_ldp.lh_separated((0, 1), g) else 0.0


def _l_adp(eps: float, k: int) -> float:
    """L-ADP (long_freq_est/L_ADP.py): L-GRR if the library's VAR_Long_Pure of L-GRR ≤ that of L-OSUE, else L-OSUE."""
    names = ["p1_grr", "q1_grr", "p2_grr", "q2_grr", "p1_ue", "q1_ue", "p2_ue", "q2_ue"]
    pr = _probs("long_freq_est.L_ADP", "L_ADP_Client", names, **_long_env(eps, k))
    var = _fn("long_freq_est.L_ADP", "VAR_Long_Pure")
    grr = var(*(pr[n] for n in names[:4])) <= var(*(pr[n] for n in names[4:]))
    return _l_grr(eps, k) if grr else _l_ue("OSUE")(eps, k)


_LONG = {
    "GRR": _l_grr,
    "OUE": _l_ue("OUE"),
    "SUE": _l_ue("SUE"),
    "OSUE": _l_ue("OSUE"),
    "SOUE": _l_ue("SOUE"),
    "LH": _l_lh,
    "ADP": _l_adp,
}
for _m in ("GRR", "OUE", "SUE", "OSUE", "SOUE", "LH", "ADP"):
    _entry(
        f"l_{_m.lower()}",
        f"long_freq_est.L_{_m}",
        f"L_{_m}_Client",
        f"L_{_m}_Client(x, k, eps_perm, eps_1): one report is eps_1-LDP (eps_perm = 2 eps_1)",
        _LONG[_m],
        longitudinal=True,
    )


# ------------------------------------------------------------------ multidimensional clients (tuple inputs)
#: attributes per tuple
MDIM_D = 2


def _mdim_entry(mech, module, name, statement, calc=None, kw=None, k=4, longitudinal=False):
    """``X_Client(tuple, [k]*d, d, epsilon[, ...])`` (or ``(tuple, lst_k, d, eps_perm, eps_1)``)."""
    kw = kw or {}
    d = MDIM_D

    def make(eps, outside=False):
        args = ([k] * d, d, 2 * eps, eps) if longitudinal else ([k] * d, d, eps)
        inputs = [(0,) * d, (k,) + (1,) * (d - 1)] if outside else [(0,) * d, (1,) * d]
        return Case(
            f"eps={eps:g}, d={d}, k={k}"
            + (", eps_perm=2eps" if longitudinal else "")
            + (", first attribute k (outside)" if outside else ""),
            lambda: _sampler(module, name, args, kw),
            inputs,
            eps,
            true_eps=None if calc is None else functools.partial(calc, eps, k, d),
            calculator="documented probabilities",
            outside=outside,
        )

    register(
        Entry(
            f"zoo.multi_freq_ldpy.{mech}",
            LIB,
            DIST,
            MODS,
            f"multi_freq_ldpy.{module}.{name}",
            statement,
            "per_sample(lambda t: X_Client(t, lst_k, d, epsilon, ...), seed_global=True)",
            lambda: grid(make)() + [make(1.0, outside=True)],
        )
    )


def _smp(single):
    """SMP: one attribute sampled uniformly (independent of the input) and reported with the whole ε, the
    index included: the exact ε is the single-attribute ε (a public mixture of equal laws)."""
    return lambda eps, k, d: single(eps, k)


def _spl(single):
    """SPL: every attribute reported with ε/d independently; inputs differing in all attributes: the exact ε
    of the product is the sum of the attributes' exact ε."""
    return lambda eps, k, d: d * single(eps / d, k)


_SINGLE = {
    "GRR": calculators.grr,
    "UE": lambda e, k: calculators.oue(e),
    "ADP": _adp,
    "LH": lambda e, k: calculators.local_hashing(e, _lh_g(e, True)),
    "SS": lambda e, k: calculators.subset(e, k, max(1, int(round(k / (math.exp(e) + 1))))),
}
for _m, _what in (("GRR", "GRR"), ("UE", "OUE"), ("LH", "OLH"), ("SS", "subset selection"), ("ADP", "adaptive")):
    _mdim_entry(
        f"smp_{_m.lower()}",
        "mdim_freq_est.SMP_solution",
        f"SMP_{_m}_Client",
        f"SMP_{_m}_Client(tuple, lst_k, d, epsilon) (sample one attribute, {_what}) is epsilon-LDP",
        _smp(_SINGLE[_m]),
    )
    _mdim_entry(
        f"spl_{_m.lower()}",
        "mdim_freq_est.SPL_solution",
        f"SPL_{_m}_Client",
        f"SPL_{_m}_Client(tuple, lst_k, d, epsilon) (split epsilon/d over attributes, {_what}) is epsilon-LDP",
        _spl(_SINGLE[_m]),
    )
RSFD = "mdim_freq_est.RSpFD_solution"


def rs_fd_eps(kind: str, eps: float, k: int, d: int, x: tuple | None = None, x2: tuple | None = None) -> float:
    """Exact ε of RSpFD_<kind>_Client(·, [k]*d, d, eps) (kind GRR, UE_zero, UE_rnd, ADP; optimal=True) between the
    tuples ``x`` and ``x2`` (default (0,…,0) and (1,…,1), the audited pair), from the library's amp_eps,
    GRR/UE probabilities and ADP rule (mdim_freq_est/RSpFD_solution.py; Arcolezi et al. 2021, CIKM)."""
    x = (0,) * d if x is None else x
    x2 = (1,) * d if x2 is None else x2
    law, fake = rs_fd_laws(kind, eps, k, d)
    return calculators_ldp.rs_fd([law] * d, [fake] * d, x, x2)


def rs_fd_laws(kind: str, eps: float, k: int, d: int):
    """(law of the sampled attribute's report as x → pmf, pmf of a fake report) of RSpFD_<kind>_Client, every
    attribute over [k], from the library's amp_eps, GRR/UE probabilities and ADP rule."""
    env = dict(d=d, epsilon=eps, optimal=True, idx=0, lst_k=[k] * d)
    if kind == "ADP":
        pr = _probs(RSFD, "RSpFD_ADP_Client", ["amp_eps", "k", "p_grr", "q_grr", "p_ue", "q_ue"], **env)
        grr = _fn(RSFD, "VAR_RSpFD_GRR")(pr["p_grr"], pr["q_grr"], k, d) <= _fn(RSFD, "VAR_RSpFD_UE_zero")(
            pr["p_ue"], pr["q_ue"], d
        )
        kind = "GRR" if grr else "UE_zero"
    amp = _probs(RSFD, f"RSpFD_{kind}_Client", ["amp_eps"], **env)["amp_eps"]
    if kind == "GRR":
        law, fake = calculators_ldp.grr_pmf(_grr_keep(amp, k), k), calculators_ldp.uniform_pmf(k)
    else:
        pq = _probs(f"{PFO}.UE", "UE_Client", ["p", "q"], epsilon=amp, k=k, optimal=True)
        law = calculators_ldp.unary_pmf(pq["p"], pq["q"], k)
        fake = law(None) if kind == "UE_zero" else calculators_ldp.mixture_pmf(law, k)
    return law, fake


for _n, _what in (
    ("GRR", "GRR"),
    ("UE_zero", "UE, fake data from zeros"),
    ("UE_rnd", "UE, fake data at random"),
    ("ADP", "adaptive"),
):
    _mdim_entry(
        f"rspfd_{_n.lower()}",
        RSFD,
        f"RSpFD_{_n}_Client",
        f"RSpFD_{_n}_Client(tuple, lst_k, d, epsilon) (random sampling plus fake data, {_what}) is epsilon-LDP",
        functools.partial(rs_fd_eps, _n),
    )
for _m in ("GRR", "OUE", "OSUE", "SUE", "SOUE", "ADP"):
    for _sol, _mod in (("SMP", "L_SMP_Solution"), ("SPL", "L_SPL_Solution")):
        _mdim_entry(
            f"{_sol.lower()}_l_{_m.lower()}",
            f"long_mdim_freq_est.{_mod}",
            f"{_sol}_L_{_m}_Client",
            f"{_sol}_L_{_m}_Client(tuple, lst_k, d, eps_perm, eps_1): one report is eps_1-LDP (eps_perm = 2 eps_1)",
            (_smp if _sol == "SMP" else _spl)(_LONG[_m]),
            longitudinal=True,
        )


def _dbit_calc(eps: float, k: int, b: int, d_bits: int) -> float:
    """Exact ε of dBitFlipPM_Client between 0 and k−1 (different buckets) with the library's p1, q1."""
    pr = _probs("long_freq_est.dBitFlipPM", "dBitFlipPM_Client", ["p1", "q1"], eps_perm=eps, k=k, b=b, d_bits=d_bits)
    return calculators_ldp.bit_flip_pm(pr["p1"], pr["q1"], k, b, d_bits, [0, k - 1])


def _dbit_entry() -> None:
    """dBitFlipPM_Client(x, k, b, d_bits, eps_perm) (Ding et al. 2017): one memoised report is eps_perm-LDP."""

    def make(eps, outside=False):
        k, b, d_bits = 8, 4, 2
        inputs = [0, k] if outside else [0, k - 1]  # 0 and k-1 fall in different buckets
        return Case(
            f"eps={eps:g}, k={k}, b={b}, d_bits={d_bits}" + (", input k (outside)" if outside else ""),
            lambda: _sampler("long_freq_est.dBitFlipPM", "dBitFlipPM_Client", (k, b, d_bits, eps), {}),
            inputs,
            eps,
            outside=outside,
            calculator="documented probabilities",
            true_eps=functools.partial(_dbit_calc, eps, k, b, d_bits),
        )

    register(
        Entry(
            "zoo.multi_freq_ldpy.dbitflippm",
            LIB,
            DIST,
            MODS,
            "multi_freq_ldpy.long_freq_est.dBitFlipPM.dBitFlipPM_Client",
            "dBitFlipPM_Client(x, k, b, d_bits, eps_perm) (d-bit flipping, memoised) is eps_perm-LDP",
            ADAPTER,
            lambda: grid(make)() + [make(1.0, outside=True)],
        )
    )


_dbit_entry()
