"""Peer audit of dp-accounting (Google): PLD and RDP accountants, calibration, advanced composition."""

from __future__ import annotations

from typing import Callable

from privcheck.catalogue.peers.core import Query, RunContext, _Peer, _q, _rr_noise, _steps, register
from privcheck.catalogue.peers.events import (
    CALIBRATION_TARGETS,
    LARGE_EPS_DPSGD,
    LONG_RUN_DPSGD,
    Ev,
    approx,
    discrete_laplace,
    gaussian,
    laplace,
    rr,
    subsampled_gaussian,
    subsampled_laplace,
)

# ---------------------------------------------------------------- dp-accounting
_DPA = "import dp_accounting as dpa\nfrom dp_accounting.pld import pld_privacy_accountant as pa\n"
_REL = {"add_remove": "ADD_OR_REMOVE_ONE", "replace_one": "REPLACE_ONE"}


def _dpa_pld(
    label: str,
    event: str,
    events: tuple[Ev, ...],
    relation: str = "add_remove",
    target: str = "eps",
    at: float = 1e-5,
    **kw,
) -> Query:
    body = _DPA + f"acc = pa.PLDAccountant(dpa.NeighboringRelation.{_REL[relation]})\nacc.compose({event})\n"
    expr = f"acc.get_epsilon({at!r})" if target == "eps" else f"acc.get_delta({at!r})"
    return _q(label, body, expr, events=events, relation=relation, target=target, at=at, role="upper", **kw)


def _pld_gaussian_queries() -> list[Query]:
    """PLDAccountant on Gaussian compositions: both targets, tiny δ, mixed σ, replace-one."""
    g1 = "dpa.GaussianDpEvent(1.0)"
    return [
        _dpa_pld("Gaussian σ=1, ε(δ=1e-5)", g1, (gaussian(1.0),)),
        _dpa_pld("Gaussian σ=1, δ(ε=1)", g1, (gaussian(1.0),), target="delta", at=1.0),
        _dpa_pld(
            "100 × Gaussian σ=10",
            "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(10.0), 100)",
            (gaussian(10.0, count=100),),
        ),
        _dpa_pld("Gaussian σ=1 at δ=1e-12", g1, (gaussian(1.0),), at=1e-12),
        _dpa_pld("Gaussian σ=1 at δ=1e-50", g1, (gaussian(1.0),), at=1e-50, note="known pitfall: inf below ~1e-20"),
        _dpa_pld(
            "10 × Gaussian σ=2 + 50 × Gaussian σ=5",
            "dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(2.0), 10), "
            "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(5.0), 50)])",
            (gaussian(2.0, count=10), gaussian(5.0, count=50)),
            at=1e-6,
        ),
        _dpa_pld(
            "replace-one: 10 × Gaussian σ=4",
            "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(4.0), 10)",
            (gaussian(4.0, sensitivity=2.0, count=10),),
            relation="replace_one",
            note="REPLACE_ONE shifts both means by the sensitivity: neighbouring distance 2",
        ),
    ]


def _pld_discrete_queries() -> list[Query]:
    """PLDAccountant on Laplace, randomized response (with counts and one by one) and discrete Laplace."""
    p01, p1 = _rr_noise(0.1, 2), _rr_noise(1.0, 4)
    return [
        _dpa_pld("Laplace b=1", "dpa.LaplaceDpEvent(1.0)", (laplace(1.0),)),
        _dpa_pld("Laplace b=1, δ(ε=0.5)", "dpa.LaplaceDpEvent(1.0)", (laplace(1.0),), target="delta", at=0.5),
        _dpa_pld("10 × Laplace b=2", "dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(2.0), 10)", (laplace(2.0, 10),)),
        _dpa_pld(
            "replace-one: 400 × RR ε=0.1",
            f"dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent({p01!r}, 2), 400)",
            (rr(0.1, 2, 400),),
            relation="replace_one",
            note="found here: PLDAccountant drops the count of a RandomizedResponseDpEvent "
            "(compose(event, 400) and SelfComposedDpEvent compose it once)",
        ),
        _q(
            "replace-one: 400 × RR ε=0.1, composed one by one",
            _DPA + "acc = pa.PLDAccountant(dpa.NeighboringRelation.REPLACE_ONE)\n"
            f"for _ in range(400):\n    acc.compose(dpa.RandomizedResponseDpEvent({p01!r}, 2))\n",
            "acc.get_epsilon(1e-05)",
            events=(rr(0.1, 2, 400),),
            relation="replace_one",
            target="eps",
            at=1e-5,
            role="upper",
            note="the same composition without counts",
        ),
        _dpa_pld(
            "replace-one: 20 × 4-RR ε=1",
            f"dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent({p1!r}, 4), 20)",
            (rr(1.0, 4, 20),),
            relation="replace_one",
        ),
        _dpa_pld(
            "10 × discrete Laplace a=1, Δ=1",
            "dpa.SelfComposedDpEvent(dpa.dp_event.DiscreteLaplaceDpEvent(1.0, 1), 10)",
            (discrete_laplace(1.0, 1, 10),),
        ),
    ]


