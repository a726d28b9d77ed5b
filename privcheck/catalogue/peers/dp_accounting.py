"""Peer audit of dp-accounting (Google): PLD and RDP accountants, calibration, advanced composition."""

from __future__ import annotations

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


def dp_accounting_pld_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's PLDAccountant (pessimistic PLD, interval 1e-4) and its PLD objects."""
    T = _steps(ctx, 10_000, 1_000)
    sg = f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), {T})"
    p01, p1 = _rr_noise(0.1, 2), _rr_noise(1.0, 4)
    qs = [
        _dpa_pld("Gaussian σ=1, ε(δ=1e-5)", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),)),
        _dpa_pld("Gaussian σ=1, δ(ε=1)", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), target="delta", at=1.0),
        _dpa_pld(
            "100 × Gaussian σ=10",
            "dpa.SelfComposedDpEvent(dpa.GaussianDpEvent(10.0), 100)",
            (gaussian(10.0, count=100),),
        ),
        _dpa_pld("Gaussian σ=1 at δ=1e-12", "dpa.GaussianDpEvent(1.0)", (gaussian(1.0),), at=1e-12),
        _dpa_pld(
            "Gaussian σ=1 at δ=1e-50",
            "dpa.GaussianDpEvent(1.0)",
            (gaussian(1.0),),
            at=1e-50,
            note="known pitfall: inf below ~1e-20",
        ),
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
        _dpa_pld(f"DP-SGD q=0.01 σ=1.1 T={T}", sg, (subsampled_gaussian(0.01, 1.1, T),)),
        _dpa_pld(
            "100 × Poisson(q=0.1) Laplace b=1",
            "dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.1, dpa.LaplaceDpEvent(1.0)), 100)",
            (subsampled_laplace(0.1, 1.0, 100),),
        ),
    ]
    if not ctx.quick:
        qs += [
            _dpa_pld(f"DP-SGD q=0.01 σ=1.1 T={T} at δ=1e-12", sg, (subsampled_gaussian(0.01, 1.1, T),), at=1e-12),
            _dpa_pld(
                f"DP-SGD q=0.01 σ=1.1 T={T}, δ(ε=5)", sg, (subsampled_gaussian(0.01, 1.1, T),), target="delta", at=5.0
            ),
        ]
    if not ctx.quick:
        for q, s, n in LARGE_EPS_DPSGD + (LONG_RUN_DPSGD,):
            regime = "large-ε regime" if q >= 0.5 else "long run"
            qs.append(
                _dpa_pld(
                    f"DP-SGD q={q} σ={s} T={n} ({regime})",
                    f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent({q!r}, dpa.GaussianDpEvent({s!r})), {n})",
                    (subsampled_gaussian(q, s, n),),
                )
            )
    if not ctx.quick:  # large ε: one Gaussian at σ = 0.3 (ε ≈ 19 at δ = 1e-5; 26 at 1e-10)
        qs += [
            _dpa_pld(f"Gaussian σ=0.3 at δ={d:g} (large ε)", "dpa.GaussianDpEvent(0.3)", (gaussian(0.3),), at=d)
            for d in (1e-5, 1e-10)
        ]
    objs = "from dp_accounting.pld import privacy_loss_distribution as pld\n"
    qs.append(
        _q(
            "PLD object, optimistic: DP-SGD q=0.01 σ=1.1 T=10000 at δ=1e-10 (long horizon, tiny δ)",
            objs + "p = pld.from_gaussian_mechanism(1.1, sampling_prob=0.01, pessimistic_estimate=False, "
            "use_connect_dots=False).self_compose(10000)\n",
            "p.get_epsilon_for_delta(1e-10)",
            events=(subsampled_gaussian(0.01, 1.1, 10_000),),
            relation="add_remove",
            target="eps",
            at=1e-10,
            role="lower",
            note="pessimistic_estimate=False: the optimistic discretisation, a lower bound (its reported lower end)",
        )
    )
    qs += [
        _q(
            "PLD object, optimistic: 100 × Gaussian σ=10",
            objs + "p = pld.from_gaussian_mechanism(10.0, pessimistic_estimate=False).self_compose(100)\n",
            "p.get_epsilon_for_delta(1e-05)",
            events=(gaussian(10.0, count=100),),
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="lower",
            note="pessimistic_estimate=False: the optimistic discretisation, a lower bound",
        ),
        _q(
            "PLD object, coarse interval 0.05: 100 × Gaussian σ=10",
            objs + "p = pld.from_gaussian_mechanism(10.0, value_discretization_interval=0.05).self_compose(100)\n",
            "p.get_epsilon_for_delta(1e-05)",
            events=(gaussian(10.0, count=100),),
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="upper",
        ),
    ]
    mixed = (
        "from dp_accounting.pld import privacy_loss_distribution as pld\n"
        "p = pld.from_gaussian_mechanism(2.0).compose(pld.from_laplace_mechanism(1.0))"
        f".compose(pld.from_randomized_response({_rr_noise(1.0, 2)!r}, 2))\n"
    )
    qs.append(
        _q(
            "PLD objects: Gaussian σ=2 + Laplace b=1 + RR ε=1",
            mixed,
            "p.get_epsilon_for_delta(1e-5)",
            events=(gaussian(2.0), laplace(1.0), rr(1.0, 2)),
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="upper",
            note="the accountant object refuses this mix; built from PLD objects",
        )
    )
    return qs


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


