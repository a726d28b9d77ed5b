"""Peer audit of opacus: its RDP / PRV / GDP accountants and get_noise_multiplier."""

from __future__ import annotations

from privcheck.catalogue.peers.core import OPACUS_HINT, Query, RunContext, _Peer, _q, _steps, register
from privcheck.catalogue.peers.events import CALIBRATION_TARGETS, LARGE_EPS_DPSGD, Ev, subsampled_gaussian


# ---------------------------------------------------------------- opacus
def _op(
    label: str,
    cls: str,
    history: list[tuple],
    events: tuple[Ev, ...],
    at: float = 1e-5,
    role: str = "upper",
    note: str = "",
) -> Query:
    body = f"from opacus.accountants import {cls}\nacc = {cls}()\nacc.history = {history!r}\n"
    return _q(
        label,
        body,
        f"acc.get_epsilon(delta={at!r})",
        events=events,
        relation="add_remove",
        target="eps",
        at=at,
        role=role,
        note=note,
    )


def opacus_queries(ctx: RunContext) -> list[Query]:
    """opacus' RDPAccountant and PRVAccountant (bounds) and GaussianAccountant (CLT approximation)."""
    T = _steps(ctx, 10_000, 1_000)
    h = T // 2
    one = [(1.1, 0.01, T)]
    two = [(1.1, 0.01, h), (2.0, 0.01, h)]
    ev1 = (subsampled_gaussian(0.01, 1.1, T),)
    ev2 = (subsampled_gaussian(0.01, 1.1, h), subsampled_gaussian(0.01, 2.0, h))
    gdp_note = "central-limit GDP view (Bu et al. 2020): documented approximation"
    return [
        _op(f"RDPAccountant DP-SGD q=0.01 σ=1.1 T={T}", "RDPAccountant", one, ev1),
        _op(f"PRVAccountant DP-SGD q=0.01 σ=1.1 T={T}", "PRVAccountant", one, ev1),
        _op(
            f"GaussianAccountant DP-SGD q=0.01 σ=1.1 T={T}",
            "GaussianAccountant",
            one,
            ev1,
            role="approximation",
            note=gdp_note,
        ),
        _op(f"RDPAccountant σ=1.1 then σ=2 ({h} steps each)", "RDPAccountant", two, ev2),
        _op(f"PRVAccountant σ=1.1 then σ=2 ({h} steps each)", "PRVAccountant", two, ev2),
        _op(
            f"GaussianAccountant σ=1.1 then σ=2 ({h} steps each)",
            "GaussianAccountant",
            two,
            ev2,
            role="approximation",
            note=gdp_note + "; get_epsilon reads only the last history entry",
        ),
    ] + (
        []
        if ctx.quick
        else [
            _op(f"{cls} DP-SGD q={q} σ={s} T={n} (large-ε regime)", cls, [(s, q, n)], (subsampled_gaussian(q, s, n),))
            for q, s, n in LARGE_EPS_DPSGD
            for cls in ("RDPAccountant", "PRVAccountant")
        ]
    )


def opacus_calibration_queries(ctx: RunContext) -> list[Query]:
    """opacus.accountants.utils.get_noise_multiplier with the rdp, prv and gdp accountants."""
    T = _steps(ctx, 10_000, 1_000)
    head = "from opacus.accountants.utils import get_noise_multiplier\n"
    out = []
    targets = (5.0,) if ctx.quick else (5.0,) + CALIBRATION_TARGETS
    for acc, e in [(acc, e) for e in targets for acc in ("rdp", "prv", "gdp")]:
        out.append(
            _q(
                f"get_noise_multiplier(accountant={acc!r}, q=0.01, T={T}, ({e}, 1e-5))",
                head,
                f"get_noise_multiplier(target_epsilon={e!r}, target_delta=1e-5, sample_rate=0.01, steps={T}, "
                f"accountant={acc!r})",
                relation="add_remove",
                target="eps",
                at=1e-5,
                role="calibration",
                claim_eps=e,
                events_for=lambda z: (subsampled_gaussian(0.01, z, T),),
                approximate=acc == "gdp",
                note="CLT approximation" if acc == "gdp" else "",
            )
        )
    return out


_CLAIMS = [
    _Peer(
        "peers.opacus.accountants",
        "opacus",
        ("opacus",),
        ("opacus", "torch"),
        "accountants.RDPAccountant, PRVAccountant, GaussianAccountant",
        "opacus' RDP and PRV get_epsilon are upper bounds, and the GDP accountant's ε (a documented "
        "approximation) is not below the truth",
        opacus_queries,
        OPACUS_HINT,
    ),
    _Peer(
        "peers.opacus.calibration",
        "opacus",
        ("opacus",),
        ("opacus", "torch"),
        "accountants.utils.get_noise_multiplier",
        "opacus' get_noise_multiplier achieves the target ε with each accountant (gdp: a documented approximation)",
        opacus_calibration_queries,
        OPACUS_HINT,
    ),
]
for _p in _CLAIMS:
    register(_p)