def _pld_dpsgd(q: float, s: float, n: int, label: str, **kw) -> Query:
    """PLDAccountant on DP-SGD: ``n`` Poisson(``q``)-subsampled Gaussians of noise multiplier ``s``."""
    event = f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent({q!r}, dpa.GaussianDpEvent({s!r})), {n})"
    return _dpa_pld(label, event, (subsampled_gaussian(q, s, n),), **kw)


def _pld_subsampled_queries(T: int, quick: bool) -> list[Query]:
    """PLDAccountant on subsampled mechanisms; the full run adds tiny δ, large ε and long runs."""
    qs = [
        _pld_dpsgd(0.01, 1.1, T, f"DP-SGD q=0.01 σ=1.1 T={T}"),
        _dpa_pld(
            "100 × Poisson(q=0.1) Laplace b=1",
            "dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.1, dpa.LaplaceDpEvent(1.0)), 100)",
            (subsampled_laplace(0.1, 1.0, 100),),
        ),
    ]
    if quick:
        return qs
    qs += [
        _pld_dpsgd(0.01, 1.1, T, f"DP-SGD q=0.01 σ=1.1 T={T} at δ=1e-12", at=1e-12),
        _pld_dpsgd(0.01, 1.1, T, f"DP-SGD q=0.01 σ=1.1 T={T}, δ(ε=5)", target="delta", at=5.0),
    ]
    for q, s, n in LARGE_EPS_DPSGD + (LONG_RUN_DPSGD,):
        regime = "large-ε regime" if q >= 0.5 else "long run"
        qs.append(_pld_dpsgd(q, s, n, f"DP-SGD q={q} σ={s} T={n} ({regime})"))
    # large ε: one Gaussian at σ = 0.3 (ε ≈ 19 at δ = 1e-5; 26 at 1e-10)
    return qs + [
        _dpa_pld(f"Gaussian σ=0.3 at δ={d:g} (large ε)", "dpa.GaussianDpEvent(0.3)", (gaussian(0.3),), at=d)
        for d in (1e-5, 1e-10)
    ]


_OBJS = "from dp_accounting.pld import privacy_loss_distribution as pld\n"
_OPTIMISTIC = "pessimistic_estimate=False: the optimistic discretisation, a lower bound"


def _pld_object(label: str, body: str, expr: str, events: tuple[Ev, ...], at: float, role: str, note: str = ""):
    """A query of dp_accounting's PLD objects (``privacy_loss_distribution``) for ε at δ = ``at``."""
    return _q(
        label, _OBJS + body, expr, events=events, relation="add_remove", target="eps", at=at, role=role, note=note
    )