def dp_accounting_calibration_queries(ctx: RunContext) -> list[Query]:
    """dp_accounting's calibration helpers: analytic Gaussian, PLD smallest noise, calibrate_dp_mechanism."""
    T = _steps(ctx, 10_000, 1_000)
    head = "import dp_accounting as dpa\nfrom dp_accounting.pld import accountant as pacc, common\n"
    qs = [
        _q(
            "get_sigma_gaussian(ε=1, δ=1e-5)",
            head,
            "dpa.get_sigma_gaussian(1.0, 1e-5)",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=1.0,
            events_for=lambda s: (gaussian(s),),
        ),
        _q(
            "get_epsilon_gaussian(σ=1, δ=1e-5)",
            head,
            "dpa.get_epsilon_gaussian(1.0, 1e-5)",
            events=(gaussian(1.0),),
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="upper",
        ),
        _q(
            "get_epsilon_gaussian(σ=1, δ=1e-50)",
            head,
            "dpa.get_epsilon_gaussian(1.0, 1e-50)",
            events=(gaussian(1.0),),
            relation="add_remove",
            target="eps",
            at=1e-50,
            role="upper",
        ),
        _q(
            "get_sigma_gaussian(ε=15, δ=1e-50)",
            head,
            "dpa.get_sigma_gaussian(15.0, 1e-50)",
            relation="add_remove",
            target="eps",
            at=1e-50,
            role="calibration",
            claim_eps=15.0,
            events_for=lambda s: (gaussian(s),),
        ),
        _q(
            "PLD get_smallest_gaussian_noise((1, 1e-5), 10 queries)",
            head,
            "pacc.get_smallest_gaussian_noise(common.DifferentialPrivacyParameters(1.0, 1e-5), 10)",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=1.0,
            events_for=lambda s: (gaussian(s, count=10),),
        ),
        _q(
            "PLD get_smallest_laplace_noise((1, 1e-5), 5 queries)",
            head,
            "pacc.get_smallest_laplace_noise(common.DifferentialPrivacyParameters(1.0, 1e-5), 5)",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=1.0,
            events_for=lambda b: (laplace(b, 5),),
        ),
        _q(
            f"calibrate_dp_mechanism(RdpAccountant, DP-SGD q=0.01 T={T}, (5, 1e-5))",
            head + "from dp_accounting.rdp import rdp_privacy_accountant as ra\n",
            f"dpa.calibrate_dp_mechanism(ra.RdpAccountant, lambda z: dpa.SelfComposedDpEvent("
            f"dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(z)), {T}), 5.0, 1e-5)",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=5.0,
            events_for=lambda z: (subsampled_gaussian(0.01, z, T),),
        ),
    ]
    if not ctx.quick:
        qs += [
            _q(
                f"get_sigma_gaussian(ε={e}, δ=1e-5)",
                head,
                f"dpa.get_sigma_gaussian({e!r}, 1e-5)",
                relation="add_remove",
                target="eps",
                at=1e-5,
                role="calibration",
                claim_eps=e,
                events_for=lambda s: (gaussian(s),),
            )
            for e in CALIBRATION_TARGETS + (50.0,)
        ]
        qs.append(
            _q(
                "calibrate_dp_mechanism(PLDAccountant, DP-SGD q=0.01 T=200, (1, 1e-5))",
                head + "from dp_accounting.pld import pld_privacy_accountant as pa\n",
                "dpa.calibrate_dp_mechanism(pa.PLDAccountant, lambda z: dpa.SelfComposedDpEvent("
                "dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(z)), 200), 1.0, 1e-5)",
                relation="add_remove",
                target="eps",
                at=1e-5,
                role="calibration",
                claim_eps=1.0,
                events_for=lambda z: (subsampled_gaussian(0.01, z, 200),),
            )
        )
    return qs


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
