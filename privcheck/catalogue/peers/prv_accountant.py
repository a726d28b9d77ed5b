"""Peer audit of prv-accountant (Microsoft): PRV accountant and DP-SGD noise calibration."""

from __future__ import annotations

from typing import Sequence

from privcheck.catalogue.peers.core import Query, RunContext, _Peer, _q, _steps, register
from privcheck.catalogue.peers.events import (
    CALIBRATION_TARGETS,
    LARGE_EPS_DPSGD,
    Ev,
    approx,
    gaussian,
    laplace,
    pure,
    subsampled_gaussian,
)

# ---------------------------------------------------------------- prv-accountant
_PRV = (
    "from prv_accountant import PRVAccountant\nfrom prv_accountant.privacy_random_variables import "
    "PoissonSubsampledGaussianMechanism, GaussianMechanism, LaplaceMechanism, PureDPMechanism, "
    "ApproximateDPMechanism\n"
)


def _prv_triplet(
    label: str,
    prvs: str,
    counts: Sequence[int],
    events: tuple[Ev, ...],
    target: str = "eps",
    at: float = 1e-5,
    eps_error: float = 0.01,
    note: str = "",
) -> list[Query]:
    """prv's (lower, estimate, upper) for one composition: three rows from one library call."""
    if target == "eps":
        call = f"acc.compute_epsilon(delta={at!r}, num_self_compositions={list(counts)})"
        derr = at / 1000
    else:
        call = f"acc.compute_delta(epsilon={at!r}, num_self_compositions={list(counts)})"
        derr = 1e-10
    body = (
        _PRV + f"acc = PRVAccountant(prvs=[{prvs}], max_self_compositions={list(counts)}, "
        f"eps_error={eps_error!r}, delta_error={derr!r})\nres = {call}\n"
    )
    common = dict(events=events, relation="add_remove", target=target, at=at)
    rel_note = "prv's PoissonSubsampledGaussianMechanism is the remove direction; judged under add/remove"
    n = (note + "; " if note else "") + (rel_note if any(e.kind.startswith("subsampled") for e in events) else "")
    return [
        _q(f"{label} [lower]", body, "res[0]", role="lower", note=n, **common),
        _q(f"{label} [estimate]", body, "res[1]", role="approximation", note=n, **common),
        _q(f"{label} [upper]", body, "res[2]", role="upper", note=n, **common),
    ]