def _pld_object_queries() -> list[Query]:
    """dp_accounting's PLD objects: the optimistic discretisation (a lower bound), a coarse grid, a mix."""
    g10 = (gaussian(10.0, count=100),)
    return [
        _pld_object(
            "PLD object, optimistic: DP-SGD q=0.01 σ=1.1 T=10000 at δ=1e-10 (long horizon, tiny δ)",
            "p = pld.from_gaussian_mechanism(1.1, sampling_prob=0.01, pessimistic_estimate=False, "
            "use_connect_dots=False).self_compose(10000)\n",
            "p.get_epsilon_for_delta(1e-10)",
            (subsampled_gaussian(0.01, 1.1, 10_000),),
            1e-10,
            "lower",
            _OPTIMISTIC + " (its reported lower end)",
        ),
        _pld_object(
            "PLD object, optimistic: 100 × Gaussian σ=10",
            "p = pld.from_gaussian_mechanism(10.0, pessimistic_estimate=False).self_compose(100)\n",
            "p.get_epsilon_for_delta(1e-05)",
            g10,
            1e-5,
            "lower",
            _OPTIMISTIC,
        ),
        _pld_object(
            "PLD object, coarse interval 0.05: 100 × Gaussian σ=10",
            "p = pld.from_gaussian_mechanism(10.0, value_discretization_interval=0.05).self_compose(100)\n",
            "p.get_epsilon_for_delta(1e-05)",
            g10,
            1e-5,
            "upper",
        ),
        _pld_object(
            "PLD objects: Gaussian σ=2 + Laplace b=1 + RR ε=1",
            "p = pld.from_gaussian_mechanism(2.0).compose(pld.from_laplace_mechanism(1.0))"
            f".compose(pld.from_randomized_response({_rr_noise(1.0, 2)!r}, 2))\n",
            "p.get_epsilon_for_delta(1e-5)",
            (gaussian(2.0), laplace(1.0), rr(1.0, 2)),
            1e-5,
            "upper",
            "the accountant object refuses this mix; built from PLD objects",
        ),
    ]


def dp_accounting_pld_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's PLDAccountant (pessimistic PLD, interval 1e-4) and its PLD objects."""
    T = _steps(ctx, 10_000, 1_000)
    return (
        _pld_gaussian_queries()
        + _pld_discrete_queries()
        + _pld_subsampled_queries(T, ctx.quick)
        + _pld_object_queries()
    )


def _dpa_rdp(
    label: str,
    event: str,
    events: tuple[Ev, ...],
    target: str = "eps",
    at: float = 1e-5,
    relation: str = "add_remove",
    **kw,
) -> Query:
    rel = "" if relation == "add_remove" else f"neighboring_relation=dpa.NeighboringRelation.{_REL[relation]}"
    body = (
        "import dp_accounting as dpa\nfrom dp_accounting.rdp import rdp_privacy_accountant as ra\n"
        f"acc = ra.RdpAccountant({rel})\nacc.compose({event})\n"
    )
    expr = f"acc.get_epsilon({at!r})" if target == "eps" else f"acc.get_delta({at!r})"
    return _q(label, body, expr, events=events, relation=relation, target=target, at=at, role="upper", **kw)


def dp_accounting_rdp_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's RdpAccountant (default orders, add/remove), out to long horizons, tiny δ and large ε."""
    T = _steps(ctx, 10_000, 1_000)
    sg = "dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent({q!r}, dpa.GaussianDpEvent({s!r})), {n})"
    tails = [
        _dpa_rdp(
            "DP-SGD q=0.001 σ=0.8 T=100000 (long horizon)",
            sg.format(q=0.001, s=0.8, n=100_000),
            (subsampled_gaussian(0.001, 0.8, 100_000),),
        ),
        _dpa_rdp(
            "DP-SGD q=0.01 σ=1.1 T=10000 at δ=1e-12 (tiny δ)",
            sg.format(q=0.01, s=1.1, n=10_000),
            (subsampled_gaussian(0.01, 1.1, 10_000),),
            at=1e-12,
        ),
        _dpa_rdp("Gaussian σ=0.3 (large ε)", "dpa.GaussianDpEvent(0.3)", (gaussian(0.3),)),
    ]
    return (
        tails
        + [
            _dpa_rdp(
                "100 × Gaussian σ=10",
                "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(10.0), 100)",
                (gaussian(10.0, count=100),),
            ),
            _dpa_rdp("Gaussian σ=1 at δ=1e-12", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), at=1e-12),
            _dpa_rdp("Gaussian σ=1, δ(ε=2)", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), target="delta", at=2.0),
            _dpa_rdp(
                "10 × Gaussian σ=2 + 50 × Gaussian σ=5",
                "dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(2.0), 10), "
                "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(5.0), 50)])",
                (gaussian(2.0, count=10), gaussian(5.0, count=50)),
                at=1e-6,
            ),
            _dpa_rdp("10 × Laplace b=2", "dpa.SelfComposedDpEvent(dpa.LaplaceDpEvent(2.0), 10)", (laplace(2.0, 10),)),
            _dpa_rdp(
                "replace-one: 400 × RR ε=0.1",
                f"dpa.SelfComposedDpEvent(dpa.RandomizedResponseDpEvent({_rr_noise(0.1, 2)!r}, 2), 400)",
                (rr(0.1, 2, 400),),
                relation="replace_one",
            ),
            _dpa_rdp(
                f"DP-SGD q=0.01 σ=1.1 T={T}",
                f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), {T})",
                (subsampled_gaussian(0.01, 1.1, T),),
            ),
        ]
        + (
            []
            if ctx.quick
            else [
                _dpa_rdp(
                    f"DP-SGD q={q} σ={s} T={n} (large-ε regime)",
                    f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent({q!r}, dpa.GaussianDpEvent({s!r})), {n})",
                    (subsampled_gaussian(q, s, n),),
                )
                for q, s, n in LARGE_EPS_DPSGD
            ]
        )
    )


_RA = "from dp_accounting.rdp import rdp_privacy_accountant as ra\n"
_PA = "from dp_accounting.pld import pld_privacy_accountant as pa\n"
_CAL_HEAD = "import dp_accounting as dpa\nfrom dp_accounting.pld import accountant as pacc, common\n"


def _calibration(label: str, expr: str, claim_eps: float, events_for: Callable, at: float = 1e-5, imports: str = ""):
    """A calibration query: ``expr`` returns a parameter that should achieve ``claim_eps`` at δ = ``at``."""
    return _q(
        label,
        _CAL_HEAD + imports,
        expr,
        relation="add_remove",
        target="eps",
        at=at,
        role="calibration",
        claim_eps=claim_eps,
        events_for=events_for,
    )


def _gaussian_eps(sigma: float, delta: str) -> Query:
    """dp_accounting's analytic Gaussian ε(δ) (an upper bound); ``delta`` as written in the label and the code."""
    return _q(
        f"get_epsilon_gaussian(σ={sigma:g}, δ={delta})",
        _CAL_HEAD,
        f"dpa.get_epsilon_gaussian({sigma!r}, {delta})",
        events=(gaussian(sigma),),
        relation="add_remove",
        target="eps",
        at=float(delta),
        role="upper",
    )


def _dpsgd_calibration(accountant: str, imports: str, steps: int, eps: float) -> Query:
    """calibrate_dp_mechanism(``accountant``) of DP-SGD q=0.01 over ``steps`` steps to (``eps``, 1e-5)."""
    return _calibration(
        f"calibrate_dp_mechanism({accountant}, DP-SGD q=0.01 T={steps}, ({eps:g}, 1e-5))",
        f"dpa.calibrate_dp_mechanism({imports.split()[-1]}.{accountant}, lambda z: dpa.SelfComposedDpEvent("
        f"dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(z)), {steps}), {eps!r}, 1e-5)",
        eps,
        lambda z: (subsampled_gaussian(0.01, z, steps),),
        imports=imports,
    )


def dp_accounting_calibration_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's calibration helpers: analytic Gaussian, PLD smallest noise, calibrate_dp_mechanism."""
    T = _steps(ctx, 10_000, 1_000)
    P = "common.DifferentialPrivacyParameters(1.0, 1e-5)"
    qs = [
        _calibration("get_sigma_gaussian(ε=1, δ=1e-5)", "dpa.get_sigma_gaussian(1.0, 1e-5)", 1.0, _gaussian_of),
        _gaussian_eps(1.0, "1e-5"),
        _gaussian_eps(1.0, "1e-50"),
        _calibration(
            "get_sigma_gaussian(ε=15, δ=1e-50)", "dpa.get_sigma_gaussian(15.0, 1e-50)", 15.0, _gaussian_of, at=1e-50
        ),
        _calibration(
            "PLD get_smallest_gaussian_noise((1, 1e-5), 10 queries)",
            f"pacc.get_smallest_gaussian_noise({P}, 10)",
            1.0,
            lambda s: (gaussian(s, count=10),),
        ),
        _calibration(
            "PLD get_smallest_laplace_noise((1, 1e-5), 5 queries)",
            f"pacc.get_smallest_laplace_noise({P}, 5)",
            1.0,
            lambda b: (laplace(b, 5),),
        ),
        _dpsgd_calibration("RdpAccountant", _RA, T, 5.0),
    ]
    if ctx.quick:
        return qs
    qs += [
        _calibration(f"get_sigma_gaussian(ε={e}, δ=1e-5)", f"dpa.get_sigma_gaussian({e!r}, 1e-5)", e, _gaussian_of)
        for e in CALIBRATION_TARGETS + (50.0,)
    ]
    return qs + [_dpsgd_calibration("PLDAccountant", _PA, 200, 1.0)]