def prv_queries(ctx: RunContext) -> list[Query]:
    """prv_accountant's PRVAccountant: compute_epsilon / compute_delta (lower, estimate, upper)."""
    T = _steps(ctx, 10_000, 1_000)
    sg = "PoissonSubsampledGaussianMechanism(sampling_probability=0.01, noise_multiplier=1.1)"
    qs = _prv_triplet(f"DP-SGD q=0.01 σ=1.1 T={T}", sg, [T], (subsampled_gaussian(0.01, 1.1, T),))
    qs += _prv_triplet(
        "Gaussian σ=1 at δ=1e-12",
        "GaussianMechanism(noise_multiplier=1.0)",
        [1],
        (gaussian(1.0),),
        at=1e-12,
        note="known: estimate 7.2377 < exact 7.2385",
    )
    qs += _prv_triplet(
        "100 × Gaussian σ=10", "GaussianMechanism(noise_multiplier=10.0)", [100], (gaussian(10.0, count=100),)
    )
    qs += _prv_triplet(
        "10 × Gaussian σ=2 + 20 × Laplace b=2 + 50 × pure ε=0.1",
        "GaussianMechanism(noise_multiplier=2.0), LaplaceMechanism(mu=0.5), PureDPMechanism(eps=0.1)",
        [10, 20, 50],
        (gaussian(2.0, count=10), laplace(2.0, 20), pure(0.1, 50)),
    )
    qs += _prv_triplet("400 × pure ε=0.1", "PureDPMechanism(eps=0.1)", [400], (pure(0.1, 400),))
    qs += _prv_triplet(
        "100 × pure ε=1 (large ε)", "PureDPMechanism(eps=1.0)", [100], (pure(1.0, 100),), note="large total ε"
    )
    qs += _prv_triplet(
        "100 × pure ε=1, δ(ε=20) (large ε)",
        "PureDPMechanism(eps=1.0)",
        [100],
        (pure(1.0, 100),),
        target="delta",
        at=20.0,
        note="large total ε",
    )
    qs += _prv_triplet(
        "50 × (0.5, 1e-6)-DP at δ=1e-4",
        "ApproximateDPMechanism(epsilon=0.5, delta=1e-6)",
        [50],
        (approx(0.5, 1e-6, 50),),
        at=1e-4,
    )
    if not ctx.quick:
        qs += _prv_triplet(
            "Gaussian σ=1 at δ=1e-16",
            "GaussianMechanism(noise_multiplier=1.0)",
            [1],
            (gaussian(1.0),),
            at=1e-16,
            note="tiny δ: absolute error bounds dominate",
        )
        qs += _prv_triplet(
            f"DP-SGD q=0.01 σ=1.1 T={T} at δ=1e-12", sg, [T], (subsampled_gaussian(0.01, 1.1, T),), at=1e-12
        )
        qs += _prv_triplet(
            f"DP-SGD q=0.01 σ=1.1 T={T}, δ(ε=5)", sg, [T], (subsampled_gaussian(0.01, 1.1, T),), target="delta", at=5.0
        )
        for q, s, n in LARGE_EPS_DPSGD:
            qs += _prv_triplet(
                f"DP-SGD q={q} σ={s} T={n} (large-ε regime)",
                f"PoissonSubsampledGaussianMechanism(sampling_probability={q!r}, noise_multiplier={s!r})",
                [n],
                (subsampled_gaussian(q, s, n),),
                eps_error=0.1,
            )
        qs += _prv_triplet(
            "100 × pure ε=1 at δ=1e-12 (large ε, tiny δ)",
            "PureDPMechanism(eps=1.0)",
            [100],
            (pure(1.0, 100),),
            at=1e-12,
        )
        qs += _prv_triplet("Gaussian σ=0.3 (large ε)", "GaussianMechanism(noise_multiplier=0.3)", [1], (gaussian(0.3),))
        qs += _prv_triplet(
            "Gaussian σ=1, δ(ε=1)",
            "GaussianMechanism(noise_multiplier=1.0)",
            [1],
            (gaussian(1.0),),
            target="delta",
            at=1.0,
        )
        qs += _prv_triplet("100 × Laplace b=0.5 (large ε)", "LaplaceMechanism(mu=2.0)", [100], (laplace(0.5, 100),))
        qs += _prv_triplet(
            "DP-SGD q=1e-3 σ=0.8 T=1e5 (long horizon)",
            "PoissonSubsampledGaussianMechanism(sampling_probability=1e-3, noise_multiplier=0.8)",
            [100_000],
            (subsampled_gaussian(1e-3, 0.8, 100_000),),
            eps_error=0.1,
        )
        qs += _prv_triplet(
            "DP-SGD q=1e-3 σ=0.8 T=1e6",
            "PoissonSubsampledGaussianMechanism(sampling_probability=1e-3, noise_multiplier=0.8)",
            [1_000_000],
            (subsampled_gaussian(1e-3, 0.8, 1_000_000),),
            eps_error=0.1,
        )
    return qs


def prv_calibration_queries(ctx: RunContext) -> list[Query]:
    """prv_accountant.dpsgd.find_noise_multiplier (documented tolerance eps_error, default 0.1)."""
    T = _steps(ctx, 10_000, 1_000)
    # the other targets at T = 1000: at T = 10⁴ each costs up to ~2 min (prv's search and our certified ε)
    grid = [(2.0, T)] + ([] if ctx.quick else [(e, 1_000) for e in CALIBRATION_TARGETS if e != 2.0])
    return [
        _q(
            f"find_noise_multiplier(q=0.01, T={T}, ({e}, 1e-5))",
            "from prv_accountant.dpsgd import find_noise_multiplier\n",
            f"find_noise_multiplier(sampling_probability=0.01, num_steps={T}, target_epsilon={e!r}, target_delta=1e-5)",
            relation="add_remove",
            target="eps",
            at=1e-5,
            role="calibration",
            claim_eps=e,
            tolerance=0.1,
            events_for=lambda z, T=T: (subsampled_gaussian(0.01, z, T),),
            note="documented: 'eps_error: Error allowed for final epsilon' (default 0.1)",
        )
        for e, T in grid
    ]


_CLAIMS = [
    _Peer(
        "peers.prv_accountant.prv",
        "prv_accountant",
        ("prv_accountant",),
        ("prv-accountant",),
        "PRVAccountant.compute_epsilon/compute_delta",
        "prv_accountant's (lower, estimate, upper): lower ≤ truth ≤ upper, and the estimate (a documented "
        "approximation, the number users quote) is not below the truth",
        prv_queries,
    ),
    _Peer(
        "peers.prv_accountant.calibration",
        "prv_accountant",
        ("prv_accountant",),
        ("prv-accountant",),
        "dpsgd.find_noise_multiplier",
        "prv_accountant's noise multiplier achieves the target ε within eps_error",
        prv_calibration_queries,
    ),
]
for _p in _CLAIMS:
    register(_p)