def _gaussian_of(sigma: float) -> tuple[Ev, ...]:
    """The events a calibrated Gaussian noise scale ``sigma`` implies: one Gaussian."""
    return (gaussian(sigma),)


def dp_accounting_advanced_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's advanced_composition (Kairouz–Oh–Viswanath, on its grid ε(T − 2i)) and its inverse."""
    head = "from dp_accounting.pld import accountant as pacc, common\n"
    P = "common.DifferentialPrivacyParameters"
    return [
        _q(
            "advanced_composition((0.1, 0), 400, δ=1e-5)",
            head,
            f"pacc.advanced_composition({P}(0.1, 0.0), 400, 1e-5)",
            events=(approx(0.1, 0.0, 400),),
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="upper",
            note="KOV optimum on the grid ε(T−2i) only",
        ),
        _q(
            "advanced_composition((0.5, 1e-6), 50, δ=1e-4)",
            head,
            f"pacc.advanced_composition({P}(0.5, 1e-6), 50, 1e-4)",
            events=(approx(0.5, 1e-6, 50),),
            relation="add_remove",
            target="eps",
            at=1e-4,
            role="upper",
        ),
        _q(
            "advanced_composition((0.001, 0), 10000, δ=1e-5)",
            head,
            f"pacc.advanced_composition({P}(0.001, 0.0), 10000, 1e-5)",
            events=(approx(0.001, 0.0, 10_000),),
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="upper",
            note="known pitfall: overflows (exact 0.340640)",
        ),
        _q(
            "get_smallest_epsilon_from_advanced_composition((10, 1e-5), 400)",
            head,
            f"pacc.get_smallest_epsilon_from_advanced_composition({P}(10.0, 1e-5), 400)",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=10.0,
            events_for=lambda e: (approx(e, 0.0, 400),),
        ),
    ]


_CLAIMS = [
    _Peer(
        "peers.dp_accounting.pld",
        "dp_accounting",
        ("dp_accounting",),
        ("dp-accounting",),
        "pld.PLDAccountant, privacy_loss_distribution",
        "dp_accounting's PLD ε(δ) and δ(ε) (pessimistic, add/remove and replace-one) are upper bounds",
        dp_accounting_pld_queries,
    ),
    _Peer(
        "peers.dp_accounting.rdp",
        "dp_accounting",
        ("dp_accounting",),
        ("dp-accounting",),
        "rdp.RdpAccountant",
        "dp_accounting's RDP accountant answers are upper bounds",
        dp_accounting_rdp_queries,
    ),
    _Peer(
        "peers.dp_accounting.calibration",
        "dp_accounting",
        ("dp_accounting",),
        ("dp-accounting",),
        "get_sigma_gaussian, pld.accountant.get_smallest_*, calibrate_dp_mechanism",
        "dp_accounting's calibrated parameters achieve the target (ε, δ)",
        dp_accounting_calibration_queries,
    ),
    _Peer(
        "peers.dp_accounting.advanced_composition",
        "dp_accounting",
        ("dp_accounting",),
        ("dp-accounting",),
        "pld.accountant.advanced_composition",
        "dp_accounting's advanced (KOV) composition is an upper bound on the optimal composition",
        dp_accounting_advanced_queries,
    ),
]
for _p in _CLAIMS:
    register(_p)
